/**
 * The questions the project asks its warehouse, once: each is a SQL file beside this module,
 * read by the Athena saved queries (infra/constructs/warehouse.ts) and by `npm start`'s summary
 * through DuckDB (scripts/start.ts), and run against a sandbox export by
 * test/integration/questions.test.ts.
 *
 * A SQL file names tables and the few things the two dialects spell differently as
 * placeholders, filled in by `questionSql`:
 * - `{{<table>}}` — the Glue table (Athena), or `read_parquet(…)`/`read_json(…)` of the table's
 *   files with `hive_partitioning` (`dt` kept as text, as in Glue) and `union_by_name` (older
 *   files lack newer columns) in DuckDB;
 * - `{{days_ago:N}}` — the `dt` (YYYY-MM-DD) of N days before today, UTC;
 * - `{{slice}}` — the array slice function (`slice` in Athena, `list_slice` in DuckDB).
 */
import { readFileSync } from 'node:fs';
import { TABLES, type TableDef } from '../functions/shared/tables.js';

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
}

export const QUESTIONS: readonly Question[] = [
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
    name: 'Searches with many hits and no clicks',
    description:
      'Search terms of the last 14 days that people searched often on days when no result was clicked (ctr = 0 or no top clicked page): content to write or pages to make findable. ctr is stored as the API sends it (0-1 or 0-100).',
    saved: true,
    summary: true,
  },
  {
    id: 'UnansweredAssistantQuestions',
    file: 'unanswered-assistant-questions.sql',
    name: 'Unanswered assistant questions by category',
    description:
      'Assistant questions of the last 30 days the assistant could not answer, by query category, with a few example questions: the gaps in the docs users hit.',
    saved: true,
    summary: true,
  },
  {
    id: 'PagesWithNegativeFeedback',
    file: 'pages-with-negative-feedback.sql',
    name: 'Pages with the most negative feedback',
    description:
      'Pages with the most not-helpful feedback over the last 30 days, counted from every feedback item (feedback_by_page keeps at most 100 pages a day), with the share of not-helpful votes and a few of their comments.',
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
];

/** Where a question's tables are read from in DuckDB: the local destination's root folder. */
export interface DuckDbSource {
  readonly root: string;
}

/** The tables a question reads, by name. */
export function tablesOf(question: Question): TableDef[] {
  const sql = rawSql(question);
  return TABLES.filter((table) => sql.includes(`{{${table.name}}}`));
}

/** The SQL of `question` in `dialect`; DuckDB reads the files under `source.root`. */
export function questionSql(question: Question, dialect: Dialect, source?: DuckDbSource): string {
  return rawSql(question).replace(/\{\{([a-z_]+)(?::(\d+))?\}\}/g, (placeholder, name: string, arg: string | undefined) => {
    if (name === 'days_ago' && arg !== undefined) {
      const day = `current_date - interval '${arg}' day`;
      return dialect === 'athena' ? `date_format(${day}, '%Y-%m-%d')` : `strftime(${day}, '%Y-%m-%d')`;
    }
    if (name === 'slice') return dialect === 'athena' ? 'slice' : 'list_slice';
    const table = TABLES.find((def) => def.name === name);
    if (table === undefined) throw new Error(`${question.file}: unknown placeholder ${placeholder}`);
    if (dialect === 'athena') return table.name;
    if (source === undefined) throw new Error(`${question.file}: DuckDB needs the folder the tables are in`);
    const glob = sqlString(`${source.root.replace(/\/+$/, '')}/${table.prefix}/*/*.${table.format === 'json' ? 'json' : 'parquet'}`);
    return table.format === 'json'
      ? `read_json(${glob}, hive_partitioning = true, hive_types_autocast = false, union_by_name = true, format = 'newline_delimited')`
      : `read_parquet(${glob}, hive_partitioning = true, hive_types_autocast = false, union_by_name = true)`;
  });
}

function rawSql(question: Question): string {
  return readFileSync(new URL(`./${question.file}`, import.meta.url), 'utf8').trim();
}

function sqlString(value: string): string {
  return `'${value.replace(/'/g, "''")}'`;
}
