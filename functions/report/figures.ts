/**
 * Every number of the report, read from a warehouse laid out in a local folder (see lake.ts):
 * DuckDB over the Parquet files of the days asked for, the run log `export_runs`, and the units'
 * states as `status` reads them (`readUnitStates`). Nothing here renders; html.ts does.
 *
 * Definitions (docs/report.md says the same to readers):
 * - visitors are the API's site totals per day (`visitors_totals`), summed over the days and
 *   projects — never pages summed, which would count a visitor once per page read;
 * - AI share = AI ÷ (human + AI); views = `views_totals.total`; searches =
 *   `searches_totals.total_searches`; assistant questions = rows of `assistant_conversations`,
 *   unanswered = those with `resolution_status = 'unanswered'`;
 * - thumbs down = `feedback` items with `helpful = false`: every item is exported, whereas
 *   `feedback_by_page` holds at most 100 pages a day (the API cannot page it);
 * - the previous period is as long as the period and ends where it starts.
 *
 * Parquet is read with `union_by_name = true`: older files lack columns added later
 * (`unknown_fields`), and a column is only ever appended (docs/design.md).
 */
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { readUnitStates, unitKey, unitsOf, type UnitState } from '../export/units.js';
import { DATASET_NAMES, type DatasetName } from '../shared/catalog.js';
import { addDays } from '../shared/dates.js';
import { createLocalDestination } from '../shared/destination-local.js';
import {
  ASSISTANT_CONVERSATIONS,
  EXPORT_RUNS,
  FEEDBACK,
  MANIFESTS_PREFIX,
  SEARCHES,
  SEARCHES_TOTALS,
  STAGING_PREFIX,
  VIEWS_PAGES,
  VIEWS_TOTALS,
  VISITORS_TOTALS,
  type ColumnType,
  type TableDef,
} from '../shared/tables.js';

/**
 * The columns the report reads of each table (Parquet is columnar: the others are never read),
 * as SQL expressions. A table several queries use is loaded once into DuckDB's memory — and,
 * with `union_by_name`, its file footers read once, not per query; a table one query uses
 * (`views_pages`, `searches`: the largest) stays a view over the files, read once anyway.
 */
const COLUMNS: Readonly<Record<string, readonly string[]>> = {
  visitors_totals: ['project_id', 'date', 'human', 'ai'],
  views_totals: ['project_id', 'date', 'total'],
  searches_totals: ['project_id', 'date', 'total_searches'],
  // The question's text only where the report shows it: examples of unanswered questions.
  assistant_conversations: [
    'project_id',
    'date',
    'asked_at',
    "CASE WHEN resolution_status = 'unanswered' THEN query END AS query",
    'resolution_status',
    'query_category',
  ],
  feedback: ['project_id', 'date', 'path', 'helpful'],
  views_pages: ['project_id', 'date', 'path', 'human', 'ai', 'total'],
  searches: ['project_id', 'date', 'search_query', 'hits', 'top_clicked_page'],
};

/** Tables read by one query only: a view, not a copy in memory. */
const SINGLE_USE = new Set(['views_pages', 'searches']);

/** Tables the report reads over both periods. */
const HEADLINE_TABLES = [VISITORS_TOTALS, VIEWS_TOTALS, SEARCHES_TOTALS, ASSISTANT_CONVERSATIONS, FEEDBACK] as const;
/** Tables the report reads over the period only. */
const PERIOD_TABLES = [VIEWS_PAGES, SEARCHES] as const;

/** Rows shown in each ranking. */
export const LIMITS = { pages: 15, searches: 20, categories: 12, examples: 3, thumbsDown: 10 } as const;

/** Table folders a report reads, and over which days (`lake.ts` mirrors exactly these from S3). */
export function reportPrefixes(): { readonly both: readonly string[]; readonly period: readonly string[] } {
  return { both: HEADLINE_TABLES.map((t) => t.prefix), period: [...PERIOD_TABLES.map((t) => t.prefix), EXPORT_RUNS.prefix] };
}

export interface Period {
  /** First day, `YYYY-MM-DD` (UTC). */
  readonly from: string;
  /** Day after the last one (exclusive). */
  readonly to: string;
  readonly days: readonly string[];
}

