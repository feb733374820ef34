/**
 * What moved between the period and the one before it, for one ranking (pages by views,
 * searches nobody clicked by searches, unanswered categories, pages with thumbs down): what is
 * new, what rose and what fell the most, rises and falls apart. Both periods are asked the same
 * question of queries/. A thing moved only when its change is beyond chance at its counts
 * (warehouse/noise.ts), and moves are measured per day exported of its project: a period that
 * lacks a day of a project is compared over the days it has, never as a total of fewer days.
 */
import { largestFirst } from '../warehouse/compare.js';
import { beyondChance, type Exposures } from '../warehouse/noise.js';

/** One ranked thing, in one period. */
export interface Ranked {
  readonly projectId: string;
  /** What is ranked: a path, a search term (lower-cased), a category. */
  readonly key: string;
  /** As shown: the path, the term as searched, the category. */
  readonly label: string;
  readonly value: number;
}

export interface Move {
  readonly projectId: string;
  readonly key: string;
  readonly label: string;
  readonly current: number;
  /** 0 when it was not there before. */
  readonly previous: number;
  /** The days of its project each period has exported, when they differ (its figures are then compared per day). */
  readonly days?: Exposures;
}

export interface Movers {
  /** Absent from the previous period (only when the previous period has data at all). */
  readonly new: readonly Move[];
  /**
   * Absent from the previous ranking although there in the previous period in another way: a
   * search searched before and clicked then ("no longer clicked"), new to the list, not as a search.
   */
  readonly lapsed: readonly Move[];
  /** The biggest rises of things already there before. */
  readonly risers: readonly Move[];
  /** The biggest falls, down to nothing when the current ranking is complete. */
  readonly fallers: readonly Move[];
}

/** Rows of each kind of movement shown. */
export const MOVERS_SHOWN = 5;

const id = (r: Pick<Ranked, 'projectId' | 'key'>) => `${r.projectId}\u0000${r.key}`;

/**
 * Movers of `current` against `previous`, each a ranking cut at `limit` rows: a thing below the
 * cut is unknown, not zero, unless the ranking has fewer rows than the cut.
 */
export function moversOf(
  current: readonly Ranked[],
  previous: readonly Ranked[],
  limit: number,
  /**
   * Whether a thing absent from `previous` was there in the previous period all the same:
   * `absent` (new), `lapsed` (there in another way, its change beyond chance: a search clicked
   * before), `unsure` (there in another way, not beyond chance: neither new nor lapsed). @default absent
   */
  thereBefore: (r: Ranked) => 'absent' | 'lapsed' | 'unsure' = () => 'absent',
  /** The days each period has exported of a project (the exposure of its counts). @default the same days */
  daysOf: (projectId: string) => Exposures = () => SAME_DAYS,
): Movers {
  if (previous.length === 0) return { new: [], lapsed: [], risers: [], fallers: [] };
  const before = new Map(previous.map((r) => [id(r), r]));
  const now = new Map(current.map((r) => [id(r), r]));
  const previousComplete = previous.length < limit;
  const currentComplete = current.length < limit;
  const fresh: Move[] = [];
  const lapsed: Move[] = [];
  const changed: Move[] = [];
  const move = (r: Ranked, current: number, previous: number): Move => {
    const days = daysOf(r.projectId);
    return { projectId: r.projectId, key: r.key, label: r.label, current, previous, ...(days.current !== days.previous ? { days } : {}) };
  };
  // Only what moved beyond chance at its counts, over the days each period has.
  const real = (m: Move) => beyondChance(m.current, m.previous, m.days);
  for (const r of current) {
    const old = before.get(id(r));
    if (old === undefined) {
      const m = move(r, r.value, 0);
      const before = previousComplete && real(m) ? thereBefore(r) : 'unsure';
      if (before !== 'unsure') (before === 'lapsed' ? lapsed : fresh).push(m);
      continue;
    }
    changed.push(move(r, r.value, old.value));
  }
  if (currentComplete) {
    for (const r of previous) {
      if (!now.has(id(r))) changed.push(move(r, 0, r.value));
    }
  }
  // Ties by project, then key: the order given after the project.
  const order = (a: Move, b: Move) => a.projectId.localeCompare(b.projectId) || a.key.localeCompare(b.key);
  const moved = changed.filter(real).sort(order);
  return {
    new: largestFirst(fresh.sort(order), (m) => m.current, MOVERS_SHOWN),
    lapsed: largestFirst(lapsed.sort(order), (m) => m.current, MOVERS_SHOWN),
    risers: largestFirst(
      moved.filter((m) => perDayChange(m) > 0),
      perDayChange,
      MOVERS_SHOWN,
    ),
    fallers: largestFirst(
      moved.filter((m) => perDayChange(m) < 0),
      (m) => -perDayChange(m),
      MOVERS_SHOWN,
    ),
  };
}

/** Both periods with the same days: a move is its change in totals. */
const SAME_DAYS: Exposures = { current: 1, previous: 1 };

/** How much a thing moved a day: each period's figure over its days (its change in totals when they have the same days). */
export function perDayChange(m: Pick<Move, 'current' | 'previous' | 'days'>): number {
  return m.days === undefined ? m.current - m.previous : m.current / m.days.current - m.previous / m.days.previous;
}
