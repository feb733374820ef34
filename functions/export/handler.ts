/**
 * Lambda entry of the export, run hourly: wiring only. Each run drains what the request budget
 * and its 15 minutes allow, checkpoints and returns; the next hour goes on. Waiting for budget
 * is not an error (no alarm); a unit that truly fails makes the invocation throw, so the error
 * alarm fires. Config is parsed and clients built once per cold start, on the first invocation
 * (deps.ts builds them, as it does for the CLI).
 */
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { Context } from 'aws-lambda';
import { builtOnFirstUse } from '../shared/cold-start.js';
import { loadConfigFor, requireSettings } from '../settings/config.js';
import { ExporterError } from '../shared/errors.js';
import { EXPORT_METRICS, EXPORT_SERVICE, METRICS_NAMESPACE } from '../shared/metric-names.js';
import { createExportDeps, wireRun, type ExportDeps } from './deps.js';
import { parseExportEvent } from './event.js';
import type { RunResult } from './run.js';
import { unitLabel } from './unit-id.js';

/** Stop starting new requests this long before the Lambda would be killed. */
const DEADLINE_MARGIN_MS = 20_000;

/** Thrown so the error alarm fires: a unit failed for a reason other than waiting. */
export class ExportIncompleteError extends ExporterError {}

export type ExportContext = Pick<Context, 'getRemainingTimeInMillis' | 'awsRequestId'>;

export interface HandlerDeps extends ExportDeps {
  /** Published after each run. @default Powertools Metrics of the export service */
  readonly metrics?: Pick<Metrics, 'addMetric' | 'publishStoredMetrics'>;
}

/** The handler for given dependencies (tests call this with emulator clients). */
export function createHandler(deps: HandlerDeps) {
  const { destination, logger, now } = deps;
  const metrics = deps.metrics ?? new Metrics({ serviceName: EXPORT_SERVICE, namespace: METRICS_NAMESPACE });
  return async (event: unknown, context: ExportContext): Promise<RunResult> => {
    logger.appendKeys({ correlationId: context.awsRequestId });
    const request = parseExportEvent(event, now());
    const deadline = now() + context.getRemainingTimeInMillis() - DEADLINE_MARGIN_MS;
    await destination.probe();
    await deps.apiKey.get(); // a missing or unreadable secret fails the invocation before any unit starts
    const wired = wireRun(deps, {
      owner: `lambda:${context.awsRequestId}`,
      onWait: (wait) => logger.info('waiting for the request budget', { waitMs: wait.waitMs, reason: wait.reason }),
      logger,
    });
    const result = await wired.run(request, { deadline });
    if (wired.partitions) metrics.addMetric(EXPORT_METRICS.partitionsFailed, MetricUnit.Count, wired.partitions.stats().failed);
    if (wired.iceberg) metrics.addMetric(EXPORT_METRICS.icebergFailed, MetricUnit.Count, wired.iceberg.summary().failed);
    publishMetrics(metrics, result);
    logger.info('export run finished', {
      runId: result.runId,
      completed: result.completed,
      partial: result.partial,
      pending: result.pending,
      failed: result.failed,
      requests: result.requests,
      backlogRequests: result.backlogRequests,
      // How many units of that estimate are guesses: `backlogRequests` is then "about", not firm.
      backlogGuesses: result.backlogGuesses,
    });
    if (result.failed > 0) {
      const failed = result.units.filter((u) => u.status === 'failed').map((u) => unitLabel(u));
      throw new ExportIncompleteError(`${result.failed} unit(s) failed: ${failed.join(', ')}; see the log for each error`);
    }
    return result;
  };
}

function publishMetrics(metrics: NonNullable<HandlerDeps['metrics']>, result: RunResult): void {
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
  count(EXPORT_METRICS.schemaDrift, result.driftUnits);
  metrics.publishStoredMetrics();
}

/**
 * The deployed handler for `env`: it reads the configuration and builds its clients from the
 * environment on its first invocation (a cold start), so creating it reads nothing. The Lambda
 * keeps its budget ledger and leases in the state table, never in a local folder that dies with
 * the instance.
 */
export function handlerFromEnvironment(env: Record<string, string | undefined>): (event: unknown, context: ExportContext) => Promise<RunResult> {
  return builtOnFirstUse(() => {
    const config = requireSettings(loadConfigFor(env, 'export'), 'export');
    return createHandler(createExportDeps(config));
  });
}

/** The Lambda entry point. Built on first use, like the follow-up handler: importing reads nothing. */
export const handler = handlerFromEnvironment(process.env);
