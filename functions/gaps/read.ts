/**
 * Reads gaps and the requests made for them from a warehouse laid out in a local folder (an
 * `s3://` one is mirrored first, report/lake.ts):
 * - the evidence: the `queries/gaps-*.sql` questions over views of the period's Parquet files
 *   of the projects asked for (a table without files is an empty view of its columns);
 * - what was done: `followup_outcomes` records with a `gap_id`, and the follow-up state records
 *   with a `gapId` that have not finished, where the state is reachable (see find.ts).
 */
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { readFileSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import type { FollowUpOutcome } from '../follow-up/outcome.js';
import type { FollowUpState, OutcomeStatus } from '../follow-up/state.js';
import type { Destination } from '../shared/destination.js';
import type { SharedStore } from '../shared/shared-store.js';
import { ASSISTANT_CONVERSATIONS, FEEDBACK, FOLLOWUP_OUTCOMES, SEARCHES, type ColumnType, type TableDef } from '../shared/tables.js';
import type { GapEvidence, GapKind, GapRequest } from './gaps.js';

/** The tables gaps read (their folders are what a mirror of S3 needs). */
export const GAP_TABLES = [ASSISTANT_CONVERSATIONS, SEARCHES, FEEDBACK] as const;

/** The days and projects gaps look at. */
export interface GapScope {
  /** UTC days, in order. */
  readonly days: readonly string[];
  /** Projects; empty: every project with a file of a gap table on one of the days. */
  readonly projects: readonly string[];
}

export interface GapEvidenceRead {
  /** The projects read (given, or found). */
  readonly projects: readonly string[];
  /** Table files read (0: nothing exported for these days and projects). */
  readonly files: number;
  readonly found: readonly { readonly projectId: string; readonly evidence: GapEvidence }[];
}

/** The gap tables of some days and projects, as views in one DuckDB session. */
export interface GapTables {
  /** The projects read (given, or found). */
  readonly projects: readonly string[];
  /** Table files read (0: nothing exported for these days and projects). */
  readonly files: number;
  readonly run: Run;
  close(): void;
}

/** Opens a session with a view per gap table over its files of `scope`'s days and projects. */
export async function openGapTables(root: string, scope: GapScope): Promise<GapTables> {
  const filesByTable = await Promise.all(GAP_TABLES.map((table) => tableFiles(root, table, scope.days)));
  const projects = scope.projects.length > 0 ? [...scope.projects] : [...new Set(filesByTable.flat().map((file) => file.projectId))].sort();
  const wanted = new Set(projects);
  const chosen = filesByTable.map((files) => files.filter((file) => wanted.has(file.projectId)).map((file) => file.path));
  const session = await openSession();
  try {
    for (const [i, table] of GAP_TABLES.entries()) await session.run(viewSql(table, chosen[i] ?? []));
  } catch (error) {
    session.close();
    throw error;
  }
  return { projects, files: chosen.reduce((sum, list) => sum + list.length, 0), run: session.run, close: session.close };
}

/** Runs the three gap questions over the period's files under `root`. */
export async function readGapEvidence(root: string, scope: GapScope): Promise<GapEvidenceRead> {
  const tables = await openGapTables(root, scope);
  try {
    if (tables.files === 0) return { projects: tables.projects, files: 0, found: [] };
    return { projects: tables.projects, files: tables.files, found: await evidenceOf(tables.run) };
  } finally {
    tables.close();
  }
}

/** Every gap of the tables `run` reads, with its evidence. */
export async function evidenceOf(run: Run): Promise<{ projectId: string; evidence: GapEvidence }[]> {
  const [unanswered, searches, thumbs] = await Promise.all([
    run(gapQuery('gaps-unanswered-categories.sql')),
    run(gapQuery('gaps-searches-without-clicks.sql')),
    run(gapQuery('gaps-thumbs-down-pages.sql')),
  ]);
  return [
    ...unanswered.map((r) => ({
      projectId: String(r['project_id']),
      evidence: {
        kind: 'unanswered_category' as const,
        category: String(r['category']),
        unanswered: Number(r['unanswered']),
        questions: Number(r['questions']),
        days: Number(r['days']),
        examples: strings(r['examples']),
      },
    })),
    ...searches.map((r) => ({
      projectId: String(r['project_id']),
      evidence: { kind: 'search_without_clicks' as const, query: String(r['query']), searches: Number(r['searches']), days: Number(r['days']) },
    })),
    ...thumbs.map((r) => ({
      projectId: String(r['project_id']),
      evidence: {
        kind: 'thumbs_down_page' as const,
        path: String(r['path']),
        thumbsDown: Number(r['thumbs_down']),
        thumbsUp: Number(r['thumbs_up']),
        comments: strings(r['comments']),
      },
    })),
  ];
}

/**
 * The figure of each of `gaps` per day (`queries/gaps-figure-by-day.sql`), as
 * `gapId → day → figure`; a day without a row is a day the figure was 0 or not exported.
 */
export async function dailyFigures(
  run: Run,
  gaps: readonly { readonly gapId: string; readonly kind: GapKind; readonly projectId: string; readonly key: string }[],
): Promise<Map<string, Map<string, number>>> {
  const byGap = new Map<string, Map<string, number>>();
  if (gaps.length === 0) return byGap;
  const values = gaps.map((g) => `(${[g.gapId, g.kind, g.projectId, g.key].map(sqlString).join(', ')})`).join(', ');
  await run('DROP TABLE IF EXISTS wanted_gaps');
  await run(`CREATE TEMP TABLE wanted_gaps AS SELECT * FROM (VALUES ${values}) AS w(gap_id, kind, project_id, key)`);
  for (const row of await run(gapQuery('gaps-figure-by-day.sql'))) {
    const gapId = String(row['gap_id']);
    const days = byGap.get(gapId) ?? new Map<string, number>();
    days.set(String(row['day']), Number(row['figure']));
    byGap.set(gapId, days);
  }
  return byGap;
}

/**
 * The finished requests of each gap (followup_outcomes records with a gap_id), the latest
 * first, read through the destination itself (a few small JSON files, on every day: a job of
 * last quarter still stands for its gap).
 */
export async function readOutcomeRequests(destination: Pick<Destination, 'list' | 'get'>): Promise<Map<string, GapRequest[]>> {
  const byGap = new Map<string, GapRequest[]>();
  const keys = ((await destination.list?.(`${FOLLOWUP_OUTCOMES.prefix}/`)) ?? []).filter((key) => key.endsWith('.json'));
  const records = await Promise.all(keys.map(async (key) => parseOutcome(await destination.get(key))));
  for (const record of records) {
    if (record === undefined) continue;
    add(byGap, record.gapId, record.request);
  }
  for (const requests of byGap.values()) requests.sort((a, b) => (b.finishedAt ?? 0) - (a.finishedAt ?? 0));
  return byGap;
}

/** An outcome record's request, when it has a gap (a file that is not one is skipped). */
function parseOutcome(bytes: Uint8Array | undefined): { gapId: string; request: GapRequest } | undefined {
  if (bytes === undefined) return undefined;
  let record: Partial<Record<keyof FollowUpOutcome, unknown>>;
  try {
    record = JSON.parse(new TextDecoder().decode(bytes)) as typeof record;
  } catch {
    return undefined;
  }
  if (typeof record.gap_id !== 'string' || typeof record.request_id !== 'string') return undefined;
  const finishedAt = typeof record.finished_at === 'string' ? Date.parse(record.finished_at) : Number.NaN;
  return {
    gapId: record.gap_id,
    request: {
      requestId: record.request_id,
      ...(typeof record.project_id === 'string' ? { projectId: record.project_id } : {}),
      state: 'done',
      ...(typeof record.status === 'string' ? { status: record.status as OutcomeStatus } : {}),
      ...(typeof record.job_id === 'string' ? { jobId: record.job_id } : {}),
      ...(typeof record.pr_link === 'string' ? { prLink: record.pr_link } : {}),
      ...(Number.isFinite(finishedAt) ? { finishedAt } : {}),
    },
  };
}

/**
 * The unfinished requests of each gap in the follow-up state (records with a `gapId` not yet
 * `done`: an outcome row stands for the finished ones), added before the finished ones.
 */
export async function addStateRequests(byGap: Map<string, GapRequest[]>, store: Pick<SharedStore, 'list'>): Promise<void> {
  for (const { value } of await store.list<FollowUpState>('')) {
    if (value?.gapId === undefined || value.phase === 'done') continue;
    const requests = byGap.get(value.gapId) ?? [];
    if (requests.some((r) => r.requestId === value.requestId)) continue;
    byGap.set(value.gapId, [{ requestId: value.requestId, state: 'in_flight', ...(value.jobId === undefined ? {} : { jobId: value.jobId }) }, ...requests]);
  }
}

function add(map: Map<string, GapRequest[]>, key: string, request: GapRequest): void {
  const list = map.get(key);
  if (list) list.push(request);
  else map.set(key, [request]);
}

/** DuckDB's type of each column type (the Parquet writer's types as DuckDB reads them). */
const DUCKDB_TYPES: Readonly<Record<ColumnType, string>> = {
  string: 'VARCHAR',
  int64: 'BIGINT',
  double: 'DOUBLE',
  date: 'DATE',
  timestamp_ms: 'TIMESTAMP',
  boolean: 'BOOLEAN',
  record_list: 'VARCHAR',
};

/** A view named after the table over `files` (union_by_name: older files lack newer columns), or an empty one of its columns. */
function viewSql(table: TableDef, files: readonly string[]): string {
  const body =
    files.length === 0
      ? `SELECT ${table.columns.map((c) => `NULL::${DUCKDB_TYPES[c.type]} AS ${c.name}`).join(', ')} WHERE false`
      : `SELECT * FROM read_parquet([${files.map(sqlString).join(', ')}], union_by_name = true)`;
  return `CREATE VIEW ${table.name} AS ${body}`;
}

/** The table's Parquet files of `days`: `<root>/<prefix>/dt=<day>/<projectId>.parquet`. */
async function tableFiles(root: string, table: TableDef, days: readonly string[]): Promise<{ projectId: string; path: string }[]> {
  const perDay = await Promise.all(
    days.map(async (day) => {
      const folder = path.join(root, table.prefix, `dt=${day}`);
      return (await list(folder))
        .filter((name) => name.endsWith('.parquet') && !name.startsWith('.'))
        .map((name) => ({ projectId: name.slice(0, -'.parquet'.length), path: path.join(folder, name) }));
    }),
  );
  return perDay.flat();
}

function gapQuery(file: string): string {
  return readFileSync(new URL(`../../queries/${file}`, import.meta.url), 'utf8');
}

/** One statement's rows; statements of a session run one at a time, in call order. */
export type Run = (sql: string) => Promise<Record<string, unknown>[]>;

async function openSession(): Promise<{ run: Run; close(): void }> {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  let queue: Promise<unknown> = Promise.resolve();
  const run: Run = (sql) => {
    const result = queue.then(() => rowsOf(connection, sql));
    queue = result.catch(() => undefined);
    return result;
  };
  return {
    run,
    close: () => {
      connection.closeSync();
      instance.closeSync();
    },
  };
}

async function rowsOf(connection: DuckDBConnection, sql: string): Promise<Record<string, unknown>[]> {
  const reader = await connection.runAndReadAll(sql);
  return reader.getRowObjectsJS().map((row) => {
    const plain: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(row)) plain[name] = typeof value === 'bigint' ? Number(value) : value;
    return plain;
  });
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

async function list(folder: string): Promise<string[]> {
  try {
    return await readdir(folder);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return [];
    throw error;
  }
}

function sqlString(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}
