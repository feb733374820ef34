/**
 * `npm start`: the nightly export of yesterday into ./data (or EXPORT_DESTINATION), against
 * the embedded sandbox when no MINTLIFY_API_KEY is set, then a look at the result through
 * DuckDB — what the warehouse will see.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { main, processIo } from '../functions/cli.js';
import { previousDay } from '../functions/shared/dates.js';

const io = processIo();
const out = io.env.EXPORT_DESTINATION ?? './data';
const day = previousDay(io.now());
const code = await main(['export', '--date', day, '--out', out], io);

if (code === 0 && !out.startsWith('s3://') && existsSync(path.join(out, 'visitors_pages', `dt=${day}`))) {
  await showWarehouse(out, day);
}
process.exitCode = code;

async function showWarehouse(dir: string, date: string): Promise<void> {
  const pages = toSqlString(path.join(dir, 'visitors_pages', `dt=${date}`, '*.parquet'));
  const totals = toSqlString(path.join(dir, 'visitors_totals', `dt=${date}`, '*.parquet'));
  const queries: [string, string][] = [
    [
      'Site totals, human vs AI',
      `SELECT project_id, date, human, ai, total, pages,
              round(100.0 * ai / nullif(human + ai, 0), 1) AS ai_share_pct
         FROM read_parquet(${totals}) ORDER BY project_id`,
    ],
    [
      'Top pages by visitors',
      `SELECT project_id, path, total, human, ai
         FROM read_parquet(${pages}) ORDER BY total DESC, path LIMIT 10`,
    ],
  ];
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  try {
    for (const [title, sql] of queries) {
      const reader = await connection.runAndReadAll(sql);
      io.stdout.write(`\n${title}  (DuckDB: ${sql.replace(/\s+/g, ' ')})\n`);
      io.stdout.write(`${formatTable(reader.columnNames(), reader.getRowsJson())}\n`);
    }
    const glob = toSqlString(path.join(dir, 'visitors_pages', '*', '*.parquet'));
    io.stdout.write(`\nEvery day, from any DuckDB: SELECT dt, project_id, count(*) AS pages FROM read_parquet(${glob}, hive_partitioning = true) GROUP BY ALL ORDER BY ALL;\n`);
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

function toSqlString(value: string): string {
  return `'${value.replace(/'/g, "''")}'`;
}

function formatTable(columns: string[], rows: unknown[][]): string {
  const cells = [columns, ...rows.map((row) => row.map((v) => String(v)))];
  const widths = columns.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  return cells.map((r) => r.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  ')).join('\n');
}
