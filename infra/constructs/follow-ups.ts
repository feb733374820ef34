/**
 * The follow-up prompts: a FIFO queue producers write to, its dead-letter queue, the consumer
 * function, the DynamoDB table where it records what it sent (the at-most-once guarantee) and
 * the SNS topic every outcome record is published to (subscribers filter on `status`).
 *
 * Producers' contract (for the README):
 * - `MessageGroupId` = the agent job id. FIFO delivers one group's messages in order, one
 *   batch at a time, so prompts to one job are sent one after the other, in enqueue order.
 * - `MessageDeduplicationId` = the message's `requestId` (content-based deduplication is off:
 *   the same prompt text sent twice on purpose must not be dropped as a duplicate).
 */
import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as kms from 'aws-cdk-lib/aws-kms';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type * as logs from 'aws-cdk-lib/aws-logs';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { deadLetterQueue } from './dead-letter-queue.js';
import { Construct } from 'constructs';
import { FOLLOWUP_KEY_PREFIX } from '../../functions/shared/state-keys.js';
import { grantOrganisationSecretsRead } from './organisations.js';
import { grantStateKeys } from './state-keys.js';
import { ALERT_STATUSES } from '../../functions/follow-up/notify.js';
import { CONFIG_DEFAULTS } from '../../functions/settings/config.js';
import { FOLLOWUP_OUTCOMES } from '../../functions/warehouse/tables.js';
import { BundledFunction, SERVICE_NAMES, commonEnvironment, type ApiSettings, type FunctionEnvironment } from './lambda-defaults.js';
import type { Warehouse } from './warehouse.js';

/** AWS's advice for SQS event sources: visibility timeout at least 6× the function timeout. */
export const VISIBILITY_TIMEOUT_FACTOR = 6;

/** Props of {@link FollowUps}. */
export interface FollowUpsProps extends ApiSettings {
  readonly warehouse: Warehouse;
  /**
   * Receives after which SQS itself dead-letters a message. The consumer keeps a message of a
   * long-running job in flight by reporting it failed after `ChangeMessageVisibility`, so the
   * receive count grows with the job's duration; it dead-letters bad messages itself (with a
   * reason). This is only the last-resort net for a consumer that keeps crashing on a message,
   * so it must outlast the consumer's own bounds: a prompt deferred every 15 s while its job
   * stays active reaches ~480 receives within FOLLOWUP_MAX_DEFER_MINUTES' 2 hours.
   * @default 1000 (the most SQS allows)
   */
  readonly maxReceiveCount?: number | undefined;
  /**
   * Function timeout: one batch sends at most a few prompts and polls briefly, it never sleeps
   * through a long job (polling resumes on redelivery).
   * @default Duration.minutes(2)
   */
  readonly timeout?: Duration | undefined;
  /** @default 256 */
  readonly memorySize?: number | undefined;
  /**
   * `FOLLOWUP_MAX_WAIT_HOURS`: how long a job may stay active before the prompt is recorded `timed_out`.
   * @default 24
   */
  readonly maxWaitHours?: number | undefined;
  /**
   * Concurrent batches the event source runs. 2 is the least SQS allows; with prompts at
   * 100/hour/project the API, not Lambda, is the bottleneck.
   * @default 2
   */
  readonly maxConcurrency?: number | undefined;
  /** @default logs.RetentionDays.ONE_MONTH */
  readonly logRetention?: logs.RetentionDays | undefined;
  /**
   * E-mail address subscribed to the outcomes topic with a filter policy on the statuses
   * someone should look at (`failed`, `uncertain`, `rejected`); the recipient must confirm.
   * @default - no subscription; subscribe to `outcomesTopic` yourself
   */
  readonly outcomeEmail?: string | undefined;
  /**
   * Many organisations (context `organisations=true`): each message is sent with its
   * organisation's key, read from its secret under `secretPrefix`, and its outcome written under
   * `orgs/<id>/`; the deployment's key is neither given nor read.
   * @default - one organisation: the deployment's key
   */
  readonly organisations?: { readonly secretPrefix: string } | undefined;
}

export class FollowUps extends Construct {
  readonly queue: sqs.Queue;
  readonly deadLetterQueue: sqs.Queue;
  readonly stateTable: dynamodb.Table;
  /** Every outcome record, as the message; attributes `status`, `projectId`, `jobId`. */
  readonly outcomesTopic: sns.Topic;
  readonly function: NodejsFunction;
  readonly logGroup: logs.LogGroup;

