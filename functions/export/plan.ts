/**
 * The planner: which units to do, in which order, and what each will cost. It reads the
 * destination (manifests, checkpoints, failure records) and sends no API request, so `plan`
 * and `status` are free, and the exporter takes units one at a time in this order:
 *
 * 1. `latest` — the latest due day (a day is due `EXPORT_SETTLE_HOURS` after it ends);
 * 2. `partial` — units with a checkpoint (finish what was paid for);
 * 3. `missing` — days of the heal window with no manifest (an outage heals itself);
 * 4. `backfill` — units of backlog entries (manual requests that did not fit in their run);
 * 5. `refresh` — `feedback` of recent days, once a day: its `status` changes later.
 *
 * A unit's estimate is estimates.ts's: the pages of the nearest day exported, what is left of
 * a partial unit. A unit whose personal data expired (a record under `_privacy/expired/`,
 * retention.ts) is never planned again, with or without PERSONAL_DATA_RETENTION_DAYS — only an
 * explicit `--force` exports it again.
 *
 * A unit that keeps failing must not starve the others (a partial unit is taken before every
 * missing day): after a failure the scheduled runs leave it for 1 h, then 2 h, 4 h … (at most a
 * day; see `retryAfter` in units.ts) — within the heal window it is still tried, just not every hour.
 */
import type { DatasetName } from '../warehouse/catalog.js';
import { addDays } from '../shared/dates.js';
import type { Destination } from '../shared/storage/destination.js';
import { HOUR_MS } from '../shared/time.js';
import { isDone, lastDueDay } from './settle.js';
import { estimateUnit, readKnownPages, type Estimate } from './estimates.js';
import { failureOf, readUnitStates, retryAfter, type UnitState } from './units.js';
import { unitKey, unitsOf, type Unit } from './unit-id.js';
import { readExpiredUnits } from './retention.js';

export type UnitReason = 'requested' | 'latest' | 'partial' | 'missing' | 'backfill' | 'refresh';

export interface PlannedUnit extends Unit, Estimate {
  readonly reason: UnitReason;
  /** Export again even when it is complete (refresh, --force, a manual request). */
  readonly force: boolean;
}

/** A manual request that did not fit in its run, kept in the shared store until done. */
export interface BacklogEntry {
  readonly id: string;
  /** Epoch ms; a unit whose manifest is older than this is still to do. */
  readonly createdAt: number;
  readonly days: readonly string[];
  readonly projects: readonly string[];
  readonly datasets: readonly DatasetName[];
}

/** Store key prefix of backlog entries. */
export const BACKLOG_PREFIX = 'backlog/';

/** A refreshed day is refreshed again once its manifest is this old. */
const REFRESH_AFTER_MS = 20 * HOUR_MS;

/** The `count` days before `day`, oldest first. */
export function daysBefore(day: string, count: number): string[] {
  return Array.from({ length: count }, (_, i) => addDays(day, i - count));
}

export interface ScheduleInput {
  /** The schedule's time (the event's): fixes the days. */
  readonly now: number;
  /**
   * The wall clock, for the backoff of failed units: an event retried a day later plans the
   * days of its own time but must not think its failures are an hour old. @default now
   */
  readonly clock?: number;
  readonly settleHours: number;
  readonly healDays: number;
  readonly refreshDays: number;
  readonly projects: readonly string[];
  readonly datasets: readonly DatasetName[];
  readonly backlog: readonly BacklogEntry[];
}

export interface Plan {
  readonly units: readonly PlannedUnit[];
  /** Every unit looked at, keyed by `unitKey`. */
  readonly states: ReadonlyMap<string, UnitState>;
  /** The latest due day. */
  readonly lastDay: string;
  /** Units whose personal data expired (retention.ts), keyed by `unitKey`: never planned, never missing. */
  readonly expired?: ReadonlySet<string>;
}

