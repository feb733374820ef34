/**
 * What every dataset's generator is: the rows of a window of UTC days for a project,
 * computed on demand (`WindowedRows`), plus what a day holds beyond its rows (totals, flags).
 * The registry (registry.ts) and the endpoints work on these types alone, whatever the dataset.
 */

/** The rows of a window (`days`: UTC days, oldest first) in API order, generated lazily. */
export interface WindowedRows<Row> {
  /** Rows of the window (before any filter of the endpoint). */
  rowCount(projectId: string, days: readonly string[]): number;
  /** Row `index` (0-based, < rowCount) of the window in API order. */
  row(projectId: string, days: readonly string[], index: number): Row;
}

/**
 * A dataset's generator. `day`, when present, adds what a correct export of the window holds
 * beside its rows (site totals, whether rows were left out); without it that is `{rows}`.
 */
export interface DatasetGenerator<Row> extends WindowedRows<Row> {
  day?(projectId: string, days: readonly string[], rows: Row[]): { readonly rows: Row[] };
}

/** The row type of a generator. */
export type RowOf<G> = G extends WindowedRows<infer Row> ? Row : never;

/** What a correct export of one (project, day) of a generator's dataset holds. */
export type DayOf<G> = G extends { day(projectId: string, days: readonly string[], rows: never[]): infer Day } ? Day : { readonly rows: RowOf<G>[] };

/** Entries a sandbox cache keeps before it starts afresh: memory stays bounded whatever is asked. */
const CACHE_LIMIT = 10_000;

/**
 * `map`'s value for `key`, else `make()` stored under it. The map is emptied once it holds
 * CACHE_LIMIT entries: everything in it can be computed again, so a bound beats an LRU here.
 */
export function memo<K, V>(map: Map<K, V>, key: K, make: () => V): V {
  const hit = map.get(key);
  if (hit !== undefined) return hit;
  const value = make();
  if (map.size > CACHE_LIMIT) map.clear();
  map.set(key, value);
  return value;
}

/**
 * A window that lists its days newest first, each day's rows in the day's own order
 * (feedback, assistant): a generator says how many rows a day has and what row `i` of a day
 * is; the window's count and its row `index` follow.
 */
export abstract class DayByDayRows<Row> implements WindowedRows<Row> {
  /** What a row is called in the error for an index beyond the window (e.g. `feedback row`). */
  protected abstract readonly rowName: string;
  /** Rows of one UTC day of the project. */
  protected abstract countOf(projectId: string, day: string): number;
  /** Row `index` (< countOf) of one UTC day of the project. */
  protected abstract rowOf(projectId: string, day: string, index: number): Row;

  rowCount(projectId: string, days: readonly string[]): number {
    let count = 0;
    for (const day of days) count += this.countOf(projectId, day);
    return count;
  }

  row(projectId: string, days: readonly string[], index: number): Row {
    let rest = index;
    for (let d = days.length - 1; d >= 0; d--) {
      const day = days[d] as string;
      const count = this.countOf(projectId, day);
      if (rest < count) return this.rowOf(projectId, day, rest);
      rest -= count;
    }
    throw new RangeError(`${this.rowName} ${index} is beyond the window of ${projectId}`);
  }
}
