/**
 * Deterministic, lazily generated feedback: rows of every `source` with their
 * source-specific fields, every `status`, sometimes a null `comment` or `createdAt`. A contextual
 * comment agrees with its thumbs: praise only with a thumbs up, complaints only with a thumbs down.
 *
 * Per project and UTC day there are F_d rows (`baseRows(…, 'feedback')`, ±20 % by day unless
 * exact), newest first: row `i` was created in the i-th of F_d equal slices of the day,
 * counted back from midnight (⚠ the real order is undocumented). A multi-day window lists
 * its days newest first. Feedback points at the project's pages (the views catalogue, with
 * popular pages more likely), now and then as a full URL instead of a path.
 *
 * `status` is what people change later in the dashboard: `setStatus` overrides one row's
 * status, as if someone had just changed it (no modification time is exposed, as in the API).
 * `/feedback/by-page` aggregates these rows (feedback-by-page.ts). A planted past fix
 * (planted-fixes.ts) turns a share of its page's thumbs down into thumbs up after its day.
 */
import type { FeedbackSource, FeedbackStatus } from '../../functions/shared/api-enums.js';
import { formatDay } from '../../functions/shared/dates.js';
import { DAY_MS } from '../../functions/shared/time.js';
import { hex, mix, pick, scramble, unit } from './hash.js';
import type { SitePages } from './pages.js';
import { NO_PLANTED_FALLS, type PlantedFalls } from './planted-fixes.js';
import type { ProjectRegistry } from './projects.js';
import { COMMENTS, COMPLAINT_COMMENTS, CONTACTS, PRAISE_COMMENTS, SNIPPETS } from './text.js';
import { DayByDayRows, type RowDay } from './windowed.js';

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

/** Filters of the feedback endpoint; undefined = every value. */
export interface FeedbackFilter {
  readonly sources?: ReadonlySet<FeedbackSource>;
  readonly statuses?: ReadonlySet<FeedbackStatus>;
}

export class FeedbackData extends DayByDayRows<FeedbackRow> {
  private readonly statuses = new Map<string, FeedbackStatus>();

  constructor(
    registry: ProjectRegistry,
    private readonly pages: SitePages,
    /** Past fixes planted (planted-fixes.ts): a share of a page's thumbs down turned up after its fix. */
    private readonly falls: PlantedFalls = NO_PLANTED_FALLS,
  ) {
    super(registry, { rowName: 'feedback row', dataset: 'feedback', salt: 0xfeedbac, spread: 0.2 });
  }

  /** Whether a row passes the endpoint's `source` and `status` filters. */
  static matches(row: FeedbackRow, filter: FeedbackFilter): boolean {
    return (filter.sources?.has(row.source) ?? true) && (filter.statuses?.has(row.status) ?? true);
  }

  /** Overrides a row's status from now on (a person changed it in the dashboard). */
  setStatus(projectId: string, feedbackId: string, status: FeedbackStatus): void {
    this.statuses.set(`${projectId}\u0000${feedbackId}`, status);
  }

  /** Row `i` of a day: newest first. */
  protected rowOf(projectId: string, day: RowDay, i: number): FeedbackRow {
    const key = mix(day.key, i);
    const slice = DAY_MS / day.count;
    const created = Math.floor(day.start + DAY_MS - (i + unit(mix(key, 1))) * slice);
    const id = `${hex(Math.floor(created / 1000), 8)}${hex(day.tag, 6)}${hex(scramble(i, day.tag), 10)}`;
    const sourceDraw = unit(mix(key, 2));
    const source: FeedbackSource = sourceDraw < 0.4 ? 'contextual' : sourceDraw < 0.7 ? 'thumbs_only' : sourceDraw < 0.85 ? 'code_snippet' : 'agent';
    const statusDraw = unit(mix(key, 3));
    const status =
      this.statuses.get(`${projectId}\u0000${id}`) ??
      (statusDraw < 0.45 ? 'pending' : statusDraw < 0.55 ? 'in_progress' : statusDraw < 0.85 ? 'resolved' : 'dismissed');
    // Log-uniform rank: popular pages get most feedback, the long tail some.
    const pageRange = this.pages.listed(projectId);
    const rank = Math.min(pageRange - 1, Math.floor(Math.exp(unit(mix(key, 4)) * Math.log(pageRange + 1))) - 1);
    const pagePath = this.pages.path(projectId, rank);
    const path = unit(mix(key, 5)) < 0.1 ? `https://${this.pages.host(projectId)}${pagePath}` : pagePath;
    const nullComment = { thumbs_only: 0.85, contextual: 0.3, code_snippet: 0.2, agent: 0 }[source];
    const fall = this.falls.fall(projectId, rank, formatDay(day.start));
    // A planted fix turns that share of the page's thumbs down up (by a draw of its own: the other rows stay as they were).
    const helpful = unit(mix(key, 9)) < 0.65 || (fall > 0 && unit(mix(key, 16)) < fall);
    // A contextual comment agrees with its thumbs: praise with a thumbs up, a complaint with a thumbs down.
    const comments = source !== 'contextual' ? COMMENTS : helpful ? PRAISE_COMMENTS : COMPLAINT_COMMENTS;
    const common = {
      id,
      path,
      comment: unit(mix(key, 6)) < nullComment ? null : pick(comments, mix(key, 7)),
      createdAt: unit(mix(key, 8)) < 0.04 ? null : new Date(created).toISOString(),
    };
    switch (source) {
      case 'contextual':
        return {
          ...common,
          source,
          status,
          helpful,
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
}
