/**
 * Factories for the integration tests of every analytics dataset (issue 9): the table
 * contract written out on its own (so a drift in tables.ts fails a test), the rows a correct
 * export of a (dataset, project, day) must hold — computed from `sandbox.data`, not from the
 * export's own row mapping —, reading a unit's files back through any destination with
 * DuckDB, the sandbox's request log per unit, the fewest requests paging allows, the
 * dependencies of a run on a fake clock, a logger that records every line, and a tiny API
 * on 127.0.0.1 that serves an empty visitors day (the sandbox cannot: every project has at
 * least one path).
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'vitest';
import { main, type CliIo } from '../../functions/cli.js';
import type { PlannedUnit } from '../../functions/export/plan.js';
import type { RunDeps, RunSettings, UnitResult } from '../../functions/export/run.js';
import type { Manifest } from '../../functions/export/unit.js';
import { createApiClient, type MintlifyClient } from '../../functions/shared/api-client.js';
import { createBudgetGate, createBudgetLedger } from '../../functions/shared/budget.js';
import { CATALOG, DATASET_NAMES, type DatasetName } from '../../functions/shared/catalog.js';
import type { Destination } from '../../functions/shared/destination.js';
import { createLeases } from '../../functions/shared/leases.js';
import type { AppLogger } from '../../functions/shared/logger.js';
import { createMemoryStore } from '../../functions/shared/shared-store.js';
import type { SandboxData } from '../../sandbox/index.js';
import { fakeClock, type FakeClock } from './clock.js';
import { readParquetBytes, type ParquetColumn, type ParquetContents } from './duckdb.js';
import { makeTempDir } from './files.js';

export const ALL_DATASETS = DATASET_NAMES;

/** `[name, DuckDB type]` pairs between `project_id`/`date` and `exported_at`, `unknown_fields`. */
function contract(...pairs: [string, string][]): ParquetColumn[] {
  return [['project_id', 'VARCHAR'], ['date', 'DATE'], ...pairs, ['exported_at', 'TIMESTAMP'], ['unknown_fields', 'VARCHAR']].map(([name, type]) => ({
    name: name as string,
    type: type as string,
  }));
}

/**
 * The columns DuckDB must report for each table, in file order (DESIGN "Every analytics
 * dataset…"), written out independently of `functions/shared/tables.ts`.
 */
export const CONTRACT_COLUMNS: Readonly<Record<string, ParquetColumn[]>> = {
  visitors_totals: contract(['human', 'BIGINT'], ['ai', 'BIGINT'], ['total', 'BIGINT'], ['pages', 'BIGINT']),
  visitors_pages: contract(['path', 'VARCHAR'], ['human', 'BIGINT'], ['ai', 'BIGINT'], ['total', 'BIGINT']),
  views_totals: contract(['human', 'BIGINT'], ['ai', 'BIGINT'], ['total', 'BIGINT'], ['pages', 'BIGINT']),
  views_pages: contract(['path', 'VARCHAR'], ['human', 'BIGINT'], ['ai', 'BIGINT'], ['total', 'BIGINT']),
  searches_totals: contract(['total_searches', 'BIGINT'], ['terms', 'BIGINT']),
  searches: contract(['search_query', 'VARCHAR'], ['hits', 'BIGINT'], ['ctr', 'DOUBLE'], ['top_clicked_page', 'VARCHAR'], ['last_searched_at', 'TIMESTAMP']),
  feedback: contract(
    ['feedback_id', 'VARCHAR'],
    ['path', 'VARCHAR'],
    ['source', 'VARCHAR'],
    ['status', 'VARCHAR'],
    ['comment', 'VARCHAR'],
    ['created_at', 'TIMESTAMP'],
    ['helpful', 'BOOLEAN'],
    ['contact', 'VARCHAR'],
    ['code', 'VARCHAR'],
    ['filename', 'VARCHAR'],
    ['lang', 'VARCHAR'],
  ),
  feedback_by_page: contract(['path', 'VARCHAR'], ['thumbs_up', 'BIGINT'], ['thumbs_down', 'BIGINT'], ['code', 'BIGINT'], ['total', 'BIGINT']),
  assistant_conversations: contract(
    ['conversation_id', 'VARCHAR'],
    ['asked_at', 'TIMESTAMP'],
    ['query', 'VARCHAR'],
    ['response', 'VARCHAR'],
    ['response_type', 'VARCHAR'],
    ['resolution_status', 'VARCHAR'],
    ['query_category', 'VARCHAR'],
    ['page_url', 'VARCHAR'],
    ['source_count', 'BIGINT'],
    ['sources_json', 'VARCHAR'],
  ),
  assistant_caller_stats: contract(['web', 'BIGINT'], ['api', 'BIGINT'], ['other', 'BIGINT'], ['total', 'BIGINT']),
};