/** The days of `[from, to)`. */
export function daysFrom(from: string, to: string): string[] {
  const days: string[] = [];
  for (let day = from; day < to; day = addDays(day, 1)) days.push(day);
  return days;
}

/** The period before `period`, as long as it. */
export function previousPeriod(period: Period): Period {
  const length = period.days.length;
  const from = addDays(period.from, -length);
  return { from, to: period.from, days: Array.from({ length }, (_, i) => addDays(from, i)) };
}

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

export interface TopPage {
  readonly projectId: string;
  readonly path: string;
  readonly views: number;
  readonly human: number;
  readonly ai: number;
  readonly aiShare: number | null;
}

export interface UnclickedSearch {
  readonly projectId: string;
  readonly query: string;
  readonly hits: number;
  readonly days: number;
}

export interface UnansweredCategory {
  /** `''` for questions the service gave no category. */
  readonly category: string;
  readonly questions: number;
  /** The most recent distinct questions of the category. */
  readonly examples: readonly string[];
}

export interface ThumbsDownPage {
  readonly projectId: string;
  readonly path: string;
  readonly thumbsDown: number;
}

/** A unit's state in the calendar: `status`'s four, and complete-with-drift. */
export type HealthState = 'complete' | 'drift' | 'partial' | 'missing' | 'failed';

export interface HealthCell {
  readonly day: string;
  readonly dataset: DatasetName;
  /** The worst state over the projects. */
  readonly state: HealthState;
  readonly projects: readonly { readonly projectId: string; readonly state: HealthState; readonly detail?: string }[];
}

export interface RequestsDay {
  readonly day: string;
  readonly requests: number;
  readonly runs: number;
  readonly failedUnits: number;
}

export interface Figures {
  readonly period: Period;
  readonly previous: Period;
  readonly projects: readonly string[];
  readonly headline: { readonly current: Headline; readonly previous: Headline };
  readonly byProject: readonly { readonly projectId: string; readonly current: Headline; readonly previous: Headline }[];
  /** One entry per day of the period; null where the day has no visitors data. */
  readonly visitorsPerDay: readonly { readonly day: string; readonly human: number | null; readonly ai: number | null }[];
  readonly topPages: readonly TopPage[];
  readonly unclickedSearches: readonly UnclickedSearch[];
  readonly unansweredByCategory: readonly UnansweredCategory[];
  readonly thumbsDownPages: readonly ThumbsDownPage[];
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
}

/** Projects with a table file, a manifest or a staged unit on a day of `period`. */
export async function discoverProjects(root: string, period: Period): Promise<string[]> {
  const found = new Set<string>();
  const folders = [
    ...[...HEADLINE_TABLES, ...PERIOD_TABLES].map((t) => ({ dir: t.prefix, suffix: '.parquet' })),
    ...DATASET_NAMES.map((d) => ({ dir: `${MANIFESTS_PREFIX}/${d}`, suffix: '.json' })),
    ...DATASET_NAMES.map((d) => ({ dir: `${STAGING_PREFIX}/${d}`, suffix: '' })),
  ];
  await Promise.all(
    folders.flatMap(({ dir, suffix }) =>
      period.days.map(async (day) => {
        for (const name of await list(path.join(root, dir, `dt=${day}`))) {
          if (name.startsWith('.')) continue;
          if (suffix === '' || name.endsWith(suffix)) found.add(suffix === '' ? name : name.slice(0, -suffix.length));
        }
      }),
    ),
  );
  return [...found].sort();
}

/**
 * Every SQL query of the report, over the tables `openReportDb` loads (the previous period and
 * the period). Named so the benchmark times DuckDB alone on exactly these.
 */
