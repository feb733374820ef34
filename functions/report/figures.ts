/**
 * Every number of the report, as data: the page (page.ts), the weekly report's digest and
 * `gaps` read the same figures. Each is the answer of a question of queries/ — the files
 * Athena's saved queries and `npm start` run — asked for the period and the one before it, over
 * the tables warehouse.ts loads; the export's health comes from health.ts. Nothing here renders.
 *
 * Definitions (docs/report.md says the same to readers; each figure's own is in DEFINITIONS):
 * - visitors are the API's site totals per day (`visitors_totals`), summed over the days and
 *   projects — never pages summed, which would count a visitor once per page read;
 * - the previous period is as long as the period and ends where it starts.
 */
import { QUESTION_IDS, questionById, questionSql, type QuestionParams } from '../../queries/questions.js';
import type { Row } from '../warehouse/duckdb.js';
import { readHealth, readRequests, type HealthCell, type RequestsDay } from './health.js';
import { moversOf, type Movers, type Ranked } from './movers.js';
import { daysFrom, previousPeriod, type Period } from '../warehouse/period.js';
import { discoverProjects, loadWarehouse, type LoadedWarehouse } from '../warehouse/session.js';

export { describeDrift, type HealthCell, type HealthState, type RequestsDay } from './health.js';
export { daysFrom, previousPeriod, type Period } from '../warehouse/period.js';

/** Rows shown in each ranking. */
export const LIMITS = { pages: 15, searches: 20, categories: 12, examples: 3, thumbsDown: 10 } as const;

/** Rows each ranking is asked for, so that what moved is known beyond what is shown. */
const RANKED_ROWS = 500;

export interface Headline {
  readonly human: number;
  readonly ai: number;
  /** AI ÷ (human + AI); null when there were no visitors. */
  readonly aiShare: number | null;
  readonly views: number;
  readonly searches: number;
  readonly questions: number;
  readonly unanswered: number;
  /** Unanswered ÷ questions; null when there were no questions. */
  readonly unansweredShare: number | null;
  readonly thumbsDown: number;
  /** Days with a `visitors_totals` row. */
  readonly daysWithData: number;
}

/** Whether a headline has any data at all. */
export function hasData(headline: Headline): boolean {
  return headline.daysWithData > 0 || headline.views + headline.searches + headline.questions + headline.thumbsDown > 0;
}

export interface TopPage {
  readonly projectId: string;
  readonly path: string;
  /** `views_pages.total`: the API's own total of the page's views. */
  readonly views: number;
  readonly human: number;
  readonly ai: number;
  readonly aiShare: number | null;
  /** Views in the previous period; null when the previous period has no data. */
  readonly previous: number | null;
}

export interface UnclickedSearch {
  readonly projectId: string;
  readonly query: string;
  readonly hits: number;
  readonly days: number;
  readonly previous: number | null;
}

export interface UnansweredCategory {
  readonly projectId: string;
  /** `''` for questions the service gave no category. */
  readonly category: string;
  readonly questions: number;
  /** The most recent distinct questions of the category. */
  readonly examples: readonly string[];
  readonly previous: number | null;
}

export interface ThumbsDownPage {
  readonly projectId: string;
  readonly path: string;
  readonly thumbsDown: number;
  readonly thumbsUp: number;
  /** Thumbs down ÷ (down + up). */
  readonly rate: number | null;
  /** The latest comments given with a thumbs down. */
  readonly comments: readonly string[];
  readonly previous: number | null;
}

export interface DayVisitors {
  readonly day: string;
  readonly human: number | null;
  readonly ai: number | null;
}

export interface Figures {
  readonly period: Period;
  readonly previous: Period;
  readonly projects: readonly string[];
  readonly headline: { readonly current: Headline; readonly previous: Headline };
  readonly byProject: readonly {
    readonly projectId: string;
    readonly current: Headline;
    readonly previous: Headline;
    /** Visitors' own `total`, deduplicated across human and AI: can be less than human + AI. */
    readonly visitorsTotal: number;
  }[];
  /** One entry per day of the period; null where the day has no visitors data. */
  readonly visitorsPerDay: readonly DayVisitors[];
  /** The same for the previous period, day i beside day i of the period. */
  readonly previousVisitorsPerDay: readonly DayVisitors[];
  readonly topPages: readonly TopPage[];
  readonly unclickedSearches: readonly UnclickedSearch[];
  readonly unansweredByCategory: readonly UnansweredCategory[];
  readonly thumbsDownPages: readonly ThumbsDownPage[];
  /** What moved against the previous period, per ranking. */
  readonly movers: { readonly pages: Movers; readonly searches: Movers; readonly categories: Movers; readonly thumbsDown: Movers };
  readonly health: readonly HealthCell[];
  /** One entry per day from the period's first to `runsTo` (zeros where no run started). */
  readonly requestsPerDay: readonly RequestsDay[];
}