/** Each dataset's tables: the one-row summary (if any) and the table with one row per API row. */
export const TABLES_OF: Readonly<Record<DatasetName, { readonly summary?: string; readonly rows: string }>> = Object.fromEntries(
  CATALOG.map((entry) => [entry.name, { rows: entry.table.name, ...('summaryTable' in entry ? { summary: entry.summaryTable.name } : {}) }]),
) as Record<DatasetName, { readonly summary?: string; readonly rows: string }>;

/** Every table name of a dataset, summary first. */
export function tableNames(dataset: DatasetName): string[] {
  const { summary, rows } = TABLES_OF[dataset];
  return summary === undefined ? [rows] : [summary, rows];
}

// --- expected rows -------------------------------------------------------------------

export interface ExpectedOptions {
  /** The `exported_at` of every row, ISO with ms. */
  readonly exportedAt: string;
  /** EXPORT_FEEDBACK_CONTACT. */
  readonly feedbackContact: boolean;
}

/** A row as DuckDB reads it back (readParquet's plain values), `sources_json` parsed. */
export type PlainRow = Record<string, unknown>;

/**
 * The rows each table of `dataset` must hold for (project, day), in API order, as DuckDB
 * reads them back — from the sandbox's data, mapped here by hand from the API fields to the
 * contract's columns. `sources_json` is given parsed (compare with `withParsedJson`).
 */
export function expectedTables(data: SandboxData, dataset: DatasetName, projectId: string, day: string, options: ExpectedOptions): Record<string, PlainRow[]> {
  const head = { project_id: projectId, date: day };
  const tail = { exported_at: options.exportedAt, unknown_fields: null };
  switch (dataset) {
    case 'visitors':
    case 'views': {
      const { totals, rows } = data.day(dataset, projectId, day);
      const names = TABLES_OF[dataset];
      return {
        [names.summary as string]: [{ ...head, human: totals.human, ai: totals.ai, total: totals.total, pages: rows.length, ...tail }],
        [names.rows]: rows.map((row) => ({ ...head, path: row.path, human: row.human, ai: row.ai, total: row.total, ...tail })),
      };
    }
    case 'searches': {
      const { totalSearches, rows } = data.day('searches', projectId, day);
      return {
        searches_totals: [{ ...head, total_searches: totalSearches, terms: rows.length, ...tail }],
        searches: rows.map((row) => ({
          ...head,
          search_query: row.searchQuery,
          hits: row.hits,
          ctr: row.ctr,
          top_clicked_page: row.topClickedPage,
          last_searched_at: row.lastSearchedAt,
          ...tail,
        })),
      };
    }
    case 'feedback':
      return {
        feedback: data.rows('feedback', projectId, day).map((row) => ({
          ...head,
          feedback_id: row.id,
          path: row.path,
          source: row.source,
          status: row.status,
          comment: row.comment,
          created_at: row.createdAt,
          helpful: row.source === 'contextual' ? row.helpful : null,
          contact: row.source === 'contextual' && options.feedbackContact ? row.contact : null,
          code: row.source === 'code_snippet' ? row.code : null,
          filename: row.source === 'code_snippet' ? row.filename : null,
          lang: row.source === 'code_snippet' ? row.lang : null,
          ...tail,
        })),
      };
    case 'feedback_by_page':
      return {
        feedback_by_page: data.day('feedback_by_page', projectId, day).rows.map((row) => ({
          ...head,
          path: row.path,
          thumbs_up: row.thumbsUp,
          thumbs_down: row.thumbsDown,
          code: row.code,
          total: row.total,
          ...tail,
        })),
      };
    case 'assistant':
      return {
        assistant_conversations: data.rows('assistant', projectId, day).map((row) => ({
          ...head,
          conversation_id: row.id,
          asked_at: row.timestamp,
          query: row.query,
          response: row.response,
          // Absent means `answer` (docs/design.md §1.1).
          response_type: row.responseType ?? 'answer',
          resolution_status: row.resolutionStatus,
          query_category: row.queryCategory,
          page_url: row.pageUrl,
          source_count: row.sources.length,
          sources_json: row.sources.map((source) => ({ title: source.title, url: source.url })),
          ...tail,
        })),
      };
    case 'caller_stats':
      return {
        assistant_caller_stats: data.rows('caller_stats', projectId, day).map((row) => ({
          ...head,
          web: row.web,
          api: row.api,
          other: row.other,
          total: row.total,
          ...tail,
        })),
      };
  }
}

/** Rows with `sources_json` parsed (it must be valid JSON); other tables unchanged. */
export function withParsedJson(rows: readonly PlainRow[]): PlainRow[] {
  return rows.map((row) => (typeof row['sources_json'] === 'string' ? { ...row, sources_json: JSON.parse(row['sources_json']) as unknown } : { ...row }));
}

