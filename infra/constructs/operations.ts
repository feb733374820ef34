/**
 * Operations: the alarms that tell a human something needs doing, and the SNS topic they
 * notify. Each alarm's description names the likely cause and the first step, and points at
 * its entry in the runbook of docs/operations.md.
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
import type { BudgetSpec } from '../../functions/shared/pacing/budget-spec.js';
import { EXPORT_METRICS, FOLLOWUP_METRICS } from '../../functions/shared/metric-names.js';
import { METRICS_NAMESPACE, SERVICE_NAMES } from './lambda-defaults.js';

/** Where every alarm's description sends the reader. */
export const RUNBOOK = 'docs/operations.md → Runbook';

/** Props of {@link Operations}. */
export interface OperationsProps {
  readonly exportFunction: lambda.IFunction;
  /** The export's on-failure queue (failed runs after retries, undeliverable schedule events). */
  readonly exportFailureQueue: sqs.IQueue;
  readonly followUpFunction: lambda.IFunction;
  readonly followUpDeadLetterQueue: sqs.IQueue;
  /** The export's request budget: the backlog alarm fires when more than a day of it is queued. */
  readonly budget: BudgetSpec;
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
    readonly backlog: cloudwatch.Alarm;
    readonly exportFailures: cloudwatch.Alarm;
    readonly followUpErrors: cloudwatch.Alarm;
    readonly followUpDeadLetters: cloudwatch.Alarm;
    readonly promptsUncertain: cloudwatch.Alarm;
    readonly outcomesNotDelivered: cloudwatch.Alarm;
    readonly schemaDrift: cloudwatch.Alarm;
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
    const hour = Duration.hours(1);
    const budgetPerDay = Math.floor((props.budget.requests * 86_400_000) / props.budget.windowMs);
    this.alarms = {
      exportErrors: this.alarm('ExportErrors', {
        description: `Export: a unit failed (a broken paging rule, a malformed answer, a refused request or a failed write); waiting for budget never raises this. First step: \`mintlify-exporter status\` or the Athena query "Last 14 runs" names the unit and its error; the next hourly run retries it. Runbook: ${RUNBOOK}: ExportErrors.`,
        metric: props.exportFunction.metricErrors({ period: fiveMinutes, statistic: 'Sum' }),
        threshold: 1,
      }),
      missingDays: this.alarm('MissingDays', {
        description: `Export: units of the heal window are still without a manifest although the budget could have carried them (they failed, or were never reached while budget was left). First step: \`mintlify-exporter status --days 8\` for the reasons. Runbook: ${RUNBOOK}: MissingDays.`,
        // Every hourly run publishes one value; units merely waiting for budget are not counted.
        metric: exporterMetric(EXPORT_METRICS.missingDays, SERVICE_NAMES.export, 'Maximum', hour),
        threshold: 0,
        evaluationPeriods: 3,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      }),
      backlog: this.alarm('Backlog', {
        description: `Export: more than a day of request budget (${budgetPerDay} requests) is queued for 6 hours: the budget cannot carry the configured projects and datasets, so the backlog only grows. First step: \`mintlify-exporter plan\`; then export fewer datasets (EXPORT_DATASETS), raise ANALYTICS_BUDGET if the organisation's other tools leave room, or accept a slower backfill. Runbook: ${RUNBOOK}: Backlog.`,
        metric: exporterMetric(EXPORT_METRICS.backlogRequests, SERVICE_NAMES.export, 'Minimum', hour),
        threshold: budgetPerDay,
        evaluationPeriods: 6,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      }),
      exportFailures: this.alarm('ExportFailureQueue', {
        description: `Export: an invocation failed (its units are retried by the next hourly run) or EventBridge could not invoke the function. First step: read the message in the export failure queue (ExportFailureQueueUrl), then the function's log. Runbook: ${RUNBOOK}: ExportFailureQueue.`,
        metric: props.exportFailureQueue.metricApproximateNumberOfMessagesVisible({ period: fiveMinutes, statistic: 'Maximum' }),
        threshold: 1,
      }),
      followUpErrors: this.alarm('FollowUpErrors', {
        description: `Follow-ups: the consumer threw (a whole batch failed; its messages come back after the visibility timeout). First step: the follow-up function's log group. Runbook: ${RUNBOOK}: FollowUpErrors.`,
        metric: props.followUpFunction.metricErrors({ period: fiveMinutes, statistic: 'Sum' }),
        threshold: 1,
      }),
      followUpDeadLetters: this.alarm('FollowUpDeadLetters', {
        description: `Follow-ups: messages are in the dead-letter queue (malformed, rejected by the API, or uncertain). First step: read their "reason" attribute (FollowUpDeadLetterQueueUrl), fix, then redrive or delete. Runbook: ${RUNBOOK}: FollowUpDeadLetters.`,
        metric: props.followUpDeadLetterQueue.metricApproximateNumberOfMessagesVisible({ period: fiveMinutes, statistic: 'Maximum' }),
        threshold: 1,
      }),
      promptsUncertain: this.alarm('PromptsUncertain', {
        description: `Follow-ups: a prompt may or may not have reached its job (timeout or 5xx after sending); it was not re-sent. First step: check the job in the dashboard and re-enqueue under a new requestId only if it never arrived. Runbook: ${RUNBOOK}: PromptsUncertain.`,
        metric: exporterMetric(FOLLOWUP_METRICS.uncertain, SERVICE_NAMES.followUp, 'Sum', fiveMinutes),
        threshold: 1,
      }),
      // One failed publish is retried on the message's redelivery; only a steady failure (the
      // topic, its key or the role's permission broken) needs a human.
      outcomesNotDelivered: this.alarm('OutcomeNotifyFailures', {
        description: `Follow-ups: outcomes have failed to reach the outcomes topic for 15 minutes; their messages are deferred and retried, and go to the dead-letter queue once the queue's maxReceiveCount runs out, so producers hear nothing meanwhile. First step: the follow-up function's log names the publish error (the topic's KMS key policy, the role's sns:Publish, the topic deleted). Runbook: ${RUNBOOK}: OutcomeNotifyFailures.`,
        metric: exporterMetric(FOLLOWUP_METRICS.notifyFailures, SERVICE_NAMES.followUp, 'Sum', fiveMinutes),
        threshold: 1,
        evaluationPeriods: 3,
      }),
      // Low severity: nothing was lost and nothing failed; someone should look within days.
      schemaDrift: this.alarm('SchemaDrift', {
        description: `Export (low severity, nothing lost): the API sent fields or enum values this version does not know; the rows were written, new fields kept in the unknown_fields column, new values as sent. First step: the run's warning or a manifest's "drift" names them; query unknown_fields; an upgrade may turn them into typed columns. Runbook: ${RUNBOOK}: SchemaDrift.`,
        metric: exporterMetric(EXPORT_METRICS.schemaDrift, SERVICE_NAMES.export, 'Sum', hour),
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
      /** @default 1 */
      evaluationPeriods?: number;
    },
  ): cloudwatch.Alarm {
    const alarm = new cloudwatch.Alarm(this, id, {
      alarmDescription: options.description,
      metric: options.metric,
      threshold: options.threshold,
      comparisonOperator: options.comparisonOperator ?? cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: options.evaluationPeriods ?? 1,
      // No datapoint means nothing happened (no error, no message), not an outage.
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    alarm.addAlarmAction(new actions.SnsAction(this.topic));
    return alarm;
  }
}

/** A metric the functions publish through Powertools (EMF), dimensioned by `service`. */
export function exporterMetric(metricName: string, service: string, statistic: string, period: Duration, label?: string): cloudwatch.Metric {
  return new cloudwatch.Metric({
    namespace: METRICS_NAMESPACE,
    metricName,
    dimensionsMap: { service },
    statistic,
    period,
    ...(label !== undefined ? { label } : {}),
  });
}
