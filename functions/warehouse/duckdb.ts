/**
 * The one DuckDB session of the project and its type map, beside the table definitions
 * (tables.ts): the report, `gaps`, the weekly report function and the column reference read
 * the warehouse through here.
 *
 * A session reads a warehouse laid out in a local folder (an `s3://` one is mirrored first:
 * DuckDB's `httpfs` is downloaded at run time, which neither CI nor a locked-down machine
 * allows). Its files are named relative to that folder through DuckDB's `file_search_path`,
 * and only ever as an explicit list of names built from days and validated project ids: a
 * stray `proj*.parquet` or a folder named `data[1]` is never read as a glob.
 */
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { fileList, sqlString } from './sql.js';
import { rootOf } from './lake/layout.js';
import type { ColumnDef, ScalarColumnType, TableDef } from './table-def.js';

const ROLLUPS_ROOT = rootOf('rollups');

/** How DuckDB reads each scalar column type back from Parquet (Athena: string, date, bigint, double, timestamp, boolean). */
export const DUCKDB_TYPES: Readonly<Record<ScalarColumnType, string>> = {
  string: 'VARCHAR',
  date: 'DATE',
  int64: 'BIGINT',
  double: 'DOUBLE',
  timestamp_ms: 'TIMESTAMP',
  boolean: 'BOOLEAN',
};

/** The type of `column` as DuckDB reads it: a `record_list` (JSON tables) is a list of structs. */
export function duckDbType(column: ColumnDef): string {
  if (column.type !== 'record_list') return DUCKDB_TYPES[column.type];
  return `STRUCT(${(column.fields ?? []).map((field) => `${field.name} ${DUCKDB_TYPES[field.type]}`).join(', ')})[]`;
}

/** A row as plain JavaScript: BIGINT as number (counts stay far below 2^53), dates as DuckDB gives them. */
export type Row = Record<string, unknown>;

export interface DuckDbSession {
  /** Runs one statement and returns its rows; statements run one at a time, in call order. */
  query(sql: string): Promise<Row[]>;
  /** Runs one statement that returns nothing worth reading. */
  run(sql: string): Promise<void>;
  /**
   * Runs one statement and hands its rows over a chunk (about 2,048 rows) at a time, none kept:
   * a question of hundreds of thousands of rows (each question of a day, gaps/read.ts) costs one
   * chunk of memory, not all of its rows twice over.
   */
  each(sql: string, onRows: (rows: readonly Row[]) => void): Promise<void>;
  close(): void;
}

export interface DuckDbOptions {
  /** The folder relative file names are read from (the warehouse's root). */
  readonly root?: string;
  /**
   * Where DuckDB may write temporary files and look for extensions: its default is under
   * `$HOME`, which is read-only in Lambda (use `/tmp` there). @default DuckDB's
   */
  readonly tempDirectory?: string;
  /**
   * Threads DuckDB runs a statement on: each holds its own share of a grouping's hash table
   * (one thread: a day of 200,000 distinct questions grouped costs about 20 MB less). @default DuckDB's (the cores)
   */
  readonly threads?: number;
  /**
   * DuckDB's memory (`memory_limit`, MB): past it DuckDB spills to `tempDirectory` instead of
   * growing. @default in Lambda {@link LAMBDA_DUCKDB_SHARE} of the function's memory, else DuckDB's (80 % of the machine's RAM)
   */
  readonly memoryLimitMb?: number;
}

/**
 * DuckDB's share of a Lambda function's memory: the rest is Node's (the report's page and
 * charts, the SDK). Without a limit DuckDB sizes itself by the machine, not by the function, and
 * a year of twenty projects' tables (2.1–2.4 GB unlimited, bench/README.md) would end the
 * invocation instead of spilling to `/tmp`.
 */
export const LAMBDA_DUCKDB_SHARE = 0.5;

/** Sessions opened by this process: each spills into a folder of its own (two instances' temp files in one folder would collide). */
let sessionsOpened = 0;

