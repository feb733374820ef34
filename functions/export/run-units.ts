/**
 * The unit loop of a run: planned units exported one at a time, each under its lease, until
 * they are done or the budget, the deadline or a stop ends the run. Every run (`run.ts`: the
 * hourly Lambda, a manual invoke, the CLI) comes through `runUnits`; they differ only in how
 * they plan.
 *
 * One at a time because the budget is small and shared: parallel requests would only trade
 * one wait for another. Once a unit stops for budget, time or a stop signal, the run ends —
 * the units after it would only wait for the same budget — and they are reported `pending`.
 */
import type { AnalyticsApi } from '../shared/api/index.js';
import type { BudgetGate } from '../shared/pacing/budget.js';
import type { DatasetName } from '../warehouse/catalog.js';
import type { Destination } from '../shared/storage/destination.js';
import { describeError } from '../shared/errors.js';
import type { Leases } from '../shared/pacing/leases.js';
import type { AppLogger } from '../shared/logger.js';
import type { SharedStore } from '../shared/storage/shared-store.js';
import type { PlannedUnit } from './plan.js';
import type { Unit } from './unit-id.js';
import { mergeDrift, type Drift } from './drift.js';
import { describeRunDrift } from './drift-text.js';
import type { RunTotals } from './run-log.js';
import { readUnitState } from './units.js';
import { unitKey, unitLabel } from './unit-id.js';
import { API_COUNTERS, GATE_COUNTERS, startMeter } from './request-meter.js';
import { stopOf, type RunStop } from './run-stops.js';
import type { Manifest } from './manifest.js';
import { refreshLakeAfter } from '../warehouse/lake/rollups.js';
import { committedUnits } from '../warehouse/lake/rollup-commits.js';
import type { ExportPolicy, RunControl } from './policy.js';
import { isDone } from './settle.js';
import { exportUnit, type UnitJob, type UnitOutcome } from './unit.js';
import type { PersonalDataKeySource } from '../shared/personal-data/index.js';
import type { PartitionRegistrar } from '../warehouse/partitions.js';
import type { IcebergSync } from './iceberg/sync.js';
import { prepareRunPrivacy, unitPrivacy, type RunPrivacy } from './privacy.js';
import { DATASETS } from './datasets.js';
import { createEstimateBook } from './estimate-book.js';

export interface RunDeps {
  readonly api: AnalyticsApi;
  readonly gate: BudgetGate;
  readonly destination: Destination;
  readonly leases: Leases;
  /** Backlog entries (manual requests that did not fit) live here. */
  readonly store: SharedStore;
  readonly now: () => number;
  readonly logger?: AppLogger;
  readonly onEvent?: (event: RunEvent) => void;
  /** The key of the `hmac` columns (shared/personal-data/key.ts). */
  readonly personalDataKey: PersonalDataKeySource;
  /** Registers each committed day in Glue (partitions.ts); absent: nothing is registered. */
  readonly partitions?: PartitionRegistrar;
  /** Merges each committed day into the Iceberg tables at the end of the run (iceberg/sync.ts); absent: none (`tableFormat=hive`). */
  readonly iceberg?: IcebergSync;
  /** Pages of a unit known before its first page (the embedded sandbox's sizes), for the plan's estimates. @default none */
  readonly sizedPages?: (unit: Unit) => number | undefined;
}

export type UnitResult = PlannedUnit &
  (
    | { readonly status: 'complete'; readonly manifest: Manifest }
    | { readonly status: 'partial'; readonly pages: number; readonly why: Extract<UnitOutcome, { status: 'partial' }>['reason'] }
    | { readonly status: 'failed'; readonly error: string }
    /** Another run holds the unit's lease (`leased`), or finished it since this run planned it (`complete`). */
    | { readonly status: 'skipped'; readonly why: 'leased' | 'complete' }
    /**
     * Not reached: the budget, the time or a stop ended the run first — or, with `blocked`,
     * another unit's failure that this one would meet too (a 401, a 403 of its dataset, an API
     * that cannot be reached): then it is not waiting but stopped, and counts as missing.
     */
    | { readonly status: 'pending'; readonly blocked?: string }
  );

