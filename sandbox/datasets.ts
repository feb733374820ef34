/**
 * Every dataset's seeded data behind one object: the server answers from it, and tests and
 * benchmarks read the expected rows of a (dataset, project, day) from it without HTTP.
 */
import type { PageVisitors, VisitorCounts } from '../functions/shared/api-types.js';
import type { DatasetName } from '../functions/shared/catalog.js';
import { parseDay } from '../functions/shared/dates.js';
import { AssistantData, type CallerStats, type ConversationTurn } from './data-assistant.js';
import { FeedbackData, type FeedbackByPageRow, type FeedbackRow, type FeedbackStatus } from './data-feedback.js';
import { SearchData, type SearchRow } from './data-searches.js';
import { DEFAULT_PROJECTS, ProjectRegistry, VisitorData, type ProjectSeed } from './data.js';
import { buildFeedbackByPage } from './feedback-by-page.js';
import { VIEWS_DATA_OPTIONS } from './views.js';

/** The most rows `/feedback/by-page` can ever serve for a window. */
export const FEEDBACK_BY_PAGE_MAX = 100;

/** One row of each dataset, as the API sends it. */
export interface DatasetRowTypes {
  readonly visitors: PageVisitors;
  readonly views: PageVisitors;
  readonly searches: SearchRow;
  readonly feedback: FeedbackRow;
  readonly feedback_by_page: FeedbackByPageRow;
  readonly assistant: ConversationTurn;
  readonly caller_stats: CallerStats;
}

/** Everything a correct export of one (dataset, project, day) holds. */
export interface DatasetDayTypes {
  readonly visitors: { readonly totals: VisitorCounts; readonly rows: PageVisitors[] };
  readonly views: { readonly totals: VisitorCounts; readonly rows: PageVisitors[] };
  readonly searches: { readonly totalSearches: number; readonly rows: SearchRow[] };
  readonly feedback: { readonly rows: FeedbackRow[] };
  /**
   * `rows`: what the API serves with `limit=100`, the most it can; `hasMore`: whether pages
   * were left out; `pages`: how many pages had feedback in all.
   */
  readonly feedback_by_page: { readonly rows: FeedbackByPageRow[]; readonly hasMore: boolean; readonly pages: number };
  readonly assistant: { readonly rows: ConversationTurn[] };
  /** One row: the day's caller stats. */
  readonly caller_stats: { readonly rows: CallerStats[] };
}

/**
 * The expected data of the sandbox, computed exactly as the endpoints compute it (same seed,
 * same projects, same feedback status changes). Every method takes a `day` (`YYYY-MM-DD`)
 * and describes the one-day window `[day, day+1)` with no filter, rows in API order (the
 * order of walking every page). Unknown projects throw a RangeError, bad days a ConfigError.
 */
export interface SandboxData {
  /** Whether the project exists (a configured one or `proj_synth_<N>`). */
  hasProject(projectId: string): boolean;
  /** Rows of the day (feedback_by_page: at most 100; caller_stats: 1), without building them. */
  rowCount(dataset: DatasetName, projectId: string, day: string): number;
  /** The day's rows one at a time, generated lazily: for synthetic projects of any size. */
  iterateRows<D extends DatasetName>(dataset: D, projectId: string, day: string): Generator<DatasetRowTypes[D]>;
  /** The day's rows as an array. */
  rows<D extends DatasetName>(dataset: D, projectId: string, day: string): DatasetRowTypes[D][];
  /** The day's rows with the dataset's totals (visitors, views, searches) or flags (feedback_by_page). */
  day<D extends DatasetName>(dataset: D, projectId: string, day: string): DatasetDayTypes[D];
}

/** Options of `createSandboxData`, the same as the sandbox's. */
export interface SandboxDataOptions {
  /** Default 42. */
  readonly seed?: number;
  /** Default `DEFAULT_PROJECTS`; `proj_synth_<N>` always exists as well. */
  readonly projects?: readonly ProjectSeed[];
}

/** The generators of every dataset, for the server, and the public `SandboxData`. */
export class Datasets implements SandboxData {
  readonly seed: number;
  readonly registry: ProjectRegistry;
  readonly visitors: VisitorData;
  readonly views: VisitorData;
  readonly searches: SearchData;
  readonly feedback: FeedbackData;
  readonly assistant: AssistantData;

