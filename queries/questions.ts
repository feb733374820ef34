/**
 * The questions the project asks its warehouse, once: each is a SQL file beside this module,
 * read by the Athena saved queries (infra/constructs/warehouse.ts) and by `npm start`'s summary
 * through DuckDB (scripts/start.ts), and run against a sandbox export by
 * test/integration/docs/questions.test.ts.
 *
 * A SQL file names tables and the few things the two dialects spell differently as
 * placeholders, filled in by `questionSql`:
 * - `{{<table>}}` — the Glue table (Athena); in DuckDB, `read_parquet(…)`/`read_json(…)` of the
 *   table's files with `hive_partitioning` (`dt` kept as text, as in Glue) and `union_by_name`
 *   (older files lack newer columns), or the relation a caller loaded (`DuckDbSource.tables`);
 * - `{{from:N}}` — the first `dt` of the range, inclusive: `QuestionParams.from` as a literal,
 *   else N days before today (UTC);
 * - `{{to}}` — the `dt` after the last one, exclusive: `QuestionParams.to`, else tomorrow (no bound);
 * - `{{projects}}` — a condition on `project_id`: `project_id IN (…)` of `QuestionParams.projects`,
 *   else `true` (every project);
 * - `{{limit:N}}` — the row limit: `QuestionParams.limit`, else N;
 * - `{{days_ago:N}}` — the `dt` (YYYY-MM-DD) of N days before today, UTC;
 * - `{{slice}}` — the array slice function (`slice` in Athena, `list_slice` in DuckDB);
 * - `{{every}}` — after `regexp_replace`'s replacement: every match, not the first (`, 'g'` in
 *   DuckDB; Athena replaces every match already).
 *
 * The report, `gaps` and the weekly report run the same files with a range and projects: one
 * definition of "searches nobody clicked", "searches clicked", "unanswered questions" and "pages
 * with thumbs down" (`QUESTION_IDS`), whoever asks.
 */
import { readFileSync } from 'node:fs';
import type { Row } from '../functions/warehouse/duckdb.js';
import {
  decodeClickedSearch,
  decodeDailyTotals,
  decodeGapFigure,
  decodeAnsweredQuestionDay,
  decodeGapRate,
  decodeQuestionDay,
  decodeThumbsDownPage,
  decodeTopPage,
  decodeUnansweredCategory,
  decodeUnclickedSearch,
  type TypedQuestion,
} from '../functions/warehouse/questions.js';
import { sqlString } from '../functions/warehouse/sql.js';
import type { TableDef } from '../functions/warehouse/table-def.js';
import { TABLES } from '../functions/warehouse/tables.js';

export type Dialect = 'athena' | 'duckdb';

export interface Question {
  /** Construct id of the saved query. */
  readonly id: string;
  /** The file beside this module. */
  readonly file: string;
  readonly name: string;
  readonly description: string;
  /** Saved in Athena. */
  readonly saved: boolean;
  /** Shown by `npm start` after its export. */
  readonly summary: boolean;
  /**
   * Runs in DuckDB only (DuckDB's own SQL, a temporary table its caller creates): never saved in
   * Athena nor in the summary, and `questionSql` refuses Athena's dialect for it.
   */
  readonly duckdbOnly?: boolean;
}

