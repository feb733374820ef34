/**
 * What `status` says of units: each one's state with its facts (rows of a complete unit, pages
 * of a partial one, a failure's backoff), and what is left to do — the units not complete and
 * the requests they are expected to need. Reads the destination only; nothing here renders.
 */
import type { Destination } from '../shared/destination.js';
import { unitRows } from './manifest.js';
import type { Drift } from './drift.js';
import { estimateUnit, readKnownPages, readUnitStates, retryAfter, type UnitState } from './plan.js';
import { unitKey, type Unit, type UnitFailure } from './staging.js';

/** One unit's state as `status` shows it. */
export type StatusCell =
  | {
      readonly state: 'complete';
      readonly rows: number;
      readonly requests: number;
      readonly truncated?: boolean;
      /** The manifest's drift: fields or values this version does not know (kept). */
      readonly drift?: Drift;
      readonly error?: undefined;
    }
  | { readonly state: 'partial'; readonly pages: number; readonly estimate: number; readonly error?: string }
  | {
      readonly state: 'failed';
      readonly error: string;
      readonly at: string;
      readonly attempts?: number;
      readonly requests?: number;
      readonly retryAfter?: string;
    }
  | { readonly state: 'missing'; readonly error?: undefined };

/** A unit and its state. */
export type UnitStatus = { readonly dataset: Unit['dataset']; readonly projectId: string; readonly date: string } & StatusCell;

export interface ExportStatus {
  /** Every unit asked about, in the order given. */
  readonly units: readonly UnitStatus[];
  /** Units not complete. */
  readonly todo: number;
  /** Requests the units not complete are expected to need. */
  readonly requests: number;
}

/** The state of each of `units` at `destination`, and what is left to do. */
export async function readExportStatus(destination: Destination, units: readonly Unit[]): Promise<ExportStatus> {
  const states = await readUnitStates(destination, units);
  const todo = units.filter((unit) => states.get(unitKey(unit))?.kind !== 'complete');
  const known = await readKnownPages(destination, todo, states);
  const requests = todo.reduce((sum, unit) => {
    const state = states.get(unitKey(unit));
    // Every page staged (only the commit failed): nothing left to fetch.
    return sum + (state?.kind === 'partial' && state.checkpoint.complete ? 0 : estimateUnit(unit, states, known).estimate);
  }, 0);
  const cell = (state: UnitState | undefined, unit: Unit): StatusCell => {
    if (!state || state.kind === 'missing') return { state: 'missing' };
    if (state.kind === 'complete') {
      const m = state.manifest;
      return {
        state: 'complete',
        rows: unitRows(m),
        requests: m.requests.sent,
        ...(m.truncated ? { truncated: true } : {}),
        ...(m.drift ? { drift: m.drift } : {}),
      };
    }
    if (state.kind === 'failed') return { state: 'failed', error: state.failure.error, at: state.failure.at, ...failureFacts(state.failure) };
    const pages = state.checkpoint.state.pages;
    // Every page staged (only the commit failed): nothing left to fetch.
    const estimate = state.checkpoint.complete ? pages : pages + estimateUnit(unit, states, known).estimate;
    return { state: 'partial', pages, estimate, ...(state.failure ? { error: state.failure.error } : {}) };
  };
  return {
    units: units.map((unit) => ({ dataset: unit.dataset, projectId: unit.projectId, date: unit.day, ...cell(states.get(unitKey(unit)), unit) })),
    todo: todo.length,
    requests,
  };
}

/** What a failure record says about its unit's backoff, for status (absent in older records). */
function failureFacts(failure: UnitFailure): { attempts?: number; requests?: number; retryAfter?: string } {
  if (failure.attempts === undefined) return {};
  const at = retryAfter(failure);
  return {
    attempts: failure.attempts,
    requests: failure.requests ?? 0,
    ...(at !== undefined ? { retryAfter: new Date(at).toISOString() } : {}),
  };
}