export function reportQueries(period: Period) {
  const current = `date >= DATE '${period.from}' AS current`;
  const inPeriod = `date >= DATE '${period.from}'`;
  return {
    visitors: `SELECT project_id, ${current}, sum(human) AS human, sum(ai) AS ai, count(DISTINCT date) AS days FROM visitors_totals GROUP BY ALL`,
    views: `SELECT project_id, ${current}, sum(total) AS views FROM views_totals GROUP BY ALL`,
    searches: `SELECT project_id, ${current}, sum(total_searches) AS searches FROM searches_totals GROUP BY ALL`,
    assistant: `SELECT project_id, ${current}, count(*) AS questions,
        count(*) FILTER (WHERE resolution_status = 'unanswered') AS unanswered FROM assistant_conversations GROUP BY ALL`,
    feedback: `SELECT project_id, ${current}, count(*) FILTER (WHERE helpful = false) AS thumbs_down FROM feedback GROUP BY ALL`,
    days: `SELECT ${current}, count(DISTINCT date) AS days FROM visitors_totals GROUP BY ALL`,
    perDay: `SELECT strftime(date, '%Y-%m-%d') AS day, sum(human) AS human, sum(ai) AS ai FROM visitors_totals WHERE ${inPeriod} GROUP BY ALL`,
    topPages: `SELECT project_id, path, sum(total) AS views, sum(human) AS human, sum(ai) AS ai FROM views_pages
        GROUP BY ALL ORDER BY views DESC, project_id, path LIMIT ${LIMITS.pages}`,
    // Two steps: by exact term first (cheap), then case-insensitively on the few distinct terms
    // (lower() on every row cost three times as much). A day has one row per term
    // case-insensitively (the API merges them), so the rows of a term are its days.
    unclicked: `SELECT project_id, min(search_query) AS query, sum(hits) AS hits, sum(days) AS days FROM (
          SELECT project_id, search_query, sum(hits) AS hits, count(top_clicked_page) AS clicks, count(*) AS days FROM searches GROUP BY ALL)
        GROUP BY project_id, lower(search_query) HAVING sum(clicks) = 0
        ORDER BY hits DESC, query, project_id LIMIT ${LIMITS.searches}`,
    categories: `SELECT coalesce(query_category, '') AS category, count(*) AS questions FROM assistant_conversations
        WHERE ${inPeriod} AND resolution_status = 'unanswered' GROUP BY ALL ORDER BY questions DESC, category`,
    examples: `SELECT category, query FROM (
          SELECT category, query, row_number() OVER (PARTITION BY category ORDER BY last DESC, query) AS n FROM (
            SELECT coalesce(query_category, '') AS category, query, max(asked_at) AS last FROM assistant_conversations
            WHERE ${inPeriod} AND resolution_status = 'unanswered' GROUP BY ALL))
        WHERE n <= ${LIMITS.examples} ORDER BY category, n`,
    thumbsDown: `SELECT project_id, path, count(*) AS thumbs_down FROM feedback WHERE ${inPeriod} AND helpful = false
        GROUP BY ALL ORDER BY thumbs_down DESC, project_id, path LIMIT ${LIMITS.thumbsDown}`,
  } as const;
}

export type ReportQueries = ReturnType<typeof reportQueries>;

/** An in-memory DuckDB holding each table the report reads (`loadTable`); `query` runs one statement at a time. */
export interface ReportDb {
  query(sql: string): Promise<Record<string, unknown>[]>;
  close(): void;
}

export async function openReportDb(root: string, period: Period, projects: readonly string[]): Promise<ReportDb> {
  const previous = previousPeriod(period);
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  try {
    // Every query that needs an order says it: DuckDB may load and aggregate in any order.
    await connection.run('SET preserve_insertion_order = false');
    const both = [...previous.days, ...period.days];
    for (const table of HEADLINE_TABLES) await loadTable(connection, root, table, both, projects);
    for (const table of PERIOD_TABLES) await loadTable(connection, root, table, period.days, projects);
  } catch (error) {
    connection.closeSync();
    instance.closeSync();
    throw error;
  }
  // One connection runs one statement at a time: queue them, so callers may use Promise.all.
  let queue: Promise<unknown> = Promise.resolve();
  return {
    query(sql) {
      const result = queue.then(() => queryRows(connection, sql));
      queue = result.catch(() => undefined);
      return result;
    },
    close() {
      connection.closeSync();
      instance.closeSync();
    },
  };
}