export const QUESTIONS: readonly Question[] = [
  {
    id: 'DailyTotals',
    file: 'daily-totals.sql',
    name: 'Daily totals per project',
    description:
      'Per project and day: human and AI visitors (and their deduplicated total), page views, searches, assistant questions, unanswered ones and thumbs down — the figures of the report headline.',
    saved: false,
    summary: false,
  },
  {
    id: 'TopPages',
    file: 'top-pages.sql',
    name: 'Most viewed pages',
    description: 'Pages with the most views over the last 30 days (views_pages.total), with their human and AI views.',
    saved: false,
    summary: false,
  },
  {
    id: 'TopPagesYesterday',
    file: 'top-pages-yesterday.sql',
    name: "Yesterday's top pages",
    description: 'The 50 most visited pages of yesterday (UTC), per project.',
    saved: true,
    summary: false,
  },
  {
    id: 'HumanVsAiTrend',
    file: 'human-vs-ai-visitors.sql',
    name: 'Human vs AI visitors, last 30 days',
    description: 'Daily site totals split into human and AI traffic (total is deduplicated, not human + ai).',
    saved: true,
    summary: true,
  },
  {
    id: 'HumanVsAiViews',
    file: 'human-vs-ai-views.sql',
    name: 'Human vs AI page views, last 30 days',
    description: 'Daily page views split into human and AI traffic.',
    saved: false,
    summary: true,
  },
  {
    id: 'FollowUpOutcomesByStatus',
    file: 'follow-up-outcomes-by-status.sql',
    name: 'Follow-up outcomes by status',
    description: 'Follow-up prompts of the last 30 days by final status, with how many opened a PR.',
    saved: true,
    summary: false,
  },
  {
    id: 'SearchesWithoutClicks',
    file: 'searches-without-clicks.sql',
    name: 'Searches nobody clicked',
    description:
      'Search terms of the last 14 days (case-insensitively) whose results were never clicked on any day — no day has a top clicked page — ranked by searches: content to write or pages to make findable.',
    saved: true,
    summary: true,
  },
  {
    id: 'ClickedSearches',
    file: 'clicked-searches.sql',
    name: 'Searches with a clicked result',
    description:
      'Search terms of the last 14 days (case-insensitively) whose results were clicked on some day, with their searches and about how many clicks (hits × click-through rate): what the report calls "no longer clicked" when they are unclicked now.',
    saved: false,
    summary: false,
  },
  {
    id: 'UnansweredAssistantQuestions',
    file: 'unanswered-assistant-questions.sql',
    name: 'Unanswered assistant questions by category',
    description:
      'Assistant questions of the last 30 days the assistant could not answer, by project and query category, with the three latest example questions: the gaps in the docs users hit.',
    saved: true,
    summary: true,
  },
  {
    id: 'PagesWithNegativeFeedback',
    file: 'pages-with-negative-feedback.sql',
    name: 'Pages with the most negative feedback',
    description:
      'Pages with the most thumbs down (helpful = false) over the last 30 days, counted from every feedback item (feedback_by_page keeps at most 100 pages a day), with thumbs up, the share of thumbs down and the three latest comments.',
    saved: true,
    summary: true,
  },
  {
    id: 'OpenFeedbackBySource',
    file: 'open-feedback-by-source.sql',
    name: 'Open feedback by source',
    description: 'Feedback items still pending or in progress, by source, with how many carry a comment or say not helpful.',
    saved: false,
    summary: true,
  },
  {
    id: 'AssistantCallers',
    file: 'assistant-callers.sql',
    name: 'Who asks the assistant',
    description: 'Assistant conversations of the last 30 days by caller: the docs site, the API, other.',
    saved: false,
    summary: true,
  },
  {
    id: 'LastExportRuns',
    file: 'last-export-runs.sql',
    name: 'Last 14 runs',
    description:
      'The 14 latest export runs of the last 30 days (hourly Lambda, manual invoke or CLI), newest first: what each completed, left partial, failed or did not reach, the requests it spent, the 429s it met, its wait for budget, the requests still to do and why units failed.',
    saved: true,
    summary: false,
  },
  {
    id: 'GapFigureByDay',
    file: 'gaps-figure-by-day.sql',
    name: "A gap's figure per day",
    description:
      'The figure of each gap of the temporary table wanted_gaps (gap_id, kind, project_id, key) per UTC day, as the gap questions count it: the before and after of a fix (gaps/effect.ts).',
    saved: false,
    summary: false,
    duckdbOnly: true,
  },
  {
    id: 'GapRatesByDay',
    file: 'gap-rates-by-day.sql',
    name: "A gap's rate per day",
    description:
      'The signal and exposure of each gap of the temporary table rate_gaps (gap_id, kind, project_id, key) per UTC day: thumbs down ÷ human views of the page, unclicked ÷ all searches of the term, unanswered ÷ asked in the category — what a fix is judged by (gaps/effect.ts).',
    saved: false,
    summary: false,
    duckdbOnly: true,
  },
  {
    id: 'AnsweredQuestionsByDay',
    file: 'answered-questions-by-day.sql',
    name: 'Assistant questions answered per day',
    description:
      "Every assistant question not left unanswered (the same text but for case and spaces) per project and UTC day, with how often it was asked: with the unanswered ones (gaps/bank.ts), an unanswered topic's exposure per day, what a fix is judged by (gaps/effect.ts).",
    saved: false,
    summary: false,
    duckdbOnly: true,
  },
  {
    id: 'UnansweredQuestionsByDay',
    file: 'unanswered-questions-by-day.sql',
    name: 'Unanswered assistant questions per day',
    description:
      "Each time an assistant question went unanswered (its project, UTC day, text and time), streamed: what gaps folds into questions per day (gaps/bank.ts), groups into topics by their words (gaps/topics.ts) and counts as a topic's figure per day.",
    saved: false,
    summary: false,
    duckdbOnly: true,
  },
];

