/**
 * Figure 3 — Parquet encoding. The project's writer (parquetjs-lite behind
 * functions/export/parquet.ts, fed by the visitors dataset's row conversion) side by side, in the same run, with hyparquet-writer
 * and with DuckDB (Appender load + `COPY … (FORMAT parquet)`, the practical upper bound), on
 * the same rows (the sandbox's own generator). Each writer's file is then read back by
 * DuckDB to check the warehouse sees the right column types.
 *
 * The goal ties encoding to the export: encoding a 20k-path day must take ≤ 10 % of
 * figure 2's wall time, i.e. it must hide behind the API's latency.
 */
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DuckDBInstance, DuckDBDateValue, DuckDBTimestampValue, type DuckDBConnection } from '@duckdb/node-api';
import { parquetWriteBuffer } from 'hyparquet-writer';
import type { PageVisitors } from '../functions/shared/api-types.js';
import type { PendingWrite } from '../functions/shared/storage/destination.js';
import { createLocalDestination } from '../functions/shared/storage/destination-local.js';
import { DATASET_SPECS, DATASETS, type RowContext } from '../functions/export/datasets.js';
import { openTableWriter } from '../functions/export/parquet.js';
import { createSandboxData } from '../sandbox/index.js';
import { info, judged, median, progress, repeat, timed, type BenchResult, type Figures } from './lib/figures.js';
import { nullPendingWrite } from './lib/null-destination.js';

const PROJECT = 'proj_bench';
const DAY = '2026-01-15';
const DAY_MS = Date.UTC(2026, 0, 15);
const EXPORTED_AT = new Date(Date.UTC(2026, 0, 16, 2, 0, 0));
/** Row counts, with repetitions (1M rows once: ~15 s for the project's writer). */
export const ENCODING_SIZES = [
  { rows: 10_000, runs: 5, label: '10k' },
  { rows: 100_000, runs: 3, label: '100k' },
  { rows: 1_000_000, runs: 1, label: '1M' },
] as const;
const GOAL_ROWS = 20_000;

/** The types a warehouse must see, in column order (docs/design.md §2.3), `unknown_fields` aside. */
const EXPECTED_TYPES = ['VARCHAR', 'DATE', 'VARCHAR', 'BIGINT', 'BIGINT', 'BIGINT', 'TIMESTAMP'];
/**
 * The project's file also ends with `unknown_fields` VARCHAR (null for these rows: the API
 * sent nothing unknown); the other writers' files, written for comparison, leave it out.
 */
const EXPECTED_TYPES_OF: Readonly<Record<string, readonly string[]>> = { project: [...EXPECTED_TYPES, 'VARCHAR'] };

/** `count` rows of a synthetic project, from the sandbox's generator (realistic paths and counts). */
export function sampleRows(count: number): PageVisitors[] {
  return createSandboxData({ seed: 42 }).rows('visitors', `proj_synth_${count}`, DAY);
}

const VISITORS = DATASETS.visitors;
const CONTEXT: RowContext = { projectId: PROJECT, date: DAY, exportedAt: EXPORTED_AT };

/**
 * The project's writer, rows converted and appended exactly as the engine does it
 * (functions/export/unit.ts: the dataset's `toRow`, one awaited `append` per row), by default
 * to a null sink.
 */
async function encodeProject(rows: readonly PageVisitors[], pending: PendingWrite = nullPendingWrite()): Promise<{ bytes: number }> {
  const writer = await openTableWriter(VISITORS.table, pending);
  for (const row of rows) await writer.append(DATASET_SPECS.visitors.toRow(row, CONTEXT));
  return { bytes: (await writer.close()).bytes };
}