  constructor(scope: Construct, id: string, props: FollowUpsProps) {
    super(scope, id);
    const timeout = props.timeout ?? Duration.minutes(2);

    this.deadLetterQueue = deadLetterQueue(this, 'DeadLetterQueue', {
      fifo: true,
      reason: 'This is the dead-letter queue of the follow-up queue; it is inspected and redriven by hand, not consumed.',
    });

    this.queue = new sqs.Queue(this, 'Queue', {
      fifo: true,
      contentBasedDeduplication: false,
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      visibilityTimeout: Duration.seconds(timeout.toSeconds() * VISIBILITY_TIMEOUT_FACTOR),
      // A prompt may wait behind a long job of its group (FIFO blocks the group meanwhile).
      retentionPeriod: Duration.days(14),
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: props.maxReceiveCount ?? 1000 },
    });

    this.stateTable = new dynamodb.Table(this, 'State', {
      partitionKey: { name: 'pk', type: dynamodb.AttributeType.STRING },
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      timeToLiveAttribute: 'expiresAt',
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      // The table is what makes sends at-most-once: losing it could re-send prompts.
      removalPolicy: RemovalPolicy.RETAIN,
    });

    this.outcomesTopic = new sns.Topic(this, 'Outcomes', {
      displayName: 'mintlify-exporter follow-up outcomes',
      // A key of our own: grantPublish then names it exactly (with the AWS-managed
      // alias/aws/sns it can only grant on every key of the account).
      masterKey: new kms.Key(this, 'OutcomesKey', { description: 'Encrypts the mintlify-exporter follow-up outcomes topic', enableKeyRotation: true }),
      enforceSSL: true,
    });
    if (props.outcomeEmail !== undefined) {
      this.outcomesTopic.addSubscription(
        new subscriptions.EmailSubscription(props.outcomeEmail, {
          filterPolicy: { status: sns.SubscriptionFilter.stringFilter({ allowlist: [...ALERT_STATUSES] }) },
        }),
      );
    }

    const orgs = props.organisations;
    const common = commonEnvironment(props, SERVICE_NAMES.followUp, props.warehouse.destination);
    const { MINTLIFY_API_KEY_SECRET_ARN: _deploymentKey, ...withoutKey } = common;
    const bundled = new BundledFunction(this, 'Handler', {
      entry: orgs === undefined ? 'functions/follow-up/handler.ts' : 'functions/organisations/follow-up-function.ts',
      description:
        orgs === undefined
          ? 'Sends queued follow-up prompts to Mintlify agent jobs and records outcomes'
          : "Sends queued follow-up prompts with their organisation's key and records outcomes in its lake",
      timeout,
      memorySize: props.memorySize ?? 256,
      logRetention: props.logRetention,
      environment: {
        ...(orgs === undefined ? common : { ...withoutKey, EXPORT_ORGS_SECRET_PREFIX: orgs.secretPrefix }),
        // Each outcome's day (with its organisation's) registered in the catalog by the run that writes it.
        EXPORT_GLUE_DATABASE: props.warehouse.database.databaseName,
        FOLLOWUP_STATE_TABLE: this.stateTable.tableName,
        FOLLOWUP_DEAD_LETTER_QUEUE_URL: this.deadLetterQueue.queueUrl,
        FOLLOWUP_MAX_WAIT_HOURS: String(props.maxWaitHours ?? CONFIG_DEFAULTS.followUpMaxWaitHours),
        FOLLOWUP_OUTCOMES_TOPIC_ARN: this.outcomesTopic.topicArn,
      } satisfies FunctionEnvironment<'follow-up'>,
    });
    this.function = bundled.function;
    this.logGroup = bundled.logGroup;

    // Consume (Receive/Delete/ChangeMessageVisibility) is granted by the event source.
    this.function.addEventSource(
      new SqsEventSource(this.queue, {
        batchSize: 10,
        reportBatchItemFailures: true,
        maxConcurrency: props.maxConcurrency ?? 2,
      }),
    );
    this.deadLetterQueue.grantSendMessages(this.function);
    // Its request records only (`followup#…`), never the export's ledger.
    grantStateKeys(this.function, this.stateTable, { prefix: FOLLOWUP_KEY_PREFIX });
    this.outcomesTopic.grantPublish(this.function);
    Validations.of(bundled.role).acknowledge({
      id: 'AwsSolutions-IAM5[Action::kms:GenerateDataKey*]',
      reason: "Publishing to the encrypted outcomes topic: kms:GenerateDataKey* on that topic's own key only (grantPublish names the key exactly).",
    });
    if (orgs === undefined) {
      props.warehouse.grantOutcomesWrite(this.function);
      props.apiKeySecret.grantRead(this.function);
    } else {
      // Each organisation's key from its secret (a message naming only its project: the names
      // listed to find its organisation); its outcome in that organisation's lake.
      grantOrganisationSecretsRead(this.function, orgs.secretPrefix, 'the follow-up function', { list: true });
      props.warehouse.grantOrganisationsOutcomesWrite(this.function);
    }
    // Each outcome's day (with many organisations, its (org, dt)) in the catalog, on the outcomes' table only.
    props.warehouse.grantPartitionRegistration(this.function, [FOLLOWUP_OUTCOMES.name]);
  }
}
