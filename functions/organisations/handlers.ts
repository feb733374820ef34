/**
 * Lambda entries of a deployment for many organisations (context `organisations=true`): wiring
 * only. `dispatcher`: the schedule's event → one message per organisation (dispatch.ts).
 * `worker`: an SQS batch of organisation messages → each organisation's export (worker.ts).
 * Built on first use, like the other handlers: importing reads nothing.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { S3Client } from '@aws-sdk/client-s3';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { GetQueueUrlCommand, SendMessageBatchCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import * as v from 'valibot';
import { createExportDeps, openSharedStore, type ExportDeps } from '../export/deps.js';
import { resolveDeadLetterQueueUrl } from '../follow-up/dead-letter.js';
import { deferMessage } from '../follow-up/visibility.js';
import { createBudgetGate } from '../shared/pacing/budget.js';
import type { Sleep } from '../shared/time.js';
import { createHandler, type ExportContext } from '../export/handler.js';
import { awsClientConfig, sqsClientConfig } from '../shared/aws-clients.js';
import { builtOnFirstUse } from '../shared/cold-start.js';
import { loadConfigFor, requireSettings, type ConfigOf } from '../settings/config.js';
import { ConfigError } from '../shared/errors.js';
import { createLogger, type AppLogger } from '../shared/logger.js';
import { EXPORT_SERVICE, METRICS_NAMESPACE, ORGANISATION_DIMENSION, ORGS_METRICS } from '../shared/metric-names.js';
import { dispatchOrganisations, type DispatchResult, type OrganisationQueue } from './dispatch.js';
import { orgDestination, type Organisation } from './organisations.js';
import { createOrganisationSecrets } from './secrets.js';
import { capWaits, claimHandBack, createWorker, MAX_HANDBACK_MS, type HandBack, type IdleWaits, type WorkerRecord } from './worker.js';

type Env = Record<string, string | undefined>;

/** The export's configuration, with the organisations' secret prefix it cannot do without. */
export type OrganisationsConfig = ConfigOf<'export'> & { readonly orgsSecretPrefix: string };

/**
 * The configuration of the worker (`worker`: its state table required, as the export's) or of
 * the dispatcher (which touches no state).
 */
export function orgsConfig(env: Env, role: 'worker' | 'dispatcher' = 'worker'): OrganisationsConfig {
  const loaded = loadConfigFor(env, 'export');
  const config = role === 'worker' ? requireSettings(loaded, 'export') : loaded;
  if (config.orgsSecretPrefix === undefined)
    throw new ConfigError('EXPORT_ORGS_SECRET_PREFIX is not set: the organisations are the secrets under it (infra sets it with context organisations=true)');
  return { ...config, orgsSecretPrefix: config.orgsSecretPrefix };
}

/** SQS SendMessageBatch for the organisations' queue. */
export function sqsOrgQueue(client: Pick<SQSClient, 'send'>, queueUrl: string): OrganisationQueue {
  return {
    async sendBatch(messages) {
      const answer = await client.send(
        new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: messages.map((m) => ({ Id: m.id, MessageBody: m.body, MessageGroupId: m.groupId })) }),
      );
      return (answer.Failed ?? []).map((failure) => failure.Id ?? '');
    },
  };
}

const ScheduleSchema = v.object({ time: v.pipe(v.string(), v.isoTimestamp()) });

/** The clients the dispatcher uses. */
export interface DispatcherClients {
  readonly secrets: Pick<SecretsManagerClient, 'send'>;
  readonly sqs: Pick<SQSClient, 'send'>;
}

/** The dispatcher for `config` over `clients` (tests pass emulator clients). */
export function createDispatcher(config: OrganisationsConfig, clients: DispatcherClients): (event: unknown) => Promise<DispatchResult> {
  if (config.orgsQueueUrl === undefined)
    throw new ConfigError('EXPORT_ORGS_QUEUE_URL is not set: the dispatcher sends to the organisations queue (infra sets it)');
  const logger = createLogger({ serviceName: EXPORT_SERVICE });
  const secrets = createOrganisationSecrets(clients.secrets, config.orgsSecretPrefix);
  const queue = sqsOrgQueue(clients.sqs, config.orgsQueueUrl);
  const metrics = new Metrics({ serviceName: EXPORT_SERVICE, namespace: METRICS_NAMESPACE });
  return async (event: unknown) => {
    const scheduled = v.safeParse(ScheduleSchema, event);
    const result = await dispatchOrganisations(scheduled.success ? Date.parse(scheduled.output.time) : Date.now(), { secrets, queue });
    for (const { name, reason } of result.refused) logger.warn('secret under the organisations prefix refused', { secret: name, reason });
    metrics.addMetric(ORGS_METRICS.dispatched, MetricUnit.Count, result.dispatched.length);
    metrics.addMetric(ORGS_METRICS.refused, MetricUnit.Count, result.refused.length);
    metrics.publishStoredMetrics();
    logger.info('organisations dispatched', { dispatched: result.dispatched.length, notSent: result.notSent, refused: result.refused.length });
    if (result.notSent.length > 0)
      throw new Error(`SQS did not take the messages of organisation(s) ${result.notSent.join(', ')}; the next run sends them again`);
    return result;
  };
}