export type RunEvent =
  | { readonly kind: 'plan'; readonly units: readonly PlannedUnit[] }
  /**
   * `unit.estimate` is refreshed from the units this run finished; `remaining` counts this unit
   * and the ones after it; `guesses`: how many of them are still estimated by a guess.
   */
  | {
      readonly kind: 'start';
      readonly unit: PlannedUnit;
      readonly position: number;
      readonly count: number;
      readonly remaining: number;
      readonly guesses: number;
    }
  | { readonly kind: 'page'; readonly unit: PlannedUnit; readonly pages: number }
  /** `remaining`: requests the units after this one are expected to need, refreshed; `guesses`: how many of those units are estimated by a guess. */
  | {
      readonly kind: 'done';
      readonly result: UnitResult;
      readonly position: number;
      readonly count: number;
      readonly remaining: number;
      readonly guesses: number;
    };

export interface RunSummary extends RunTotals {
  /** Every planned unit is complete. */
  readonly ok: boolean;
  readonly units: readonly UnitResult[];
  /** 429s whose wait was longer than the budget window (cut to the window). */
  readonly rateLimitWaitsCut: number;
  readonly budgetWaits: number;
  /** Units left (not complete) whose share of `backlogRequests` is a guess (a typical day or another project's pages). */
  readonly backlogGuesses: number;
  /** The run was stopped by its signal. */
  readonly stopped: boolean;
  /**
   * Why the run (or some of its datasets) stopped early, one line each: a failure every other
   * unit would have met too (see run-stops.ts). Empty when nothing stopped early.
   */
  readonly stops: readonly string[];
  /** The failure that stopped the whole run (a 401, an API that cannot be reached, …), if one did. */
  readonly runStop?: RunStop;
  /** Projects that answered 404 (the key cannot see them): each stopped after its first request. */
  readonly unknownProjects: readonly string[];
  /** Scheduled runs: units of the heal window still without a manifest. */
  readonly missingDays?: number;
  /** Per dataset with drift in this run: what changed, and the one warning line that names it. */
  readonly drift: readonly DatasetDrift[];
}

/** The drift of one dataset over the units of a run. */
export interface DatasetDrift {
  readonly dataset: DatasetName;
  /** Units with drift. */
  readonly units: number;
  readonly drift: Drift;
  /** The warning (names and enum values only). */
  readonly message: string;
}

/** One entry per dataset whose completed units drifted, in the order of the datasets' first unit. */
export function driftOf(results: readonly UnitResult[]): DatasetDrift[] {
  const byDataset = new Map<DatasetName, { units: number; drift: Drift }>();
  for (const result of results) {
    const drift = result.status === 'complete' ? result.manifest.drift : undefined;
    if (drift === undefined) continue;
    const entry = byDataset.get(result.dataset);
    byDataset.set(result.dataset, { units: (entry?.units ?? 0) + 1, drift: mergeDrift(entry?.drift, drift) ?? drift });
  }
  return [...byDataset].map(([dataset, { units, drift }]) => ({ dataset, units, drift, message: describeRunDrift(drift, { dataset, units }) }));
}

/** What the unit loop takes: the units in order, the run's policy, control and dependencies, and its privacy. */
export interface UnitLoop {
  readonly units: readonly PlannedUnit[];
  readonly policy: ExportPolicy;
  /** Reaches every request as it is: a stop or the deadline ends the run. @default no deadline, no stop */
  readonly control?: RunControl;
  readonly deps: RunDeps;
  /**
   * The run's personal-data policy and erasures (`prepareRunPrivacy`, once per run by
   * `runExport`); a unit's own privacy is derived from it (`unitPrivacy`).
   * @default prepared here from `deps.destination` (a caller that plans its own units)
   */
  readonly privacy?: RunPrivacy;
}

/**
 * Exports `loop.units` in order; never throws for a unit (its result says what happened).
 */
