/**
 * Operations: the alarms that tell a human something needs doing, and the SNS topic they
 * notify. Each alarm maps to one action in the README's runbook.
 */
import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { METRICS_NAMESPACE, SERVICE_NAMES } from './lambda-defaults.js';

/** Props of {@link Operations}. */
export interface OperationsProps {
  readonly exportFunction: lambda.IFunction;
  /** The export's on-failure queue (failed runs after retries, undeliverable schedule events). */
  readonly exportFailureQueue: sqs.IQueue;
  readonly followUpFunction: lambda.IFunction;
  readonly followUpDeadLetterQueue: sqs.IQueue;
  /**
   * E-mail address subscribed to the alarm topic (the recipient must confirm the subscription).
   * @default - no subscription; subscribe to the topic yourself
   */
  readonly alarmEmail?: string | undefined;
}

export class Operations extends Construct {
  readonly topic: sns.Topic;
  readonly alarms: {
    readonly exportErrors: cloudwatch.Alarm;
    readonly missingDays: cloudwatch.Alarm;
    readonly exportFailures: cloudwatch.Alarm;
    readonly followUpErrors: cloudwatch.Alarm;
    readonly followUpDeadLetters: cloudwatch.Alarm;
    readonly promptsUncertain: cloudwatch.Alarm;
  };

  constructor(scope: Construct, id: string, props: OperationsProps) {
    super(scope, id);

    // A customer-managed key: CloudWatch cannot publish to a topic encrypted with the
    // AWS-managed `alias/aws/sns` key, whose policy cannot be changed to let it in.
    const key = new kms.Key(this, 'TopicKey', {
      description: 'Encrypts the mintlify-exporter alarm topic',
      enableKeyRotation: true,
    });
    key.addToResourcePolicy(
      new iam.PolicyStatement({
        principals: [new iam.ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
        resources: ['*'], // in a key policy, "*" means this key
      }),
    );
    this.topic = new sns.Topic(this, 'Topic', {
      displayName: 'mintlify-exporter alarms',
      masterKey: key,
      enforceSSL: true,
    });
    if (props.alarmEmail !== undefined) {
      this.topic.addSubscription(new subscriptions.EmailSubscription(props.alarmEmail));
    }

    const fiveMinutes = Duration.minutes(5);
    this.alarms = {
      exportErrors: this.alarm('ExportErrors', {
        description: 'The nightly export failed (an error or a day not fully written). See the export log group; Lambda retries twice.',
        metric: props.exportFunction.metricErrors({ period: fiveMinutes, statistic: 'Sum' }),
        threshold: 1,
      }),
      missingDays: this.alarm('MissingDays', {
        description:
          'At the end of the last export run, some day of the heal window still had no manifest (no complete export). The next nightly run retries it; check the export log for why it failed.',
        // Evaluated per UTC day: the nightly run publishes one value; no run = no datapoint.
        metric: exporterMetric('MissingDays', SERVICE_NAMES.export, 'Maximum', Duration.days(1)),
        threshold: 0,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      }),
      exportFailures: this.alarm('ExportFailureQueue', {
        description: 'An export invocation was abandoned after its retries (or the schedule could not invoke it): see the export failure queue.',
        metric: props.exportFailureQueue.metricApproximateNumberOfMessagesVisible({ period: fiveMinutes, statistic: 'Maximum' }),
        threshold: 1,
      }),
      followUpErrors: this.alarm('FollowUpErrors', {
        description: 'The follow-up consumer threw (a whole batch failed). See its log group.',
        metric: props.followUpFunction.metricErrors({ period: fiveMinutes, statistic: 'Sum' }),
        threshold: 1,
      }),
      followUpDeadLetters: this.alarm('FollowUpDeadLetters', {
        description: 'Follow-up messages are in the dead-letter queue (each carries a reason attribute). Fix and redrive, or delete.',
        metric: props.followUpDeadLetterQueue.metricApproximateNumberOfMessagesVisible({ period: fiveMinutes, statistic: 'Maximum' }),
        threshold: 1,
      }),
      promptsUncertain: this.alarm('PromptsUncertain', {
        description:
          'A follow-up prompt may or may not have reached its job (timeout or 5xx after sending); it was not re-sent. Check the job and resend by hand if needed.',
        metric: exporterMetric('PromptsUncertain', SERVICE_NAMES.followUp, 'Sum', fiveMinutes),
        threshold: 1,
      }),
    };
  }

  private alarm(
    id: string,
    options: {
      description: string;
      metric: cloudwatch.IMetric;
      threshold: number;
      comparisonOperator?: cloudwatch.ComparisonOperator;
    },
  ): cloudwatch.Alarm {
    const alarm = new cloudwatch.Alarm(this, id, {
      alarmDescription: options.description,
      metric: options.metric,
      threshold: options.threshold,
      comparisonOperator:
        options.comparisonOperator ?? cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
      // No datapoint means nothing happened (no error, no message), not an outage.
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    alarm.addAlarmAction(new actions.SnsAction(this.topic));
    return alarm;
  }
}

/** A metric the functions publish through Powertools (EMF), dimensioned by `service`. */
function exporterMetric(
  metricName: string,
  service: string,
  statistic: string,
  period: Duration,
): cloudwatch.Metric {
  return new cloudwatch.Metric({
    namespace: METRICS_NAMESPACE,
    metricName,
    dimensionsMap: { service },
    statistic,
    period,
  });
}
