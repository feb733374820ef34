/**
 * Many organisations in one deployment (context `organisations=true`), on AWS's own engines:
 * the schedule starts the dispatcher, which lists the organisations' secrets (one per
 * organisation under `secretPrefix`: adding one needs no deploy) and sends one message per
 * organisation to a queue; the export workers take them one at a time each, with bounded
 * concurrency (the event source's maximum concurrency), and report a failed organisation as a
 * batch item failure, so its message — naming it — goes to the dead-letter queue at once while
 * the other organisations' messages go on. Metrics carry the `Organisation` dimension; one
 * alarm watches every organisation with a contributor per organisation.
 */
import { ArnFormat, Duration, Stack, Validations } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { deadLetterQueue } from './dead-letter-queue.js';
import { Construct } from 'constructs';
import { CONFIG_DEFAULTS, ENV_DEFAULTS } from '../../functions/settings/config.js';
import { METRICS_NAMESPACE, ORGANISATION_DIMENSION, ORGS_METRICS } from '../../functions/shared/metric-names.js';
import { EXPORT_KEY_PREFIX } from '../../functions/shared/state-keys.js';
import { DATASET_NAMES } from '../../functions/warehouse/catalog.js';
import { DEFAULT_EXPORT_MEMORY_MB, DEFAULT_EXPORT_SCHEDULE, type AnalyticsExportProps } from './analytics-export.js';
import { DUCKDB_ENVIRONMENT, duckDbBundling } from './duckdb-bundling.js';
import { BundledFunction, runtimeEnvironment, SERVICE_NAMES, type FunctionEnvironment, type LogLevel } from './lambda-defaults.js';
import { RUNBOOK } from './operations.js';
import { grantStateKeys } from './state-keys.js';

/**
 * Receives after which SQS dead-letters an organisation's message: handbacks (one per budget
 * window at most) are receives too; within the queue's retention a worker crashing on it is caught.
 */
export const ORG_QUEUE_MAX_RECEIVES = 30;

/** Workers at once by default: each holds one organisation; the queue holds the rest. */
export const DEFAULT_ORG_CONCURRENCY = 10;

/**
 * Props of {@link Organisations}. The export's settings are the single-organisation export's (analytics-export.ts), the same for
 * every organisation; what differs is the fan-out: the secrets' prefix, the workers at once and
 * the worker's timeout.
 */
export interface OrganisationsProps
  extends Pick<
    AnalyticsExportProps,
    'warehouse' | 'stateTable' | 'personalDataKey' | 'datasets' | 'settleHours' | 'personalDataPolicy' | 'personalDataRetentionDays'
  > {
  /**
   * The name prefix of the organisations' secrets (`<prefix><id>`, each `{"apiKey","projectIds"}`).
   * @default `<stack name>/orgs/`
   */
  readonly secretPrefix?: string | undefined;
  /** @default DEFAULT_EXPORT_SCHEDULE (hourly at :05) */
  readonly schedule?: string | undefined;
  /**
   * Workers at once (the SQS event source's maximum concurrency, 2–1000).
   * @default DEFAULT_ORG_CONCURRENCY
   */
  readonly maxConcurrency?: number | undefined;
  /** `MINTLIFY_API_URL`. @default - https://api.mintlify.com */
  readonly apiUrl?: string | undefined;
  /** @default 'INFO' */
  readonly logLevel?: LogLevel | undefined;
  /** `ANALYTICS_BUDGET` of each organisation. @default '90/1h' */
  readonly budget?: string | undefined;
  /** The worker's timeout: the longest one organisation's run may take. @default Duration.minutes(15) */
  readonly workerTimeout?: Duration | undefined;
}

/** The default name prefix of the organisations' secrets in `stack`. */
export function defaultSecretPrefix(stack: Stack): string {
  return `${stack.stackName}/orgs/`;
}

/**
 * Lets `fn` read each organisation's secret — those under `prefix`, and no other — and, with
 * `list`, list the secrets' names (ListSecrets takes no resource; it returns no value).
 */