  constructor(options: SandboxDataOptions = {}) {
    this.seed = options.seed ?? 42;
    const projects = options.projects ?? DEFAULT_PROJECTS;
    this.visitors = new VisitorData(this.seed, projects);
    this.views = new VisitorData(this.seed, projects, VIEWS_DATA_OPTIONS);
    this.registry = new ProjectRegistry(this.seed, projects);
    this.searches = new SearchData(this.registry, this.views);
    this.feedback = new FeedbackData(this.registry, this.views);
    this.assistant = new AssistantData(this.registry, this.views);
  }

  hasProject(projectId: string): boolean {
    return this.registry.has(projectId);
  }

  /** Overrides a feedback row's status, as a person changing it in the dashboard would. */
  setFeedbackStatus(projectId: string, feedbackId: string, status: FeedbackStatus): void {
    this.feedback.setStatus(projectId, feedbackId, status);
  }

  rowCount(dataset: DatasetName, projectId: string, day: string): number {
    const days = this.window(projectId, day);
    switch (dataset) {
      case 'visitors':
        return this.visitors.rowCount(projectId, days);
      case 'views':
        return this.views.rowCount(projectId, days);
      case 'searches':
        return this.searches.rowCount(projectId, days);
      case 'feedback':
        return this.feedback.rowCount(projectId, days);
      case 'feedback_by_page':
        return Math.min(FEEDBACK_BY_PAGE_MAX, this.feedback.byPage(projectId, days).length);
      case 'assistant':
        return this.assistant.rowCount(projectId, days);
      case 'caller_stats':
        return 1;
    }
  }

  *iterateRows<D extends DatasetName>(dataset: D, projectId: string, day: string): Generator<DatasetRowTypes[D]> {
    const days = this.window(projectId, day);
    const count = this.rowCount(dataset, projectId, day);
    const row = this.rowAt(dataset, projectId, days);
    for (let i = 0; i < count; i++) yield row(i) as DatasetRowTypes[D];
  }

  rows<D extends DatasetName>(dataset: D, projectId: string, day: string): DatasetRowTypes[D][] {
    return [...this.iterateRows(dataset, projectId, day)];
  }

  day<D extends DatasetName>(dataset: D, projectId: string, day: string): DatasetDayTypes[D] {
    const days = this.window(projectId, day);
    const result = ((): DatasetDayTypes[DatasetName] => {
      switch (dataset) {
        case 'visitors':
          return { totals: this.visitors.totals(projectId, days), rows: this.rows('visitors', projectId, day) };
        case 'views':
          return { totals: this.views.totals(projectId, days), rows: this.rows('views', projectId, day) };
        case 'searches':
          return { totalSearches: this.searches.totalSearches(projectId, days), rows: this.rows('searches', projectId, day) };
        case 'feedback_by_page': {
          const served = buildFeedbackByPage(this.feedback, projectId, days, FEEDBACK_BY_PAGE_MAX);
          return { rows: served.feedback, hasMore: served.hasMore, pages: this.feedback.byPage(projectId, days).length };
        }
        default:
          return { rows: this.rows(dataset, projectId, day) } as DatasetDayTypes[DatasetName];
      }
    })();
    return result as DatasetDayTypes[D];
  }

  private rowAt(dataset: DatasetName, projectId: string, days: readonly string[]): (index: number) => unknown {
    switch (dataset) {
      case 'visitors':
        return (i) => this.visitors.row(projectId, days, i);
      case 'views':
        return (i) => this.views.row(projectId, days, i);
      case 'searches':
        return (i) => this.searches.row(projectId, days, i);
      case 'feedback':
        return (i) => this.feedback.row(projectId, days, i);
      case 'feedback_by_page': {
        const pages = this.feedback.byPage(projectId, days);
        return (i) => pages[i];
      }
      case 'assistant':
        return (i) => this.assistant.row(projectId, days, i);
      case 'caller_stats':
        return () => this.assistant.callerStats(projectId, days);
    }
  }

  private window(projectId: string, day: string): readonly string[] {
    if (!this.registry.has(projectId)) throw new RangeError(`unknown sandbox project "${projectId}"`);
    return [parseDay(day, 'day')];
  }
}

/**
 * The sandbox's data without a server (e.g. for a benchmark's expected rows): the same
 * values a sandbox started with the same `seed` and `projects` serves.
 */
export function createSandboxData(options: SandboxDataOptions = {}): SandboxData {
  return new Datasets(options);
}