/** hyparquet-writer: columns built from the same row objects (the transposition is timed). */
function encodeHyparquet(rows: readonly PageVisitors[]): Uint8Array {
  const n = rows.length;
  const projectIds = new Array<string>(n).fill(PROJECT);
  const dates = new Int32Array(n).fill(Math.floor(DAY_MS / 86_400_000));
  const paths = new Array<string>(n);
  const human = new BigInt64Array(n);
  const ai = new BigInt64Array(n);
  const total = new BigInt64Array(n);
  const exportedAt = new BigInt64Array(n).fill(BigInt(EXPORTED_AT.getTime()));
  for (let i = 0; i < n; i++) {
    const row = rows[i] as PageVisitors;
    paths[i] = row.path;
    human[i] = BigInt(row.human);
    ai[i] = BigInt(row.ai);
    total[i] = BigInt(row.total);
  }
  const required = { repetition_type: 'REQUIRED' } as const;
  const buffer = parquetWriteBuffer({
    columnData: [
      { name: 'project_id', data: projectIds, nullable: false },
      { name: 'date', data: dates, nullable: false },
      { name: 'path', data: paths, nullable: false },
      { name: 'human', data: human, nullable: false },
      { name: 'ai', data: ai, nullable: false },
      { name: 'total', data: total, nullable: false },
      { name: 'exported_at', data: exportedAt, nullable: false },
    ],
    schema: [
      { name: 'root', num_children: 7 },
      { name: 'project_id', type: 'BYTE_ARRAY', converted_type: 'UTF8', ...required },
      { name: 'date', type: 'INT32', converted_type: 'DATE', ...required },
      { name: 'path', type: 'BYTE_ARRAY', converted_type: 'UTF8', ...required },
      { name: 'human', type: 'INT64', ...required },
      { name: 'ai', type: 'INT64', ...required },
      { name: 'total', type: 'INT64', ...required },
      { name: 'exported_at', type: 'INT64', converted_type: 'TIMESTAMP_MILLIS', ...required },
    ],
  });
  return new Uint8Array(buffer);
}

/** DuckDB: Appender load, then COPY to a Parquet file; both timed. */
async function encodeDuckDb(
  connection: DuckDBConnection,
  rows: readonly PageVisitors[],
  file: string,
): Promise<{ loadMs: number; copyMs: number; bytes: number }> {
  await connection.run(
    'CREATE OR REPLACE TABLE pages (project_id VARCHAR, date DATE, path VARCHAR, human BIGINT, ai BIGINT, total BIGINT, exported_at TIMESTAMP)',
  );
  const date = new DuckDBDateValue(Math.floor(DAY_MS / 86_400_000));
  const exportedAt = new DuckDBTimestampValue(BigInt(EXPORTED_AT.getTime()) * 1000n);
  const load = await timed(async () => {
    const appender = await connection.createAppender('pages');
    for (const row of rows) {
      appender.appendVarchar(PROJECT);
      appender.appendDate(date);
      appender.appendVarchar(row.path);
      appender.appendBigInt(BigInt(row.human));
      appender.appendBigInt(BigInt(row.ai));
      appender.appendBigInt(BigInt(row.total));
      appender.appendTimestamp(exportedAt);
      appender.endRow();
    }
    appender.closeSync();
  });
  const copy = await timed(() => connection.run(`COPY pages TO '${file.replaceAll("'", "''")}' (FORMAT parquet)`));
  return { loadMs: load.ms, copyMs: copy.ms, bytes: (await stat(file)).size };
}

/** DuckDB's view of a file: column types in order and the row count. */
async function readBack(connection: DuckDBConnection, file: string): Promise<{ types: string[]; rows: number }> {
  const source = `read_parquet('${file.replaceAll("'", "''")}')`;
  const described = await connection.runAndReadAll(`DESCRIBE SELECT * FROM ${source}`);
  const types = described.getRowObjects().map((row) => String(row['column_type']));
  const counted = await connection.runAndReadAll(`SELECT count(*) AS n FROM ${source}`);
  return { types, rows: Number(counted.getRowObjects()[0]?.['n'] ?? 0) };
}

