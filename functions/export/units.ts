/**
 * A unit — one (dataset, project, day) — and everything said about it in one place: its key
 * and label (unit-id.ts), its state as read from the destination (manifest, else checkpoint, else failure
 * record), the backoff of a failing unit, and the one view of that state that `status`, the
 * report and `gaps` show. The files themselves are written by staging.ts (pages, checkpoint,
 * failure record) and manifest.ts (the commit marker); this module only reads them.
 */
import { eachAtOnce } from '../shared/concurrency.js';
import type { DatasetName } from '../warehouse/catalog.js';
import { manifestsOf, parseManifestKey } from '../warehouse/keys.js';
import type { Destination } from '../shared/storage/destination.js';
import { DestinationError } from '../shared/errors.js';
import type { Drift } from './drift.js';
import { checkManifest, readManifest, unitRows, type Manifest } from './manifest.js';
import { readUnitIndexes } from '../warehouse/lake/unit-index.js';
import { indexEntry } from '../warehouse/lake/unit-marks.js';
import { monthOfDay } from '../warehouse/lake/layout.js';
import { unitStaging, type Checkpoint, type UnitFailure } from './staging.js';
import { unitKey, type Unit } from './unit-id.js';
import { DAY_MS, HOUR_MS, MINUTE_MS, backoffDelay } from '../shared/time.js';

/** What the destination says of one unit. */
export type UnitState =
  | { readonly kind: 'complete'; readonly manifest: Manifest }
  | { readonly kind: 'partial'; readonly checkpoint: Checkpoint; readonly failure?: UnitFailure }
  | { readonly kind: 'failed'; readonly failure: UnitFailure }
  /** `problem`: a manifest is there but does not make the unit complete (it lacks fields, or names another unit). */
  | { readonly kind: 'missing'; readonly problem?: string };

/** Destination reads in flight at once while reading unit states. */
const READ_CONCURRENCY = 16;

/** Reads the state of one unit: a valid manifest, else checkpoint, else failure record. */
export async function readUnitState(destination: Destination, unit: Unit): Promise<UnitState> {
  const reading = await readManifest(destination, unit);
  if (reading && 'manifest' in reading) return { kind: 'complete', manifest: reading.manifest };
  const staging = unitStaging(destination, unit);
  const [checkpoint, failure] = await Promise.all([staging.readCheckpoint(), staging.readFailure()]);
  if (checkpoint) return { kind: 'partial', checkpoint, ...(failure ? { failure } : {}) };
  if (failure) return { kind: 'failed', failure };
  return reading ? { kind: 'missing', problem: reading.problem } : { kind: 'missing' };
}

/**
 * The states of many units, keyed by `unitKey`: the complete ones from the index of their
 * months (warehouse/lake/unit-index.ts: one object a dataset and month, rebuilt from the
 * manifests when it names other units than they do), the others — and every unit of a
 * destination that cannot list — one by one, with bounded concurrency. An index it had to rebuild
 * is written back only with `keepIndexes` (the export's own steps), never by a reader (its role
 * writes nothing): the same default as `readUnitIndexes`.
 */
export async function readUnitStates(
  destination: Destination,
  units: readonly Unit[],
  options: { readonly keepIndexes?: boolean } = {},
): Promise<Map<string, UnitState>> {
  const states = new Map<string, UnitState>();
  const byDataset = new Map<DatasetName, Unit[]>();
  // Pushed, not spread: a year of twenty projects is 7,300 units a dataset (a copy each was ~27M copies a dataset).
  for (const unit of units) {
    const ofDataset = byDataset.get(unit.dataset);
    if (ofDataset === undefined) byDataset.set(unit.dataset, [unit]);
    else ofDataset.push(unit);
  }
  const left: Unit[] = [];
  for (const [dataset, ofDataset] of byDataset) {
    const indexes = await readUnitIndexes(
      destination,
      dataset,
      ofDataset.map((unit) => monthOfDay(unit.day)),
      { keep: options.keepIndexes ?? false },
    );
    for (const unit of ofDataset) {
      const raw = indexes?.get(monthOfDay(unit.day))?.get(indexEntry(unit.day, unit.projectId));
      const reading = raw === undefined ? undefined : checkManifest(raw, unit);
      if (reading !== undefined && 'manifest' in reading) states.set(unitKey(unit), { kind: 'complete', manifest: reading.manifest });
      else left.push(unit);
    }
  }
  await eachAtOnce(left, READ_CONCURRENCY, async (unit) => {
    states.set(unitKey(unit), await readUnitState(destination, unit));
  });
  return states;
}

/**
 * The complete units of `dataset`, from one listing of its manifests: a manifest is written
 * after every table file of its unit, so its key names a complete unit (its content is not read).
 * @throws DestinationError when the destination cannot list keys.
 */