/** The ids of the questions the report, `gaps` and the weekly report share (and the DuckDB-only one `gaps` asks). */
export const QUESTION_IDS = {
  dailyTotals: 'DailyTotals',
  topPages: 'TopPages',
  searchesWithoutClicks: 'SearchesWithoutClicks',
  clickedSearches: 'ClickedSearches',
  unansweredQuestions: 'UnansweredAssistantQuestions',
  thumbsDownPages: 'PagesWithNegativeFeedback',
  gapFigureByDay: 'GapFigureByDay',
  gapRatesByDay: 'GapRatesByDay',
  answeredQuestionsByDay: 'AnsweredQuestionsByDay',
  unansweredQuestionsByDay: 'UnansweredQuestionsByDay',
} as const;

/** A question of `QUESTION_IDS` with the decoder of its rows (functions/warehouse/questions.ts), asked of a loaded session in DuckDB. */
function typed<T>(id: string, decode: (row: Row) => T): TypedQuestion<T, QuestionParams> {
  return { id, sql: (tables, params) => questionSql(questionById(id), 'duckdb', { tables }, params), decode };
}

/** The questions the report and `gaps` ask, typed: `ask(warehouse, TYPED_QUESTIONS.topPages, params)` gives `TopPageRow`s. */
export const TYPED_QUESTIONS = {
  dailyTotals: typed(QUESTION_IDS.dailyTotals, decodeDailyTotals),
  topPages: typed(QUESTION_IDS.topPages, decodeTopPage),
  searchesWithoutClicks: typed(QUESTION_IDS.searchesWithoutClicks, decodeUnclickedSearch),
  clickedSearches: typed(QUESTION_IDS.clickedSearches, decodeClickedSearch),
  unansweredQuestions: typed(QUESTION_IDS.unansweredQuestions, decodeUnansweredCategory),
  thumbsDownPages: typed(QUESTION_IDS.thumbsDownPages, decodeThumbsDownPage),
  gapFigureByDay: typed(QUESTION_IDS.gapFigureByDay, decodeGapFigure),
  gapRatesByDay: typed(QUESTION_IDS.gapRatesByDay, decodeGapRate),
  answeredQuestionsByDay: typed(QUESTION_IDS.answeredQuestionsByDay, decodeAnsweredQuestionDay),
  unansweredQuestionsByDay: typed(QUESTION_IDS.unansweredQuestionsByDay, decodeQuestionDay),
} as const;

/** The question of `id`; throws for an id no file has. */
export function questionById(id: string): Question {
  const found = QUESTIONS.find((q) => q.id === id);
  if (found === undefined) throw new Error(`no question ${id} in queries/`);
  return found;
}

/**
 * Where a question's tables are read from in DuckDB: `root`, the local destination's folder
 * (every file of each table, by glob), or `tables`, a relation per table name a caller has
 * loaded (the report loads explicit file lists: see functions/warehouse/duckdb.ts).
 */
export type DuckDbSource = { readonly root: string } | { readonly tables: Readonly<Record<string, string>> };