export interface FigureScope {
  readonly period: Period;
  /** Projects to report; empty: every project found in the period. */
  readonly projects: readonly string[];
  /**
   * Day after the last day of the run log to read. @default period.to. The runs that export
   * a period's last days start after it ends: the CLI reads the log up to the day it runs.
   */
  readonly runsTo?: string;
  /** Told one line per file left out (not readable as Parquet). */
  readonly onWarning?: (line: string) => void;
}

/** Reads every figure of the report from the warehouse under `root`. */
export async function readFigures(root: string, scope: FigureScope): Promise<Figures> {
  const { period } = scope;
  const previous = previousPeriod(period);
  const projects = scope.projects.length > 0 ? [...scope.projects] : await discoverProjects(root, period.days);
  const warehouse = await loadWarehouse(root, {
    days: [...previous.days, ...period.days],
    projects,
    ...(scope.onWarning ? { onWarning: scope.onWarning } : {}),
  });
  try {
    const ask = asker(warehouse, projects);
    const now = { from: period.from, to: period.to };
    const before = { from: previous.from, to: previous.to };
    const [daily, pages, pagesBefore, searches, searchesBefore, categories, categoriesBefore, thumbs, thumbsBefore, health, requests] = await Promise.all([
      ask(QUESTION_IDS.dailyTotals, { from: previous.from, to: period.to }),
      ask(QUESTION_IDS.topPages, now),
      ask(QUESTION_IDS.topPages, before),
      ask(QUESTION_IDS.searchesWithoutClicks, now),
      ask(QUESTION_IDS.searchesWithoutClicks, before),
      ask(QUESTION_IDS.unansweredQuestions, now),
      ask(QUESTION_IDS.unansweredQuestions, before),
      ask(QUESTION_IDS.thumbsDownPages, now),
      ask(QUESTION_IDS.thumbsDownPages, before),
      readHealth(root, period, projects),
      readRequests(root, daysFrom(period.from, scope.runsTo ?? period.to)),
    ]);

    const totals = daily.map(dailyRow);
    const inPeriod = (p: Period) => totals.filter((r) => r.day >= p.from && r.day < p.to);
    const current = headline(inPeriod(period));
    const earlier = headline(inPeriod(previous));
    const known = hasData(earlier);

    const ranked = {
      pages: [rankOf(pages, 'path', 'path', 'views'), rankOf(pagesBefore, 'path', 'path', 'views')],
      searches: [rankOf(searches, 'search_query', 'search_query', 'hits', true), rankOf(searchesBefore, 'search_query', 'search_query', 'hits', true)],
      categories: [
        rankOf(categories, 'query_category', 'query_category', 'unanswered'),
        rankOf(categoriesBefore, 'query_category', 'query_category', 'unanswered'),
      ],
      thumbsDown: [rankOf(thumbs, 'path', 'path', 'thumbs_down'), rankOf(thumbsBefore, 'path', 'path', 'thumbs_down')],
    } as const;
    const previousOf = (kind: keyof typeof ranked, projectId: string, key: string): number | null =>
      known ? (ranked[kind][1].find((r) => r.projectId === projectId && r.key === key)?.value ?? 0) : null;

    return {
      period,
      previous,
      projects,
      headline: { current, previous: earlier },
      byProject: projects.map((projectId) => {
        const mine = (p: Period) => inPeriod(p).filter((r) => r.projectId === projectId);
        return {
          projectId,
          current: headline(mine(period)),
          previous: headline(mine(previous)),
          visitorsTotal: mine(period).reduce((sum, r) => sum + r.visitorsTotal, 0),
        };
      }),
      visitorsPerDay: visitorsPerDay(totals, period),
      previousVisitorsPerDay: visitorsPerDay(totals, previous),
      topPages: pages.slice(0, LIMITS.pages).map((r) => {
        const human = num(r['human']);
        const ai = num(r['ai']);
        const path = String(r['path']);
        const projectId = String(r['project_id']);
        return { projectId, path, views: num(r['views']), human, ai, aiShare: share(ai, human + ai), previous: previousOf('pages', projectId, path) };
      }),
      unclickedSearches: searches.slice(0, LIMITS.searches).map((r) => {
        const projectId = String(r['project_id']);
        const query = String(r['search_query']);
        return { projectId, query, hits: num(r['hits']), days: num(r['days']), previous: previousOf('searches', projectId, query.toLowerCase()) };
      }),
      unansweredByCategory: categories.slice(0, LIMITS.categories).map((r) => {
        const projectId = String(r['project_id']);
        const category = String(r['query_category']);
        return {
          projectId,
          category,
          questions: num(r['unanswered']),
          examples: strings(r['example_queries']),
          previous: previousOf('categories', projectId, category),
        };
      }),
      thumbsDownPages: thumbs.slice(0, LIMITS.thumbsDown).map((r) => {
        const projectId = String(r['project_id']);
        const path = String(r['path']);
        const down = num(r['thumbs_down']);
        const up = num(r['thumbs_up']);
        return {
          projectId,
          path,
          thumbsDown: down,
          thumbsUp: up,
          rate: share(down, down + up),
          comments: strings(r['example_comments']),
          previous: previousOf('thumbsDown', projectId, path),
        };
      }),
      movers: {
        pages: moversOf(...ranked.pages, RANKED_ROWS),
        searches: moversOf(...ranked.searches, RANKED_ROWS),
        categories: moversOf(...ranked.categories, RANKED_ROWS),
        thumbsDown: moversOf(...ranked.thumbsDown, RANKED_ROWS),
      },
      health,
      requestsPerDay: requests,
    };
  } finally {
    warehouse.close();
  }
}