export async function benchEncoding(overheadWallMs: number): Promise<BenchResult> {
  const dir = await mkdtemp(path.join(tmpdir(), 'mintlify-bench-encoding-'));
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  const figures: Figures = {};
  const details: Record<string, unknown> = {};
  try {
    // Goal: encoding a 20k-path day vs the whole export of figure 2.
    const goalRows = sampleRows(GOAL_ROWS);
    await encodeProject(goalRows); // warm-up (JIT, module init)
    const goalSamples = await repeat(5, async () => (await timed(() => encodeProject(goalRows))).ms);
    const goalMs = median(goalSamples);
    figures['encoding.project.20k.ms'] = info(goalMs, 'ms', 'project writer, 20k rows, median of 5');
    figures['encoding.share_of_export'] = judged(
      goalMs / overheadWallMs,
      'ratio',
      '<=',
      0.1,
      `20k-row encoding ÷ figure-2 wall (${Math.round(overheadWallMs)} ms)`,
    );
    details['encoding.goal'] = { goalSamples, overheadWallMs };

    for (const { rows: count, runs, label } of ENCODING_SIZES) {
      progress(`encoding: ${label} rows × ${runs} runs, 3 writers`);
      const rows = sampleRows(count);
      const project: { ms: number; bytes: number }[] = [];
      const hyparquet: { ms: number; bytes: number }[] = [];
      const duckdb: { loadMs: number; copyMs: number; ms: number; bytes: number }[] = [];
      // Interleaved, so a noisy neighbour hurts all three alike.
      for (let run = 0; run < runs; run++) {
        const p = await timed(() => encodeProject(rows));
        project.push({ ms: p.ms, bytes: p.result.bytes });
        const h = await timed(async () => encodeHyparquet(rows));
        hyparquet.push({ ms: h.ms, bytes: h.result.byteLength });
        const d = await encodeDuckDb(connection, rows, path.join(dir, `duckdb-${label}-${run}.parquet`));
        duckdb.push({ ...d, ms: d.loadMs + d.copyMs });
      }
      const rate = (samples: { ms: number }[]) => count / (median(samples.map((s) => s.ms)) / 1000);
      const projectRate = rate(project);
      const hyparquetRate = rate(hyparquet);
      const duckdbRate = rate(duckdb);
      const bytes = (samples: { bytes: number }[]) => median(samples.map((s) => s.bytes));
      const note = `median of ${runs}`;
      figures[`encoding.project.${label}.rows_per_s`] = info(projectRate, 'rows/s', note);
      figures[`encoding.hyparquet.${label}.rows_per_s`] = info(hyparquetRate, 'rows/s', note);
      figures[`encoding.duckdb.${label}.rows_per_s`] = info(duckdbRate, 'rows/s', `Appender load + COPY, ${note}`);
      figures[`encoding.duckdb.${label}.copy_share`] = info(median(duckdb.map((d) => d.copyMs / d.ms)), 'ratio', 'COPY ÷ (load + COPY)');
      figures[`encoding.project_vs_hyparquet.${label}.speed`] = info(projectRate / hyparquetRate, 'ratio', 'rows/s, project ÷ hyparquet');
      figures[`encoding.project_vs_duckdb.${label}.speed`] = info(projectRate / duckdbRate, 'ratio', 'rows/s, project ÷ DuckDB');
      figures[`encoding.project.${label}.bytes`] = info(bytes(project), 'bytes');
      figures[`encoding.hyparquet.${label}.bytes`] = info(bytes(hyparquet), 'bytes');
      figures[`encoding.duckdb.${label}.bytes`] = info(bytes(duckdb), 'bytes');
      figures[`encoding.project_vs_duckdb.${label}.size`] = info(bytes(project) / bytes(duckdb), 'ratio', 'file bytes, project ÷ DuckDB');
      figures[`encoding.project_vs_hyparquet.${label}.size`] = info(bytes(project) / bytes(hyparquet), 'ratio', 'file bytes, project ÷ hyparquet');
      details[`encoding.${label}`] = { project, hyparquet, duckdb };
    }

    // Reader compatibility: what DuckDB (a warehouse reader) sees in each writer's file.
    const checkRows = sampleRows(10_000);
    await encodeProject(checkRows, await createLocalDestination(dir).openWrite('check-project.parquet'));
    const files = {
      project: path.join(dir, 'check-project.parquet'),
      hyparquet: path.join(dir, 'check-hyparquet.parquet'),
      duckdb: path.join(dir, 'check-duckdb.parquet'),
    };
    await writeFile(files.hyparquet, encodeHyparquet(checkRows));
    await encodeDuckDb(connection, checkRows, files.duckdb);
    for (const [writer, file] of Object.entries(files)) {
      const seen = await readBack(connection, file);
      const ok = seen.rows === checkRows.length && seen.types.join() === (EXPECTED_TYPES_OF[writer] ?? EXPECTED_TYPES).join();
      figures[`encoding.${writer}.duckdb_reads_types`] = judged(ok ? 1 : 0, 'bool', '==', 1, seen.types.join(' '));
      details[`encoding.readback.${writer}`] = seen;
    }
  } finally {
    connection.closeSync();
    instance.closeSync();
    await rm(dir, { recursive: true, force: true });
  }
  return { figures, details };
}