/**
 * What openDuckDb sets by default where it runs: in Lambda (the runtime's
 * `AWS_LAMBDA_FUNCTION_MEMORY_SIZE`, MB) a `memory_limit` of {@link LAMBDA_DUCKDB_SHARE} of it and
 * a temp folder of the session's own under the writable tmpdir to spill to; elsewhere nothing.
 */
export function duckDbDefaults(env: Readonly<Record<string, string | undefined>> = process.env): Pick<DuckDbOptions, 'memoryLimitMb' | 'tempDirectory'> {
  const functionMb = Number(env['AWS_LAMBDA_FUNCTION_MEMORY_SIZE']);
  if (!Number.isInteger(functionMb) || functionMb <= 0) return {};
  sessionsOpened += 1;
  return { memoryLimitMb: Math.floor(functionMb * LAMBDA_DUCKDB_SHARE), tempDirectory: path.join(tmpdir(), `duckdb-${process.pid}-${sessionsOpened}`) };
}

/**
 * Starts loading DuckDB's module without waiting for it: about 0.3 s of the main thread, which a
 * reader that waits on the network first (the report mirroring an `s3://` lake) spends while it
 * waits; `openDuckDb` then finds it loaded. A failure to load is `openDuckDb`'s to report.
 */
export function preloadDuckDb(): void {
  import('@duckdb/node-api').catch(() => undefined);
}

/** An in-memory DuckDB over the warehouse folder `options.root`. */
export async function openDuckDb(given: DuckDbOptions = {}): Promise<DuckDbSession> {
  const options: DuckDbOptions = { ...duckDbDefaults(), ...given };
  // Loaded here, not at the top: the CLI's commands that read no warehouse (export above all)
  // start without DuckDB's native module.
  const { DuckDBInstance, JSDuckDBValueConverter } = await import('@duckdb/node-api');
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  const close = () => {
    connection.closeSync();
    instance.closeSync();
  };
  try {
    // Every query that needs an order says it: DuckDB may load and aggregate in any order.
    await connection.run('SET preserve_insertion_order = false');
    if (options.threads !== undefined) await connection.run(`SET threads = ${Math.max(1, Math.floor(options.threads))}`);
    if (options.memoryLimitMb !== undefined) await connection.run(`SET memory_limit = '${Math.max(64, Math.floor(options.memoryLimitMb))}MB'`);
    if (options.root !== undefined) await connection.run(`SET file_search_path = ${sqlString(options.root)}`);
    if (options.tempDirectory !== undefined) {
      await connection.run(`SET temp_directory = ${sqlString(options.tempDirectory)}`);
      await connection.run(`SET home_directory = ${sqlString(options.tempDirectory)}`);
    }
  } catch (error) {
    close();
    throw error;
  }
  // One connection runs one statement at a time: queue them, so callers may use Promise.all.
  let queue: Promise<unknown> = Promise.resolve();
  const enqueue = <T>(work: () => Promise<T>): Promise<T> => {
    const result = queue.then(work);
    queue = result.catch(() => undefined);
    return result;
  };
  return {
    query: (sql) => enqueue(() => queryRows(connection, sql)),
    each: (sql, onRows) =>
      enqueue(async () => {
        const result = await connection.stream(sql);
        const names = result.deduplicatedColumnNames();
        for (let chunk = await result.fetchChunk(); chunk !== null && chunk.rowCount > 0; chunk = await result.fetchChunk()) {
          // Converted by column, then one object per row, BIGINT as number (no entries nor copies: a
          // day of 200,000 rows made ten small objects each). The same values as `convertRows`, for
          // less CPU: 600,000 questions of gaps/bank.ts took 1.4–1.8 s against 1.8–2.4 s by row.
          const columns = names.map((_, i) => chunk.convertColumnValues(i, JSDuckDBValueConverter));
          const rows: Row[] = [];
          for (let r = 0; r < chunk.rowCount; r += 1) {
            const row: Row = {};
            for (let i = 0; i < names.length; i += 1) row[names[i] as string] = plainValue(columns[i]?.[r]);
            rows.push(row);
          }
          onRows(rows);
        }
      }),
    run: (sql) => enqueue(async () => void (await connection.run(sql))),
    close,
  };
}