export function grantOrganisationSecretsRead(fn: NodejsFunction, prefix: string, who: string, options: { readonly list?: boolean } = {}): void {
  const stack = Stack.of(fn);
  const secretsArn = stack.formatArn({ service: 'secretsmanager', resource: 'secret', arnFormat: ArnFormat.COLON_RESOURCE_NAME, resourceName: `${prefix}*` });
  fn.addToRolePolicy(new iam.PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: [secretsArn] }));
  Validations.of(fn.role ?? fn).acknowledge({
    id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:secretsmanager:<AWS::Region>:<AWS::AccountId>:secret:${prefix}*]`,
    reason: `Organisations are data: each is a secret named <prefix><id>, added without a deploy, so ${who} read the secrets under the organisations' prefix (and no other).`,
  });
  if (options.list !== true) return;
  fn.addToRolePolicy(new iam.PolicyStatement({ actions: ['secretsmanager:ListSecrets'], resources: ['*'] }));
  Validations.of(fn.role ?? fn).acknowledge({
    id: 'AwsSolutions-IAM5[Resource::*]',
    reason: `secretsmanager:ListSecrets supports no resource-level permission; it returns names only, and ${who} keep the organisations prefix's.`,
  });
}

export class Organisations extends Construct {
  readonly dispatcher: NodejsFunction;
  readonly worker: NodejsFunction;
  /** One message per organisation and run. */
  readonly queue: sqs.Queue;
  /** An organisation whose run failed: its message, naming it, lands here at once. */
  readonly deadLetterQueue: sqs.Queue;
  readonly rule: events.Rule;
  readonly secretPrefix: string;
  readonly alarms: { readonly organisationFailed: cloudwatch.Alarm; readonly deadLetters: cloudwatch.Alarm; readonly dispatcherErrors: cloudwatch.Alarm };

  constructor(scope: Construct, id: string, props: OrganisationsProps) {
    super(scope, id);
    const stack = Stack.of(this);
    this.secretPrefix = props.secretPrefix ?? defaultSecretPrefix(stack);
    const workerTimeout = props.workerTimeout ?? Duration.minutes(15);

    this.deadLetterQueue = deadLetterQueue(this, 'DeadLetterQueue', {
      reason:
        'This queue is the dead-letter queue of the organisations queue: one message per failed organisation run, read by a person; it needs none of its own.',
    });
    this.queue = new sqs.Queue(this, 'Queue', {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      // Longer than a worker may run: a message is never seen twice while its organisation runs.
      visibilityTimeout: workerTimeout.plus(Duration.minutes(5)),
      // Longer than a handback's longest delay (12 h, the longest visibility SQS allows).
      retentionPeriod: Duration.hours(14),
      // A failed organisation is not retried within the hour (the next run sends it again): the
      // worker sends its message to the dead-letter queue itself, at its first failure. A message
      // handed back until its budget's next free slot is received again, so the redrive is only
      // the net for a worker that crashed on a message.
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: ORG_QUEUE_MAX_RECEIVES },
    });

    const common = {
      EXPORT_DESTINATION: props.warehouse.destination,
      ...(props.apiUrl === undefined ? {} : { MINTLIFY_API_URL: props.apiUrl }),
      EXPORT_ORGS_SECRET_PREFIX: this.secretPrefix,
      ...runtimeEnvironment(SERVICE_NAMES.export, props.logLevel),
    };

