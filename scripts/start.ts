/**
 * `npm start`: the export of yesterday — every dataset, every project — into ./data (or
 * EXPORT_DESTINATION), against the embedded sandbox when no MINTLIFY_API_KEY is set, then a
 * first look at the result through DuckDB: what a docs team would ask the warehouse first, and
 * the HTML report of the week ending with that day (`mintlify-exporter report`).
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { main, processIo } from '../functions/cli.js';
import { addDays, previousDay } from '../functions/shared/dates.js';


/** One question per dataset, each answered from that day's Parquet files. */
const QUESTIONS: readonly { readonly table: string; readonly title: string; readonly sql: (from: string) => string }[] = [
  {
    table: 'visitors_totals',
    title: 'Visitors: site totals, human vs AI',
    sql: (from) => `SELECT project_id, human, ai, total, pages AS paths,
        round(100.0 * ai / nullif(human + ai, 0), 1) AS ai_pct FROM ${from} ORDER BY project_id`,
  },
  {
    table: 'views_totals',
    title: 'Views: page views, human vs AI',
    sql: (from) => `SELECT project_id, human, ai, total,
        round(100.0 * ai / nullif(human + ai, 0), 1) AS ai_pct FROM ${from} ORDER BY project_id`,
  },
  {
    table: 'searches',
    title: 'Searches: the most frequent terms nobody clicked a result for',
    sql: (from) => `SELECT project_id, search_query, hits, ctr FROM ${from}
        WHERE top_clicked_page IS NULL OR ctr = 0 ORDER BY hits DESC, search_query LIMIT 8`,
  },
  {
    table: 'assistant_conversations',
    title: 'Assistant: unanswered questions by category',
    sql: (from) => `SELECT project_id, coalesce(query_category, '(none)') AS category, count(*) AS unanswered,
        min(query) AS example FROM ${from} WHERE resolution_status = 'unanswered'
        GROUP BY ALL ORDER BY unanswered DESC, category LIMIT 8`,
  },
  {
    table: 'feedback_by_page',
    title: 'Feedback: pages with the most thumbs down',
    sql: (from) => `SELECT project_id, path, thumbs_down, thumbs_up, code FROM ${from}
        ORDER BY thumbs_down DESC, path LIMIT 8`,
  },
  {
    table: 'feedback',
    title: 'Feedback: open items by source',
    sql: (from) => `SELECT project_id, source, count(*) AS items, count(comment) AS with_comment,
        count(*) FILTER (WHERE helpful = false) AS not_helpful FROM ${from}
        WHERE status IN ('pending', 'in_progress') GROUP BY ALL ORDER BY project_id, items DESC`,
  },
  {
    table: 'assistant_caller_stats',
    title: 'Assistant: who asks (docs site, API, other)',
    sql: (from) => `SELECT project_id, web, api, other, total FROM ${from} ORDER BY project_id`,
  },
];

async function showWarehouse(dir: string, date: string): Promise<void> {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  try {
    for (const question of QUESTIONS) {
      const folder = path.join(dir, question.table, `dt=${date}`);
      if (!existsSync(folder)) continue;
      const reader = await connection.runAndReadAll(question.sql(`read_parquet(${toSqlString(path.join(folder, '*.parquet'))})`));
      io.stdout.write(`\n${question.title}\n${formatTable(reader.columnNames(), reader.getRowsJson())}\n`);
    }
    const glob = toSqlString(path.join(dir, 'visitors_pages', '*', '*.parquet'));
    io.stdout.write(`\nEvery day, from any DuckDB: SELECT dt, project_id, count(*) AS paths FROM read_parquet(${glob}, hive_partitioning = true) GROUP BY ALL ORDER BY ALL;\n`);
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

function toSqlString(value: string): string {
  return `'${value.replace(/'/g, "''")}'`;
}

/** Cells cut to 48 characters, so long questions keep the table readable. */
function formatTable(columns: string[], rows: unknown[][]): string {
  if (rows.length === 0) return '  (no rows)';
  const clip = (value: unknown) => {
    const text = String(value).replace(/\s+/g, ' ');
    return text.length > 48 ? `${text.slice(0, 47)}…` : text;
  };
  const cells = [columns, ...rows.map((row) => row.map(clip))];
  const widths = columns.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  return cells.map((r) => `  ${r.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  ')}`).join('\n');
}

const io = processIo();
const out = io.env.EXPORT_DESTINATION ?? './data';
const day = previousDay(io.now());
const code = await main(['export', '--date', day, '--out', out], io);

if (code === 0 && !out.startsWith('s3://')) await showWarehouse(out, day);
// Then the page a docs team looks at: the week ending with the day just exported (its path is printed).
const reported = code === 0 ? await main(['report', '--from', addDays(day, -6), '--to', addDays(day, 1), '--out', out], io) : 0;
process.exitCode = code === 0 ? reported : code;
