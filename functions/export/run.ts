/**
 * A run: one request (the hourly schedule, explicit days) planned — the backlog, the personal
 * data's retention and privacy prepared once — then exported by the unit loop
 * (`run-units.ts`), and recorded in the run log (`export_runs`, with its Iceberg statements) when it ends.
 */
import { randomUUID } from 'node:crypto';
import type { DatasetName } from '../warehouse/catalog.js';
import { EXPORT_RUNS } from '../warehouse/tables.js';
import { refreshRunIndexes } from '../warehouse/lake/run-index.js';
import { describeError } from '../shared/errors.js';
import type { SharedStore } from '../shared/storage/shared-store.js';
import { BACKLOG_PREFIX, countMissing, doneSince, planRequested, planScheduled, type BacklogEntry } from './plan.js';
import { newRunId, recordOfFailedRun, recordOfRun, writeRunRecord, type RunRecord, type RunTrigger } from './run-log.js';
import type { UnitState } from './units.js';
import { unitKey, unitsOf } from './unit-id.js';
import { API_COUNTERS, GATE_COUNTERS, startMeter } from './request-meter.js';
import type { ExportPolicy, RunControl } from './policy.js';
import { prepareRunPrivacy } from './privacy.js';
import { applyRetention, isExpired, withoutExpired } from './retention.js';
import { runUnits, type RunDeps, type RunSummary } from './run-units.js';
import type { IcebergSummary } from './iceberg/sync.js';

/** What a run asks for. */
export type RunRequest =
  /** The hourly schedule: latest due day, partial, missing, backfill, refresh. `time` fixes "now". */
  | {
      readonly kind: 'scheduled';
      readonly time: number;
      readonly projects?: readonly string[];
      readonly datasets?: readonly DatasetName[];
      /** Invoked by hand (`{}`) rather than by the schedule; for the run log. */
      readonly manual?: boolean;
    }
  /** Explicit days (CLI, manual invoke). */
  | {
      readonly kind: 'days';
      readonly days: readonly string[];
      readonly projects?: readonly string[];
      readonly datasets?: readonly DatasetName[];
      /** Export complete units again. */
      readonly force?: boolean;
      /** Keep what does not fit in this run as a backlog entry that later runs drain (Lambda). */
      readonly backlog?: boolean;
    };

export interface RunResult extends RunSummary {
  readonly request: RunRequest;
  /** What retention expired in this run, in one line (retention.ts `describeRetention`); absent when nothing. */
  readonly retention?: string;
  /** The run's id in the run log (`export_runs`). */
  readonly runId: string;
  /** Units of the days asked for that retention expired (PERSONAL_DATA_RETENTION_DAYS): never exported again; absent when none. */
  readonly expired?: number;
  /** What the run did to the Iceberg tables (each statement's query id, rows, bytes scanned); absent with `tableFormat=hive`. */
  readonly iceberg?: IcebergSummary;
}

/**
 * Plans and runs one request, and appends its record to the run log (`export_runs`) when it
 * ends — also when it throws. Never throws for a unit: its result says what happened.
 */
export async function runExport(request: RunRequest, policy: ExportPolicy, control: RunControl, deps: RunDeps): Promise<RunResult> {
  const startedAt = deps.now();
  const runId = newRunId(startedAt);
  const trigger: RunTrigger = request.kind === 'scheduled' ? (request.manual ? 'manual' : 'schedule') : request.backlog ? 'manual' : 'cli';
  const apiMeter = startMeter(deps.api.stats, API_COUNTERS);
  const gateMeter = startMeter(deps.gate.stats, GATE_COUNTERS);
  const base = () => ({ runId, trigger, startedAt, finishedAt: deps.now(), retries: apiMeter.read().retries });
  let result: Omit<RunResult, 'runId'>;
  await deps.partitions?.retryPending();
  try {
    result = await planAndRun(request, policy, control, deps);
  } catch (error) {
    const counters = { requests: apiMeter.read().requests, rateLimited: gateMeter.read().rateLimited, budgetWaitMs: gateMeter.read().waitedMs };
    // What did commit before the failure is merged all the same.
    const iceberg = await deps.iceberg?.flush({ maintenance: false });
    await logRun(deps, recordOfFailedRun(base(), counters, error, iceberg));
    throw error;
  }
  // The units are committed: their days go into the Iceberg tables (a failure waits for the next run).
  const iceberg = await deps.iceberg?.flush({ maintenance: request.kind === 'scheduled' });
  await logRun(deps, recordOfRun(base(), result, iceberg));
  return { ...result, runId, ...(iceberg ? { iceberg } : {}) };
}

