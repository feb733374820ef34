/**
 * The one estimator of what is left, for `plan`, `status`, the export's progress bar and its
 * log, and the report's notice of what fills its period: the requests a unit is expected to
 * need (from the nearest complete day, whatever range it is looked at in; else another
 * project's; else the dataset's typical day), the time the budget needs for a number of
 * requests, the ledger as a run has spent it since its last snapshot, and whether a run is
 * paced at all (the embedded sandbox is not). Reads the destination only; sends no request.
 */
import type { BudgetSnapshot } from '../shared/pacing/budget.js';
import { addDays } from '../shared/dates.js';
import type { Destination } from '../shared/storage/destination.js';
import { DATASET_CATALOG, typicalPagesPerDay } from '../warehouse/catalog.js';
import { manifestKey, manifestsOf, parseManifestKey } from '../warehouse/keys.js';
import { DAY_MS } from '../shared/time.js';
import type { Manifest } from './manifest.js';
import { readUnitStates, type UnitState } from './units.js';
import { unitKey, type Unit } from './unit-id.js';

/** What estimating a unit gives: the requests, and where they come from. */
export interface Estimate {
  /** Requests the unit is expected to need (at least 1). */
  readonly estimate: number;
  /** The manifest the estimate comes from; absent when nothing of the dataset is known. */
  readonly estimateFrom?: { readonly projectId: string; readonly day: string };
  /** The estimate is not from this project's own pages (another project's, or the dataset's typical day). */
  readonly guess?: true;
  /** Nothing of the dataset is known: the estimate is its typical day (catalog.ts `typicalPagesPerDay`), a guess. */
  readonly typical?: true;
  /**
   * The estimate is a floor: a partial unit has staged as many pages as its known day had, so
   * it needs at least one more request, maybe many ("at least", never "about").
   */
  readonly floor?: true;
}

/** Pages of complete units, by dataset, then project, then day: what estimates are made from. */
export type KnownPages = Map<string, Map<string, Map<string, number>>>;

/**
 * Requests a unit is expected to need: the pages of the nearest complete day of the same
 * dataset and project (at least 1), less what a checkpoint already holds; else the most any
 * other project needed on its nearest day (a guess); else the dataset's typical day (a guess:
 * catalog.ts). `known` (from `readKnownPages`, which includes `states`) adds days found beyond
 * them. Says where the estimate comes from, whether it is a guess, and whether it is a floor.
 */
