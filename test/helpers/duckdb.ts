/**
 * Reads Parquet back with DuckDB, the way a warehouse would, and returns plain JS values so
 * tests can compare with `toEqual`:
 * - DATE → `'YYYY-MM-DD'`
 * - TIMESTAMP / TIMESTAMP WITH TIME ZONE → ISO string (`'2026-01-31T02:00:00.000Z'`)
 * - BIGINT / HUGEINT → number (throws beyond 2^53 rather than rounding silently)
 * - VARCHAR, BOOLEAN, DOUBLE, INTEGER → as is; NULL → null
 *
 * Each call opens an in-memory DuckDB and closes it (a few ms), so tests stay independent.
 */
import { DuckDBInstance } from '@duckdb/node-api';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

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
