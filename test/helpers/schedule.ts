/**
 * Helpers of the budget-schedule tests: what the sandbox's request log says about pacing and
 * paging (starts per window, pages fetched more than once), the expected warehouse rows of a
 * unit computed from `sandbox.data`, reading a unit's tables back with DuckDB (local globs or
 * any `Destination`), checking a manifest against the files it describes, the CLI in process
 * on a fake clock, and the CLI as a real child process.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { main, type CliIo } from '../../functions/cli.js';
import { DATASETS, tablesOf } from '../../functions/export/datasets.js';
import type { Checkpoint, Unit } from '../../functions/export/staging.js';
import type { Manifest } from '../../functions/export/unit.js';
import type { Destination } from '../../functions/shared/destination.js';
import type { Sleep } from '../../functions/shared/retry.js';
import { manifestKey, partitionKey, stagingPrefix } from '../../functions/shared/tables.js';
import type { SandboxData } from '../../sandbox/index.js';
import { queryDuckDb, readParquetBytes } from './duckdb.js';

/** The repository root, for child processes (`node --import tsx functions/cli.ts …`). */
export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

// --- expected rows ----------------------------------------------------------------------------

/** Datasets whose expected rows these helpers compute. */
export type CheckedDataset = 'visitors' | 'views' | 'searches' | 'assistant';

/** Rows of each table of a unit, without `exported_at`, by table name. */
export type UnitTables = Record<string, Record<string, unknown>[]>;

const iso = (text: string | null): string | null => (text === null ? null : new Date(Date.parse(text)).toISOString());

/** What a correct export of `unit` holds, computed from the sandbox's own data. */
export function expectedTables(data: SandboxData, unit: Unit & { readonly dataset: CheckedDataset }): UnitTables {
  const { projectId, day } = unit;
  // The sandbox sends no field this version does not know: `unknown_fields` is null.
  const base = { project_id: projectId, date: day, unknown_fields: null };
  switch (unit.dataset) {
    case 'visitors':
    case 'views': {
      const expected = data.day(unit.dataset, projectId, day);
      const prefix = unit.dataset;
      return {
        [`${prefix}_totals`]: [{ ...base, human: expected.totals.human, ai: expected.totals.ai, total: expected.totals.total, pages: expected.rows.length }],
        [`${prefix}_pages`]: expected.rows.map((row) => ({ ...base, path: row.path, human: row.human, ai: row.ai, total: row.total })),
      };
    }
    case 'searches': {
      const expected = data.day('searches', projectId, day);
      return {
        searches_totals: [{ ...base, total_searches: expected.totalSearches, terms: expected.rows.length }],
        searches: expected.rows.map((row) => ({
          ...base,
          search_query: row.searchQuery,
          hits: row.hits,
          ctr: row.ctr,
          top_clicked_page: row.topClickedPage,
          last_searched_at: iso(row.lastSearchedAt),
        })),
      };
    }
    case 'assistant':
      return {
        assistant_conversations: data.rows('assistant', projectId, day).map((row) => ({
          ...base,
          conversation_id: row.id,
          asked_at: iso(row.timestamp),
          query: row.query,
          response: row.response,
          response_type: row.responseType ?? 'answer',
          resolution_status: row.resolutionStatus,
          query_category: row.queryCategory,
          page_url: row.pageUrl,
          source_count: row.sources.length,
          sources_json: JSON.stringify(row.sources.map(({ title, url }) => ({ title, url }))),
        })),
      };
  }
}

/**
 * Strips `exported_at` (and DuckDB's `dt`, `file_row_number`) from rows read back, after
 * checking that every row carries one. A resumed unit's rows carry the time of the run that
 * fetched their page (export-resume-checks.test.ts), so a unit may hold several.
 */
function withoutRunColumns(tables: UnitTables): UnitTables {
  const stamps = new Set(Object.values(tables).flatMap((rows) => rows.map((row) => row['exported_at'])));
  for (const stamp of stamps) expect(typeof stamp, 'every row carries the exported_at of the run that fetched it').toBe('string');
  return Object.fromEntries(
    Object.entries(tables).map(([name, rows]) => [name, rows.map(({ exported_at: _e, dt: _dt, file_row_number: _n, ...rest }) => rest)]),
  );
}

/** The tables of one unit read back with DuckDB through any destination (S3 included). */
export async function readUnitTables(destination: Destination, unit: Unit): Promise<UnitTables> {
  const tables: UnitTables = {};
  for (const table of tablesOf(DATASETS[unit.dataset])) {
    const key = partitionKey(table, unit.day, `${unit.projectId}.parquet`);
    const bytes = await destination.get(key);
    if (bytes === undefined) throw new Error(`${key} is missing in ${destination.url}`);
    tables[table.name] = (await readParquetBytes(bytes)).rows;
  }
  return withoutRunColumns(tables);
}

/**
 * Every day of one dataset and project under a local destination, read with one DuckDB query
 * per table (a glob over the `dt=` folders, rows in file order): by day, then table name.
 */