/** Asks a question of queries/ over the loaded tables, for the report's projects. */
function asker(warehouse: LoadedWarehouse, projects: readonly string[]) {
  return (id: string, range: { from: string; to: string }): Promise<Row[]> => {
    const params: QuestionParams = { ...range, projects, ...(id === QUESTION_IDS.dailyTotals ? {} : { limit: RANKED_ROWS }) };
    return warehouse.session.query(questionSql(questionById(id), 'duckdb', { tables: warehouse.tables }, params));
  };
}

interface DailyRow {
  readonly projectId: string;
  readonly day: string;
  readonly human: number;
  readonly ai: number;
  readonly visitorsTotal: number;
  readonly visitorRows: number;
  readonly views: number;
  readonly searches: number;
  readonly questions: number;
  readonly unanswered: number;
  readonly thumbsDown: number;
}

function dailyRow(r: Row): DailyRow {
  return {
    projectId: String(r['project_id']),
    day: String(r['dt']),
    human: num(r['human']),
    ai: num(r['ai']),
    visitorsTotal: num(r['visitors_total']),
    visitorRows: num(r['visitor_rows']),
    views: num(r['views']),
    searches: num(r['searches']),
    questions: num(r['questions']),
    unanswered: num(r['unanswered']),
    thumbsDown: num(r['thumbs_down']),
  };
}

/** Sums of `rows` (days × projects). */
function headline(rows: readonly DailyRow[]): Headline {
  const sum = (field: Exclude<keyof DailyRow, 'projectId' | 'day'>) => rows.reduce((total, r) => total + r[field], 0);
  const human = sum('human');
  const ai = sum('ai');
  const questions = sum('questions');
  const unanswered = sum('unanswered');
  return {
    human,
    ai,
    aiShare: share(ai, human + ai),
    views: sum('views'),
    searches: sum('searches'),
    questions,
    unanswered,
    unansweredShare: share(unanswered, questions),
    thumbsDown: sum('thumbsDown'),
    daysWithData: new Set(rows.filter((r) => r.visitorRows > 0).map((r) => r.day)).size,
  };
}

function visitorsPerDay(rows: readonly DailyRow[], period: Period): DayVisitors[] {
  return period.days.map((day) => {
    const ofDay = rows.filter((r) => r.day === day && r.visitorRows > 0);
    if (ofDay.length === 0) return { day, human: null, ai: null };
    return { day, human: ofDay.reduce((s, r) => s + r.human, 0), ai: ofDay.reduce((s, r) => s + r.ai, 0) };
  });
}

function rankOf(rows: readonly Row[], keyColumn: string, labelColumn: string, valueColumn: string, lower = false): Ranked[] {
  return rows.map((r) => {
    const key = String(r[keyColumn]);
    return { projectId: String(r['project_id']), key: lower ? key.toLowerCase() : key, label: String(r[labelColumn]), value: num(r[valueColumn]) };
  });
}

function num(value: unknown): number {
  return Number(value ?? 0);
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v) => v !== null && v !== undefined).map(String) : [];
}

function share(part: number, whole: number): number | null {
  return whole === 0 ? null : part / whole;
}
