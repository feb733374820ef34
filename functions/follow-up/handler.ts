/**
 * The follow-up Lambda (SQS FIFO event source with ReportBatchItemFailures): wiring only.
 * Config and clients are built once per cold start; each record goes through the core
 * (process-message.ts). Powertools' SqsFifoPartialProcessorAsync with `skipGroupOnError`
 * fails the rest of a group after a deferred record, so order within a job is kept while
 * other jobs' prompts in the batch go on.
 *
 * A deferral is ChangeMessageVisibility(delay) and then a batch item failure: the message
 * comes back after the delay, without a Lambda sleeping. Deferrals are not failures; the core
 * counts real failures in its state record and dead-letters explicitly.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { SQSClient } from '@aws-sdk/client-sqs';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { processPartialResponse, SqsFifoPartialProcessorAsync } from '@aws-lambda-powertools/batch';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { builtOnFirstUse } from '../shared/cold-start.js';
import { loadConfigFor, requireSettings } from '../settings/config.js';
import { ConfigError, ExporterError } from '../shared/errors.js';
import { createLogger } from '../shared/logger.js';
import { sleep } from '../shared/time.js';
import { createApiKeyProvider } from '../shared/secrets.js';
import { FOLLOWUP_SERVICE, METRICS_NAMESPACE } from '../shared/metric-names.js';
import { createSqsDeadLetter } from './dead-letter.js';
import { createFollowUpDeps } from './deps.js';
import { processMessage } from './process-message.js';
import type { FollowUpDeps, FollowUpMetrics, IncomingMessage, ProcessOptions, ProcessResult } from './types.js';
import { resolveSettings, settingsFromConfig, type FollowUpSettings } from './settings.js';
import { deferMessage } from './visibility.js';
import { sqsClientConfig } from '../shared/aws-clients.js';

/** Time kept free at the end of an invocation to record state and answer (ms). */
export const DEADLINE_MARGIN_MS = 10_000;

/** The least time a record of a batch is given to send and poll (ms). */
const MIN_RECORD_SHARE_MS = 15_000;

/** Thrown after a deferral so Powertools reports the record as a batch item failure. */
export class DeferredError extends ExporterError {}

/** Processing of one record (process-message.ts's `processMessage` with its dependencies, or one chosen per message). */
export type ProcessRecord = (message: IncomingMessage, options: ProcessOptions) => Promise<ProcessResult>;

interface HandlerCommon {
  readonly sqs: Pick<SQSClient, 'send'>;
  /** Published after each batch (Powertools Metrics); optional in tests. */
  readonly flushMetrics?: () => void;
  /** Queue URL of a record; default derived from its eventSourceARN. */
  readonly queueUrlOf?: (record: SQSRecord) => string;
  readonly now?: () => number;
}

/**
 * The handler's dependencies: one deployment's (`followUp` with `settings`, resolved once when
 * the handler is created), or a `process` that chooses them per message (many organisations:
 * functions/organisations/follow-up-function.ts) with the logger of the deferrals.
 */
export type HandlerDeps = HandlerCommon &
  (
    | { readonly followUp: FollowUpDeps; readonly settings: FollowUpSettings; readonly process?: undefined }
    | { readonly process: ProcessRecord; readonly logger: FollowUpDeps['logger'] }
  );

/** `arn:aws:sqs:REGION:ACCOUNT:NAME` → `https://sqs.REGION.amazonaws.com/ACCOUNT/NAME`. */
export function queueUrlFromArn(arn: string): string {
  const [, partition, service, region, account, name] = arn.split(':');
  if (service !== 'sqs' || !region || !account || !name) throw new ConfigError(`not an SQS queue ARN: ${arn}`);
  const suffix = partition === 'aws-cn' ? 'amazonaws.com.cn' : 'amazonaws.com';
  return `https://sqs.${region}.${suffix}/${account}/${name}`;
}

