/**
 * What moved between the period and the one before it, for one ranking (pages by views,
 * searches nobody clicked by searches, unanswered categories, pages with thumbs down): what is
 * new, what rose and what fell the most (warehouse/compare.ts's rule: by absolute change, rises
 * and falls apart). Both periods are asked the same question of queries/.
 */
import { largestFirst, moversBy } from '../warehouse/compare.js';

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
  /** Whether a thing absent from `previous` was there in the previous period all the same. @default never */
  thereBefore: (r: Ranked) => boolean = () => false,
): Movers {
  if (previous.length === 0) return { new: [], lapsed: [], risers: [], fallers: [] };
  const before = new Map(previous.map((r) => [id(r), r]));
  const now = new Map(current.map((r) => [id(r), r]));
  const previousComplete = previous.length < limit;
  const currentComplete = current.length < limit;
  const fresh: Move[] = [];
  const lapsed: Move[] = [];
  const changed: Move[] = [];
  for (const r of current) {
    const old = before.get(id(r));
    if (old === undefined) {
      if (previousComplete) (thereBefore(r) ? lapsed : fresh).push({ projectId: r.projectId, key: r.key, label: r.label, current: r.value, previous: 0 });
      continue;
    }
    changed.push({ projectId: r.projectId, key: r.key, label: r.label, current: r.value, previous: old.value });
  }
  if (currentComplete) {
    for (const r of previous) {
      if (!now.has(id(r))) changed.push({ projectId: r.projectId, key: r.key, label: r.label, current: 0, previous: r.value });
    }
  }
  // Ties by project, then key: the rule keeps the order given after the project.
  const order = (a: Move, b: Move) => a.projectId.localeCompare(b.projectId) || a.key.localeCompare(b.key);
  const moved = changed.sort(order);
  return {
    new: largestFirst(fresh.sort(order), (m) => m.current, MOVERS_SHOWN),
    lapsed: largestFirst(lapsed.sort(order), (m) => m.current, MOVERS_SHOWN),
    risers: moversBy(moved, { by: 'absolute', direction: 'rise', limit: MOVERS_SHOWN }),
    fallers: moversBy(moved, { by: 'absolute', direction: 'fall', limit: MOVERS_SHOWN }),
  };
}