/** The range and projects a question is asked for; each absent one keeps the file's default. */
export interface QuestionParams {
  /** First day, `YYYY-MM-DD`, inclusive. */
  readonly from?: string;
  /** Day after the last one, `YYYY-MM-DD`, exclusive. */
  readonly to?: string;
  /** Only these projects (validated ids); empty or absent: every project. */
  readonly projects?: readonly string[];
  /** At most this many rows. */
  readonly limit?: number;
  /**
   * The day "N days ago" counts back from, `YYYY-MM-DD`: a run's own clock (the docs' samples, a
   * report of a past week). Absent: the engine's `current_date` (the saved queries of Athena).
   */
  readonly today?: string;
}

/** The tables a question reads, by name. */
export function tablesOf(question: Question): TableDef[] {
  const sql = rawSql(question);
  return TABLES.filter((table) => sql.includes(`{{${table.name}}}`));
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const PROJECT = /^[A-Za-z0-9_-]{1,128}$/;

/** The SQL of `question` in `dialect`, for `params`; DuckDB reads the tables from `source`. */
export function questionSql(question: Question, dialect: Dialect, source?: DuckDbSource, params: QuestionParams = {}): string {
  if (question.duckdbOnly && dialect !== 'duckdb') throw new Error(`${question.file} runs in DuckDB only: it has no ${dialect} SQL`);
  for (const day of [params.from, params.to, params.today]) {
    if (day !== undefined && !DAY.test(day)) throw new Error(`${question.file}: "${day}" is not a YYYY-MM-DD day`);
  }
  for (const project of params.projects ?? []) {
    if (!PROJECT.test(project)) throw new Error(`${question.file}: "${project}" is not a project id`);
  }
  if (params.limit !== undefined && !(Number.isInteger(params.limit) && params.limit > 0)) throw new Error(`${question.file}: limit ${params.limit}`);
  const daysAgo = (n: string) => {
    const day = `${params.today !== undefined ? `DATE ${sqlString(params.today)}` : 'current_date'} - interval '${n}' day`;
    return dialect === 'athena' ? `date_format(${day}, '%Y-%m-%d')` : `strftime(${day}, '%Y-%m-%d')`;
  };
  return rawSql(question).replace(/\{\{([a-z_]+)(?::(-?\d+))?\}\}/g, (placeholder, name: string, arg: string | undefined) => {
    if (name === 'days_ago' && arg !== undefined) return daysAgo(arg);
    if (name === 'from') return params.from !== undefined ? sqlString(params.from) : daysAgo(arg ?? '30');
    if (name === 'to') return params.to !== undefined ? sqlString(params.to) : daysAgo('-1');
    if (name === 'projects') {
      const projects = params.projects ?? [];
      return projects.length === 0 ? 'true' : `project_id IN (${projects.map(sqlString).join(', ')})`;
    }
    if (name === 'limit') return String(params.limit ?? Number(arg ?? '100'));
    if (name === 'slice') return dialect === 'athena' ? 'slice' : 'list_slice';
    if (name === 'every') return dialect === 'athena' ? '' : ", 'g'";
    const table = TABLES.find((def) => def.name === name);
    if (table === undefined) throw new Error(`${question.file}: unknown placeholder ${placeholder}`);
    if (dialect === 'athena') return table.name;
    if (source === undefined) throw new Error(`${question.file}: DuckDB needs the folder the tables are in`);
    if ('tables' in source) {
      const relation = source.tables[table.name];
      if (relation === undefined) throw new Error(`${question.file}: table ${table.name} was not loaded`);
      return relation;
    }
    const glob = sqlString(`${source.root.replace(/\/+$/, '')}/${table.prefix}/*/*.${table.format === 'json' ? 'json' : 'parquet'}`);
    return table.format === 'json'
      ? `read_json(${glob}, hive_partitioning = true, hive_types_autocast = false, union_by_name = true, format = 'newline_delimited')`
      : `read_parquet(${glob}, hive_partitioning = true, hive_types_autocast = false, union_by_name = true)`;
  });
}

function rawSql(question: Question): string {
  return readFileSync(new URL(`./${question.file}`, import.meta.url), 'utf8').trim();
}