// --- reading a unit back ---------------------------------------------------------------

/** `<table>/dt=<day>/<projectId>.parquet`. */
export function tableKey(table: string, day: string, projectId: string): string {
  return `${table}/dt=${day}/${projectId}.parquet`;
}

/** `_manifests/<dataset>/dt=<day>/<projectId>.json`. */
export function manifestKeyOf(dataset: DatasetName, day: string, projectId: string): string {
  return `_manifests/${dataset}/dt=${day}/${projectId}.json`;
}

/** Every key a complete unit has: its tables' files and its manifest. */
export function unitKeys(dataset: DatasetName, day: string, projectId: string): string[] {
  return [...tableNames(dataset).map((table) => tableKey(table, day, projectId)), manifestKeyOf(dataset, day, projectId)];
}

/** DuckDB's reading of one table file of a unit, fetched through `destination` (S3 or local). */
export async function readTable(destination: Destination, table: string, day: string, projectId: string): Promise<ParquetContents> {
  const key = tableKey(table, day, projectId);
  const bytes = await destination.get(key);
  if (bytes === undefined) throw new Error(`${key} is missing in ${destination.url}`);
  return readParquetBytes(bytes);
}

/** The unit's manifest, or undefined when it has none. */
export async function readManifest(destination: Destination, dataset: DatasetName, day: string, projectId: string): Promise<Manifest | undefined> {
  const bytes = await destination.get(manifestKeyOf(dataset, day, projectId));
  return bytes === undefined ? undefined : (JSON.parse(Buffer.from(bytes).toString('utf8')) as Manifest);
}

/**
 * Asserts that every table of the unit reads back with the contract's columns (names, order,
 * DuckDB types) and exactly the expected rows, in order. Returns what was read, by table.
 */
export async function expectUnitMatches(
  destination: Destination,
  data: SandboxData,
  unit: { readonly dataset: DatasetName; readonly projectId: string; readonly day: string },
  options: ExpectedOptions,
): Promise<Record<string, ParquetContents>> {
  const expected = expectedTables(data, unit.dataset, unit.projectId, unit.day, options);
  const read: Record<string, ParquetContents> = {};
  for (const table of tableNames(unit.dataset)) {
    const contents = await readTable(destination, table, unit.day, unit.projectId);
    read[table] = contents;
    expect(contents.columns, `${table} columns`).toEqual(CONTRACT_COLUMNS[table]);
    expect(contents.rows.length, `${table} row count`).toBe(expected[table]?.length);
    expect(withParsedJson(contents.rows), `${table} rows`).toEqual(expected[table]);
  }
  return read;
}

/** The manifest of a unit result, failing the test with the result when it is not complete. */
export function completeManifest(result: UnitResult | undefined): Manifest {
  expect(result).toMatchObject({ status: 'complete' });
  return (result as Extract<UnitResult, { status: 'complete' }>).manifest;
}

/** The error text of a unit result, failing the test with the result when it did not fail. */
export function failureOf(result: UnitResult | undefined): string {
  expect(result).toMatchObject({ status: 'failed' });
  return (result as Extract<UnitResult, { status: 'failed' }>).error;
}

// --- a run on a fake clock (export-fixtures' fakeClock) ----------------------------------

export interface DatasetRunOptions {
  /** The API: the sandbox's `url` and `apiKey`, or another server's. */
  readonly api: { readonly url: string; readonly apiKey: string };
  readonly destination: Destination;
  /** Epoch ms the run starts at (its `exported_at`). */
  readonly start: number;
  /** Given to the run and to the API client, so every line either writes is seen. */
  readonly logger?: AppLogger;
  /** Client retries after the first attempt. @default 2 */
  readonly maxRetries?: number;
}

/**
 * The dependencies of `runUnits`/`runExport`: a real client over HTTP with tiny backoffs, a
 * budget gate far above what a test spends over an in-memory ledger, leases in the same
 * store, everything on one fake clock.
 */
export function datasetRunDeps(options: DatasetRunOptions): RunDeps & { readonly api: MintlifyClient; readonly clock: FakeClock } {
  const clock = fakeClock(options.start);
  const store = createMemoryStore();
  const ledger = createBudgetLedger(store, { requests: 1_000_000, windowMs: 3_600_000, text: '1000000/1h' }, { now: clock.now });
  const gate = createBudgetGate(ledger, { now: clock.now, sleep: clock.sleep });
  const api = createApiClient({
    baseUrl: options.api.url,
    apiKey: options.api.apiKey,
    timeoutMs: 5_000,
    minDelayMs: 1,
    maxDelayMs: 5,
    maxRetries: options.maxRetries ?? 2,
    now: clock.now,
    sleep: clock.sleep,
    budget: gate,
    ...(options.logger ? { logger: options.logger } : {}),
  });
  return {
    api,
    gate,
    destination: options.destination,
    leases: createLeases(store, { owner: `datasets-test-${randomBytes(4).toString('hex')}`, now: clock.now }),
    store,
    now: clock.now,
    clock,
    ...(options.logger ? { logger: options.logger } : {}),
  };
}

