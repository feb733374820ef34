/**
 * Role: reading the warehouse back the way a warehouse would, with DuckDB. Plain JS values, so
 * tests compare with `toEqual`:
 * - DATE → `'YYYY-MM-DD'`
 * - TIMESTAMP / TIMESTAMP WITH TIME ZONE → ISO string (`'2026-01-31T02:00:00.000Z'`)
 * - BIGINT / HUGEINT → number (throws beyond 2^53 rather than rounding silently)
 * - VARCHAR, BOOLEAN, DOUBLE, INTEGER → as is; NULL → null
 *
 * Each query opens an in-memory DuckDB and closes it (a few ms), so tests stay independent.
 * Above the DuckDB primitives: one unit's tables, manifest and checkpoint, read through any
 * `Destination` (S3 included) or from a local folder, at the keys `layout.ts` writes out.
 */
import { DuckDBInstance } from '@duckdb/node-api';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'vitest';
import type { Checkpoint } from '../../functions/export/staging.js';
import type { Unit } from '../../functions/export/unit-id.js';
import type { Manifest } from '../../functions/export/manifest.js';
import type { DatasetName } from '../../functions/warehouse/catalog.js';
import type { Destination } from '../../functions/shared/storage/destination.js';
import { stagingPrefix } from '../../functions/warehouse/keys.js';
import { dayFiles, manifestKeyOf, tableKey, tableNames } from './layout.js';

export interface ParquetColumn {
  readonly name: string;
  /** DuckDB's type name, e.g. `VARCHAR`, `DATE`, `BIGINT`, `TIMESTAMP`. */
  readonly type: string;
}

export interface ParquetContents {
  readonly columns: ParquetColumn[];
  readonly rows: Record<string, unknown>[];
}

export interface ReadParquetOptions {
  /** Adds Hive partition columns (e.g. `dt`) from `key=value` folders. Default false. */
  readonly hivePartitioning?: boolean;
  /** Appended to the query, e.g. `ORDER BY path`. Default: file order. */
  readonly orderBy?: string;
}

/** Columns (from `DESCRIBE`) and rows of one Parquet file, or of every file a glob matches. */
export async function readParquet(pathOrGlob: string, options: ReadParquetOptions = {}): Promise<ParquetContents> {
  const source = `read_parquet(${sqlString(pathOrGlob)}${options.hivePartitioning ? ', hive_partitioning = true' : ''})`;
  return withDuckDb(async (run) => {
    const described = await run(`DESCRIBE SELECT * FROM ${source}`);
    const columns = described.map((row) => ({ name: String(row['column_name']), type: String(row['column_type']) }));
    const rows = await run(`SELECT * FROM ${source}${options.orderBy ? ` ORDER BY ${options.orderBy}` : ''}`);
    return { columns, rows };
  });
}

/** Like `readParquet`, for bytes fetched from elsewhere (e.g. S3 `GetObject`). */
export async function readParquetBytes(bytes: Uint8Array, options: ReadParquetOptions = {}): Promise<ParquetContents> {
  return withTempFile(bytes, (file) => readParquet(file, options));
}

export interface RowGroupInfo {
  readonly rowGroups: number;
  readonly rows: number;
}

/** How many row groups (and rows) a Parquet file has, from its footer. */
export async function parquetRowGroups(file: string): Promise<RowGroupInfo> {
  return withDuckDb(async (run) => {
    const [row] = await run(`SELECT num_row_groups, num_rows FROM parquet_file_metadata(${sqlString(file)})`);
    return { rowGroups: Number(row?.['num_row_groups'] ?? 0), rows: Number(row?.['num_rows'] ?? 0) };
  });
}

/** Runs any SQL (e.g. aggregates over `read_parquet('…/**\/*.parquet')`) and returns plain rows. */
export async function queryDuckDb(sql: string): Promise<Record<string, unknown>[]> {
  return withDuckDb((run) => run(sql));
}

// --- one unit ---------------------------------------------------------------------------------

/** A row as DuckDB reads it back. */
export type PlainRow = Record<string, unknown>;

/** Rows of each table of a unit, by table name. */
export type UnitTables = Record<string, PlainRow[]>;

/** The bytes of one table file of a unit, fetched through `destination`; fails naming the key when it is missing. */
async function tableBytes(destination: Destination, table: string, day: string, projectId: string): Promise<Uint8Array> {
  const key = tableKey(table, day, projectId);
  const bytes = await destination.get(key);
  if (bytes === undefined) throw new Error(`${key} is missing in ${destination.url}`);
  return bytes;
}

/** DuckDB's reading of one table file of a unit, fetched through `destination` (S3 or local). */
export async function readTable(destination: Destination, table: string, day: string, projectId: string): Promise<ParquetContents> {
  return readParquetBytes(await tableBytes(destination, table, day, projectId));
}

/** The unit's manifest, or undefined when it has none. */
export async function readManifest(destination: Destination, dataset: DatasetName, day: string, projectId: string): Promise<Manifest | undefined> {
  const bytes = await destination.get(manifestKeyOf(dataset, day, projectId));
  return bytes === undefined ? undefined : (JSON.parse(Buffer.from(bytes).toString('utf8')) as Manifest);
}

