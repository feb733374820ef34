/**
 * The analytics export: an hourly EventBridge schedule invoking the export function. Each run
 * drains what the request budget and its 15 minutes allow — yesterday's units once they are
 * due, partial units, missing days, backfill, refresh — checkpoints the rest and returns. The
 * budget ledger, unit leases and backlog live in the shared state table. A run that settles a
 * month builds its monthly roll-ups (functions/warehouse/lake/rollup-build.ts) with DuckDB, which its
 * asset carries (duckdb-bundling.ts: x86_64, the installed packages copied in, HOME=/tmp) and
 * which it loads only then.
 */
import { Duration } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { SqsDestination } from 'aws-cdk-lib/aws-lambda-destinations';
import type * as logs from 'aws-cdk-lib/aws-logs';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { deadLetterQueue } from './dead-letter-queue.js';
import { Construct } from 'constructs';
import { EXPORT_KEY_PREFIX } from '../../functions/shared/state-keys.js';
import { grantStateKeys } from './state-keys.js';
import { BundledFunction, SERVICE_NAMES, commonEnvironment, type ApiSettings, type FunctionEnvironment } from './lambda-defaults.js';
import type { Warehouse } from './warehouse.js';
import { DUCKDB_ENVIRONMENT, duckDbBundling } from './duckdb-bundling.js';
import { CONFIG_DEFAULTS, ENV_DEFAULTS } from '../../functions/settings/config.js';
import { DATASET_NAMES, type DatasetName } from '../../functions/warehouse/catalog.js';
import type { PersonalDataKey } from './personal-data-key.js';

/**
 * The default schedule: every hour at :05. Each run spends what the budget allows and
 * checkpoints; a day becomes due `settleHours` after it ends.
 */
export const DEFAULT_EXPORT_SCHEDULE = 'cron(5 * * * ? *)';

/**
 * Memory of the export function and of the organisations' workers (MB). Parquet is streamed row
 * group by row group (~150 MB RSS for 1M rows); a run that settles a month also builds its
 * roll-ups with DuckDB in the same process, one table and project at a time
 * (bench/lake-build.ts measures a month's build).
 */
export const DEFAULT_EXPORT_MEMORY_MB = 1024;

/** Props of {@link AnalyticsExport}. */
export interface AnalyticsExportProps extends ApiSettings {
  readonly warehouse: Warehouse;
  /** Holds the budget ledger, unit leases and backlog entries (`EXPORT_STATE_TABLE`); partition key `pk`. */
  readonly stateTable: dynamodb.Table;
  /**
   * EventBridge schedule expression (`cron(…)` or `rate(…)`, UTC). The event's `time` is the
   * run's "now", retries included.
   * @default DEFAULT_EXPORT_SCHEDULE, 'cron(5 * * * ? *)'
   */
  readonly schedule?: string | undefined;
  /**
   * `EXPORT_HEAL_DAYS`: recent days whose missing units each run exports again.
   * @default 7
   */
  readonly healDays?: number | undefined;
  /**
   * `EXPORT_DATASETS`: the datasets exported.
   * @default - every dataset
   */
  readonly datasets?: readonly DatasetName[] | undefined;
  /** The key of the personal-data `hmac` columns (`PERSONAL_DATA_KEY_SECRET_ARN`): the export may read it. */
  readonly personalDataKey: PersonalDataKey;
  /**
   * `PERSONAL_DATA_POLICY`: overrides of the personal columns' policies (`feedback.contact=drop,…`).
   * @default - the defaults of the table definitions (docs/privacy.md)
   */
  readonly personalDataPolicy?: string | undefined;
  /**
   * `PERSONAL_DATA_RETENTION_DAYS`: days of the tables holding personal columns are deleted after this many days.
   * @default - kept
   */
  readonly personalDataRetentionDays?: number | undefined;
  /**
   * `ANALYTICS_BUDGET`: analytics requests allowed to start in any sliding window, shared by
   * every run (the service allows 100 per organisation per hour for every tool).
   * @default '90/1h'
   */
  readonly budget?: string | undefined;
  /**
   * `EXPORT_SETTLE_HOURS`: a day is due this long after it ends (the service ingests late events).
   * @default 2
   */
  readonly settleHours?: number | undefined;
  /**
   * `EXPORT_REFRESH_DAYS`: recent days whose `feedback` is exported again once a day (its status changes later).
   * @default 7
   */
  readonly refreshDays?: number | undefined;
  /**
   * Function timeout: the run waits for budget within it and checkpoints before it ends; the Lambda maximum drains the most per hour.
   * @default Duration.minutes(15)
   */
  readonly timeout?: Duration | undefined;
  /**
   * Function memory (MB).
   * @default DEFAULT_EXPORT_MEMORY_MB
   */
  readonly memorySize?: number | undefined;
  /** @default logs.RetentionDays.ONE_MONTH */
  readonly logRetention?: logs.RetentionDays | undefined;
  /**
   * Whether the schedule runs it (a deployment for many organisations runs its workers instead).
   * @default true
   */
  readonly scheduled?: boolean | undefined;
}

