/**
 * What every dataset's generator is: the rows of a window of UTC days for a project,
 * computed on demand (`WindowedRows`), plus what a day holds beyond its rows (totals, flags).
 * The registry (registry.ts) and the endpoints work on these types alone, whatever the dataset.
 */
import { dayStart } from '../../functions/shared/dates.js';
import { memo } from './cache.js';
import { hashString, mix } from './hash.js';
import { baseRows, dailyRows, type ProjectRegistry, type SizedDataset } from './projects.js';

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

/** One UTC day of a day-by-day dataset for a project. */
export interface RowDay {
  /** The root of the day's generated values. */
  readonly key: number;
  /** The day's midnight, epoch ms. */
  readonly start: number;
  /** Rows of the day. */
  readonly count: number;
  /** Distinguishes ids of different days and projects created in the same second. */
  readonly tag: number;
}

/** What sizes a day-by-day dataset. */
export interface DayByDayShape {
  /** Names the row in the error for an index beyond the window (e.g. `feedback row`). */
  readonly rowName: string;
  /** Whose base rows per day (`baseRows`) a day has. */
  readonly dataset: SizedDataset;
  /** Mixed into the project's key: the dataset's own values. */
  readonly salt: number;
  /** A day's rows vary within ±spread of the base count unless exact. */
  readonly spread: number;
}

/**
 * A window that lists its days newest first, each day's rows in the day's own order
 * (feedback, assistant): a day has `dailyRows` rows of the dataset, and a generator says what
 * row `i` of a day is; the window's count and its row `index` follow.
 */
export abstract class DayByDayRows<Row> implements WindowedRows<Row> {
  private readonly days = new Map<string, RowDay>();

  constructor(
    protected readonly registry: ProjectRegistry,
    private readonly shape: DayByDayShape,
  ) {}

  /** Row `index` (< the day's count) of one day of the project. */
  protected abstract rowOf(projectId: string, day: RowDay, index: number): Row;

  rowCount(projectId: string, days: readonly string[]): number {
    let count = 0;
    for (const day of days) count += this.dayOf(projectId, day).count;
    return count;
  }

  row(projectId: string, days: readonly string[], index: number): Row {
    let rest = index;
    for (let d = days.length - 1; d >= 0; d--) {
      const day = this.dayOf(projectId, days[d] as string);
      if (rest < day.count) return this.rowOf(projectId, day, rest);
      rest -= day.count;
    }
    throw new RangeError(`${this.shape.rowName} ${index} is beyond the window of ${projectId}`);
  }

  /** The project's key for this dataset (its project key mixed with the dataset's salt). */
  protected projectKey(projectId: string): number {
    return mix(this.registry.require(projectId).key, this.shape.salt);
  }

  /** One UTC day of the project. */
  protected dayOf(projectId: string, day: string): RowDay {
    return memo(this.days, `${projectId}\u0000${day}`, () => {
      const key = mix(this.projectKey(projectId), hashString(day));
      const base = baseRows(this.registry.require(projectId).seed, this.shape.dataset);
      return { key, start: dayStart(day), count: dailyRows(base, key, this.shape.spread), tag: mix(key, 99) & 0xffffff };
    });
  }
}

/**
 * Rows of a window that lists the union of its days' catalogue entries (page counts,
 * searches): each day lists entries `[0, count)`, so the window has as many as its largest day.
 */
export function unionRowCount(days: readonly string[], countOf: (day: string) => number): number {
  let count = 0;
  for (const day of days) count = Math.max(count, countOf(day));
  return count;
}

/**
 * Rank ↔ catalogue entry of a day that ranks `count` entries (an involution): some
 * neighbouring pairs swap, differently each day (by the day's key and the dataset's salt).
 */
export function swapNeighbours(index: number, count: number, dayKey: number, salt: number): number {
  const partner = index ^ 1;
  if (partner >= count) return index;
  return (mix(mix(dayKey, salt), Math.floor(index / 2)) & 3) === 0 ? partner : index;
}