/** The checkpoint of a unit in a local destination, or undefined. */
export async function readCheckpointFile(root: string, unit: Unit): Promise<Checkpoint | undefined> {
  try {
    return JSON.parse(await readFile(path.join(root, stagingPrefix(unit.dataset, unit.day, unit.projectId), 'checkpoint.json'), 'utf8')) as Checkpoint;
  } catch {
    return undefined;
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

/** The tables of one unit read back through any destination (S3 included), without `exported_at`. */
export async function readUnitTables(destination: Destination, unit: Unit): Promise<UnitTables> {
  const tables: UnitTables = {};
  for (const table of tableNames(unit.dataset)) tables[table] = (await readTable(destination, table, unit.day, unit.projectId)).rows;
  return withoutRunColumns(tables);
}

/**
 * Reads an exported unit back and checks that its manifest describes exactly the table files
 * in place: one file per table of the dataset at its documented key, with the manifest's byte
 * size and row count (counted by DuckDB). Returns the manifest and the tables' rows (without
 * `exported_at`, checked to be there on every row).
 */
export async function readExportedUnit(destination: Destination, unit: Unit): Promise<{ readonly manifest: Manifest; readonly tables: UnitTables }> {
  const bytes = await destination.get(manifestKeyOf(unit.dataset, unit.day, unit.projectId));
  expect(bytes, `manifest of ${unit.dataset} ${unit.projectId} ${unit.day}`).toBeDefined();
  const manifest = JSON.parse(Buffer.from(bytes as Uint8Array).toString('utf8')) as Manifest;
  expect(manifest).toMatchObject({ dataset: unit.dataset, projectId: unit.projectId, date: unit.day });
  const tables = tableNames(unit.dataset);
  expect(Object.keys(manifest.files).sort()).toEqual([...tables].sort());
  const rows: UnitTables = {};
  for (const table of tables) {
    const key = tableKey(table, unit.day, unit.projectId);
    expect(manifest.files[table]).toBe(key);
    const file = await destination.get(key);
    expect(file, key).toBeDefined();
    expect(manifest.bytes[table], `bytes of ${key}`).toBe(file?.byteLength);
    rows[table] = (await readParquetBytes(file as Uint8Array)).rows;
    expect(manifest.rows[table], `rows of ${key}`).toBe(rows[table]?.length);
  }
  return { manifest, tables: withoutRunColumns(rows) };
}

/**
 * Every day of one dataset and project under a local destination, read with one DuckDB query
 * per table (a glob over the `dt=` folders, rows in file order): by day, then table name.
 */
export async function readLocalDays(root: string, dataset: DatasetName, projectId: string): Promise<Map<string, UnitTables>> {
  const days = new Map<string, UnitTables>();
  for (const table of tableNames(dataset)) {
    const glob = path.join(root, table, 'dt=*', `${projectId}.parquet`);
    const rows = await queryDuckDb(
      `SELECT * FROM read_parquet(${sqlString(glob)}, hive_partitioning = true, file_row_number = true) ORDER BY dt, file_row_number`,
    );
    for (const row of rows) {
      const day = String(row['dt']);
      const tables = days.get(day) ?? {};
      (tables[table] ??= []).push(row);
      days.set(day, tables);
    }
  }
  return new Map([...days].map(([day, tables]) => [day, withoutRunColumns(tables)]));
}

// --- one visitors day (the first dataset's tests) ---------------------------------------------

/** What DuckDB reads back from one exported visitors day. */
export interface ExportedDay {
  readonly pages: ParquetContents;
  readonly totals: ParquetContents;
}

/** Reads one exported day from a local destination by path (DuckDB adds the Hive column `dt`). */
export async function readLocalDay(root: string, projectId: string, day: string): Promise<ExportedDay> {
  const files = dayFiles(root, projectId, day);
  const [pages, totals] = await Promise.all([readParquet(files.pages), readParquet(files.totals)]);
  return { pages, totals };
}

/** Reads one exported day through any `Destination` (S3 included). */
export async function readDestinationDay(destination: Destination, projectId: string, day: string): Promise<ExportedDay> {
  return {
    pages: await readTable(destination, 'visitors_pages', day, projectId),
    totals: await readTable(destination, 'visitors_totals', day, projectId),
  };
}

type Run = (sql: string) => Promise<Record<string, unknown>[]>;

async function withDuckDb<T>(work: (run: Run) => Promise<T>): Promise<T> {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  try {
    return await work(async (sql) => {
      const reader = await connection.runAndReadAll(sql);
      const types = reader.columnTypes().map((type) => type.toString());
      const names = reader.columnNames();
      return reader.getRowObjectsJS().map((row) => {
        const plain: Record<string, unknown> = {};
        names.forEach((name, i) => {
          plain[name] = toPlain(row[name], types[i] ?? '');
        });
        return plain;
      });
    });
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

function toPlain(value: unknown, type: string): unknown {
  if (value === null || value === undefined) return null;
  if (type === 'DATE' && value instanceof Date) return value.toISOString().slice(0, 10);
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'bigint') {
    if (value > BigInt(Number.MAX_SAFE_INTEGER) || value < BigInt(Number.MIN_SAFE_INTEGER)) {
      throw new RangeError(`DuckDB returned ${value}, beyond the safe integer range: compare as bigint`);
    }
    return Number(value);
  }
  return value;
}

async function withTempFile<T>(bytes: Uint8Array, work: (file: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(path.join(tmpdir(), 'parquet-'));
  const file = path.join(dir, `${randomBytes(4).toString('hex')}.parquet`);
  try {
    await writeFile(file, bytes);
    return await work(file);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function sqlString(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}