/** The run log must never turn a finished run into a failed one: a failed write is logged. */
async function logRun(deps: RunDeps, record: RunRecord): Promise<void> {
  try {
    await writeRunRecord(deps.destination, record);
    // Its day in the catalog too (Spectrum, Spark and Trino read registered partitions only).
    await deps.partitions?.wrote(EXPORT_RUNS.name, record.started_at.slice(0, 10));
  } catch (error) {
    deps.logger?.warn('could not write the run record', { runId: record.run_id, error: describeError(error) });
    return;
  }
  // Folded into its month's index of the run log (derived: a reader takes only what it holds as listed).
  await refreshRunIndexes(deps.destination, { days: [record.started_at.slice(0, 10)] }).catch((error: unknown) =>
    deps.logger?.warn('could not fold the run record into the run log index; readers read it on its own', {
      runId: record.run_id,
      error: describeError(error),
    }),
  );
}

async function planAndRun(request: RunRequest, policy: ExportPolicy, control: RunControl, deps: RunDeps): Promise<Omit<RunResult, 'runId'>> {
  const projects = request.projects ?? policy.projectIds;
  const datasets = request.datasets ?? policy.datasets;
  const privacy = await prepareRunPrivacy(deps.destination, policy.personalData, deps.personalDataKey);
  const { cutoff, line: retention } = await applyRetention(policy.retentionDays, deps);
  const said = retention !== undefined ? { retention } : {};
  if (request.kind === 'days') {
    let entry: BacklogEntry | undefined;
    if (request.backlog) {
      entry = {
        id: `${new Date(deps.now()).toISOString().slice(0, 19)}-${randomUUID().slice(0, 8)}`,
        createdAt: deps.now(),
        days: request.days,
        projects,
        datasets,
      };
      await deps.store.update<BacklogEntry, void>(`${BACKLOG_PREFIX}${entry.id}`, () => ({ value: entry, result: undefined }));
    }
    const plan = await planRequested(
      {
        days: request.days,
        projects,
        datasets,
        force: request.force === true || entry !== undefined,
        now: deps.now(),
        ...(deps.sizedPages ? { sizedPages: deps.sizedPages } : {}),
      },
      deps.destination,
    );
    const summary = await runUnits({ units: withoutExpired(plan.units, cutoff, deps), policy, control, deps, privacy });
    if (entry && summary.units.every((u) => u.status === 'complete')) await removeBacklog(deps.store, entry.id);
    // The days asked for whose units retention expired (recorded before, or past the cutoff now): said, never "complete".
    const expired = unitsOf(request.days, projects, datasets).filter((unit) => plan.expired?.has(unitKey(unit)) === true || isExpired(unit, cutoff)).length;
    return { ...summary, ...said, request, ...(expired > 0 ? { expired } : {}) };
  }

  const backlog = (await deps.store.list<BacklogEntry>(BACKLOG_PREFIX)).map((item) => item.value);
  const input = {
    now: request.time,
    clock: deps.now(),
    settleHours: policy.settleHours,
    healDays: policy.healDays,
    refreshDays: policy.refreshDays,
    projects,
    datasets,
    backlog,
  };
  const plan = await planScheduled(input, deps.destination);
  const summary = await runUnits({ units: withoutExpired(plan.units, cutoff, deps), policy, control, deps, privacy });

  // What this run completed counts for the backlog and the missing days.
  const states = new Map<string, UnitState>(plan.states);
  for (const result of summary.units) {
    if (result.status === 'complete') states.set(unitKey(result), { kind: 'complete', manifest: result.manifest });
  }
  for (const entry of backlog) {
    const units = unitsOf(entry.days, entry.projects, entry.datasets);
    if (units.every((unit) => doneSince(states.get(unitKey(unit)) ?? { kind: 'missing' }, entry.createdAt))) {
      await removeBacklog(deps.store, entry.id);
    }
  }
  // Units left for budget or time are waiting, not missing: the alarm is for overdue ones.
  const waiting = new Set(
    summary.units.filter((u) => (u.status === 'pending' && u.blocked === undefined) || (u.status === 'partial' && u.why !== 'lease')).map((u) => unitKey(u)),
  );
  const missingDays = countMissing({ ...plan, states }, input, waiting);
  return { ...summary, ...said, request, missingDays };
}

async function removeBacklog(store: SharedStore, id: string): Promise<void> {
  await store.update<BacklogEntry, void>(`${BACKLOG_PREFIX}${id}`, () => ({ value: undefined, result: undefined }));
}
