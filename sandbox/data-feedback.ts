/**
 * Deterministic, lazily generated feedback: rows of every `source` with their
 * source-specific fields, every `status`, sometimes a null `comment` or `createdAt`, and the
 * per-page aggregate of `/feedback/by-page`.
 *
 * Per project and UTC day there are F_d rows (`baseRows(…, 'feedback')`, ±20 % by day unless
 * exact), newest first: row `i` was created in the i-th of F_d equal slices of the day,
 * counted back from midnight (⚠ the real order is undocumented). A multi-day window lists
 * its days newest first. Feedback points at the project's pages (the views catalogue, with
 * popular pages more likely), now and then as a full URL instead of a path.
 *
 * `status` is what people change later in the dashboard: `setStatus` overrides one row's
 * status, as if someone had just changed it (no modification time is exposed, as in the API).
 */
import { dayStart } from '../functions/shared/dates.js';
import { baseRows, dailyRows, locateInWindow, memo, windowRowCount, type ProjectEntry, type ProjectRegistry, type VisitorData } from './data.js';
import { hashString, hex, mix, pick, scramble, unit } from './hash.js';
import { COMMENTS, CONTACTS, SNIPPETS } from './text.js';

export const FEEDBACK_SOURCES = ['code_snippet', 'contextual', 'agent', 'thumbs_only'] as const;
export type FeedbackSource = (typeof FEEDBACK_SOURCES)[number];
export const FEEDBACK_STATUSES = ['pending', 'in_progress', 'resolved', 'dismissed'] as const;
export type FeedbackStatus = (typeof FEEDBACK_STATUSES)[number];

interface FeedbackCommon {
  /** 24 hex digits (its first 8: the creation second, as in a MongoDB ObjectId). */
  readonly id: string;
  /** A page path, or now and then the page's full URL. */
  readonly path: string;
  readonly comment: string | null;
  /** ISO 8601 with milliseconds; null for about one row in 25. */
  readonly createdAt: string | null;
  readonly status: FeedbackStatus;
}

/** One row of `GET /v1/analytics/{projectId}/feedback`; fields beyond the common ones by source. */
export type FeedbackRow =
  | (FeedbackCommon & { readonly source: 'contextual'; readonly helpful: boolean; readonly contact: string | null })
  | (FeedbackCommon & {
      readonly source: 'code_snippet';
      readonly code: string;
      readonly filename: string | null;
      readonly lang: string | null;
    })
  | (FeedbackCommon & { readonly source: 'agent' | 'thumbs_only' });

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

/** Filters of the feedback endpoint; undefined = every value. */
export interface FeedbackFilter {
  readonly sources?: ReadonlySet<FeedbackSource>;
  readonly statuses?: ReadonlySet<FeedbackStatus>;
}

/** The most feedback rows the sandbox aggregates for `/feedback/by-page` in one window. */
export const MAX_AGGREGATED_FEEDBACK = 2_000_000;

const DAY_MS = 86_400_000;
const SALT = 0xfeedbac;

interface Project {
  readonly entry: ProjectEntry;
  readonly key: number;
  readonly host: string;
  /** Catalogue entries of the views data that feedback points at. */
  readonly pageRange: number;
}

interface Day {
  readonly key: number;
  readonly start: number;
  readonly count: number;
  /** Distinguishes ids of different days and projects created in the same second. */
  readonly tag: number;
}

export class FeedbackData {
  private readonly projects = new Map<string, Project>();
  private readonly days = new Map<string, Day>();
  private readonly byPages = new Map<string, readonly FeedbackByPageRow[]>();
  private readonly statuses = new Map<string, FeedbackStatus>();

  constructor(
    private readonly registry: ProjectRegistry,
    private readonly pages: VisitorData,
  ) {}

  /** Rows of the window `days` (UTC days, oldest first), before any filter. */
  rowCount(projectId: string, days: readonly string[]): number {
    const project = this.project(projectId);
    return windowRowCount(days, (day) => this.day(project, day).count);
  }

  /** Row `index` (< rowCount) of the window in API order: newest day first, newest row first. */
  row(projectId: string, days: readonly string[], index: number): FeedbackRow {
    const project = this.project(projectId);
    const at = locateInWindow(days, index, (day) => this.day(project, day).count);
    if (!at) throw new RangeError(`feedback row ${index} is beyond the window of ${projectId}`);
    return this.rowOf(project, this.day(project, at.day), at.rest);
  }

  /** Whether a row passes the endpoint's `source` and `status` filters. */
  static matches(row: FeedbackRow, filter: FeedbackFilter): boolean {
    return (filter.sources?.has(row.source) ?? true) && (filter.statuses?.has(row.status) ?? true);
  }

