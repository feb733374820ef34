/**
 * Exports one unit — one dataset of one project for one UTC day — with any dataset's paging,
 * resuming from its checkpoint. The Lambda handler, the CLI and the benchmarks all come
 * through here; the loop knows datasets only through their definition (`datasets.ts`).
 *
 * Its pages come from `pages.ts` — the ones staged by earlier runs (`stagedPages`), then the
 * ones fetched now (`pagesOf`); `runOnce` stages and checkpoints each page and appends its rows,
 * and `commit` turns them into the table files and the manifest (`manifest.ts`).
 *
 * A unit ends one of three ways:
 * - **complete**: every page arrived; the tables' files are replaced (the previous manifest
 *   removed just before), the manifest is written last, the staging removed;
 * - **partial**: the budget has no room before the deadline, the deadline came, the run was
 *   stopped, or another run took the lease. What arrived stays staged; nothing under the
 *   tables changes. Not a failure: a later run resumes it;
 * - **failed** (throws): a broken stop rule, a malformed answer, a refused request, a failed
 *   write. The reason is kept in the staging for `status`. Pages that broke a stop rule are
 *   suspect and dropped; otherwise the staged pages stay for the next attempt.
 */
import type { AnalyticsApi } from '../shared/api/index.js';
import type { Destination } from '../shared/storage/destination.js';
import { DeadlineExceededError, describeError } from '../shared/errors.js';
import { BudgetExhaustedError, LeaseLostError } from '../shared/pacing/errors.js';
import { PaginationError } from './errors.js';
import type { AppLogger } from '../shared/logger.js';
import { HOUR_MS } from '../shared/time.js';
import { DATASETS, type DatasetDef, type ReadScope, type RowContext } from './datasets.js';
import { commit, tableKey, UnitRows, type CommittedRun } from './commit.js';
import type { Manifest } from './manifest.js';
import { isSharedFailure } from './run-stops.js';
import { createPager, type PagerState } from './paging.js';
import { pagesOf, RestartUnit, stagedPages } from './pages.js';
import type { ExportPolicy, RunControl } from './policy.js';
import { API_COUNTERS, startMeter } from './request-meter.js';
import { openTableWriter, type TableWriter } from './parquet.js';
import { privacyFingerprint, type Privacy } from './privacy.js';
import { CHECKPOINT_VERSION, unitStaging, type Checkpoint, type RequestCounts, type UnitStaging } from './staging.js';
import { unitLabel, type Unit } from './unit-id.js';

export type UnitOutcome =
  | { readonly status: 'complete'; readonly manifest: Manifest }
  | {
      readonly status: 'partial';
      /** Pages staged so far. */
      readonly pages: number;
      readonly reason: 'budget' | 'deadline' | 'stopped' | 'lease';
      /** Budget: when the next request may start (epoch ms). */
      readonly nextStartAt?: number;
    };

/** What exporting one unit takes: the unit, its run's time, and that run's policy and control as they are. */
export interface UnitJob {
  readonly unit: Unit;
  /** Stamped into every row's `exported_at`; one value per run. */
  readonly exportedAt: number;
  readonly policy: Pick<ExportPolicy, 'pageLimit' | 'maxPages' | 'checkpointMaxAgeMs'> & {
    /** A day fetched before it is due (this long after it ends, hours) is committed `provisional`. @default never provisional */
    readonly settleHours?: number;
  };
  /** Every request of the unit is sent with it, unchanged. */
  readonly control: RunControl;
  /** The personal-data policy, key and erasures of the run (privacy.ts). */
  readonly privacy: Privacy;
}

export interface UnitDeps {
  readonly api: AnalyticsApi;
  readonly destination: Destination;
  /** Epoch ms. */
  readonly now: () => number;
  readonly logger?: AppLogger;
  /** The unit's lease, renewed after each page and before the commit. */
  readonly lease?: { renew(): Promise<void> };
  /** Called after each page is accepted (progress). */
  readonly onPage?: (unit: Unit, pages: number) => void;
}

