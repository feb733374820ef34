/**
 * `/feedback/by-page`'s data: the feedback rows of the window (feedback.ts) aggregated per
 * page, by `total` descending then path (code-unit order; ⚠ the real order is undocumented).
 * The endpoint serves the first `limit` pages (at most `FEEDBACK_BY_PAGE_MAX`) and says
 * whether any were left out; there is no way to read the rest.
 */
import type { FeedbackData } from './feedback.js';
import type { DatasetGenerator } from './windowed.js';

/** One row of `GET /v1/analytics/{projectId}/feedback/by-page`. */
export interface FeedbackByPageRow {
  readonly path: string;
  /** Contextual feedback with `helpful: true`. */
  readonly thumbsUp: number;
  /** Contextual feedback with `helpful: false`. */
  readonly thumbsDown: number;
  /** Code-snippet feedback. */
  readonly code: number;
  /** Every feedback row of the page, whatever its source. */
  readonly total: number;
}

/** The response body of `/feedback/by-page`. */
export interface FeedbackByPageBody {
  feedback: FeedbackByPageRow[];
  hasMore: boolean;
}

/** The most rows `/feedback/by-page` can ever serve for a window. */
export const FEEDBACK_BY_PAGE_MAX = 100;

/** The most feedback rows the sandbox aggregates for `/feedback/by-page` in one window. */
export const MAX_AGGREGATED_FEEDBACK = 2_000_000;

/** The per-page aggregate of a window's feedback; rows: what the API serves with its largest `limit`. */
export class FeedbackByPageData implements DatasetGenerator<FeedbackByPageRow> {
  private readonly byPages = new Map<string, readonly FeedbackByPageRow[]>();

  constructor(private readonly feedback: FeedbackData) {}

  rowCount(projectId: string, days: readonly string[]): number {
    return Math.min(FEEDBACK_BY_PAGE_MAX, this.pages(projectId, days).length);
  }

  row(projectId: string, days: readonly string[], index: number): FeedbackByPageRow {
    return this.pages(projectId, days)[index] as FeedbackByPageRow;
  }

  /**
   * `rows`: what the API serves with `limit=100`, the most it can; `hasMore`: whether pages
   * were left out; `pages`: how many pages had feedback in all.
   */
  day(
    projectId: string,
    days: readonly string[],
    rows: FeedbackByPageRow[],
  ): { readonly rows: FeedbackByPageRow[]; readonly hasMore: boolean; readonly pages: number } {
    const pages = this.pages(projectId, days).length;
    return { rows, hasMore: pages > FEEDBACK_BY_PAGE_MAX, pages };
  }

  /** Whether the window holds more feedback rows than the sandbox aggregates. */
  tooLarge(projectId: string, days: readonly string[]): boolean {
    return this.feedback.rowCount(projectId, days) > MAX_AGGREGATED_FEEDBACK;
  }

  /** What the endpoint answers for a window: the first `limit` pages and whether any were left out. */
  serve(projectId: string, days: readonly string[], limit: number): FeedbackByPageBody {
    const pages = this.pages(projectId, days);
    return { feedback: pages.slice(0, limit), hasMore: pages.length > limit };
  }

  /** Every page with feedback in the window. Throws a RangeError beyond MAX_AGGREGATED_FEEDBACK rows. */
  pages(projectId: string, days: readonly string[]): readonly FeedbackByPageRow[] {
    const cacheKey = `${projectId}\u0000${days.join(',')}`;
    const cached = this.byPages.get(cacheKey);
    if (cached) return cached;
    const count = this.feedback.rowCount(projectId, days);
    if (count > MAX_AGGREGATED_FEEDBACK) {
      throw new RangeError(`the sandbox aggregates at most ${MAX_AGGREGATED_FEEDBACK} feedback rows per window: ask for one day at a time`);
    }
    const counts = new Map<string, { thumbsUp: number; thumbsDown: number; code: number; total: number }>();
    for (let i = 0; i < count; i++) {
      const row = this.feedback.row(projectId, days, i);
      let page = counts.get(row.path);
      if (!page) {
        page = { thumbsUp: 0, thumbsDown: 0, code: 0, total: 0 };
        counts.set(row.path, page);
      }
      page.total += 1;
      if (row.source === 'contextual') {
        if (row.helpful) page.thumbsUp += 1;
        else page.thumbsDown += 1;
      } else if (row.source === 'code_snippet') page.code += 1;
    }
    const rows = [...counts].map(([path, page]): FeedbackByPageRow => ({ path, ...page }));
    rows.sort((a, b) => b.total - a.total || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    if (this.byPages.size >= 8) this.byPages.clear();
    this.byPages.set(cacheKey, rows);
    return rows;
  }
}