export function dispatcherFromEnvironment(env: Env): (event: unknown) => Promise<DispatchResult> {
  return builtOnFirstUse(() => {
    const config = orgsConfig(env, 'dispatcher');
    // An endpoint set in the environment (an emulator) takes the place of the queue URL's host, as for the follow-ups.
    const sqs = new SQSClient(sqsClientConfig({ useQueueUrlAsEndpoint: !config.sqsEndpointOverridden }));
    return createDispatcher(config, { secrets: new SecretsManagerClient(awsClientConfig()), sqs });
  });
}

/** Powertools metrics of one organisation: every metric of its run carries its `Organisation` dimension. */
function organisationMetrics(id: string): Metrics {
  return new Metrics({ serviceName: EXPORT_SERVICE, namespace: METRICS_NAMESPACE, defaultDimensions: { [ORGANISATION_DIMENSION]: id } });
}

/** The clients the worker uses. */
export interface WorkerClients {
  readonly secrets: SecretsManagerClient;
  readonly dynamo: DynamoDBClient;
  /** @default one from the environment (s3:// destinations) */
  readonly s3?: S3Client;
  /** Hands messages back and dead-letters failed ones. @default none: the worker waits for budget and the queue's redrive dead-letters */
  readonly sqs?: Pick<SQSClient, 'send'>;
}

/** The URL of the queue a record came from. */
export type QueueUrlOf = (record: WorkerRecord) => Promise<string>;

/** Queue URLs from the records' `eventSourceARN` (GetQueueUrl of its name and account, once a queue). */
export function queueUrlsFromArns(sqs: Pick<SQSClient, 'send'>): QueueUrlOf {
  const urls = new Map<string, Promise<string>>();
  return (record) => {
    const arn = record.eventSourceARN ?? '';
    let url = urls.get(arn);
    if (url === undefined) {
      const [, , service, , account, name] = arn.split(':');
      if (service !== 'sqs' || !account || !name) return Promise.reject(new ConfigError(`not an SQS queue ARN: ${arn.slice(0, 120)}`));
      url = sqs.send(new GetQueueUrlCommand({ QueueName: name, QueueOwnerAWSAccountId: account })).then((answer) => {
        if (!answer.QueueUrl) throw new Error(`SQS named no URL for queue ${name}`);
        return answer.QueueUrl;
      });
      url.catch(() => urls.delete(arn));
      urls.set(arn, url);
    }
    return url;
  };
}

/**
 * A message handed back on its queue: hidden until `delayMs` from now (at most 12 h), or, for a
 * longer wait, deleted by the worker's success and sent again as a fresh message delayed by
 * SQS's longest message delay (15 min) — which hands itself back again.
 */
export function sqsHandBack(sqs: Pick<SQSClient, 'send'>, queueUrlOf: QueueUrlOf, logger: AppLogger): HandBack {
  return async (record, delayMs) => {
    const queueUrl = await queueUrlOf(record);
    if (delayMs > MAX_HANDBACK_MS) {
      await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: record.body, DelaySeconds: 900 }));
      return;
    }
    if (record.receiptHandle === undefined) throw new Error('the message has no receipt handle to hand it back');
    await deferMessage(sqs, { queueUrl, receiptHandle: record.receiptHandle }, delayMs, logger);
  };
}

/** {@link claimHandBack} over the organisation's part of the state table (`handback`), atomically. */
async function claimStoredHandBack(
  config: OrganisationsConfig,
  clients: WorkerClients,
  org: string,
  messageId: string,
  until: number,
  now: number,
): Promise<boolean> {
  const store = openSharedStore({ ...config, org }, { dynamo: () => clients.dynamo });
  type Held = { readonly messageId: string; readonly until: number };
  return store.update<Held, boolean>('handback', (current) => {
    const records = new Map<string, Held>(current === undefined ? [] : [[org, current]]);
    const claimed = claimHandBack(records, org, messageId, until, now);
    return { value: records.get(org), result: claimed };
  });
}

