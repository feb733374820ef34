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
 * `/feedback/by-page` aggregates these rows (feedback-by-page.ts).
 */
import type { FeedbackSource, FeedbackStatus } from '../../functions/shared/api-types.js';
import { dayStart } from '../../functions/shared/dates.js';
import { hashString, hex, mix, pick, scramble, unit } from './hash.js';
import type { SitePages } from './pages.js';
import { baseRows, dailyRows, type ProjectEntry, type ProjectRegistry } from './projects.js';
import { COMMENTS, CONTACTS, SNIPPETS } from './text.js';
import { DayByDayRows, memo } from './windowed.js';

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

const DAY_MS = 86_400_000;
const SALT = 0xfeedbac;

interface Project {
  readonly entry: ProjectEntry;
  readonly key: number;
  readonly host: string;
  /** Catalogue entries (the site's pages, as many as the views data lists) that feedback points at. */
  readonly pageRange: number;
}

interface Day {
  readonly key: number;
  readonly start: number;
  readonly count: number;
  /** Distinguishes ids of different days and projects created in the same second. */
  readonly tag: number;
}

export class FeedbackData extends DayByDayRows<FeedbackRow> {
  protected readonly rowName = 'feedback row';
  private readonly projects = new Map<string, Project>();
  private readonly days = new Map<string, Day>();
  private readonly statuses = new Map<string, FeedbackStatus>();

  constructor(
    private readonly registry: ProjectRegistry,
    private readonly pages: SitePages,
  ) {
    super();
  }

  /** Whether a row passes the endpoint's `source` and `status` filters. */
  static matches(row: FeedbackRow, filter: FeedbackFilter): boolean {
    return (filter.sources?.has(row.source) ?? true) && (filter.statuses?.has(row.status) ?? true);
  }

  /** Overrides a row's status from now on (a person changed it in the dashboard). */
  setStatus(projectId: string, feedbackId: string, status: FeedbackStatus): void {
    this.statuses.set(`${projectId}\u0000${feedbackId}`, status);
  }

  protected countOf(projectId: string, day: string): number {
    return this.dayModel(this.project(projectId), day).count;
  }

  /** Row `i` of a day: newest first. */
  protected rowOf(projectId: string, dayString: string, i: number): FeedbackRow {
    const project = this.project(projectId);
    const day = this.dayModel(project, dayString);
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
    const pagePath = this.pages.path(project.entry.seed.id, rank);
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

  private dayModel(project: Project, day: string): Day {
    const cacheKey = `${project.entry.seed.id}\u0000${day}`;
    return memo(this.days, cacheKey, () => {
      const key = mix(project.key, hashString(day));
      const model = { key, start: dayStart(day), count: dailyRows(baseRows(project.entry.seed, 'feedback'), key, 0.2), tag: mix(key, 99) & 0xffffff };
      return model;
    });
  }
}