async function queryRows(connection: DuckDBConnection, sql: string): Promise<Row[]> {
  const reader = await connection.runAndReadAll(sql);
  return plainRows(reader.getRowObjectsJS());
}

/** Rows with BIGINT as number. */
function plainRows(rows: readonly Record<string, unknown>[]): Row[] {
  return rows.map((row) => {
    const plain: Row = {};
    for (const [name, value] of Object.entries(row)) plain[name] = plainValue(value);
    return plain;
  });
}

/** A value with BIGINT as number. */
function plainValue(value: unknown): unknown {
  return typeof value === 'bigint' ? Number(value) : value;
}

/**
 * `read_parquet([...])` of `files` (relative to the session's root), with `dt` from the
 * `dt=` folder as text (as in Glue) and older files' missing columns as nulls. A monthly
 * roll-up among them (warehouse/lake/rollups.ts) holds every project of its month: only the
 * rows of the projects `scopes` names for it are read (lake/files.ts `rollupScopes`, by its key
 * relative to the lake or the end of its path).
 * @throws Error for a roll-up `scopes` does not name (a caller's bug: it would read every project).
 */
export function parquetFiles(files: readonly string[], scopes: ReadonlyMap<string, readonly string[]> = new Map()): string {
  // A monthly roll-up holds `dt` as a column, not in its path.
  const rollups = files.filter(isRollup);
  const days = `read_parquet(${fileList(files.filter((file) => !isRollup(file)))}, hive_partitioning = true, hive_types_autocast = false, union_by_name = true)`;
  if (rollups.length === 0) return days;
  const groups = new Map<string, string[]>();
  for (const file of rollups) {
    const projects = [...scopes].find(([key]) => file === key || file.endsWith(`/${key}`))?.[1];
    if (projects === undefined || projects.length === 0) throw new Error(`refused to read the roll-up ${file} without the projects to keep of it`);
    const name = [...projects].sort().map(sqlString).join(', ');
    groups.set(name, [...(groups.get(name) ?? []), file]);
  }
  // `list_contains`, not `IN`: DuckDB turns an `IN` of many names into a join of every row with
  // the list (a year of twenty projects' views_pages: 26.8M rows, about a quarter of its top pages' CPU).
  const months = [...groups].map(
    ([projects, group]) =>
      `SELECT * FROM read_parquet(${fileList(group)}, hive_partitioning = false, union_by_name = true) WHERE list_contains([${projects}], project_id)`,
  );
  // `dt || ''`: DuckDB 1.5 fails to unite the statistics of a partition's constant `dt` with a
  // file's `dt` column ("Unsupported type for NumericValueUnionToValue"); an expression has none.
  const parts = rollups.length === files.length ? months : [`SELECT * REPLACE (dt || '' AS dt) FROM ${days}`, ...months];
  return `(${parts.join(' UNION ALL BY NAME ')})`;
}

/** A roll-up's key (`_rollups/…`, lake/layout.ts), relative to the lake or inside a path. */
function isRollup(file: string): boolean {
  return file.startsWith(ROLLUPS_ROOT) || file.includes(`/${ROLLUPS_ROOT}`);
}

/** An empty relation with `columns` of `table` (and `dt`), for a table with no file: every query runs the same on a lake with gaps. */
export function emptyRelation(table: TableDef, columns: readonly string[]): string {
  const defs = columns.map((name) => {
    const column = table.columns.find((c) => c.name === name);
    return `NULL::${column ? duckDbType(column) : 'VARCHAR'} AS ${name}`;
  });
  return `(SELECT ${[...defs, 'NULL::VARCHAR AS dt'].join(', ')} WHERE false)`;
}
