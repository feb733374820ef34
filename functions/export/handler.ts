/**
 * Lambda entry of the nightly export: wiring only. Config is parsed and clients are built
 * once per cold start; the key is read from Secrets Manager once and cached.
 */
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { Context } from 'aws-lambda';
import { createApiClient } from '../shared/api-client.js';
import type { ApiClient } from '../shared/api-types.js';
import { loadConfig } from '../shared/config.js';
import type { Destination } from '../shared/destination.js';
import { openDestination } from '../shared/destinations.js';
import { ExporterError } from '../shared/errors.js';
import { createLogger } from '../shared/logger.js';
import { resolveApiKey } from '../shared/secrets.js';
import { EXPORT_SERVICE, METRICS_NAMESPACE } from '../shared/metric-names.js';
import { parseExportEvent } from './event.js';
import { runExport, type RunResult } from './run.js';

/** Stop starting new work this long before the Lambda would be killed. */
const DEADLINE_MARGIN_MS = 20_000;

const config = loadConfig(process.env);
const logger = createLogger({ serviceName: EXPORT_SERVICE });
const metrics = new Metrics({ serviceName: EXPORT_SERVICE, namespace: METRICS_NAMESPACE });
const destination: Destination = openDestination(config.destination);
let api: Promise<ApiClient> | undefined;

function apiClient(): Promise<ApiClient> {
  api ??= resolveApiKey(config).then((apiKey) =>
    createApiClient({ baseUrl: config.apiUrl, apiKey, timeoutMs: config.apiTimeoutMs, logger }),
  );
  api.catch(() => {
    api = undefined;
  });
  return api;
}

/** Thrown so the platform retries the invocation and the error alarm fires. */
export class ExportIncompleteError extends ExporterError {
  readonly retryable = true;
}

export const handler = async (event: unknown, context: Pick<Context, 'getRemainingTimeInMillis' | 'awsRequestId'>): Promise<RunResult> => {
  logger.appendKeys({ correlationId: context.awsRequestId });
  const request = parseExportEvent(event, Date.now());
  const result = await runExport(
    request,
    {
      projectIds: config.projectIds,
      healDays: config.healDays,
      pageLimit: config.pageLimit ?? 250,
      maxPages: config.maxPages,
      deadline: Date.now() + context.getRemainingTimeInMillis() - DEADLINE_MARGIN_MS,
    },
    { api: await apiClient(), destination, now: Date.now, logger },
  );
  metrics.addMetric('DaysExported', MetricUnit.Count, result.exported);
  metrics.addMetric('DaysFailed', MetricUnit.Count, result.failed);
  metrics.addMetric('ApiRequests', MetricUnit.Count, result.requests);
  if (result.missingDays !== undefined) metrics.addMetric('MissingDays', MetricUnit.Count, result.missingDays);
  metrics.publishStoredMetrics();
  logger.info('export finished', { exported: result.exported, failed: result.failed, requests: result.requests });
  if (!result.ok) {
    const failed = result.days.filter((d) => !d.ok).map((d) => `${d.projectId} ${d.day}`);
    throw new ExportIncompleteError(`${result.failed} day(s) failed: ${failed.join(', ')}; see the log for each error`);
  }
  return result;
};