  /**
   * Every page with feedback in the window, by `total` descending then path (code-unit
   * order). ⚠ The real order is undocumented. Throws a RangeError beyond
   * MAX_AGGREGATED_FEEDBACK rows.
   */
  byPage(projectId: string, days: readonly string[]): readonly FeedbackByPageRow[] {
    const cacheKey = `${projectId}\u0000${days.join(',')}`;
    const cached = this.byPages.get(cacheKey);
    if (cached) return cached;
    const count = this.rowCount(projectId, days);
    if (count > MAX_AGGREGATED_FEEDBACK) {
      throw new RangeError(`the sandbox aggregates at most ${MAX_AGGREGATED_FEEDBACK} feedback rows per window: ask for one day at a time`);
    }
    const counts = new Map<string, { thumbsUp: number; thumbsDown: number; code: number; total: number }>();
    for (let i = 0; i < count; i++) {
      const row = this.row(projectId, days, i);
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

  /** Overrides a row's status from now on (a person changed it in the dashboard). */
  setStatus(projectId: string, feedbackId: string, status: FeedbackStatus): void {
    this.statuses.set(`${projectId}\u0000${feedbackId}`, status);
  }

  private rowOf(project: Project, day: Day, i: number): FeedbackRow {
    const key = mix(day.key, i);
    const slice = DAY_MS / day.count;
    const created = Math.floor(day.start + DAY_MS - (i + unit(mix(key, 1))) * slice);
    const id = `${hex(Math.floor(created / 1000), 8)}${hex(day.tag, 6)}${hex(scramble(i, day.tag), 10)}`;
    const sourceDraw = unit(mix(key, 2));
    const source: FeedbackSource = sourceDraw < 0.4 ? 'contextual' : sourceDraw < 0.7 ? 'thumbs_only' : sourceDraw < 0.85 ? 'code_snippet' : 'agent';
    const statusDraw = unit(mix(key, 3));
    const status =
      this.statuses.get(`${project.entry.seed.id}\u0000${id}`) ??
      (statusDraw < 0.45 ? 'pending' : statusDraw < 0.55 ? 'in_progress' : statusDraw < 0.85 ? 'resolved' : 'dismissed');
    // Log-uniform rank: popular pages get most feedback, the long tail some.
    const rank = Math.min(project.pageRange - 1, Math.floor(Math.exp(unit(mix(key, 4)) * Math.log(project.pageRange + 1))) - 1);
    const pagePath = this.pages.catalogPath(project.entry.seed.id, rank);
    const path = unit(mix(key, 5)) < 0.1 ? `https://${project.host}${pagePath}` : pagePath;
    const nullComment = { thumbs_only: 0.85, contextual: 0.3, code_snippet: 0.2, agent: 0 }[source];
    const common = {
      id,
      path,
      comment: unit(mix(key, 6)) < nullComment ? null : pick(COMMENTS, mix(key, 7)),
      createdAt: unit(mix(key, 8)) < 0.04 ? null : new Date(created).toISOString(),
    };
    switch (source) {
      case 'contextual':
        return {
          ...common,
          source,
          status,
          helpful: unit(mix(key, 9)) < 0.65,
          contact: unit(mix(key, 10)) < 0.25 ? pick(CONTACTS, mix(key, 11)) : null,
        };
      case 'code_snippet': {
        const snippet = pick(SNIPPETS, mix(key, 12));
        return {
          ...common,
          source,
          status,
          code: snippet.code,
          filename: unit(mix(key, 13)) < 0.3 ? null : snippet.filename,
          lang: unit(mix(key, 15)) < 0.25 ? null : snippet.lang,
        };
      }
      default:
        return { ...common, source, status };
    }
  }

  private project(projectId: string): Project {
    return memo(this.projects, projectId, () => {
      const entry = this.registry.require(projectId);
      const project: Project = {
        entry,
        key: mix(entry.key, SALT),
        host: `docs.${projectId.replace(/^proj_/, '').replace(/_/g, '-')}.example.com`,
        pageRange: Math.max(1, baseRows(entry.seed, 'views').rows),
      };
      return project;
    });
  }

  private day(project: Project, day: string): Day {
    const cacheKey = `${project.entry.seed.id}\u0000${day}`;
    return memo(this.days, cacheKey, () => {
      const key = mix(project.key, hashString(day));
      const model = { key, start: dayStart(day), count: dailyRows(baseRows(project.entry.seed, 'feedback'), key, 0.2), tag: mix(key, 99) & 0xffffff };
      return model;
    });
  }
}