/** A failed organisation's message in the dead-letter queue (the queue's redrive target), with why. */
export function sqsOrgDeadLetter(sqs: Pick<SQSClient, 'send'>, queueUrlOf: QueueUrlOf): (record: WorkerRecord, reason: string) => Promise<void> {
  const targets = new Map<string, Promise<string>>();
  return async (record, reason) => {
    const queueUrl = await queueUrlOf(record);
    let target = targets.get(queueUrl);
    if (target === undefined) {
      target = resolveDeadLetterQueueUrl(sqs, queueUrl, undefined);
      target.catch(() => targets.delete(queueUrl));
      targets.set(queueUrl, target);
    }
    await sqs.send(
      new SendMessageCommand({
        QueueUrl: await target,
        MessageBody: record.body,
        MessageAttributes: { reason: { DataType: 'String', StringValue: reason.slice(0, 512) } },
      }),
    );
  };
}

/** The worker for `config` over `clients` (tests pass emulator clients). */
export function createOrganisationsWorker(
  config: OrganisationsConfig,
  clients: WorkerClients,
  options: {
    readonly orgTimeLimitMs?: number;
    /** Tests: a fake clock for the runs and the worker. */
    readonly now?: () => number;
    readonly sleep?: Sleep;
    /** The queue URL of a record. @default from its eventSourceARN */
    readonly queueUrlOf?: QueueUrlOf;
  } = {},
) {
  const logger = createLogger({ serviceName: EXPORT_SERVICE });
  const failures = new Metrics({ serviceName: EXPORT_SERVICE, namespace: METRICS_NAMESPACE });
  const now = options.now ?? Date.now;
  const queueUrlOf = options.queueUrlOf ?? (clients.sqs ? queueUrlsFromArns(clients.sqs) : async () => '');
  const exportFor = (org: Organisation, waits: IdleWaits) => {
    // The organisation's lake, projects and part of the state; the rest is the deployment's.
    const orgConfig = { ...config, org: org.id, projectIds: org.projectIds, destination: orgDestination(config.destination, org.id) };
    const deps = createExportDeps(orgConfig, {
      apiKey: org.apiKey,
      dynamo: () => clients.dynamo,
      secrets: clients.secrets,
      logger,
      ...(clients.s3 ? { s3: clients.s3 } : {}),
      ...(options.now ? { now: options.now } : {}),
      ...(options.sleep ? { sleep: options.sleep } : {}),
    });
    // A wait for budget longer than a minute is not slept here: the message is handed back (worker.ts).
    const createGate: ExportDeps['createGate'] = (onWait) =>
      createBudgetGate(capWaits(deps.ledger, waits, deps.now), { now: deps.now, sleep: deps.sleep, ...(onWait ? { onWait } : {}) });
    return createHandler({ ...deps, createGate, metrics: organisationMetrics(org.id) });
  };
  return createWorker({
    secrets: createOrganisationSecrets(clients.secrets, config.orgsSecretPrefix),
    exportFor,
    logger,
    now,
    ...(clients.sqs
      ? {
          handBack: sqsHandBack(clients.sqs, queueUrlOf, logger),
          deadLetter: sqsOrgDeadLetter(clients.sqs, queueUrlOf),
          handBacks: { claim: (id: string, messageId: string, until: number) => claimStoredHandBack(config, clients, id, messageId, until, now()) },
        }
      : {}),
    ...(options.orgTimeLimitMs !== undefined ? { orgTimeLimitMs: options.orgTimeLimitMs } : {}),
    onOrganisation: (id, outcome) => {
      if (outcome.ok) return;
      const metrics = organisationMetrics(id);
      metrics.addMetric(ORGS_METRICS.failed, MetricUnit.Count, 1);
      metrics.publishStoredMetrics();
      // Also without the dimension: one alarm watches every organisation (docs/organisations.md).
      failures.addMetric(ORGS_METRICS.failed, MetricUnit.Count, 1);
      failures.publishStoredMetrics();
    },
  });
}

export function workerFromEnvironment(env: Env): (event: { Records: WorkerRecord[] }, context: ExportContext) => Promise<unknown> {
  return builtOnFirstUse(() =>
    createOrganisationsWorker(orgsConfig(env), {
      secrets: new SecretsManagerClient(awsClientConfig()),
      dynamo: new DynamoDBClient(awsClientConfig()),
      sqs: new SQSClient(sqsClientConfig({ useQueueUrlAsEndpoint: !orgsConfig(env).sqsEndpointOverridden })),
    }),
  );
}

export const dispatcher = dispatcherFromEnvironment(process.env);
export const worker = workerFromEnvironment(process.env);
