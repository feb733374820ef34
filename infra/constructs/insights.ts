/**
 * Insights: the SNS topic that tells people about their data — the weekly report's digest,
 * anomalies and stale datasets (message attribute `kind`: `weekly-report` | `anomaly` | `stale`,
 * and `projectId` where one applies) — and the hourly check that finds anomalies and stale
 * datasets (functions/insights/), scheduled a little after the export.
 *
 * The topic is encrypted with a key of its own and refuses plain-HTTP publishers, as the
 * follow-up outcomes topic is; only the insights functions may publish to it.
 */
import { Duration, Validations } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import type * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type * as logs from 'aws-cdk-lib/aws-logs';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';
import { grantStateKeys } from './state-keys.js';
import { INSIGHTS_KEY_PREFIX } from '../../functions/insights/state.js';
import { rootOf } from '../../functions/warehouse/lake/layout.js';
import { DATASET_NAMES, type DatasetName } from '../../functions/warehouse/catalog.js';
import { CONFIG_DEFAULTS } from '../../functions/settings/config.js';
import { INSIGHTS_SERVICE } from '../../functions/shared/metric-names.js';
import { DUCKDB_ENTRY, DUCKDB_ENVIRONMENT, duckDbBundling } from './duckdb-bundling.js';
import { BundledFunction, runtimeEnvironment, type FunctionEnvironment, type LogLevel } from './lambda-defaults.js';
import type { Warehouse } from './warehouse.js';

/** Every hour at :35: the export starts at :05 and runs at most 15 minutes. */
export const DEFAULT_INSIGHTS_SCHEDULE = 'cron(35 * * * ? *)';

/** Props of {@link Insights}. */
export interface InsightsProps {
  readonly warehouse: Warehouse;
  /** The deployment's state table: what was told is kept under `insights#…` keys. */
  readonly stateTable: dynamodb.Table;
  readonly projectIds: readonly string[];
  /** `EXPORT_DATASETS`: the datasets whose freshness is checked. @default - every dataset */
  readonly datasets?: readonly DatasetName[] | undefined;
  /** `EXPORT_SETTLE_HOURS`. @default 2 */
  readonly settleHours?: number | undefined;
  /** `ANOMALY_DROP`. @default 0.5 */
  readonly anomalyDrop?: number | undefined;
  /** `ANOMALY_RISE`. @default 3 */
  readonly anomalyRise?: number | undefined;
  /** @default DEFAULT_INSIGHTS_SCHEDULE, 'cron(35 * * * ? *)' */
  readonly schedule?: string | undefined;
  /**
   * E-mail address subscribed to the insights topic (every kind; the recipient confirms the
   * subscription and may narrow it with a filter policy on `kind`).
   * @default - no subscription
   */
  readonly reportEmail?: string | undefined;
  /** @default 'INFO' */
  readonly logLevel?: LogLevel | undefined;
  /** @default logs.RetentionDays.ONE_MONTH */
  readonly logRetention?: logs.RetentionDays | undefined;
  /**
   * A deployment for many organisations: the check runs once per organisation's lake `orgs/<id>/`
   * (functions/insights/organisations.ts), its projects found from its manifests.
   * @default false
   */
  readonly organisations?: boolean | undefined;
}

export class Insights extends Construct {
  /** The insights topic (output `InsightsTopicArn`). */
  readonly topic: sns.Topic;
  readonly key: kms.Key;
  readonly checkFunction: NodejsFunction;
  readonly logGroup: logs.LogGroup;
  readonly rule: events.Rule;
  /** The check threw (a read, the state table or a publish failed). */
  readonly checkErrors: cloudwatch.Alarm;

  constructor(scope: Construct, id: string, props: InsightsProps) {
    super(scope, id);

    // A key of our own: grantPublish then names it exactly (with the AWS-managed alias/aws/sns
    // it can only grant on every key of the account).
    this.key = new kms.Key(this, 'TopicKey', { description: 'Encrypts the mintlify-exporter insights topic', enableKeyRotation: true });
    this.topic = new sns.Topic(this, 'Topic', { displayName: 'mintlify-exporter insights', masterKey: this.key, enforceSSL: true });
    if (props.reportEmail !== undefined) this.topic.addSubscription(new subscriptions.EmailSubscription(props.reportEmail));

    const bundled = new BundledFunction(this, 'Check', {
      entry: DUCKDB_ENTRY,
      handler: props.organisations === true ? 'checkOrganisations' : 'check',
      description: 'Hourly: anomalies of newly complete days and stale datasets, told on the insights topic',
      timeout: Duration.minutes(5),
      memorySize: 1024,
      logRetention: props.logRetention,
      reservedConcurrentExecutions: 1,
      native: duckDbBundling(),
      environment: {
        ...DUCKDB_ENVIRONMENT,
        MINTLIFY_PROJECT_IDS: props.projectIds.join(','),
        EXPORT_DESTINATION: props.warehouse.destination,
        EXPORT_STATE_TABLE: props.stateTable.tableName,
        EXPORT_DATASETS: (props.datasets ?? DATASET_NAMES).join(','),
        EXPORT_SETTLE_HOURS: String(props.settleHours ?? CONFIG_DEFAULTS.settleHours),
        ANOMALY_DROP: String(props.anomalyDrop ?? CONFIG_DEFAULTS.anomalyDrop),
        ANOMALY_RISE: String(props.anomalyRise ?? CONFIG_DEFAULTS.anomalyRise),
        INSIGHTS_TOPIC_ARN: this.topic.topicArn,
        ...runtimeEnvironment(INSIGHTS_SERVICE, props.logLevel),
      } satisfies FunctionEnvironment<'insights'>,
    });
    this.checkFunction = bundled.function;
    this.logGroup = bundled.logGroup;

    if (props.organisations === true) props.warehouse.grantOrganisationsInsightsCheck(this.checkFunction, rootOf('anomalies'));
    props.warehouse.grantWarehouseRead(this.checkFunction);
    props.warehouse.grantInsightsRecordsWrite(this.checkFunction, rootOf('anomalies'));
    this.grantPublish(bundled.role);
    // Its own documents only: the item's key starts with `insights#`.
    grantStateKeys(bundled.role, props.stateTable, { prefix: INSIGHTS_KEY_PREFIX });

    this.rule = new events.Rule(this, 'Schedule', {
      description: 'Hourly insights check (anomalies, stale datasets), after the export',
      schedule: events.Schedule.expression(props.schedule ?? DEFAULT_INSIGHTS_SCHEDULE),
      targets: [new targets.LambdaFunction(this.checkFunction, { retryAttempts: 2, maxEventAge: Duration.hours(1) })],
    });

    this.checkErrors = new cloudwatch.Alarm(this, 'CheckErrors', {
      alarmDescription:
        "Insights: the hourly check failed (reading the warehouse, the state table or publishing to the insights topic); the next hour tries the same days again, nothing is lost. First step: the insights check function's log. Runbook: docs/operations.md → Runbook: InsightsCheckErrors.",
      metric: this.checkFunction.metricErrors({ period: Duration.hours(1), statistic: 'Sum' }),
      threshold: 1,
      evaluationPeriods: 3,
      datapointsToAlarm: 3,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
  }

  /** Lets `role` publish to the insights topic (and use its key for that), nothing else. */
  grantPublish(role: iam.Role): void {
    this.topic.grantPublish(role);
    Validations.of(role).acknowledge({
      id: 'AwsSolutions-IAM5[Action::kms:GenerateDataKey*]',
      reason: "Publishing to the encrypted insights topic: kms:GenerateDataKey* on that topic's own key only (grantPublish names the key exactly).",
    });
  }
}