/** Settings of a run over the given datasets: the engine's defaults otherwise. */
export function datasetSettings(overrides: Partial<RunSettings> = {}): RunSettings {
  return {
    projectIds: [],
    datasets: [...ALL_DATASETS],
    healDays: 0,
    refreshDays: 0,
    settleHours: 2,
    maxPages: 10_000,
    feedbackContact: false,
    checkpointMaxAgeMs: 24 * 3_600_000,
    ...overrides,
  };
}

/** Units as the planner makes them for a manual request. */
export function plannedUnits(datasets: readonly DatasetName[], projectIds: readonly string[], day: string): PlannedUnit[] {
  return projectIds.flatMap((projectId) =>
    datasets.map((dataset): PlannedUnit => ({ dataset, projectId, day, reason: 'requested', estimate: 1, force: true })),
  );
}

// --- a logger that keeps every line ------------------------------------------------------

export interface LogLine {
  readonly level: 'debug' | 'info' | 'warn' | 'error';
  readonly message: string;
  /** The whole line as JSON (errors with name, message, stack and cause). */
  readonly text: string;
}

export interface RecordingLogger extends AppLogger {
  readonly lines: LogLine[];
}

/** Errors keep their message, stack and cause in JSON (JSON.stringify alone drops them). */
function jsonReplacer(_key: string, value: unknown): unknown {
  if (value instanceof Error) {
    return { name: value.name, message: value.message, stack: value.stack, cause: value.cause };
  }
  return value;
}

export function recordingLogger(): RecordingLogger {
  const lines: LogLine[] = [];
  const record =
    (level: LogLine['level']) =>
    (input: unknown, ...extra: unknown[]): void => {
      const message = typeof input === 'string' ? input : JSON.stringify(input, jsonReplacer);
      lines.push({ level, message, text: JSON.stringify({ level, input, extra }, jsonReplacer) });
    };
  return { lines, debug: record('debug'), info: record('info'), warn: record('warn'), error: record('error') };
}

// --- an API with an empty visitors day ---------------------------------------------------

export interface EmptyVisitorsApi {
  readonly url: string;
  readonly apiKey: string;
  /** Query of every request, in order. */
  readonly requests: { readonly path: string; readonly query: Readonly<Record<string, string>> }[];
  close(): Promise<void>;
}

/**
 * A minimal API on 127.0.0.1 whose visitors endpoint answers every day as empty, the way the
 * service does for a site without traffic: `{totals: 0s, visitors: [], hasMore: false}`. The
 * sandbox cannot serve such a day (its projects have at least one path), yet the contract
 * says a complete empty day still gets its files. Anything else is a 404.
 */
export async function startEmptyVisitorsApi(apiKey: string): Promise<EmptyVisitorsApi> {
  const requests: { path: string; query: Record<string, string> }[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    requests.push({ path: url.pathname, query: Object.fromEntries(url.searchParams) });
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    if (req.headers.authorization !== `Bearer ${apiKey}`) return send(401, { error: 'invalid API key' });
    if (!/^\/v1\/analytics\/[^/]+\/visitors$/.test(url.pathname)) return send(404, { error: 'no such endpoint' });
    return send(200, { totals: { human: 0, ai: 0, total: 0 }, visitors: [], hasMore: false });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    apiKey,
    requests,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

// --- the CLI in process ----------------------------------------------------------------------

export interface CliRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * `main(argv)` in this process against `api` (the sandbox), as cli-export.test.ts runs it:
 * the clock stands at `now`, sleeps return at once, the budget is far above what a test
 * spends, and the ledger lives in a fresh state folder. `env` adds or overrides variables.
 */
export async function runCliAt(
  api: { readonly url: string; readonly apiKey: string },
  argv: readonly string[],
  options: { readonly now: number; readonly env?: Record<string, string> },
): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text), isTTY: false },
    env: {
      MINTLIFY_API_URL: api.url,
      MINTLIFY_API_KEY: api.apiKey,
      API_TIMEOUT_MS: '5000',
      ANALYTICS_BUDGET: '100000/1h',
      EXPORT_STATE_DIR: await makeTempDir('datasets-state'),
      ...options.env,
    },
    now: () => options.now,
    sleep: async () => undefined,
    stopSignal: new Promise<void>(() => undefined),
  };
  const code = await main(argv, io);
  return { code, stdout, stderr };
}
