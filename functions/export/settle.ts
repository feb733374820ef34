/**
 * When a day is due: `EXPORT_SETTLE_HOURS` after it ends, since the service ingests late events.
 * A unit exported before its day was due is `provisional` (its manifest's `provisionalUntil`):
 * it counts as done until that time, and as to do after it, so the first run once it is due
 * exports it again without `--force`.
 */
import { addDays, previousDay } from '../shared/dates.js';
import { HOUR_MS } from '../shared/time.js';
import type { UnitState } from './units.js';

/** The latest UTC day that is due at `now`: over for at least `settleHours`. */
export function lastDueDay(now: number, settleHours: number): string {
  return previousDay(now - settleHours * HOUR_MS);
}

/** When `day` becomes due, epoch ms. */
export function dueAt(day: string, settleHours: number): number {
  return Date.parse(`${addDays(day, 1)}T00:00:00Z`) + settleHours * HOUR_MS;
}

/** Whether a complete unit was exported before its day was due (whatever the time now). */
export function isProvisional(state: UnitState | undefined): boolean {
  return state?.kind === 'complete' && state.manifest.provisionalUntil !== undefined;
}

/**
 * Whether a unit needs no export at `now`: complete, and not a provisional export whose day has
 * become due since (that one is exported again, without `--force`).
 */
export function isDone(state: UnitState | undefined, now: number): boolean {
  if (state?.kind !== 'complete') return false;
  const until = state.manifest.provisionalUntil;
  return until === undefined || now < Date.parse(until);
}