export async function exportUnit(job: UnitJob, deps: UnitDeps): Promise<UnitOutcome> {
  const { unit, policy } = job;
  const def = DATASETS[unit.dataset];
  const limit = def.maxLimit === undefined ? undefined : Math.min(def.maxLimit, policy.pageLimit ?? def.maxLimit);
  const staging = unitStaging(deps.destination, unit);
  const label = unitLabel(unit);

  const meter = startMeter(deps.api.stats, API_COUNTERS);
  const discard = async (stale: Checkpoint, reason: string) => {
    deps.logger?.info('checkpoint discarded: the unit starts again', { unit: label, reason });
    await staging.clear(stale.state.pages);
  };
  // What the checkpoints record of the policy and key the pages are governed with: one reading per unit.
  const fingerprint = privacyFingerprint(job.privacy);
  let checkpoint = await staging.readCheckpoint();
  const why = checkpoint && unusable(checkpoint, { limit: limit ?? null, now: deps.now(), maxAgeMs: policy.checkpointMaxAgeMs, privacy: fingerprint });
  if (checkpoint && why) {
    await discard(checkpoint, why);
    checkpoint = undefined;
  }
  const attempt = (from: Checkpoint | undefined) => runOnce(startRun({ job, def, limit, checkpoint: from, staging, deps, fingerprint }), deps);
  try {
    try {
      return await attempt(checkpoint);
    } catch (error) {
      if (!(error instanceof RestartUnit) || !checkpoint) throw error;
      await discard(checkpoint, error.message);
      return await attempt(undefined);
    }
  } catch (error) {
    const partial = partialOutcome(error, job.control);
    if (partial) {
      const staged = (await staging.readCheckpoint())?.state.pages ?? 0;
      return { ...partial, pages: staged };
    }
    await recordFailure(error, { unit, staging, now: deps.now(), requests: meter.read().requests });
    throw error;
  }
}

/**
 * Keeps why the unit failed for `status`, with the failures in a row that drive its backoff
 * (units.ts) and the requests its failed attempts cost (`requests`: this call's, metered).
 * Never throws: the unit's own error is what the caller sees.
 */
async function recordFailure(
  error: unknown,
  failed: { readonly unit: Unit; readonly staging: UnitStaging; readonly now: number; readonly requests: number },
): Promise<void> {
  const { unit, staging } = failed;
  // Read before a clear removes it: the failures in a row drive the unit's backoff.
  const previous = await staging.readFailure().catch(() => undefined);
  // Pages that broke a stop rule may be inconsistent with what follows: start afresh.
  if (error instanceof PaginationError) await staging.clear((await staging.readCheckpoint())?.state.pages ?? 0).catch(() => undefined);
  await staging
    .writeFailure({
      error: describeError(error),
      at: new Date(failed.now).toISOString(),
      // A failure every unit would meet (a refused key, an unreachable API, a 403 of the
      // dataset) is not this unit's: fixed (a rotated key), the unit goes on at the next run.
      // An unknown project (404) is: a corrected id is another unit, so this one backs off.
      attempts: isSharedFailure(error, unit) ? 0 : (previous?.attempts ?? (previous ? 1 : 0)) + 1,
      requests: (previous?.requests ?? 0) + failed.requests,
    })
    .catch(() => undefined);
}

/** Why a checkpoint cannot be resumed, or undefined when it can. */
function unusable(
  checkpoint: Checkpoint,
  current: { readonly limit: number | null; readonly now: number; readonly maxAgeMs: number; readonly privacy: string },
): string | undefined {
  const { limit, now, maxAgeMs } = current;
  if (checkpoint.limit !== limit) return `it was paged with limit=${checkpoint.limit}, this run uses ${limit}`;
  // Staged pages governed with another policy or key would mix two series of values in one file.
  if ((checkpoint.privacy ?? '') !== current.privacy) return 'its pages were staged under another personal-data policy or key';
  const started = Date.parse(checkpoint.startedAt);
  if (!(now - started < maxAgeMs)) {
    return `it is older than ${Math.round(maxAgeMs / HOUR_MS)} h (EXPORT_CHECKPOINT_MAX_AGE_HOURS): the day's data may have changed since`;
  }
  return undefined;
}

