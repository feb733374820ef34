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
 * A unit's estimate is the pages its dataset and project needed on the nearest day exported
 * (before or after it: a backfill of March is estimated from March, not from yesterday), found
 * by listing the manifests; else the most another project needed on its nearest day — a
 * guess, and said so —; else 1, also a guess. A partial unit's estimate is what is left.
 *
 * A unit that keeps failing must not starve the others (a partial unit is taken before every
 * missing day): after a failure the scheduled runs leave it for 1 h, then 2 h, 4 h … (at most a
 * day; see `retryAfter` in units.ts) — within the heal window it is still tried, just not every hour.
 */
import type { DatasetName } from '../shared/catalog.js';
import { addDays, previousDay } from '../shared/dates.js';
import type { Destination } from '../shared/destination.js';
import { manifestKey, manifestsOf, parseManifestKey } from '../shared/tables.js';
import type { Manifest } from './manifest.js';
import { DAY_MS, HOUR_MS } from '../shared/time.js';
import { failureOf, readUnitStates, retryAfter, unitKey, unitsOf, type Unit, type UnitState } from './units.js';

export type UnitReason = 'requested' | 'latest' | 'partial' | 'missing' | 'backfill' | 'refresh';

export interface PlannedUnit extends Unit {
  readonly reason: UnitReason;
  /** Requests the unit is expected to need (at least 1). */
  readonly estimate: number;
  /** Export again even when it is complete (refresh, --force, a manual request). */
  readonly force: boolean;
  /** The manifest the estimate comes from; absent when nothing of the dataset is known. */
  readonly estimateFrom?: { readonly projectId: string; readonly day: string };
  /** The estimate is not from this project's own pages (another project's, or none at all). */
  readonly guess?: true;
}

/** Pages of complete units, by dataset, then project, then day: what estimates are made from. */
export type KnownPages = Map<string, Map<string, Map<string, number>>>;

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
/** The latest UTC day that is due at `now`: over for at least `settleHours`. */
export function lastDueDay(now: number, settleHours: number): string {
  return previousDay(now - settleHours * HOUR_MS);
}

/** When `day` becomes due, epoch ms. */
export function dueAt(day: string, settleHours: number): number {
  return Date.parse(`${addDays(day, 1)}T00:00:00Z`) + settleHours * HOUR_MS;
}

/** The `count` days before `day`, oldest first. */
export function daysBefore(day: string, count: number): string[] {
  return Array.from({ length: count }, (_, i) => addDays(day, i - count));
}

/** What estimating `unit` gives: the requests, and where they come from. */
export type Estimate = Pick<PlannedUnit, 'estimate' | 'estimateFrom' | 'guess'>;

/**
 * Requests a unit is expected to need: the pages of the nearest complete day of the same
 * dataset and project (at least 1), less what a checkpoint already holds; else the most any
 * other project needed on its nearest day (a guess); else 1 (a guess). `known` (from
 * `readKnownPages`, which includes `states`) adds days found beyond them. Says where the
 * estimate comes from, and whether it is a guess.
 */
export function estimateUnit(unit: Unit, states: ReadonlyMap<string, UnitState>, known: KnownPages = knownPagesOf(states)): Estimate {
  const byProject = known.get(unit.dataset) ?? new Map<string, Map<string, number>>();
  const own = nearest(byProject.get(unit.projectId), unit.day);
  let full: { pages: number; projectId: string; day: string } | undefined = own && { ...own, projectId: unit.projectId };
  if (!full) {
    for (const [projectId, days] of byProject) {
      const other = nearest(days, unit.day);
      if (other && (!full || other.pages > full.pages)) full = { ...other, projectId };
    }
  }
  const pages = Math.max(1, full?.pages ?? 1);
  const state = states.get(unitKey(unit));
  const estimate = state?.kind === 'partial' ? Math.max(1, pages - state.checkpoint.state.pages) : pages;
  return {
    estimate,
    ...(full ? { estimateFrom: { projectId: full.projectId, day: full.day } } : {}),
    ...(own ? {} : { guess: true as const }),
  };
}

/** The day of `days` nearest to `day` (the later one on a tie), with its pages. */
function nearest(days: ReadonlyMap<string, number> | undefined, day: string): { day: string; pages: number } | undefined {
  let best: { day: string; pages: number; distance: number } | undefined;
  const at = Date.parse(`${day}T00:00:00Z`);
  for (const [known, pages] of days ?? []) {
    const distance = Math.abs(Date.parse(`${known}T00:00:00Z`) - at);
    if (!best || distance < best.distance || (distance === best.distance && known > best.day)) best = { day: known, pages, distance };
  }
  return best && { day: best.day, pages: best.pages };
}

function addKnown(known: KnownPages, manifest: Manifest): void {
  const projects = known.get(manifest.dataset) ?? new Map<string, Map<string, number>>();
  const days = projects.get(manifest.projectId) ?? new Map<string, number>();
  days.set(manifest.date, manifest.pages);
  projects.set(manifest.projectId, days);
  known.set(manifest.dataset, projects);
}

/** The pages of every complete unit among `states`. */
export function knownPagesOf(states: ReadonlyMap<string, UnitState>): KnownPages {
  const known: KnownPages = new Map();
  for (const state of states.values()) if (state.kind === 'complete') addKnown(known, state.manifest);
  return known;
}

/** A known day this close to a unit is as good an estimate as any further one. */
const NEAR_ENOUGH_MS = 7 * DAY_MS;

