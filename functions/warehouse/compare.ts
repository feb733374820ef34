/**
 * How the read side compares a figure with another time: whether two periods are comparable at
 * all (their coverage), the usual level of a figure (the median of the days compared, insights'
 * anomalies), the change of a figure from one period to the next, and the movers (what changed
 * most). One rule for movers, with its parameters: the report's rankings take the biggest
 * absolute rises and falls (report/movers.ts), the weekly digest the biggest relative changes
 * either way over a base of 20 (insights/weekly/digest.ts).
 */

/**
 * How much of a period one dataset has: its exported days (a day of each project: a unit that is
 * complete, provisional or complete with drift) out of the period's days (times the projects).
 */
export interface Coverage {
  readonly exported: number;
  readonly days: number;
}

/** A period is covered when at least this share of its days is exported (80 %). */
export const MIN_COVERAGE = { exported: 4, of: 5 } as const;

/** Whether `coverage` reaches MIN_COVERAGE (counted in whole numbers: 12 of 15 is 80 %). */
export function isCovered(coverage: Coverage): boolean {
  return coverage.days > 0 && coverage.exported * MIN_COVERAGE.of >= coverage.days * MIN_COVERAGE.exported;
}

/**
 * How a figure of two periods may be compared, the one rule of the report, the weekly digest and
 * the anomalies:
 * - `totals`: both periods covered — totals against totals, a change, a colour, `new`, movers;
 * - `per-day`: both have exported days but one is not covered — only figures per day over the
 *   days each has, shown as such, never coloured, never `new`, never a mover;
 * - `none`: a period has no exported day — nothing to compare.
 * Never a total of N days against a total of fewer.
 */
export type Comparison = 'totals' | 'per-day' | 'none';

export function comparisonOf(current: Coverage, previous: Coverage): Comparison {
  if (isCovered(current) && isCovered(previous)) return 'totals';
  return current.exported > 0 && previous.exported > 0 ? 'per-day' : 'none';
}

/** The median of the days compared, the usual level of a figure (shared/median.ts: one for the house). */

/** A figure of one thing of a project in the period (`current`) and in the one before (`previous`). */
export interface Change {
  readonly projectId: string;
  readonly current: number;
  readonly previous: number;
}

/** `current − previous`: how much it moved. */
export function absoluteChange(change: Pick<Change, 'current' | 'previous'>): number {
  return change.current - change.previous;
}

/** `current ÷ previous − 1` (0.2 for a rise of 20 %); undefined from 0, where no ratio means anything. */
export function relativeChange(change: Pick<Change, 'current' | 'previous'>): number | undefined {
  return change.previous === 0 ? undefined : change.current / change.previous - 1;
}

export interface MoverRule {
  /** How a move is measured: `absolute` (current − previous) or `relative` (current ÷ previous − 1). */
  readonly by: 'absolute' | 'relative';
  /** Which moves count: rises, falls, or both (ordered by size whatever the sign). */
  readonly direction: 'rise' | 'fall' | 'either';
  /** A thing below this in the previous period is too small for its move to mean much. @default 0 */
  readonly minBase?: number;
  /** Movers kept, the biggest first. */
  readonly limit: number;
}

/**
 * The things of `changes` that moved most by `rule`, the biggest move first; ties by project,
 * then in the order given. A thing that did not move is never a mover, nor is one with no
 * relative change (from 0) when moves are relative.
 */
export function moversBy<T extends Change>(changes: readonly T[], rule: MoverRule): T[] {
  const minBase = rule.minBase ?? 0;
  const moved: { readonly item: T; readonly size: number; readonly projectId: string }[] = [];
  for (const item of changes) {
    if (item.previous < minBase) continue;
    const size = rule.by === 'absolute' ? absoluteChange(item) : relativeChange(item);
    if (size === undefined || size === 0) continue;
    if ((rule.direction === 'rise' && size < 0) || (rule.direction === 'fall' && size > 0)) continue;
    moved.push({ item, size: Math.abs(size), projectId: item.projectId });
  }
  return largestFirst(moved, (m) => m.size, rule.limit).map((m) => m.item);
}

/**
 * The `limit` largest of `items` by `size`, the largest first; ties by project, then in the
 * order given (the sort is stable).
 */
export function largestFirst<T extends { readonly projectId: string }>(items: readonly T[], size: (item: T) => number, limit: number): T[] {
  return [...items].sort((a, b) => size(b) - size(a) || a.projectId.localeCompare(b.projectId)).slice(0, limit);
}
