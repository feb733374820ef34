/**
 * The rows of the questions the readers ask, typed: one decoder per question, and `ask`, which
 * asks a question of a loaded session and decodes its rows. The SQL and the registry stay in
 * queries/ (the files Athena's saved queries and `npm start` run); queries/questions.ts binds
 * each file to its decoder here (`TYPED_QUESTIONS`), so that gaps and the report read
 * `row.thumbsDown`, never `r['thumbs_down']`.
 *
 * One rule for every value: a count is a number (null: 0); a list of texts keeps its non-null
 * items as text.
 */
import type { Row } from './duckdb.js';
import type { LoadedWarehouse } from './session.js';

/** A question its readers ask of a loaded session: its SQL over the loaded tables for `params`, and the decoder of one row. */
export interface TypedQuestion<T, P> {
  readonly id: string;
  sql(tables: Readonly<Record<string, string>>, params: P): string;
  decode(row: Row): T;
}

/** The rows of `question` for `params`, decoded; asked once per session (the same SQL again gets the first answer). */
export async function ask<T, P>(warehouse: LoadedWarehouse, question: TypedQuestion<T, P>, params: P): Promise<T[]> {
  const range = params as { readonly from?: string; readonly to?: string } | undefined;
  const tables = warehouse.tablesFor === undefined ? warehouse.tables : warehouse.tablesFor(question.id, { from: range?.from, to: range?.to });
  return (await warehouse.ask(question.sql(tables, params))).map((row) => question.decode(row));
}

/** queries/daily-totals.sql: one project's day. */
export interface DailyTotalsRow {
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

/** queries/top-pages.sql: a page by views. */
export interface TopPageRow {
  readonly projectId: string;
  readonly path: string;
  readonly views: number;
  readonly human: number;
  readonly ai: number;
}

/** queries/searches-without-clicks.sql: a term nobody clicked a result of. */
export interface UnclickedSearchRow {
  readonly projectId: string;
  /** The term as searched (the first spelling). */
  readonly query: string;
  readonly hits: number;
  readonly days: number;
}

/** queries/clicked-searches.sql: a term whose results were clicked, with its searches and about how many clicks. */
export interface ClickedSearchRow {
  readonly projectId: string;
  /** The term in lower case (the API merges a day's spellings). */
  readonly term: string;
  readonly hits: number;
  /** Hits × the click-through rate, rounded. */
  readonly clicks: number;
}

/** queries/unanswered-assistant-questions.sql: a category of unanswered questions. */
export interface UnansweredCategoryRow {
  readonly projectId: string;
  /** `''` for questions the service gave no category. */
  readonly category: string;
  readonly unanswered: number;
  readonly conversations: number;
  /** The most asked questions (normalized text grouped), most asked first. */
  readonly examples: readonly string[];
  /** How often each of `examples` was asked, in the same order. */
  readonly asked: readonly number[];
}

/** queries/pages-with-negative-feedback.sql: a page with thumbs down. */
export interface ThumbsDownPageRow {
  readonly projectId: string;
  readonly path: string;
  readonly thumbsDown: number;
  readonly thumbsUp: number;
  readonly comments: readonly string[];
}

/** queries/gaps-figure-by-day.sql: a wanted gap's figure on one day. */
export interface GapFigureRow {
  readonly gapId: string;
  readonly day: string;
  readonly figure: number;
}

/** queries/gap-rates-by-day.sql: a gap's signal and exposure on one day (its rate is their quotient). */
export interface GapRateRow {
  readonly gapId: string;
  readonly day: string;
  readonly signal: number;
  readonly exposure: number;
}

export function decodeDailyTotals(r: Row): DailyTotalsRow {
  return {
    projectId: text(r['project_id']),
    day: text(r['dt']),
    human: count(r['human']),
    ai: count(r['ai']),
    visitorsTotal: count(r['visitors_total']),
    visitorRows: count(r['visitor_rows']),
    views: count(r['views']),
    searches: count(r['searches']),
    questions: count(r['questions']),
    unanswered: count(r['unanswered']),
    thumbsDown: count(r['thumbs_down']),
  };
}

export function decodeTopPage(r: Row): TopPageRow {
  return { projectId: text(r['project_id']), path: text(r['path']), views: count(r['views']), human: count(r['human']), ai: count(r['ai']) };
}

export function decodeUnclickedSearch(r: Row): UnclickedSearchRow {
  return { projectId: text(r['project_id']), query: text(r['search_query']), hits: count(r['hits']), days: count(r['days']) };
}

export function decodeClickedSearch(r: Row): ClickedSearchRow {
  return { projectId: text(r['project_id']), term: text(r['term']), hits: count(r['hits']), clicks: count(r['clicks']) };
}

export function decodeUnansweredCategory(r: Row): UnansweredCategoryRow {
  return {
    projectId: text(r['project_id']),
    category: text(r['query_category']),
    unanswered: count(r['unanswered']),
    conversations: count(r['conversations']),
    examples: strings(r['example_queries']),
    asked: numbers(r['example_counts']),
  };
}

export function decodeThumbsDownPage(r: Row): ThumbsDownPageRow {
  return {
    projectId: text(r['project_id']),
    path: text(r['path']),
    thumbsDown: count(r['thumbs_down']),
    thumbsUp: count(r['thumbs_up']),
    comments: strings(r['example_comments']),
  };
}

export function decodeGapFigure(r: Row): GapFigureRow {
  return { gapId: text(r['gap_id']), day: text(r['day']), figure: count(r['figure']) };
}

export function decodeGapRate(r: Row): GapRateRow {
  return { gapId: text(r['gap_id']), day: text(r['day']), signal: count(r['signal']), exposure: count(r['exposure']) };
}

/** A row of queries/unanswered-questions-by-day.sql: one time a question of a project went unanswered. */
export interface QuestionDayRow {
  readonly projectId: string;
  readonly day: string;
  /** The question as asked. */
  readonly text: string;
  /** When it was asked (epoch ms). */
  readonly askedAt: number;
}

export function decodeQuestionDay(r: Row): QuestionDayRow {
  return { projectId: text(r['project_id']), day: text(r['day']), text: text(r['text']), askedAt: Number(r['asked_at']) };
}

/**
 * A row of queries/answered-questions-by-day.sql: one question of a project not left unanswered,
 * with each UTC day it was asked on (days since 1970-01-01) and how often that day (the two
 * lists in step: the SQL's list of `{day, answered}`).
 */
export interface AnsweredQuestionDayRow {
  readonly projectId: string;
  /** The question's normalized text (lower case, spaces folded, no ?!. at the ends). */
  readonly question: string;
  readonly days: readonly number[];
  readonly answered: readonly number[];
}

export function decodeAnsweredQuestionDay(r: Row): AnsweredQuestionDayRow {
  const days = Array.isArray(r['days']) ? (r['days'] as Row[]) : [];
  return {
    projectId: text(r['project_id']),
    question: text(r['question']),
    days: days.map((d) => count(d['day'])),
    answered: days.map((d) => count(d['answered'])),
  };
}

function text(value: unknown): string {
  return String(value);
}

function count(value: unknown): number {
  return Number(value ?? 0);
}

/** A list's finite numbers; anything but a list: none. */
function numbers(value: unknown): number[] {
  return Array.isArray(value) ? value.map(Number).filter((n) => Number.isFinite(n)) : [];
}

/** A list's non-null items as text; anything but a list: none. */
export function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v) => v !== null && v !== undefined).map(String) : [];
}
