/**
 * What `status` says of units: each one's view (units.ts: rows of a complete unit, pages of a
 * partial one, a failure's backoff), and what is left to do — the units not complete and the
 * requests they are expected to need. Reads the destination only; nothing here renders.
 */
import type { Destination } from '../shared/storage/destination.js';
import { isDone } from './settle.js';
import { estimateUnit, readKnownPages } from './estimates.js';
import { isExpired, readExpiredUnits } from './retention.js';
import { readUnitStates, unitView, type UnitView } from './units.js';
import { unitKey, type Unit } from './unit-id.js';

/** A unit and its view. */
export type UnitStatus = { readonly dataset: Unit['dataset']; readonly projectId: string; readonly date: string } & UnitView;

export interface ExportStatus {
  /** Every unit asked about, in the order given. */
  readonly units: readonly UnitStatus[];
  /** Units not complete. */
  readonly todo: number;
  /** Requests the units not complete are expected to need. */
  readonly requests: number;
  /** Units to do estimated from another project's pages (a guess). */
  readonly guessed: number;
  /** Units to do of which nothing of their dataset was exported: each counts its dataset's typical day (a guess). */
  readonly typical: number;
  /** Partial units that staged as many pages as their known day: each counts 1, so `requests` is a floor. */
  readonly floors: number;
}

/**
 * The state of each of `units` at `destination`, and what is left to do. `lastDay`: the latest
 * due day (later days are never complete, so no listing is needed to know it); `now`: the time
 * that says whether a provisional unit is due again.
 */
export async function readExportStatus(
  destination: Destination,
  allUnits: readonly Unit[],
  options: { readonly lastDay?: string; readonly retentionCutoff?: string; readonly now?: number } = {},
): Promise<ExportStatus> {
  // A unit past retention, or whose personal data a run expired (its record says so, with or
  // without the variable now), is `expired`: nothing to read, nothing left to do (retention.ts).
  // A recorded unit exported again since (`--force`) is what its manifest says.
  const recorded = await readExpiredUnits(destination);
  const past = (unit: Unit) => isExpired(unit, options.retentionCutoff);
  const states = await readUnitStates(
    destination,
    allUnits.filter((unit) => !past(unit)),
  );
  const expired = (unit: Unit) => past(unit) || (recorded.has(unitKey(unit)) && states.get(unitKey(unit))?.kind !== 'complete');
  const units = allUnits.filter((unit) => !expired(unit));
  // A provisional unit whose day is due by now is to do again (settle.ts).
  const now = options.now ?? Date.now();
  const todo = units.filter((unit) => !isDone(states.get(unitKey(unit)), now));
  const known = await readKnownPages(destination, todo, states, options);
  let guessed = 0;
  let typical = 0;
  let floors = 0;
  const requests = todo.reduce((sum, unit) => {
    const state = states.get(unitKey(unit));
    // Every page staged (only the commit failed): nothing left to fetch.
    if (state?.kind === 'partial' && state.checkpoint.complete) return sum;
    const estimate = estimateUnit(unit, states, known);
    if (estimate.typical) typical += 1;
    else if (estimate.guess) guessed += 1;
    if (estimate.floor) floors += 1;
    return sum + estimate.estimate;
  }, 0);
  return {
    units: allUnits.map((unit): UnitStatus => {
      if (expired(unit)) return { dataset: unit.dataset, projectId: unit.projectId, date: unit.day, state: 'expired' };
      const state = states.get(unitKey(unit));
      const left = state?.kind === 'partial' ? estimateUnit(unit, states, known).estimate : 0;
      return { dataset: unit.dataset, projectId: unit.projectId, date: unit.day, ...unitView(state, left) };
    }),
    todo: todo.length,
    requests,
    guessed,
    typical,
    floors,
  };
}