    const dispatcher = new BundledFunction(this, 'Dispatcher', {
      entry: 'functions/organisations/handlers.ts',
      handler: 'dispatcher',
      description: 'Lists the organisations (their secrets) and sends one message per organisation to the export workers',
      timeout: Duration.minutes(1),
      memorySize: 256,
      environment: { ...common, EXPORT_ORGS_QUEUE_URL: this.queue.queueUrl } satisfies FunctionEnvironment<'export'>,
    });
    this.dispatcher = dispatcher.function;
    this.queue.grantSendMessages(this.dispatcher);
    // ListSecrets takes no resource: it can only be granted on "*". It returns names and
    // metadata, never a value; the dispatcher reads no secret.
    this.dispatcher.addToRolePolicy(new iam.PolicyStatement({ actions: ['secretsmanager:ListSecrets'], resources: ['*'] }));
    Validations.of(this.dispatcher.role ?? this.dispatcher).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'secretsmanager:ListSecrets supports no resource-level permission; it returns names only, and the dispatcher filters them to the organisations prefix.',
    });

    const worker = new BundledFunction(this, 'Worker', {
      entry: 'functions/organisations/handlers.ts',
      handler: 'worker',
      description: "Exports one organisation's analytics per message, paced by that organisation's own budget",
      timeout: workerTimeout,
      memorySize: DEFAULT_EXPORT_MEMORY_MB,
      // The export's own bundling: a run that settles a month builds its roll-ups with DuckDB.
      native: duckDbBundling({ queries: false }),
      environment: {
        ...DUCKDB_ENVIRONMENT,
        ...common,
        EXPORT_STATE_TABLE: props.stateTable.tableName,
        EXPORT_HEAL_DAYS: String(CONFIG_DEFAULTS.healDays),
        EXPORT_DATASETS: (props.datasets ?? DATASET_NAMES).join(','),
        PERSONAL_DATA_KEY_SECRET_ARN: props.personalDataKey.secret.secretArn,
        ...(props.personalDataPolicy ? { PERSONAL_DATA_POLICY: props.personalDataPolicy } : {}),
        ...(props.personalDataRetentionDays !== undefined ? { PERSONAL_DATA_RETENTION_DAYS: String(props.personalDataRetentionDays) } : {}),
        ANALYTICS_BUDGET: props.budget ?? ENV_DEFAULTS.ANALYTICS_BUDGET,
        EXPORT_SETTLE_HOURS: String(props.settleHours ?? CONFIG_DEFAULTS.settleHours),
        EXPORT_REFRESH_DAYS: String(CONFIG_DEFAULTS.refreshDays),
        // Each committed unit registers its (org, dt) partition for the catalog's readers (Spectrum, Spark, Trino).
        EXPORT_GLUE_DATABASE: props.warehouse.database.databaseName,
      } satisfies FunctionEnvironment<'export'>,
    });
    this.worker = worker.function;
    this.worker.addEventSource(
      new SqsEventSource(this.queue, {
        // One organisation per invocation: its deadline is its own.
        batchSize: 1,
        maxConcurrency: props.maxConcurrency ?? DEFAULT_ORG_CONCURRENCY,
        reportBatchItemFailures: true,
      }),
    );
    grantOrganisationSecretsRead(this.worker, this.secretPrefix, 'the workers');
    // A failed organisation's message to the dead-letter queue (the worker's own), a long wait's fresh message to the queue.
    this.deadLetterQueue.grantSendMessages(this.worker);
    this.queue.grantSendMessages(this.worker);
    props.warehouse.grantOrganisationsExportReadWrite(this.worker);
    props.warehouse.grantPartitionRegistration(this.worker);
    grantStateKeys(this.worker, props.stateTable, { prefix: EXPORT_KEY_PREFIX, scan: true });
    props.personalDataKey.grantRead(this.worker);

    this.rule = new events.Rule(this, 'Schedule', {
      description: 'Hourly export of every organisation: the dispatcher sends one message per organisation',
      schedule: events.Schedule.expression(props.schedule ?? DEFAULT_EXPORT_SCHEDULE),
      targets: [new targets.LambdaFunction(this.dispatcher, { deadLetterQueue: this.deadLetterQueue, retryAttempts: 2, maxEventAge: Duration.hours(1) })],
    });

    const fiveMinutes = Duration.minutes(5);
    this.alarms = {
      // A Metrics Insights query grouped by organisation: each organisation is a contributor of
      // this one alarm, including organisations added after the deploy.
      organisationFailed: new cloudwatch.Alarm(this, 'OrganisationFailed', {
        alarmDescription: `Organisations: an organisation's export failed (a revoked key, a refused dataset, a broken answer); the others went on. First step: the alarm's contributors name each organisation; the worker's log (key organisation) says why, and its message is in the organisations' dead-letter queue. Runbook: ${RUNBOOK}: OrganisationFailed.`,
        metric: new cloudwatch.MathExpression({
          expression: `SELECT SUM(${ORGS_METRICS.failed}) FROM SCHEMA("${METRICS_NAMESPACE}", ${ORGANISATION_DIMENSION}, service) GROUP BY ${ORGANISATION_DIMENSION}`,
          period: Duration.hours(1),
          label: 'failed runs by organisation',
        }),
        threshold: 1,
        evaluationPeriods: 1,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      }),
      deadLetters: new cloudwatch.Alarm(this, 'OrganisationDeadLetters', {
        alarmDescription: `Organisations: a message is in the organisations' dead-letter queue (an organisation's run failed, or the dispatcher could not be started); its body names the organisation. First step: the worker's log for that organisation. Runbook: ${RUNBOOK}: OrganisationDeadLetters.`,
        metric: this.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ period: fiveMinutes, statistic: 'Maximum' }),
        threshold: 1,
        evaluationPeriods: 1,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      }),
      dispatcherErrors: new cloudwatch.Alarm(this, 'DispatcherErrors', {
        alarmDescription: `Organisations: the dispatcher failed (the secrets could not be listed, or SQS refused messages): no organisation was exported this hour. First step: the dispatcher's log; the next hourly run dispatches again. Runbook: ${RUNBOOK}: DispatcherErrors.`,
        metric: this.dispatcher.metricErrors({ period: fiveMinutes, statistic: 'Sum' }),
        threshold: 1,
        evaluationPeriods: 1,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      }),
    };
  }
}