export async function completeUnits(destination: Pick<Destination, 'list' | 'url'>, dataset: DatasetName): Promise<Unit[]> {
  if (destination.list === undefined) throw new DestinationError(`${destination.url} cannot list its keys: the complete units of ${dataset} are not known`);
  const units: Unit[] = [];
  for (const key of await destination.list(manifestsOf(dataset))) {
    const named = parseManifestKey(dataset, key);
    if (named) units.push({ dataset, projectId: named.projectId, day: named.day });
  }
  return units;
}

/** The failure record of a unit's state, if any. */
export function failureOf(state: UnitState | undefined): UnitFailure | undefined {
  return state?.kind === 'failed' || state?.kind === 'partial' ? state.failure : undefined;
}

/** The longest a failing unit is left alone by the scheduled runs. */
const MAX_FAILURE_BACKOFF_MS = DAY_MS;
/**
 * Hourly runs start a few minutes apart from one hour to the next: a unit due again "in one
 * hour" must not miss the next run by a minute and wait two.
 */
const SCHEDULE_SLACK_MS = 15 * MINUTE_MS;

/**
 * When the scheduled runs try a failed unit again (epoch ms): 1 h after its first failure in a
 * row, 2 h after the second, 4 h … capped at a day. Undefined: it has not failed.
 */
export function retryAfter(failure: UnitFailure | undefined): number | undefined {
  if (!failure) return undefined;
  const at = Date.parse(failure.at);
  if (!Number.isFinite(at)) return undefined;
  // 0: a failure the unit shares with every other (run-stops.ts): no backoff.
  if (failure.attempts === 0) return undefined;
  const attempts = Math.max(1, Math.min(30, failure.attempts ?? 1));
  return at + backoffDelay(attempts, { baseMs: HOUR_MS, maxMs: MAX_FAILURE_BACKOFF_MS }) - SCHEDULE_SLACK_MS;
}

/** One unit's state as `status`, the report and `gaps` show it. */
export type UnitView =
  | {
      readonly state: 'complete';
      readonly rows: number;
      readonly requests: number;
      readonly truncated?: boolean;
      /** The manifest's drift: fields or values this version does not know (kept). */
      readonly drift?: Drift;
      readonly error?: undefined;
    }
  /**
   * Complete, but exported before its day was due (`EXPORT_SETTLE_HOURS` after it ends): late
   * events may be missing. The first run after `dueAt` exports it again, without `--force`.
   */
  | {
      readonly state: 'provisional';
      readonly rows: number;
      readonly requests: number;
      readonly truncated?: boolean;
      readonly drift?: Drift;
      /** When the day is due (ISO 8601). */
      readonly dueAt: string;
      readonly error?: undefined;
    }
  | {
      readonly state: 'partial';
      /** Pages staged. */
      readonly pages: number;
      /** Pages the unit is expected to have in all: staged + the requests still needed. */
      readonly estimate: number;
      readonly error?: string;
    }
  | {
      readonly state: 'failed';
      readonly error: string;
      readonly at: string;
      readonly attempts?: number;
      readonly requests?: number;
      readonly retryAfter?: string;
    }
  /** `error`: a manifest is there but does not make the unit complete (one line). */
  | { readonly state: 'missing'; readonly error?: string }
  /** Past PERSONAL_DATA_RETENTION_DAYS: its personal data is deleted and it is never exported again (retention.ts). */
  | { readonly state: 'expired'; readonly error?: undefined };

/**
 * The view of a unit's state. `left`: the requests a partial unit still needs, as the
 * estimator says (status.ts); without it a partial unit's `estimate` is what is staged.
 */
export function unitView(state: UnitState | undefined, left = 0): UnitView {
  switch (state?.kind) {
    case undefined:
      return { state: 'missing' };
    case 'missing':
      return state.problem === undefined ? { state: 'missing' } : { state: 'missing', error: state.problem };
    case 'complete': {
      const m = state.manifest;
      const facts = {
        rows: unitRows(m),
        requests: m.requests.sent,
        ...(m.truncated ? { truncated: true } : {}),
        ...(m.drift ? { drift: m.drift } : {}),
      };
      return m.provisionalUntil === undefined ? { state: 'complete', ...facts } : { state: 'provisional', ...facts, dueAt: m.provisionalUntil };
    }
    case 'failed':
      return { state: 'failed', error: state.failure.error, at: state.failure.at, ...failureFacts(state.failure) };
    case 'partial': {
      const pages = state.checkpoint.state.pages;
      // Every page staged (only the commit failed): nothing left to fetch.
      const estimate = state.checkpoint.complete ? pages : pages + left;
      return { state: 'partial', pages, estimate, ...(state.failure ? { error: state.failure.error } : {}) };
    }
  }
}

/** What a failure record says about its unit's backoff (absent in older records). */
function failureFacts(failure: UnitFailure): { attempts?: number; requests?: number; retryAfter?: string } {
  if (failure.attempts === undefined) return {};
  const at = retryAfter(failure);
  return {
    attempts: failure.attempts,
    requests: failure.requests ?? 0,
    ...(at !== undefined ? { retryAfter: new Date(at).toISOString() } : {}),
  };
}