/**
 * The pages of the complete days nearest to `units`, wherever they are in time: the manifests
 * of each dataset are listed (one listing per dataset) and only the nearest of each project
 * read. Without a listing (a destination that cannot list, or a listing refused) the result is
 * what `states` holds.
 */
export async function readKnownPages(destination: Destination, units: readonly Unit[], states: ReadonlyMap<string, UnitState>): Promise<KnownPages> {
  const known = knownPagesOf(states);
  const list = destination.list?.bind(destination);
  if (!list || units.length === 0) return known;
  const toRead = new Map<string, Unit>();
  // A unit with a known day of its own within a week needs no listing (the hourly run's case).
  const near = (unit: Unit) => {
    const found = nearest(known.get(unit.dataset)?.get(unit.projectId), unit.day);
    return found !== undefined && Math.abs(Date.parse(`${found.day}T00:00:00Z`) - Date.parse(`${unit.day}T00:00:00Z`)) <= NEAR_ENOUGH_MS;
  };
  for (const dataset of new Set(units.filter((u) => !near(u)).map((u) => u.dataset))) {
    let keys: string[];
    try {
      keys = await list(manifestsOf(dataset));
    } catch {
      continue;
    }
    const index = new Map<string, Map<string, number>>();
    for (const key of keys) {
      const named = parseManifestKey(dataset, key);
      if (!named) continue;
      const { day, projectId } = named;
      const days = index.get(projectId) ?? new Map<string, number>();
      days.set(day, 0);
      index.set(projectId, days);
    }
    for (const unit of units.filter((u) => u.dataset === dataset)) {
      const projects = index.has(unit.projectId) ? [unit.projectId] : [...index.keys()];
      for (const projectId of projects) {
        const day = nearest(index.get(projectId), unit.day)?.day;
        if (day === undefined || known.get(dataset)?.get(projectId)?.has(day)) continue;
        toRead.set(manifestKey(dataset, day, projectId), { dataset, projectId, day });
      }
    }
  }
  const manifests = await readUnitStates(destination, [...toRead.values()]);
  for (const state of manifests.values()) if (state.kind === 'complete') addKnown(known, state.manifest);
  return known;
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
}

/** The scheduled plan (the hourly run): latest day, partial, missing, backfill, refresh. */
export async function planScheduled(input: ScheduleInput, destination: Destination): Promise<Plan> {
  const lastDay = lastDueDay(input.now, input.settleHours);
  const healDays = daysBefore(lastDay, input.healDays);
  const windowUnits = unitsOf([...healDays, lastDay], input.projects, input.datasets);
  const backlogUnits = input.backlog.flatMap((entry) => unitsOf(entry.days, entry.projects, entry.datasets));
  const states = await readUnitStates(destination, dedupe([...windowUnits, ...backlogUnits]));
  const known = await readKnownPages(destination, dedupe([...windowUnits, ...backlogUnits]), states);

  const planned: PlannedUnit[] = [];
  const taken = new Set<string>();
  const add = (unit: Unit, reason: UnitReason, force = false) => {
    const key = unitKey(unit);
    if (taken.has(key)) return;
    taken.add(key);
    // Backing off after failures: not this run (it stays missing for the alarm).
    const retryAt = retryAfter(failureOf(states.get(key)));
    if (retryAt !== undefined && (input.clock ?? input.now) < retryAt) return;
    planned.push({ ...unit, reason, ...estimateUnit(unit, states, known), force });
  };
  const stateOf = (unit: Unit) => states.get(unitKey(unit)) ?? { kind: 'missing' as const };

  for (const unit of unitsOf([lastDay], input.projects, input.datasets)) {
    if (stateOf(unit).kind !== 'complete') add(unit, 'latest');
  }
  for (const unit of windowUnits) if (stateOf(unit).kind === 'partial') add(unit, 'partial');
  for (const unit of windowUnits) if (stateOf(unit).kind !== 'complete') add(unit, 'missing');
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
  return { units: planned, states, lastDay };
}

export interface RequestedInput {
  readonly days: readonly string[];
  readonly projects: readonly string[];
  readonly datasets: readonly DatasetName[];
  /** Export complete units again. */
  readonly force: boolean;
}

/** Days before a request read only to estimate its units from the latest manifests. */
const REFERENCE_DAYS = 7;

/** Units of an explicit request (CLI days, a manual invoke): complete ones skipped unless forced. */
export async function planRequested(input: RequestedInput, destination: Destination): Promise<Plan> {
  const units = unitsOf(input.days, input.projects, input.datasets);
  const last = input.days[input.days.length - 1];
  const requested = new Set(input.days);
  const reference = last === undefined ? [] : daysBefore(last, REFERENCE_DAYS).filter((day) => !requested.has(day));
  const states = await readUnitStates(destination, [...units, ...unitsOf(reference, input.projects, input.datasets)]);
  const todo = units.filter((unit) => input.force || states.get(unitKey(unit))?.kind !== 'complete');
  const known = await readKnownPages(destination, todo, states);
  const planned = todo.map((unit) => ({ ...unit, reason: 'requested' as const, ...estimateUnit(unit, states, known), force: input.force }));
  return { units: planned, states, lastDay: input.days[input.days.length - 1] ?? '' };
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
    return plan.states.get(key)?.kind !== 'complete' && !waiting.has(key);
  }).length;
}

function dedupe(units: readonly Unit[]): Unit[] {
  const seen = new Map<string, Unit>();
  for (const unit of units) seen.set(unitKey(unit), unit);
  return [...seen.values()];
}