export class AnalyticsExport extends Construct {
  readonly function: NodejsFunction;
  readonly logGroup: logs.LogGroup;
  readonly rule: events.Rule;
  /**
   * Where an invocation lands after Lambda's async retries are exhausted (and where EventBridge
   * puts an event it could not deliver): one place to look, one alarm.
   */
  readonly failureQueue: sqs.Queue;

  constructor(scope: Construct, id: string, props: AnalyticsExportProps) {
    super(scope, id);

    this.failureQueue = deadLetterQueue(this, 'FailureQueue', {
      reason:
        'This queue is itself the dead-letter destination of the export (Lambda on-failure destination and EventBridge target DLQ); nothing consumes it, so it needs no DLQ of its own.',
    });

    const bundled = new BundledFunction(this, 'Handler', {
      entry: 'functions/export/handler.ts',
      description: 'Hourly export of Mintlify analytics to Parquet, paced by the request budget',
      timeout: props.timeout ?? Duration.minutes(15),
      memorySize: props.memorySize ?? DEFAULT_EXPORT_MEMORY_MB,
      logRetention: props.logRetention,
      // The monthly roll-ups a run builds when it settles a month: DuckDB in the asset, loaded then.
      native: duckDbBundling({ queries: false }),
      // One run at a time: the analytics budget is shared, so a second run would only wait.
      // (Leases keep two writers off one unit anyway, e.g. a run and a CLI backfill.)
      reservedConcurrentExecutions: 1,
      environment: {
        ...DUCKDB_ENVIRONMENT,
        ...commonEnvironment(props, SERVICE_NAMES.export, props.warehouse.destination),
        EXPORT_STATE_TABLE: props.stateTable.tableName,
        // Each committed day is registered as a partition of its tables (Spectrum, Spark, Trino).
        EXPORT_GLUE_DATABASE: props.warehouse.database.databaseName,
        EXPORT_HEAL_DAYS: String(props.healDays ?? CONFIG_DEFAULTS.healDays),
        EXPORT_DATASETS: (props.datasets ?? DATASET_NAMES).join(','),
        PERSONAL_DATA_KEY_SECRET_ARN: props.personalDataKey.secret.secretArn,
        ...(props.personalDataPolicy ? { PERSONAL_DATA_POLICY: props.personalDataPolicy } : {}),
        ...(props.personalDataRetentionDays !== undefined ? { PERSONAL_DATA_RETENTION_DAYS: String(props.personalDataRetentionDays) } : {}),
        ANALYTICS_BUDGET: props.budget ?? ENV_DEFAULTS.ANALYTICS_BUDGET,
        EXPORT_SETTLE_HOURS: String(props.settleHours ?? CONFIG_DEFAULTS.settleHours),
        EXPORT_REFRESH_DAYS: String(props.refreshDays ?? CONFIG_DEFAULTS.refreshDays),
      } satisfies FunctionEnvironment<'export'>,
    });
    this.function = bundled.function;
    this.logGroup = bundled.logGroup;

    // The handler throws only when a unit truly failed (waiting for budget is not a failure).
    // No immediate retry: the next hourly run plans the failed unit again; the event goes to
    // the failure queue as a record.
    this.function.configureAsyncInvoke({
      retryAttempts: 0,
      maxEventAge: Duration.hours(6),
      onFailure: new SqsDestination(this.failureQueue),
    });

    props.warehouse.grantExportReadWrite(this.function);
    props.warehouse.grantPartitionRegistration(this.function);
    // Its budget ledger, leases and backlog only (a Scan lists the backlog).
    grantStateKeys(this.function, props.stateTable, { prefix: EXPORT_KEY_PREFIX, scan: true });
    props.apiKeySecret.grantRead(this.function);
    props.personalDataKey.grantRead(this.function);

    this.rule = new events.Rule(this, 'Schedule', {
      description: 'Hourly Mintlify analytics export (drains what the request budget allows)',
      schedule: events.Schedule.expression(props.schedule ?? DEFAULT_EXPORT_SCHEDULE),
      ...(props.scheduled === false ? { enabled: false } : {}),
      targets: [
        new targets.LambdaFunction(this.function, {
          deadLetterQueue: this.failureQueue,
          retryAttempts: 2,
          maxEventAge: Duration.hours(1),
        }),
      ],
    });
  }
}