/** The handler for given dependencies (tests call this with emulator clients). */
export function createHandler(deps: HandlerDeps) {
  const now = deps.now ?? Date.now;
  const queueUrlOf = deps.queueUrlOf ?? ((record: SQSRecord) => queueUrlFromArn(record.eventSourceARN));
  const { processRecord, logger } = recordProcessing(deps);
  return async (event: SQSEvent, context: Pick<Context, 'getRemainingTimeInMillis'>): Promise<SQSBatchResponse> => {
    const deadline = now() + context.getRemainingTimeInMillis() - DEADLINE_MARGIN_MS;
    let unstarted = event.Records.length;
    const recordHandler = async (record: SQSRecord): Promise<void> => {
      // Records run one after another: share the time left among those not started yet, so
      // one long poll cannot starve the rest of the batch (a record left without time is
      // handed back untouched by processMessage).
      const share = Math.max(MIN_RECORD_SHARE_MS, (deadline - now()) / Math.max(1, unstarted--));
      const recordDeadline = Math.min(deadline, now() + share);
      const deliveries = Number(record.attributes.ApproximateReceiveCount);
      const result = await processRecord(
        { messageId: record.messageId, body: record.body, ...(deliveries >= 1 ? { deliveries } : {}) },
        { deadline: recordDeadline },
      );
      if (result.action === 'handled') return;
      // A failed visibility change still ends in a batch item failure: the message comes back
      // when its visibility timeout ends instead.
      await deferMessage(deps.sqs, { queueUrl: queueUrlOf(record), receiptHandle: record.receiptHandle }, result.delayMs, logger);
      throw new DeferredError(`deferred ${Math.round(result.delayMs / 1000)} s: ${result.reason}`);
    };
    try {
      return await processPartialResponse(event, recordHandler, new SqsFifoPartialProcessorAsync(), {
        skipGroupOnError: true,
        // A batch where every record was deferred is normal, not an invocation error.
        throwOnFullBatchFailure: false,
      });
    } finally {
      deps.flushMetrics?.();
    }
  };
}

function recordProcessing(deps: HandlerDeps): { readonly processRecord: ProcessRecord; readonly logger: FollowUpDeps['logger'] } {
  if (deps.process !== undefined) return { processRecord: deps.process, logger: deps.logger };
  const { followUp } = deps;
  const settings = resolveSettings(deps.settings);
  return { processRecord: (message, options) => processMessage(message, followUp, settings, options), logger: followUp.logger };
}

/** Adapts Powertools Metrics to the core's counter interface. */
export function powertoolsMetrics(metrics: Metrics): FollowUpMetrics {
  return { count: (name, value = 1) => metrics.addMetric(name, MetricUnit.Count, value) };
}

async function handlerFromEnvironment(env: Record<string, string | undefined>) {
  const config = requireSettings(loadConfigFor(env, 'follow-up'), 'follow-up');
  const logger = createLogger({ serviceName: FOLLOWUP_SERVICE });
  const metrics = new Metrics({ serviceName: FOLLOWUP_SERVICE, namespace: METRICS_NAMESPACE });
  const sqs = new SQSClient(sqsClientConfig({ useQueueUrlAsEndpoint: !config.sqsEndpointOverridden }));
  // Read through a cache with an expiry, and again after a 401: a rotated key is picked up
  // without waiting for a cold start. A missing or unreadable secret fails the cold start.
  const apiKey = createApiKeyProvider(config);
  await apiKey.get();
  const followUp: FollowUpDeps = {
    ...createFollowUpDeps(config, {
      api: { baseUrl: config.apiUrl, apiKey, logger },
      logger,
      metrics: powertoolsMetrics(metrics),
      // Lambda hostnames can repeat across execution environments; the UUID keeps owners unique.
      owner: `lambda:${hostname()}:${randomUUID()}`,
    }),
    deadLetter: createSqsDeadLetter({ sqs, queueUrl: config.followUpDeadLetterQueueUrl }),
    sleep: (ms) => sleep(ms),
  };
  return createHandler({ followUp, settings: settingsFromConfig(config), sqs, flushMetrics: () => metrics.publishStoredMetrics() });
}

/**
 * The Lambda entry point. Built on first use, so importing this module reads nothing; a
 * transient failure of the build (e.g. Secrets Manager) is retried on the next invocation.
 */
export const handler: (event: SQSEvent, context: Context) => Promise<SQSBatchResponse> = builtOnFirstUse(() => handlerFromEnvironment(process.env));