export async function readLocalDays(root: string, dataset: CheckedDataset, projectId: string): Promise<Map<string, UnitTables>> {
  const days = new Map<string, UnitTables>();
  for (const table of tablesOf(DATASETS[dataset])) {
    const glob = path.join(root, table.prefix, 'dt=*', `${projectId}.parquet`).replaceAll("'", "''");
    const rows = await queryDuckDb(`SELECT * FROM read_parquet('${glob}', hive_partitioning = true, file_row_number = true) ORDER BY dt, file_row_number`);
    for (const row of rows) {
      const day = String(row['dt']);
      const tables = days.get(day) ?? {};
      (tables[table.name] ??= []).push(row);
      days.set(day, tables);
    }
  }
  return new Map([...days].map(([day, tables]) => [day, withoutRunColumns(tables)]));
}

// --- manifests and staging --------------------------------------------------------------------

/**
 * Reads an exported unit back and checks that its manifest describes exactly the table files
 * in place: one file per table of the dataset at its documented key, with the manifest's byte
 * size and row count (counted by DuckDB). Returns the manifest and the tables' rows (without
 * `exported_at`, checked to be one value for the whole unit).
 */
export async function readExportedUnit(destination: Destination, unit: Unit): Promise<{ readonly manifest: Manifest; readonly tables: UnitTables }> {
  const bytes = await destination.get(manifestKey(unit.dataset, unit.day, unit.projectId));
  expect(bytes, `manifest of ${unit.dataset} ${unit.projectId} ${unit.day}`).toBeDefined();
  const manifest = JSON.parse(Buffer.from(bytes as Uint8Array).toString('utf8')) as Manifest;
  expect(manifest).toMatchObject({ dataset: unit.dataset, projectId: unit.projectId, date: unit.day });
  const tables = tablesOf(DATASETS[unit.dataset]);
  expect(Object.keys(manifest.files).sort()).toEqual(tables.map((t) => t.name).sort());
  const rows: UnitTables = {};
  for (const table of tables) {
    const key = partitionKey(table, unit.day, `${unit.projectId}.parquet`);
    expect(manifest.files[table.name]).toBe(key);
    const file = await destination.get(key);
    expect(file, key).toBeDefined();
    expect(manifest.bytes[table.name], `bytes of ${key}`).toBe(file?.byteLength);
    rows[table.name] = (await readParquetBytes(file as Uint8Array)).rows;
    expect(manifest.rows[table.name], `rows of ${key}`).toBe(rows[table.name]?.length);
  }
  return { manifest, tables: withoutRunColumns(rows) };
}

/** The checkpoint of a unit in a local destination, or undefined. */
export async function readCheckpointFile(root: string, unit: Unit): Promise<Checkpoint | undefined> {
  try {
    return JSON.parse(await readFile(path.join(root, stagingPrefix(unit.dataset, unit.day, unit.projectId), 'checkpoint.json'), 'utf8')) as Checkpoint;
  } catch {
    return undefined;
  }
}

// --- the CLI ----------------------------------------------------------------------------------

export interface InProcessCli {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs `main(argv)` in this process with captured output, `env` as the whole environment, and
 * a clock (`now`, and `sleep` for the budget and retries: a fake one that advances `now`).
 */
export async function runCliInProcess(
  argv: readonly string[],
  options: {
    readonly env: Record<string, string | undefined>;
    readonly now: () => number;
    readonly sleep?: Sleep;
    readonly stopSignal?: Promise<void>;
    readonly extra?: object;
  },
): Promise<InProcessCli> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text), isTTY: false },
    env: options.env,
    now: options.now,
    stopSignal: options.stopSignal ?? new Promise<void>(() => undefined),
    ...(options.sleep ? { sleep: options.sleep } : {}),
    // Test hooks the export commands read (e.g. `clients` for an emulator's S3 client).
    ...options.extra,
  };
  const code = await main(argv, io);
  return { code, stdout, stderr };
}

export interface CliChild {
  readonly child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves when the process has exited. */
  readonly exited: Promise<{ readonly code: number | null; readonly signal: NodeJS.Signals | null }>;
}

/**
 * The real CLI in a child process: `node --import tsx functions/cli.ts <args>`, with `env` as
 * its whole environment (plus PATH), optionally as another user (`uid`, for permission tests).
 */
export function spawnCli(args: readonly string[], env: Record<string, string>, options: { readonly uid?: number; readonly gid?: number } = {}): CliChild {
  const child = spawn(process.execPath, ['--import', 'tsx', 'functions/cli.ts', ...args], {
    cwd: REPO_ROOT,
    env: { PATH: process.env['PATH'] ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(options.uid !== undefined ? { uid: options.uid } : {}),
    ...(options.gid !== undefined ? { gid: options.gid } : {}),
  });
  let out = '';
  let err = '';
  child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('close', (code, signal) => resolve({ code, signal }));
  });
  return { child, stdout: () => out, stderr: () => err, exited };
}

/** Polls `predicate` every few ms until it holds; throws naming `what` after `timeoutMs`. */
export async function waitUntil(predicate: () => boolean | Promise<boolean>, what: string, timeoutMs = 15_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > until) throw new Error(`timed out after ${timeoutMs} ms waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}