function partialOutcome(error: unknown, control: RunControl): Omit<Extract<UnitOutcome, { status: 'partial' }>, 'pages'> | undefined {
  if (error instanceof BudgetExhaustedError) return { status: 'partial', reason: 'budget', nextStartAt: error.nextStartAt };
  if (error instanceof LeaseLostError) return { status: 'partial', reason: 'lease' };
  if (control.signal?.aborted || control.stop?.aborted) return { status: 'partial', reason: 'stopped' };
  if (error instanceof DeadlineExceededError) return { status: 'partial', reason: 'deadline' };
  return undefined;
}

/**
 * One run's work on a unit: what its rows, checkpoints and manifest are made with, besides the
 * pages themselves.
 */
interface UnitRun extends CommittedRun {
  readonly unit: Unit;
  /** What its checkpoints record of the policy and key its pages are governed with. */
  readonly fingerprint: string;
  /** The run's policy and control, as they came. */
  readonly policy: UnitJob['policy'];
  readonly control: RunControl;
  readonly privacy: Privacy;
  readonly def: DatasetDef;
  readonly staging: UnitStaging;
  /** The `limit` the unit is paged with; undefined for an endpoint without one. */
  readonly limit: number | undefined;
  /** The checkpoint this run resumes; undefined: the unit starts from its first page. */
  readonly checkpoint: Checkpoint | undefined;
  /** The context of this run's rows (`exported_at` = the run's time). */
  readonly context: RowContext;
  /** When this run started on the unit, epoch ms. */
  readonly started: number;
  /** When the unit was first started (ISO), by this run or the one whose checkpoint it resumes. */
  readonly startedAt: string;
  /** Runs that worked on the unit, this one included. */
  readonly runs: number;
  /** When the staged pages arrived (`Checkpoint.stamps`), this run's pages included. */
  readonly stamps: NonNullable<Checkpoint['stamps']>;
  /** Requests spent on the unit, by earlier runs and this one. */
  spent(): RequestCounts;
  /** Invalid UTF-8 sequences replaced by U+FFFD in this run's answers (api/body.ts). */
  invalidUtf8(): number;
}

/** What starting a run's work on a unit takes. */
interface RunStart {
  readonly job: UnitJob;
  readonly def: DatasetDef;
  readonly limit: number | undefined;
  /** The checkpoint to resume; undefined: from the first page. */
  readonly checkpoint: Checkpoint | undefined;
  readonly staging: UnitStaging;
  readonly deps: UnitDeps;
  /** `privacyFingerprint` of the job's privacy. */
  readonly fingerprint: string;
}

/** Starts this run's work on the unit (its clock and request meter start here). */
function startRun({ job, def, limit, checkpoint, staging, deps, fingerprint }: RunStart): UnitRun {
  const { unit, policy, control, privacy } = job;
  const started = deps.now();
  const meter = startMeter(deps.api.stats, API_COUNTERS);
  const context: RowContext = {
    projectId: unit.projectId,
    date: unit.day,
    exportedAt: new Date(job.exportedAt),
  };
  const stamps = checkpoint?.stamps ?? [];
  const runStamp = context.exportedAt.toISOString();
  return {
    unit,
    policy,
    control,
    privacy,
    fingerprint,
    def,
    staging,
    limit,
    checkpoint,
    context,
    started,
    startedAt: checkpoint?.startedAt ?? new Date(started).toISOString(),
    runs: (checkpoint?.runs ?? 0) + 1,
    stamps: stamps.at(-1)?.at === runStamp ? stamps : [...stamps, { from: checkpoint?.state.pages ?? 0, at: runStamp }],
    spent() {
      const now = meter.read();
      const earlier = checkpoint?.requests ?? { successful: 0, sent: 0, retried: 0 };
      return { successful: earlier.successful + now.successes, sent: earlier.sent + now.requests, retried: earlier.retried + now.retries };
    },
    invalidUtf8: () => meter.read().invalidUtf8,
  };
}

/** The context of a staged page's rows: stamped with the time of the run that fetched it. */
function stagedContext(run: UnitRun, index: number): RowContext {
  const stamp = run.stamps.filter((s) => s.from <= index).at(-1);
  const at = stamp === undefined ? Number.NaN : Date.parse(stamp.at);
  return Number.isFinite(at) ? { ...run.context, exportedAt: new Date(at) } : run.context;
}