export async function runUnits(loop: UnitLoop): Promise<RunSummary> {
  const { units: planned, policy, control = {}, deps } = loop;
  const governed = loop.privacy ?? (await prepareRunPrivacy(deps.destination, policy.personalData, deps.personalDataKey));
  const { api, gate, now, logger } = deps;
  const { deadline, signal, stop: gentleStop } = control;
  const apiMeter = startMeter(api.stats, API_COUNTERS);
  const gateMeter = startMeter(gate.stats, GATE_COUNTERS);
  const exportedAt = now();
  const results: UnitResult[] = [];
  let halted = false;
  /** A failure every unit would meet: the run stops (why, for the units left). */
  let runStop: RunStop | undefined;
  /** Datasets a 403 stopped, with the reason. */
  const datasetStops = new Map<DatasetName, string>();
  /** Projects a 404 stopped, with the reason. */
  const projectStops = new Map<string, string>();
  let failedRequests = 0;
  deps.onEvent?.({ kind: 'plan', units: planned });
  /** A month already rolled up stops being read from its roll-ups as a unit of it commits. */
  const rolledUp = committedUnits(deps.destination);

  const book = createEstimateBook(planned);
  const { estimate, stillGuess, refreshed, remainingFrom, guessesFrom } = book;

  for (const [position, unit] of planned.entries()) {
    const outOfTime = deadline !== undefined && now() >= deadline;
    const blocked = runStop?.reason ?? datasetStops.get(unit.dataset) ?? projectStops.get(unit.projectId);
    if (blocked !== undefined) {
      results.push({ ...refreshed(unit), status: 'pending', blocked });
      continue;
    }
    if (halted || signal?.aborted || gentleStop?.aborted || outOfTime) {
      results.push({ ...refreshed(unit), status: 'pending' });
      continue;
    }
    deps.onEvent?.({
      kind: 'start',
      unit: refreshed(unit),
      position,
      count: planned.length,
      remaining: remainingFrom(position),
      guesses: guessesFrom(position),
    });
    const unitMeter = startMeter(api.stats, API_COUNTERS);
    // The key is read (generated on a laptop) when a unit first hashes: a key that cannot be read stops the run.
    const unitGoverned = await unitPrivacy(governed, DATASETS[unit.dataset]);
    const { result, error } = await runOne({ unit, exportedAt, policy, control, privacy: unitGoverned }, deps);
    if (result.status === 'partial' && result.why !== 'lease') halted = true;
    if (result.status === 'failed') {
      failedRequests += unitMeter.read().requests;
      const stop = stopOf(error, unit, policy.projectSource);
      if (stop?.scope === 'run') runStop = stop;
      else if (stop?.scope === 'dataset') datasetStops.set(stop.dataset, stop.reason);
      else if (stop?.scope === 'project') projectStops.set(stop.projectId, stop.reason);
      if (stop) logger?.error('units stopped early', { scope: stop.scope, reason: stop.reason });
    }
    if (result.status === 'complete') {
      await rolledUp(result).catch((error: unknown) =>
        logger?.warn('could not retire the roll-ups of a month exported again', { error: describeError(error) }),
      );
      await deps.partitions?.committed(result);
      deps.iceberg?.committed(result);
      book.learn(result, result.manifest.pages);
    }
    results.push(result);
    deps.onEvent?.({ kind: 'done', result, position, count: planned.length, remaining: remainingFrom(position + 1), guesses: guessesFrom(position + 1) });
    logResult(result, logger);
  }

  await settleLeasedUnits(results, deps.destination);
  // The index of units and the monthly roll-ups of the months this run committed units of.
  await refreshLakeAfter(
    'export',
    deps.destination,
    results.filter((r) => r.status === 'complete'),
    logger,
  );
  const count = (status: UnitResult['status']) => results.filter((r) => r.status === status).length;
  // One warning per dataset, not per unit: a change of the API shows in every project and day.
  const drift = driftOf(results);
  for (const entry of drift) logger?.warn(entry.message, { dataset: entry.dataset, units: entry.units, drift: entry.drift });
  const backlogRequests = results.reduce((sum, r) => {
    if (r.status === 'skipped' && r.why === 'complete') return sum;
    if (r.status === 'pending' || r.status === 'skipped' || r.status === 'failed') return sum + estimate(r);
    if (r.status === 'partial') return sum + Math.max(1, estimate(r) - r.pages);
    return sum;
  }, 0);
  // Of the units left, those whose estimate is still a guess (the log says "about N, K a guess").
  const backlogGuesses = results.filter((r) => !(r.status === 'complete' || (r.status === 'skipped' && r.why === 'complete')) && stillGuess(r)).length;
  return {
    // A unit another run finished meanwhile is as good as done.
    ok: results.every((r) => r.status === 'complete' || (r.status === 'skipped' && r.why === 'complete')),
    units: results,
    completed: count('complete'),
    partial: count('partial'),
    failed: count('failed'),
    skipped: count('skipped'),
    pending: count('pending'),
    requests: apiMeter.read().requests,
    rateLimited: gateMeter.read().rateLimited,
    rateLimitWaitsCut: gateMeter.read().waitsCut,
    budgetWaits: gateMeter.read().waits,
    budgetWaitMs: gateMeter.read().waitedMs,
    backlogRequests,
    backlogGuesses,
    stopped: signal?.aborted === true || gentleStop?.aborted === true,
    driftUnits: drift.reduce((sum, entry) => sum + entry.units, 0),
    drift,
    stops: [...(runStop !== undefined ? [runStop.reason] : []), ...datasetStops.values(), ...projectStops.values()],
    ...(runStop !== undefined ? { runStop } : {}),
    unknownProjects: [...projectStops.keys()],
    failedRequests,
  };
}

