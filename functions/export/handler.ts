/**
 * Lambda entry of the export, run hourly: wiring only. Each run drains what the request budget
 * and its 15 minutes allow, checkpoints and returns; the next hour goes on. Waiting for budget
 * is not an error (no alarm); a unit that truly fails makes the invocation throw, so the error
 * alarm fires. Config is parsed and clients built once per cold start, on the first invocation.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { Context } from 'aws-lambda';
import { createApiClient } from '../shared/api-client.js';
import { createBudgetGate } from '../shared/budget.js';
import { loadConfig } from '../shared/config.js';
import { openDestination } from '../shared/destinations.js';
import { ConfigError, ExporterError } from '../shared/errors.js';
import { createLeases } from '../shared/leases.js';
import { createLogger } from '../shared/logger.js';
import { EXPORT_METRICS, EXPORT_SERVICE, METRICS_NAMESPACE } from '../shared/metric-names.js';
import { realSleep } from '../shared/retry.js';
import { createApiKeyProvider } from '../shared/secrets.js';
import { parseExportEvent } from './event.js';
import { runExport, type RunResult } from './run.js';
import { openLedger, openSharedStore, runSettings } from './runtime.js';
import { unitLabel } from './staging.js';

/** Stop starting new requests this long before the Lambda would be killed. */
const DEADLINE_MARGIN_MS = 20_000;

/** Thrown so the error alarm fires: a unit failed for a reason other than waiting. */
export class ExportIncompleteError extends ExporterError {}

type ExportContext = Pick<Context, 'getRemainingTimeInMillis' | 'awsRequestId'>;

/** Reads the configuration and builds the clients once (per cold start); returns the per-invocation work. */
function handlerFromEnvironment(env: Record<string, string | undefined>) {
  const config = loadConfig(env);
  if (config.stateTable === undefined) {
    throw new ConfigError('EXPORT_STATE_TABLE is not set: the export Lambda keeps its budget ledger and leases in that DynamoDB table');
  }
  const logger = createLogger({ serviceName: EXPORT_SERVICE });
  const metrics = new Metrics({ serviceName: EXPORT_SERVICE, namespace: METRICS_NAMESPACE });
  const destination = openDestination(config.destination);
  const store = openSharedStore(config, { dynamo: () => new DynamoDBClient({}) });
  const ledger = openLedger(config, store, Date.now);
  const apiKey = createApiKeyProvider(config);

  return async (event: unknown, context: ExportContext): Promise<RunResult> => {
    logger.appendKeys({ correlationId: context.awsRequestId });
    const request = parseExportEvent(event, Date.now());
    const deadline = Date.now() + context.getRemainingTimeInMillis() - DEADLINE_MARGIN_MS;
    await destination.probe();
    const gate = createBudgetGate(ledger, {
      now: Date.now,
      sleep: realSleep,
      onWait: (wait) => logger.info('waiting for the request budget', { waitMs: wait.waitMs, reason: wait.reason }),
    });
    await apiKey.get(); // a missing or unreadable secret fails the invocation before any unit starts
    const api = createApiClient({ baseUrl: config.apiUrl, apiKey, timeoutMs: config.apiTimeoutMs, logger, budget: gate });
    const leases = createLeases(store, { owner: `lambda:${context.awsRequestId}` });
    const result = await runExport(request, runSettings(config, { deadline }), { api, gate, destination, leases, store, now: Date.now, logger });
    publishMetrics(metrics, result);
    logger.info('export run finished', {
      runId: result.runId,
      completed: result.completed,
      partial: result.partial,
      pending: result.pending,
      failed: result.failed,
      requests: result.requests,
      backlogRequests: result.backlogRequests,
    });
    if (result.failed > 0) {
      const failed = result.units.filter((u) => u.status === 'failed').map((u) => unitLabel(u));
      throw new ExportIncompleteError(`${result.failed} unit(s) failed: ${failed.join(', ')}; see the log for each error`);
    }
    return result;
  };
}

function publishMetrics(metrics: Metrics, result: RunResult): void {
  const count = (name: string, value: number) => metrics.addMetric(name, MetricUnit.Count, value);
  count(EXPORT_METRICS.requests, result.requests);
  count(EXPORT_METRICS.rateLimited, result.rateLimited);
  count(EXPORT_METRICS.rateLimitWaitsCut, result.rateLimitWaitsCut);
  count(EXPORT_METRICS.budgetWaits, result.budgetWaits);
  metrics.addMetric(EXPORT_METRICS.budgetWaitMs, MetricUnit.Milliseconds, result.budgetWaitMs);
  count(EXPORT_METRICS.backlogRequests, result.backlogRequests);
  count(EXPORT_METRICS.unitsCompleted, result.completed);
  count(EXPORT_METRICS.unitsPartial, result.partial + result.pending);
  count(EXPORT_METRICS.unitsFailed, result.failed);
  if (result.missingDays !== undefined) count(EXPORT_METRICS.missingDays, result.missingDays);
  metrics.publishStoredMetrics();
}

let cold: ReturnType<typeof handlerFromEnvironment> | undefined;

/** The Lambda entry point. Built on first use, like the follow-up handler: importing reads nothing. */
export const handler = async (event: unknown, context: ExportContext): Promise<RunResult> => {
  cold ??= handlerFromEnvironment(process.env);
  return cold(event, context);
};
