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
    // From every feedback item: feedback_by_page keeps at most 100 pages a day.
    table: 'feedback',
    title: 'Feedback: pages with the most thumbs down',
    sql: (from) => `SELECT project_id, path, count_if(helpful = false) AS thumbs_down, count_if(helpful) AS thumbs_up
        FROM ${from} GROUP BY ALL HAVING thumbs_down > 0 ORDER BY thumbs_down DESC, path LIMIT 8`,
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
      const reader = await connection.runAndReadAll(question.sql(`read_parquet(${toSqlString(path.join(folder, '*.parquet'))}, union_by_name = true)`));
      io.stdout.write(`\n${question.title}\n${formatTable(reader.columnNames(), reader.getRowsJson())}\n`);
    }
    const glob = toSqlString(path.join(dir, 'visitors_pages', '*', '*.parquet'));
    io.stdout.write(`\nEvery day, from any DuckDB: SELECT dt, project_id, count(*) AS paths FROM read_parquet(${glob}, hive_partitioning = true, union_by_name = true) GROUP BY ALL ORDER BY ALL;\n`);
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

/** The value of the last `--name V` or `--name=V` among `args` (commander keeps the last one). */
function flagValue(args: readonly string[], name: string): string | undefined {
  let value: string | undefined;
  args.forEach((arg, i) => {
    if (arg === name) value = args[i + 1];
    else if (arg.startsWith(`${name}=`)) value = arg.slice(name.length + 1);
  });
  return value;
}

const io = processIo();
// `npm start -- --force` (or --project, --dataset, --date, --out …): the export's own flags,
// after the defaults so that they win.
const extra = process.argv.slice(2);
const out = flagValue(extra, '--out') ?? io.env.EXPORT_DESTINATION ?? './data';
const to = flagValue(extra, '--to');
const day = flagValue(extra, '--date') ?? (to !== undefined ? addDays(to, -1) : previousDay(io.now()));
const dated = extra.some((arg) => /^--(date|from|to)(=|$)/.test(arg));
const code = await main(['export', ...(dated ? [] : ['--date', day]), '--out', out, ...extra], io);

if (code === 0 && !out.startsWith('s3://')) await showWarehouse(out, day);
// Then the page a docs team looks at: the week ending with the day just exported (its path is printed).
const reported = code === 0 ? await main(['report', '--from', addDays(day, -6), '--to', addDays(day, 1), '--out', out], io) : 0;
process.exitCode = code === 0 ? reported : code;