/** Reads every figure of the report from the warehouse under `root`. */
export async function readFigures(root: string, scope: FigureScope): Promise<Figures> {
  const { period } = scope;
  const previous = previousPeriod(period);
  const projects = scope.projects.length > 0 ? [...scope.projects] : await discoverProjects(root, period);
  const db = await openReportDb(root, period, projects);
  const query: Query = (text) => db.query(text);
  try {
    const sql = reportQueries(period);
    const [perProject, days, perDay, topPages, unclicked, categories, examples, thumbsDown, health, requests] = await Promise.all([
      readHeadlines(query, sql),
      query(sql.days),
      query(sql.perDay),
      query(sql.topPages),
      query(sql.unclicked),
      query(sql.categories),
      query(sql.examples),
      query(sql.thumbsDown),
      readHealth(root, period, projects),
      readRequests(root, daysFrom(period.from, scope.runsTo ?? period.to)),
    ]);

    const daysOf = (current: boolean) => Number(days.find((r) => r['current'] === current)?.['days'] ?? 0);
    const headlineOf = (current: boolean, projectId?: string) =>
      headline(
        perProject.filter((r) => r.current === current && (projectId === undefined || r.projectId === projectId)),
        projectId === undefined ? daysOf(current) : undefined,
      );
    const dayRows = new Map(perDay.map((r) => [String(r['day']), r]));
    const examplesOf = (category: string) => examples.filter((r) => r['category'] === category).map((r) => String(r['query']));

    return {
      period,
      previous,
      projects,
      headline: { current: headlineOf(true), previous: headlineOf(false) },
      byProject: projects.map((projectId) => ({ projectId, current: headlineOf(true, projectId), previous: headlineOf(false, projectId) })),
      visitorsPerDay: period.days.map((day) => {
        const row = dayRows.get(day);
        return { day, human: row ? Number(row['human']) : null, ai: row ? Number(row['ai']) : null };
      }),
      topPages: topPages.map((r) => {
        const human = Number(r['human']);
        const ai = Number(r['ai']);
        return { projectId: String(r['project_id']), path: String(r['path']), views: Number(r['views']), human, ai, aiShare: share(ai, human + ai) };
      }),
      unclickedSearches: unclicked.map((r) => ({
        projectId: String(r['project_id']),
        query: String(r['query']),
        hits: Number(r['hits']),
        days: Number(r['days']),
      })),
      unansweredByCategory: categories.map((r) => ({
        category: String(r['category']),
        questions: Number(r['questions']),
        examples: examplesOf(String(r['category'])),
      })),
      thumbsDownPages: thumbsDown.map((r) => ({ projectId: String(r['project_id']), path: String(r['path']), thumbsDown: Number(r['thumbs_down']) })),
      health,
      requestsPerDay: requests,
    };
  } finally {
    db.close();
  }
}

interface ProjectPeriodRow {
  readonly projectId: string;
  readonly current: boolean;
  readonly human: number;
  readonly ai: number;
  readonly views: number;
  readonly searches: number;
  readonly questions: number;
  readonly unanswered: number;
  readonly thumbsDown: number;
  readonly days: number;
}

type Query = (sql: string) => Promise<Record<string, unknown>[]>;

/** Per project and period (current or previous), every headline count. */
async function readHeadlines(query: Query, sql: ReportQueries): Promise<ProjectPeriodRow[]> {
  const [visitors, views, searches, assistant, feedback] = await Promise.all([
    query(sql.visitors),
    query(sql.views),
    query(sql.searches),
    query(sql.assistant),
    query(sql.feedback),
  ]);
  const rows = new Map<string, { readonly projectId: string; readonly current: boolean; readonly counts: Record<string, number> }>();
  const add = (result: Record<string, unknown>[], fields: Record<string, string>) => {
    for (const r of result) {
      const projectId = String(r['project_id']);
      const isCurrent = r['current'] === true;
      const key = `${projectId}/${isCurrent}`;
      const row = rows.get(key) ?? { projectId, current: isCurrent, counts: {} };
      for (const [field, column] of Object.entries(fields)) row.counts[field] = Number(r[column] ?? 0);
      rows.set(key, row);
    }
  };
  add(visitors, { human: 'human', ai: 'ai', days: 'days' });
  add(views, { views: 'views' });
  add(searches, { searches: 'searches' });
  add(assistant, { questions: 'questions', unanswered: 'unanswered' });
  add(feedback, { thumbsDown: 'thumbs_down' });
  return [...rows.values()].map(({ projectId, current: isCurrent, counts }) => ({
    projectId,
    current: isCurrent,
    human: counts['human'] ?? 0,
    ai: counts['ai'] ?? 0,
    views: counts['views'] ?? 0,
    searches: counts['searches'] ?? 0,
    questions: counts['questions'] ?? 0,
    unanswered: counts['unanswered'] ?? 0,
    thumbsDown: counts['thumbsDown'] ?? 0,
    days: counts['days'] ?? 0,
  }));
}

