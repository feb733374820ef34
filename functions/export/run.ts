/**
 * The nightly export as plain functions with injected dependencies. The Lambda handler and
 * the CLI both wire these; neither contains export logic.
 */
import type { ApiClient, VisitorCounts } from '../shared/api-types.js';
import { addDays, dayWindow, previousDay } from '../shared/dates.js';
import type { Destination } from '../shared/destination.js';
import { ConfigError, describeError, DeadlineExceededError, ExporterError, PaginationError } from '../shared/errors.js';
import type { AppLogger } from '../shared/logger.js';
import { manifestKey, partitionKey, VISITORS_PAGES, VISITORS_TOTALS } from '../shared/tables.js';
import type { ExportRequest } from './event.js';
import { fetchDayPages, type PagingOptions } from './pages.js';
import { openTableWriter } from './parquet.js';


export interface ExportDeps {
  readonly api: Pick<ApiClient, 'getVisitors' | 'stats'>;
  readonly destination: Destination;
  /** Epoch ms. */
  readonly now: () => number;
  readonly logger?: AppLogger;
  /** Called as each day starts and ends (CLI progress, metrics). */
  readonly onDay?: (event: DayEvent) => void;
}

export interface ExportOptions extends PagingOptions {
  /** Stamped into every row's `exported_at`; one value per run. */
  readonly exportedAt: number;
}

export type DayEvent =
  | { readonly kind: 'start'; readonly projectId: string; readonly day: string; readonly position: number; readonly count: number }
  | { readonly kind: 'done'; readonly result: DayResult; readonly position: number; readonly count: number };

/** The commit marker of one day, written last; its presence means the day is complete. */
export interface Manifest {
  readonly version: 1;
  readonly projectId: string;
  readonly date: string;
  readonly window: { readonly dateFrom: string; readonly dateTo: string };
  readonly exportedAt: string;
  readonly totals: { readonly human: number; readonly ai: number; readonly total: number };
  readonly rows: { readonly totals: 1; readonly pages: number };
  readonly files: { readonly totals: string; readonly pages: string };
  readonly bytes: { readonly totals: number; readonly pages: number };
  readonly requests: { readonly successful: number; readonly sent: number; readonly retried: number };
  readonly durationsMs: { readonly total: number };
}

export type DayResult =
  | { readonly ok: true; readonly projectId: string; readonly day: string; readonly manifest: Manifest }
  | { readonly ok: false; readonly projectId: string; readonly day: string; readonly error: string; readonly retryable: boolean };

export interface RunSummary {
  readonly ok: boolean;
  readonly days: readonly DayResult[];
  readonly exported: number;
  readonly failed: number;
  /** Requests sent to the API during the run (every attempt). */
  readonly requests: number;
}

/** One day of one project to export. */
export interface DayTask {
  readonly projectId: string;
  readonly day: string;
}

/**
 * Exports `[day, day+1)` for one project: streams every page into the pages file, then
 * writes the totals file, then the manifest. The old manifest is removed only after every
 * page has arrived, just before the first file is replaced, so a failure while paging leaves
 * the previous export of the day untouched; a failure while replacing leaves the day with no
 * manifest, which the next nightly run heals.
 */
export async function exportDay(task: DayTask, options: ExportOptions, deps: ExportDeps): Promise<Manifest> {
  const { projectId, day } = task;
  const { api, destination, now } = deps;
  const started = now();
  const before = { ...api.stats };
  const window = dayWindow(day);
  const exportedAt = new Date(options.exportedAt);
  const pagesKey = partitionKey(VISITORS_PAGES, day, `${projectId}.parquet`);
  const totalsKey = partitionKey(VISITORS_TOTALS, day, `${projectId}.parquet`);

  const pagesWriter = await openTableWriter(VISITORS_PAGES, await destination.openWrite(pagesKey));
  let totals: VisitorCounts | undefined;
  let pages: { rows: number; bytes: number };
  try {
    for await (const page of fetchDayPages(api, projectId, window, options)) {
      totals = page.totals;
      for (const row of page.visitors) {
        await pagesWriter.append({
          project_id: projectId,
          date: day,
          path: row.path,
          human: row.human,
          ai: row.ai,
          total: row.total,
          exported_at: exportedAt,
        });
      }
    }
    // The generator yields at least one page or throws; this only narrows the type.
    if (!totals) throw new PaginationError(`${projectId} ${day}: the API returned no page`);
    await destination.delete(manifestKey('visitors', day, projectId));
    pages = await pagesWriter.close();
  } catch (error) {
    await pagesWriter.abort(error);
    throw error;
  }

  const totalsWriter = await openTableWriter(VISITORS_TOTALS, await destination.openWrite(totalsKey));
  let totalsFile;
  try {
    await totalsWriter.append({
      project_id: projectId,
      date: day,
      human: totals.human,
      ai: totals.ai,
      total: totals.total,
      pages: pages.rows,
      exported_at: exportedAt,
    });
    totalsFile = await totalsWriter.close();
  } catch (error) {
    await totalsWriter.abort(error);
    throw error;
  }

  const after = api.stats;
  const manifest: Manifest = {
    version: 1,
    projectId,
    date: day,
    window: { dateFrom: window.from, dateTo: window.to },
    exportedAt: exportedAt.toISOString(),
    totals: { human: totals.human, ai: totals.ai, total: totals.total },
    rows: { totals: 1, pages: pages.rows },
    files: { totals: totalsKey, pages: pagesKey },
    bytes: { totals: totalsFile.bytes, pages: pages.bytes },
    requests: {
      successful: after.successes - before.successes,
      sent: after.requests - before.requests,
      retried: after.retries - before.retries,
    },
    durationsMs: { total: now() - started },
  };
  await destination.put(manifestKey('visitors', day, projectId), `${JSON.stringify(manifest, null, 2)}\n`, {
    contentType: 'application/json',
  });
  return manifest;
}