/** The checkpoint of `run` once the page that led to `state` is staged. */
function checkpointOf(run: UnitRun, state: PagerState, done: boolean, now: number): Checkpoint {
  return {
    version: CHECKPOINT_VERSION,
    dataset: run.unit.dataset,
    projectId: run.unit.projectId,
    date: run.unit.day,
    limit: run.limit ?? null,
    startedAt: run.startedAt,
    updatedAt: new Date(now).toISOString(),
    state,
    ...(done ? { complete: true as const } : {}),
    requests: run.spent(),
    runs: run.runs,
    stamps: run.stamps,
    privacy: run.fingerprint,
  };
}

/**
 * One attempt at the unit, from its checkpoint (or from its first page): replays the staged
 * pages, stages and checkpoints each page fetched, then commits. Throws `RestartUnit` when the
 * checkpoint no longer fits the day's data.
 */
async function runOnce(run: UnitRun, deps: UnitDeps): Promise<UnitOutcome> {
  const { unit, def, limit, checkpoint, staging, control: call } = run;
  const { api, destination, now } = deps;
  const label = unitLabel(unit);
  const pager = createPager(def.paging, { ...(limit !== undefined ? { limit } : {}), maxPages: run.policy.maxPages, where: label });
  /** Set when this run gives up on the unit: a page still on its way is dropped. */
  const abandon = new AbortController();

  const rows = new UnitRows(def.table, await openTableWriter(def.table, await destination.openWrite(tableKey(def.table, unit))));
  /** The checkpoint as last written (by this run, or the one it resumed). */
  let lastCheckpoint: Checkpoint | undefined = checkpoint;
  try {
    // Resume: the staged pages go through the same rules (rebuilding duplicate detection) and
    // into the file, then the unit carries on where the checkpoint stands.
    if (checkpoint) {
      const scopeOf = (index: number): ReadScope => ({ context: stagedContext(run, index), privacy: run.privacy });
      for await (const { page, index } of stagedPages(checkpoint, staging, pager, def, scopeOf)) await rows.append(page, index);
    }
    let state: PagerState = checkpoint?.state ?? pager.initial;
    const scope: ReadScope = { context: run.context, privacy: run.privacy };
    const pages = pagesOf({ api, def, unit, pager, limit, call, logger: deps.logger, abandoned: abandon.signal, scope }, checkpoint);
    /** The next page: asking for it sends its request (unless the paging is over or stopped). */
    const ask = () => {
      const next = pages.next();
      // Its failure is seen once this page is done with — or never, when the unit fails first.
      next.catch(() => undefined);
      return next;
    };
    let next = ask();
    for (;;) {
      const fetched = await next;
      if (fetched.done) break;
      const { page, index, state: after, done } = fetched.value;
      // The page is staged before the next request — and the last one before the commit: a
      // stop or a failure from here on never re-fetches it. The checkpoint that counts it is
      // written while the next page is on its way (off the event loop: staging.ts), so the disk
      // never holds that request: if the write fails, or the process is killed in the moment it
      // takes, the next run resumes from the previous checkpoint and fetches this page again
      // (once), never a wrong one.
      await staging.writePage(index, page.body);
      lastCheckpoint = checkpointOf(run, after, done, now());
      const checkpointed = staging.writeCheckpoint(lastCheckpoint);
      next = ask();
      await checkpointed;
      await rows.append(page, index);
      state = after;
      deps.onPage?.(unit, state.pages);
      await deps.lease?.renew();
    }

    return { status: 'complete', manifest: await commit(run, rows, state, deps) };
  } catch (error) {
    abandon.abort();
    await abortQuietly(rows.writer, error);
    // Attempts made since the last page was staged (retries, the failed request) count too:
    // the manifest reports every request the unit cost, over every run.
    if (lastCheckpoint) await staging.writeCheckpoint({ ...lastCheckpoint, requests: run.spent() }).catch(() => undefined);
    throw error;
  }
}

async function abortQuietly(writer: TableWriter, reason: unknown): Promise<void> {
  await writer.abort(reason).catch(() => undefined);
}