/** Sums of `rows`; `daysWithData` given for all projects (distinct days), else the project's own. */
function headline(rows: readonly ProjectPeriodRow[], daysWithData?: number): Headline {
  const sum = (field: Exclude<keyof ProjectPeriodRow, 'projectId' | 'current'>) => rows.reduce((total, r) => total + r[field], 0);
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
    daysWithData: daysWithData ?? sum('days'),
  };
}

function share(part: number, whole: number): number | null {
  return whole === 0 ? null : part / whole;
}

/** How bad a state is, for the worst of several projects. */
const SEVERITY: Readonly<Record<HealthState, number>> = { complete: 0, drift: 1, partial: 2, missing: 3, failed: 4 };

/** The drift a manifest names (docs/warehouse.md), read defensively: older manifests have none. */
interface ManifestDrift {
  readonly tables?: Readonly<Record<string, { readonly fields?: readonly string[]; readonly values?: Readonly<Record<string, readonly string[]>> }>>;
  readonly topLevelFields?: readonly string[];
}

/** `views_pages: sentiment; source = widget` — names and enum values only (never text values). */
export function describeDrift(drift: unknown): string | undefined {
  if (drift === null || typeof drift !== 'object') return undefined;
  const { tables, topLevelFields } = drift as ManifestDrift;
  const parts: string[] = [];
  for (const [table, change] of Object.entries(tables ?? {})) {
    const fields = Array.isArray(change?.fields) ? change.fields.map(String) : [];
    const values = Object.entries(change?.values ?? {}).map(([field, list]) => `${field} = ${(Array.isArray(list) ? list : []).map(String).join(', ')}`);
    if (fields.length + values.length > 0)
      parts.push(`${table}: ${[...fields.map((f) => `new field ${f}`), ...values.map((v) => `new value ${v}`)].join('; ')}`);
  }
  const top = Array.isArray(topLevelFields) ? topLevelFields.map(String) : [];
  if (top.length > 0) parts.push(`answer: new field ${top.join(', ')}`);
  return parts.length > 0 ? parts.join(' · ') : undefined;
}

/** A unit's state as `status` decides it, complete units with drift told apart. */
function healthOf(state: UnitState | undefined): { state: HealthState; detail?: string } {
  switch (state?.kind) {
    case 'complete': {
      const drift = describeDrift(state.manifest.drift);
      return drift === undefined ? { state: 'complete' } : { state: 'drift', detail: drift };
    }
    case 'partial':
      return { state: 'partial', detail: `${state.checkpoint.state.pages} page(s) staged${state.failure ? `; ${state.failure.error}` : ''}` };
    case 'failed':
      return { state: 'failed', detail: state.failure.error };
    default:
      return { state: 'missing' };
  }
}

/** Day × dataset, each the worst of its projects, from the manifests, checkpoints and failure records. */
async function readHealth(root: string, period: Period, projects: readonly string[]): Promise<HealthCell[]> {
  const units = unitsOf(period.days, projects, DATASET_NAMES);
  const states = await readUnitStates(createLocalDestination(root), units);
  return period.days.flatMap((day) =>
    DATASET_NAMES.map((dataset) => {
      const cells = projects.map((projectId) => ({ projectId, ...healthOf(states.get(unitKey({ dataset, projectId, day }))) }));
      const state = cells.reduce<HealthState>((worst, c) => (SEVERITY[c.state] > SEVERITY[worst] ? c.state : worst), 'complete');
      return { day, dataset, state: cells.length === 0 ? 'missing' : state, projects: cells };
    }),
  );
}