/**
 * Exports each task in order, one at a time (the API's request budget is small and shared,
 * so parallel requests would only trade one 429 for another). A failed day is recorded and
 * the run goes on with the next one; the summary says what failed.
 */
export async function exportDays(tasks: readonly DayTask[], options: ExportOptions, deps: ExportDeps): Promise<RunSummary> {
  const results: DayResult[] = [];
  const requestsBefore = deps.api.stats.requests;
  for (const [position, task] of tasks.entries()) {
    deps.onDay?.({ kind: 'start', ...task, position, count: tasks.length });
    let result: DayResult;
    if (options.deadline !== undefined && deps.now() >= options.deadline) {
      const error = new DeadlineExceededError('no time left in this invocation; the next run exports this day');
      result = failure(task, error);
    } else {
      try {
        const manifest = await exportDay(task, options, deps);
        result = { ok: true, ...task, manifest };
        deps.logger?.info('day exported', {
          projectId: task.projectId,
          day: task.day,
          pages: manifest.rows.pages,
          requests: manifest.requests.successful,
          durationMs: manifest.durationsMs.total,
        });
      } catch (error) {
        const failed = failure(task, error);
        result = failed;
        deps.logger?.error('day failed', { projectId: task.projectId, day: task.day, error: failed.error });
      }
    }
    results.push(result);
    deps.onDay?.({ kind: 'done', result, position, count: tasks.length });
  }
  const failed = results.filter((r) => !r.ok).length;
  return {
    ok: failed === 0,
    days: results,
    exported: results.length - failed,
    failed,
    requests: deps.api.stats.requests - requestsBefore,
  };
}

function failure(task: DayTask, error: unknown): Extract<DayResult, { ok: false }> {
  return {
    ok: false,
    ...task,
    error: describeError(error),
    retryable: error instanceof ExporterError ? error.retryable : true,
  };
}

/**
 * The nightly plan: the day before the schedule event's own `time` (so a retry after
 * midnight still exports the same day) for every project, plus any of the `healDays` days
 * before it that has no manifest — an outage heals itself on the next night.
 * Oldest first, so a backlog fills in order.
 */
export async function planNightly(
  eventTime: string | number,
  projectIds: readonly string[],
  healDays: number,
  destination: Pick<Destination, 'exists'>,
): Promise<DayTask[]> {
  const target = previousDay(eventTime);
  const tasks: DayTask[] = [];
  for (let back = healDays; back >= 1; back--) {
    const day = addDays(target, -back);
    for (const projectId of projectIds) {
      if (!(await destination.exists(manifestKey('visitors', day, projectId)))) tasks.push({ projectId, day });
    }
  }
  for (const projectId of projectIds) tasks.push({ projectId, day: target });
  return tasks;
}

/** Every (project, day) pair, days oldest first. */
export function planDays(days: readonly string[], projectIds: readonly string[]): DayTask[] {
  return days.flatMap((day) => projectIds.map((projectId) => ({ projectId, day })));
}

/** Days of the heal window that still have no manifest (the `MissingDays` metric). */
export async function countMissingDays(
  lastDay: string,
  projectIds: readonly string[],
  healDays: number,
  destination: Pick<Destination, 'exists'>,
): Promise<number> {
  let missing = 0;
  for (let back = healDays; back >= 0; back--) {
    const day = addDays(lastDay, -back);
    for (const projectId of projectIds) {
      if (!(await destination.exists(manifestKey('visitors', day, projectId)))) missing++;
    }
  }
  return missing;
}

export interface RunSettings {
  /** Projects exported when the request names none (MINTLIFY_PROJECT_IDS). */
  readonly projectIds: readonly string[];
  /** Earlier days re-exported when they have no manifest (EXPORT_HEAL_DAYS). */
  readonly healDays: number;
  readonly pageLimit: number;
  readonly maxPages: number;
  /** Epoch ms; from the Lambda context's remaining time, minus a margin. */
  readonly deadline?: number;
}

export interface RunResult extends RunSummary {
  readonly request: ExportRequest;
  /** Nightly runs only: days of the heal window still without a manifest afterwards. */
  readonly missingDays?: number;
}

/** Plans and runs one export request (nightly or explicit days); never throws for a failed day. */
export async function runExport(request: ExportRequest, settings: RunSettings, deps: ExportDeps): Promise<RunResult> {
  const projectIds = request.projects ?? settings.projectIds;
  if (projectIds.length === 0) {
    throw new ConfigError('no project to export: set MINTLIFY_PROJECT_IDS (comma-separated) or pass projects');
  }
  const tasks =
    request.kind === 'nightly'
      ? await planNightly(request.time, projectIds, settings.healDays, deps.destination)
      : planDays(request.days, projectIds);
  const options: ExportOptions = {
    limit: settings.pageLimit,
    maxPages: settings.maxPages,
    exportedAt: deps.now(),
    ...(settings.deadline === undefined ? {} : { deadline: settings.deadline }),
  };
  const summary = await exportDays(tasks, options, deps);
  if (request.kind !== 'nightly') return { ...summary, request };
  const missingDays = await countMissingDays(previousDay(request.time), projectIds, settings.healDays, deps.destination);
  return { ...summary, request, missingDays };
}