export function estimateUnit(
  unit: Unit,
  states: ReadonlyMap<string, UnitState>,
  known: KnownPages = knownPagesOf(states),
  /** Pages a unit has when the API's data is known before any page (the embedded sandbox's sizes), else undefined. */
  sized?: (unit: Unit) => number | undefined,
): Estimate {
  const byProject = known.get(unit.dataset) ?? new Map<string, Map<string, number>>();
  const own = nearest(byProject.get(unit.projectId), unit.day);
  let full: { pages: number; projectId: string; day: string } | undefined = own && { ...own, projectId: unit.projectId };
  if (!full) {
    for (const [projectId, days] of byProject) {
      const other = nearest(days, unit.day);
      if (other && (!full || other.pages > full.pages)) full = { ...other, projectId };
    }
  }
  // Known sizes (the embedded sandbox's) stand in for the dataset's typical day: not a guess.
  const size = full === undefined ? sized?.(unit) : undefined;
  const pages = Math.max(1, full?.pages ?? size ?? typicalPagesPerDay(DATASET_CATALOG[unit.dataset]));
  const state = states.get(unitKey(unit));
  const staged = state?.kind === 'partial' ? state.checkpoint.state.pages : 0;
  const estimate = Math.max(1, pages - staged);
  return {
    estimate,
    ...(full ? { estimateFrom: { projectId: full.projectId, day: full.day } } : {}),
    ...(own || size !== undefined ? {} : { guess: true as const }),
    ...(full || size !== undefined ? {} : { typical: true as const }),
    ...(staged > 0 && staged >= pages ? { floor: true as const } : {}),
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

/**
 * Whether `found`, a known complete day of the unit's own, is the nearest one there can be —
 * so no listing can find a better one and the estimate does not depend on which other units
 * were read with it: every day closer to the unit, and the later day as far (it wins a tie),
 * was looked at (is in `states`) or lies after `lastDay` (not due: never complete).
 */
function surelyNearest(unit: Unit, found: string, states: ReadonlyMap<string, UnitState>, lastDay: string | undefined): boolean {
  const distance = Math.round(Math.abs(Date.parse(`${found}T00:00:00Z`) - Date.parse(`${unit.day}T00:00:00Z`)) / DAY_MS);
  const lookedAt = (day: string) => day === found || (lastDay !== undefined && day > lastDay) || states.has(unitKey({ ...unit, day }));
  for (let k = 1; k <= distance; k++) {
    if (!lookedAt(addDays(unit.day, k))) return false;
    if (k < distance && !lookedAt(addDays(unit.day, -k))) return false;
  }
  return true;
}

/**
 * The pages of the complete days nearest to `units`, wherever they are in time: the manifests
 * of each dataset are listed (one listing per dataset) and only the nearest of each project
 * read. Without a listing (a destination that cannot list, or a listing refused) the result is
 * what `states` holds.
 */
export async function readKnownPages(
  destination: Destination,
  units: readonly Unit[],
  states: ReadonlyMap<string, UnitState>,
  options: {
    /** The latest due day: later days count as looked at (none is complete). */
    readonly lastDay?: string;
  } = {},
): Promise<KnownPages> {
  const known = knownPagesOf(states);
  const list = destination.list?.bind(destination);
  if (!list || units.length === 0) return known;
  const toRead = new Map<string, Unit>();
  // A unit whose nearest known day cannot be beaten needs no listing (the hourly run's case).
  const near = (unit: Unit) => {
    const found = nearest(known.get(unit.dataset)?.get(unit.projectId), unit.day);
    return found !== undefined && surelyNearest(unit, found.day, states, options.lastDay);
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

/**
 * Time the budget needs for `requests` more, ms, from a ledger snapshot: what fits in the free
 * part of the window starts now; each start after that waits for the start `limit` places
 * before it to leave the window — the ones already in it from `nextStartAt` on (when the
 * window frees), then a window after each earlier start of this batch. An upper bound for
 * the starts already in the window (they may leave it later than the first): "up to".
 */
export function budgetTime(snapshot: BudgetSnapshot, requests: number, now: number): { readonly startsAt: number; readonly ms: number } {
  const { windowMs } = snapshot.spec;
  const per = Math.max(1, snapshot.limit);
  const free = Math.max(0, per - snapshot.used);
  // The snapshot was taken a moment after `now`: a start less than a second away is now.
  const startsAt = snapshot.nextStartAt - now < 1_000 ? now : snapshot.nextStartAt;
  if (requests <= free) return { startsAt, ms: startsAt - now };
  // The last request waits for the one `per` places before it, and so on back into the first `per`.
  const windows = Math.ceil(requests / per) - 1;
  const first = requests - windows * per;
  const base = first <= free ? now : Math.max(startsAt, now);
  return { startsAt, ms: base - now + windows * windowMs };
}

/**
 * The ledger as it stands after `spent` more starts than `snapshot` counted (a run's own,
 * known at once while a fresh snapshot is on its way): a window they fill frees no sooner than
 * one window from now, as far as this run can tell.
 */
export function afterSpending(snapshot: BudgetSnapshot, spent: number, now: number): BudgetSnapshot {
  if (spent <= 0) return snapshot;
  const used = snapshot.used + spent;
  const full = used >= snapshot.limit;
  return { ...snapshot, used, nextStartAt: full ? Math.max(snapshot.nextStartAt, now + snapshot.spec.windowMs) : snapshot.nextStartAt };
}