/** Requests, runs and failed units per day a run started on, from `export_runs`. */
async function readRequests(root: string, days: readonly string[]): Promise<RequestsDay[]> {
  return Promise.all(
    days.map(async (day) => {
      const folder = path.join(root, EXPORT_RUNS.prefix, `dt=${day}`);
      const totals = { day, requests: 0, runs: 0, failedUnits: 0 };
      for (const name of await list(folder)) {
        if (!name.endsWith('.json') || name.startsWith('.')) continue;
        for (const line of (await readFile(path.join(folder, name), 'utf8')).split('\n')) {
          const record = parseRecord(line);
          if (!record) continue;
          totals.runs += 1;
          totals.requests += record.requests;
          totals.failedUnits += record.unitsFailed;
        }
      }
      return totals;
    }),
  );
}

/** A run record's counts, or undefined for a blank or foreign line. */
function parseRecord(line: string): { readonly requests: number; readonly unitsFailed: number } | undefined {
  if (line.trim() === '') return undefined;
  try {
    const value = JSON.parse(line) as { requests?: unknown; units_failed?: unknown };
    const requests = Number(value.requests);
    if (!Number.isFinite(requests)) return undefined;
    const unitsFailed = Number(value.units_failed);
    return { requests, unitsFailed: Number.isFinite(unitsFailed) ? unitsFailed : 0 };
  } catch {
    return undefined;
  }
}

const DUCKDB_TYPES: Readonly<Record<ColumnType, string>> = {
  string: 'VARCHAR',
  date: 'DATE',
  int64: 'BIGINT',
  double: 'DOUBLE',
  timestamp_ms: 'TIMESTAMP',
  boolean: 'BOOLEAN',
  record_list: 'VARCHAR',
};

/**
 * A table named after the warehouse table, in memory, with the report's columns of its files
 * of `days` and `projects`, rows of other days left out; with no file, an empty table of those
 * columns, so every query runs the same on a lake with gaps.
 */
async function loadTable(connection: DuckDBConnection, root: string, table: TableDef, days: readonly string[], projects: readonly string[]): Promise<void> {
  const wanted = new Set(projects);
  const files = (
    await Promise.all(
      days.map(async (day) => {
        const folder = path.join(root, table.prefix, `dt=${day}`);
        return (await list(folder))
          .filter((name) => name.endsWith('.parquet') && !name.startsWith('.') && wanted.has(name.slice(0, -'.parquet'.length)))
          .map((name) => path.join(folder, name));
      }),
    )
  ).flat();
  const expressions = COLUMNS[table.name] ?? table.columns.map((c) => c.name);
  // An expression `… AS name` yields the column `name`.
  const names = expressions.map((e) => /\bAS (\w+)$/.exec(e)?.[1] ?? e);
  const columns = table.columns.filter((c) => names.includes(c.name));
  const first = days[0];
  const after = days.length > 0 ? addDays(days[days.length - 1] as string, 1) : undefined;
  const body =
    files.length === 0 || first === undefined || after === undefined
      ? `SELECT ${columns.map((c) => `NULL::${DUCKDB_TYPES[c.type]} AS ${c.name}`).join(', ')} WHERE false`
      : `SELECT ${expressions.join(', ')} FROM read_parquet([${files.map(sqlString).join(', ')}], union_by_name = true)
         WHERE date >= DATE '${first}' AND date < DATE '${after}'`;
  await connection.run(`CREATE ${SINGLE_USE.has(table.name) ? 'VIEW' : 'TABLE'} ${table.name} AS ${body}`);
}

async function queryRows(connection: DuckDBConnection, sql: string): Promise<Record<string, unknown>[]> {
  const reader = await connection.runAndReadAll(sql);
  return reader.getRowObjectsJS().map((row) => {
    const plain: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(row)) plain[name] = typeof value === 'bigint' ? Number(value) : value;
    return plain;
  });
}

/** Names in a folder; none when it does not exist. */
async function list(folder: string): Promise<string[]> {
  try {
    return await readdir(folder);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'ENOTDIR') return [];
    throw error;
  }
}

function sqlString(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}