/** The scheduled plan (the hourly run): latest day, partial, missing, backfill, refresh. */
export async function planScheduled(input: ScheduleInput, destination: Destination): Promise<Plan> {
  const lastDay = lastDueDay(input.now, input.settleHours);
  const healDays = daysBefore(lastDay, input.healDays);
  const windowUnits = unitsOf([...healDays, lastDay], input.projects, input.datasets);
  const backlogUnits = input.backlog.flatMap((entry) => unitsOf(entry.days, entry.projects, entry.datasets));
  // The export's own read: an index it rebuilds is kept for the next reader.
  const states = await readUnitStates(destination, dedupe([...windowUnits, ...backlogUnits]), { keepIndexes: true });
  const known = await readKnownPages(destination, dedupe([...windowUnits, ...backlogUnits]), states, { lastDay });
  const expired = await readExpiredUnits(destination);

  const planned: PlannedUnit[] = [];
  const taken = new Set<string>();
  const add = (unit: Unit, reason: UnitReason, force = false) => {
    const key = unitKey(unit);
    if (taken.has(key) || expired.has(key)) return;
    taken.add(key);
    // Backing off after failures: not this run (it stays missing for the alarm).
    const retryAt = retryAfter(failureOf(states.get(key)));
    if (retryAt !== undefined && (input.clock ?? input.now) < retryAt) return;
    planned.push({ ...unit, reason, ...estimateUnit(unit, states, known), force });
  };
  const stateOf = (unit: Unit) => states.get(unitKey(unit)) ?? { kind: 'missing' as const };

  // A provisional unit (exported before its day was due) of these due days is exported again.
  const done = (unit: Unit) => isDone(stateOf(unit), input.now);
  for (const unit of unitsOf([lastDay], input.projects, input.datasets)) {
    if (!done(unit)) add(unit, 'latest');
  }
  for (const unit of windowUnits) if (stateOf(unit).kind === 'partial') add(unit, 'partial');
  for (const unit of windowUnits) if (!done(unit)) add(unit, 'missing');
  for (const entry of [...input.backlog].sort((a, b) => a.createdAt - b.createdAt)) {
    for (const unit of unitsOf(entry.days, entry.projects, entry.datasets)) {
      if (!doneSince(stateOf(unit), entry.createdAt)) add(unit, 'backfill', true);
    }
  }
  if (input.datasets.includes('feedback')) {
    const refreshDays = daysBefore(lastDay, input.refreshDays);
    for (const unit of unitsOf(refreshDays, input.projects, ['feedback'])) {
      const state = stateOf(unit);
      if (state.kind === 'complete' && input.now - Date.parse(state.manifest.finishedAt) >= REFRESH_AFTER_MS) {
        add(unit, 'refresh', true);
      }
    }
  }
  return { units: planned, states, lastDay, expired };
}

export interface RequestedInput {
  readonly days: readonly string[];
  readonly projects: readonly string[];
  readonly datasets: readonly DatasetName[];
  /** Export complete units again. */
  readonly force: boolean;
  /** The run's time: a provisional unit whose day is due by then is exported again. */
  readonly now: number;
  /** Pages of a unit known before its first page (the embedded sandbox's sizes: cli/sandbox-sizes.ts). @default none */
  readonly sizedPages?: (unit: Unit) => number | undefined;
}

/** Days before a request read only to estimate its units from the latest manifests. */
const REFERENCE_DAYS = 7;

/** Units of an explicit request (CLI days, a manual invoke): complete ones skipped unless forced. */
export async function planRequested(input: RequestedInput, destination: Destination): Promise<Plan> {
  const units = unitsOf(input.days, input.projects, input.datasets);
  const last = input.days[input.days.length - 1];
  const requested = new Set(input.days);
  const reference = last === undefined ? [] : daysBefore(last, REFERENCE_DAYS).filter((day) => !requested.has(day));
  const states = await readUnitStates(destination, [...units, ...unitsOf(reference, input.projects, input.datasets)], { keepIndexes: true });
  const expired = await readExpiredUnits(destination);
  const todo = units.filter((unit) => input.force || (!expired.has(unitKey(unit)) && !isDone(states.get(unitKey(unit)), input.now)));
  const known = await readKnownPages(destination, todo, states, last === undefined ? {} : { lastDay: last });
  const planned = todo.map((unit) => ({ ...unit, reason: 'requested' as const, ...estimateUnit(unit, states, known, input.sizedPages), force: input.force }));
  return { units: planned, states, lastDay: input.days[input.days.length - 1] ?? '', expired };
}

/** Whether a unit has a manifest written at or after `since` (epoch ms). */
export function doneSince(state: UnitState, since: number): boolean {
  return state.kind === 'complete' && Date.parse(state.manifest.finishedAt) >= since;
}

/**
 * Units of the heal window (before the latest due day) that have no manifest and are
 * overdue: `waiting` names those a run left for lack of budget or time, which are not missing
 * yet — they are the schedule working. A unit that failed, or that a run never reached while
 * budget was left, counts.
 */
export function countMissing(plan: Plan, input: Pick<ScheduleInput, 'healDays' | 'projects' | 'datasets'>, waiting: ReadonlySet<string> = new Set()): number {
  const days = daysBefore(plan.lastDay, input.healDays);
  return unitsOf(days, input.projects, input.datasets).filter((unit) => {
    const key = unitKey(unit);
    return !isDone(plan.states.get(key), Number.POSITIVE_INFINITY) && !waiting.has(key) && !plan.expired?.has(key);
  }).length;
}

function dedupe(units: readonly Unit[]): Unit[] {
  const seen = new Map<string, Unit>();
  for (const unit of units) seen.set(unitKey(unit), unit);
  return [...seen.values()];
}