/**
 * A unit another run held when this run reached it counts as done once that run completed it:
 * two runs that together exported every unit must not both end as failed. Read at the end of
 * the run (one manifest read per such unit); one still in progress elsewhere stays `leased`.
 */
async function settleLeasedUnits(results: UnitResult[], destination: RunDeps['destination']): Promise<void> {
  for (const [index, result] of results.entries()) {
    if (result.status !== 'skipped' || result.why !== 'leased') continue;
    const state = await readUnitState(destination, result).catch(() => undefined);
    if (state?.kind === 'complete') results[index] = { ...result, why: 'complete' };
  }
}

/** One unit of a run, as `exportUnit` takes it, planned. */
type UnitJobOfRun = UnitJob & { readonly unit: PlannedUnit };

/** One unit's result, with the error of a failed one (what it says about the other units). */
async function runOne(job: UnitJobOfRun, deps: RunDeps): Promise<{ readonly result: UnitResult; readonly error?: unknown }> {
  try {
    return { result: await exportLeased(job, deps) };
  } catch (error) {
    return { result: { ...job.unit, status: 'failed', error: describeError(error) }, error };
  }
}

async function exportLeased(job: UnitJobOfRun, deps: RunDeps): Promise<UnitResult> {
  const { unit, exportedAt } = job;
  let lease;
  try {
    lease = await deps.leases.tryAcquire(unitKey(unit));
  } catch (error) {
    return { ...unit, status: 'failed', error: `could not take the unit's lease: ${describeError(error)}` };
  }
  if (!lease) return { ...unit, status: 'skipped', why: 'leased' };
  try {
    // Another run may have finished the unit between this run's plan and its lease (the
    // lease is free again once the manifest is written): exporting it again would pay for
    // every page twice. A forced unit was done by another run if its manifest is newer than
    // this run's start.
    const state = await readUnitState(deps.destination, unit);
    if (state.kind === 'complete' && (unit.force ? Date.parse(state.manifest.finishedAt) > exportedAt : isDone(state, exportedAt))) {
      return { ...unit, status: 'skipped', why: 'complete' };
    }
    const outcome = await exportUnit(job, {
      api: deps.api,
      destination: deps.destination,
      now: deps.now,
      lease,
      ...(deps.logger ? { logger: deps.logger } : {}),
      onPage: (_unit, pages) => deps.onEvent?.({ kind: 'page', unit, pages }),
    });
    return outcome.status === 'complete'
      ? { ...unit, status: 'complete', manifest: outcome.manifest }
      : { ...unit, status: 'partial', pages: outcome.pages, why: outcome.reason };
  } finally {
    await lease.release().catch(() => undefined);
  }
}

function logResult(result: UnitResult, logger: AppLogger | undefined): void {
  const unit = unitLabel(result);
  switch (result.status) {
    case 'complete':
      logger?.info('unit exported', {
        unit,
        reason: result.reason,
        pages: result.manifest.pages,
        requests: result.manifest.requests.sent,
        runs: result.manifest.runs,
        ...(result.manifest.truncated ? { truncated: true } : {}),
        ...(result.manifest.drift ? { drift: true } : {}),
      });
      return;
    case 'partial':
      logger?.info('unit checkpointed', { unit, pages: result.pages, why: result.why });
      return;
    case 'failed':
      logger?.error('unit failed', { unit, error: result.error });
      return;
    case 'skipped':
      logger?.info(result.why === 'complete' ? 'unit skipped: another run finished it' : 'unit skipped: another run holds its lease', { unit });
      return;
    case 'pending':
      return;
  }
}
