/**
 * What `npm start` does (scripts/start.ts runs it on the process's io): the export of every dataset of every project into ./data (or
 * EXPORT_DESTINATION) — the last two weeks against the embedded sandbox when no
 * MINTLIFY_API_KEY is set (under a minute: docs/report.md; days already exported are skipped), the latest due day
 * (EXPORT_SETTLE_HOURS after it ends) against the real API — then a first look at
 * the result through DuckDB: what a docs team would ask the warehouse first (the summary
 * questions of queries/, the same SQL as the Athena saved queries), and the HTML report of the
 * week ending with the last day, compared with the week before (`mintlify-exporter report`).
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { main } from '../functions/cli.js';
import type { CliIo } from '../functions/cli/io.js';
import { lastDueDay } from '../functions/export/settle.js';
import { loadConfig } from '../functions/settings/config.js';
import { addDays, formatDay } from '../functions/shared/dates.js';
import { QUESTIONS, questionSql, tablesOf } from '../queries/questions.js';

/** Days `npm start` exports from the embedded sandbox: the report's week and the week before. */
export const FIRST_RUN_DAYS = 14;

/** Rows shown per question: a first look, not the whole answer. */
const SHOWN_ROWS = 8;

/** The summary questions of queries/ (the Athena saved queries' SQL, in DuckDB's dialect). */
async function showWarehouse(io: CliIo, dir: string): Promise<void> {
  // "The last 30 days" count back from the run's clock, not DuckDB's: the same run prints the same answers on any day.
  const today = formatDay(io.now());
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  try {
    for (const question of QUESTIONS.filter((q) => q.summary)) {
      if (!tablesOf(question).every((table) => existsSync(path.join(dir, table.prefix)))) continue;
      const reader = await connection.runAndReadAll(questionSql(question, 'duckdb', { root: dir }, { today }));
      const rows = reader.getRowsJson();
      const more = rows.length > SHOWN_ROWS ? `\n  … ${rows.length - SHOWN_ROWS} more` : '';
      io.stdout.write(`\n${question.name}\n${formatTable(reader.columnNames(), rows.slice(0, SHOWN_ROWS))}${more}\n`);
    }
    const glob = toSqlString(path.join(dir, 'visitors_pages', '*', '*.parquet'));
    io.stdout.write(
      `\nEvery day, from any DuckDB: SELECT dt, project_id, count(*) AS paths FROM read_parquet(${glob}, hive_partitioning = true, union_by_name = true) GROUP BY ALL ORDER BY ALL;\n`,
    );
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

/**
 * Runs `npm start` with `io` (its output, environment and clock): `extra` are the export's own
 * flags (`npm start -- --force`, --project, --dataset, --date, --out …), after the defaults so
 * that they win. Resolves with the exit code.
 */
export async function runStart(io: CliIo, extra: readonly string[]): Promise<number> {
  const out = flagValue(extra, '--out') ?? io.env.EXPORT_DESTINATION ?? './data';
  const to = flagValue(extra, '--to');
  /** A day is due EXPORT_SETTLE_HOURS after it ends: never export one still settling by default. A bad setting is said by the export itself. */
  const settleHours = (): number => {
    try {
      return loadConfig(io.env).settleHours;
    } catch {
      return 2;
    }
  };
  const day = flagValue(extra, '--date') ?? (to !== undefined ? addDays(to, -1) : lastDueDay(io.now(), settleHours()));
  const dated = extra.some((arg) => /^--(date|from|to)(=|$)/.test(arg));
  /**
   * Days exported when none are given: against the sandbox, the report's week and the week it is
   * compared with; against the real API, the latest due day only (the budget is the user's).
   */
  const firstRunDays = io.env.MINTLIFY_API_KEY?.trim() ? 1 : FIRST_RUN_DAYS;
  const code = await main(['export', ...(dated ? [] : ['--from', addDays(day, 1 - firstRunDays), '--to', addDays(day, 1)]), '--out', out, ...extra], io);

  if (code === 0 && !out.startsWith('s3://')) await showWarehouse(io, out);
  // Then the page a docs team looks at: the week ending with the day just exported (its path is printed).
  const reported = code === 0 ? await main(['report', '--from', addDays(day, -6), '--to', addDays(day, 1), '--out', out], io) : 0;
  return code === 0 ? reported : code;
}
