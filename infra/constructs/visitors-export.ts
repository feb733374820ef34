/**
 * The nightly visitors export: an EventBridge schedule invoking the export function, which
 * writes the day's Parquet files and manifest into the warehouse.
 */
import { Duration, Validations } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { SqsDestination } from 'aws-cdk-lib/aws-lambda-destinations';
import type * as logs from 'aws-cdk-lib/aws-logs';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { BundledFunction, SERVICE_NAMES, commonEnvironment, type ApiSettings } from './lambda-defaults.js';
import type { Warehouse } from './warehouse.js';

/** The default schedule: 02:30 UTC, once yesterday (UTC) is over and its analytics settled. */
export const DEFAULT_EXPORT_SCHEDULE = 'cron(30 2 * * ? *)';

/** Props of {@link VisitorsExport}. */
export interface VisitorsExportProps extends ApiSettings {
  readonly warehouse: Warehouse;
  /**
   * EventBridge schedule expression (`cron(…)` or `rate(…)`, UTC). The rule delivers a
   * ScheduledEvent whose `time` fixes the day exported, retries included.
   * @default DEFAULT_EXPORT_SCHEDULE, 'cron(30 2 * * ? *)'
   */
  readonly schedule?: string | undefined;
  /**
   * `EXPORT_HEAL_DAYS`: recent days without a manifest that each run exports again.
   * @default 7
   */
  readonly healDays?: number | undefined;
  /**
   * `EXPORT_PAGE_LIMIT`: rows per API page (the API allows 250; fewer pages = less of the ~100 req/h budget).
   * @default 250
   */
  readonly pageLimit?: number | undefined;
  /**
   * Function timeout. A day is ~N/250 requests, each possibly waiting out a 429; the Lambda maximum leaves the most room.
   * @default Duration.minutes(15)
   */
  readonly timeout?: Duration | undefined;
  /**
   * Function memory (MB). Parquet is streamed row group by row group (~150 MB RSS for 1M rows).
   * @default 512
   */
  readonly memorySize?: number | undefined;
  /** @default logs.RetentionDays.ONE_MONTH */
  readonly logRetention?: logs.RetentionDays | undefined;
}

export class VisitorsExport extends Construct {
  readonly function: NodejsFunction;
  readonly logGroup: logs.LogGroup;
  readonly rule: events.Rule;
  /**
   * Where an invocation lands after Lambda's async retries are exhausted (and where EventBridge
   * puts an event it could not deliver): one place to look, one alarm.
   */
  readonly failureQueue: sqs.Queue;

  constructor(scope: Construct, id: string, props: VisitorsExportProps) {
    super(scope, id);

    this.failureQueue = new sqs.Queue(this, 'FailureQueue', {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    Validations.of(this.failureQueue).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason:
        'This queue is itself the dead-letter destination of the export (Lambda on-failure destination and EventBridge target DLQ); nothing consumes it, so it needs no DLQ of its own.',
    });

    const bundled = new BundledFunction(this, 'Handler', {
      entry: 'functions/export/handler.ts',
      description: 'Nightly export of Mintlify unique visitors to Parquet',
      timeout: props.timeout ?? Duration.minutes(15),
      memorySize: props.memorySize ?? 512,
      logRetention: props.logRetention,
      // One run at a time: the analytics API budget (~100 req/h per organisation) is shared,
      // and two runs would also race on the same day's files.
      reservedConcurrentExecutions: 1,
      environment: {
        ...commonEnvironment(props, SERVICE_NAMES.export, props.warehouse.destination),
        EXPORT_HEAL_DAYS: String(props.healDays ?? 7),
        EXPORT_PAGE_LIMIT: String(props.pageLimit ?? 250),
      },
    });
    this.function = bundled.function;
    this.logGroup = bundled.logGroup;

    // The handler throws when any day failed; Lambda retries the same event (same `time`,
    // same day) twice, then hands it to the failure queue.
    this.function.configureAsyncInvoke({
      retryAttempts: 2,
      maxEventAge: Duration.hours(6),
      onFailure: new SqsDestination(this.failureQueue),
    });

    props.warehouse.grantExportReadWrite(this.function);
    props.apiKeySecret.grantRead(this.function);

    this.rule = new events.Rule(this, 'Schedule', {
      description: 'Nightly Mintlify visitors export (the event time fixes the day)',
      schedule: events.Schedule.expression(props.schedule ?? DEFAULT_EXPORT_SCHEDULE),
      targets: [
        new targets.LambdaFunction(this.function, {
          deadLetterQueue: this.failureQueue,
          retryAttempts: 2,
          maxEventAge: Duration.hours(6),
        }),
      ],
    });
  }
}
