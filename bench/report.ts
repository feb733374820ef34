/**
 * `report`: the time and weight of a 90-day HTML report over the sandbox's three projects
 * (`proj_small`, `proj_medium`, `proj_large`: 300, ~2,500 and 20,000 pages a day), side by side
 * with the time DuckDB alone takes for the same SQL over the same files.
 *
 * The warehouse: three days exported for real (the engine against the sandbox, every dataset,
 * local destination), then cloned by DuckDB to 180 days — the 90 days of the report and the 90
 * before it, which its headline compares with — each clone a seed day's file with its `date`
 * rewritten, and its manifest with its `date`; one run record per day in `export_runs`. The
 * report's cost depends on the files and rows it reads (1.8M `views_pages` rows, 1,890 unit
 * states), not on the values, so cloned days measure it as well as exported ones would, at a
 * fraction of the setup time.
 */
import { DuckDBInstance } from '@duckdb/node-api';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { unitsOf } from '../functions/export/unit-id.js';
import type { Period } from '../functions/warehouse/period.js';
import { periodOf, previousPeriod } from '../functions/warehouse/period.js';
import { loadWarehouse } from '../functions/warehouse/session.js';
import { localLake } from '../functions/warehouse/lake.js';
import { QUESTION_IDS, questionById, questionSql } from '../queries/questions.js';
import { buildReport } from '../functions/report/report.js';
import { DATASET_NAMES, DATASET_TABLES } from '../functions/warehouse/catalog.js';
import { addDays } from '../functions/shared/dates.js';
import { createLocalDestination } from '../functions/shared/storage/destination-local.js';
import { partitionKey } from '../functions/warehouse/tables.js';
import { manifestKey } from '../functions/warehouse/keys.js';
import { dayKey, LAYOUT } from '../functions/warehouse/lake/layout.js';
import { DEFAULT_PROJECTS } from '../sandbox/generators/projects.js';
import { startSandbox } from '../sandbox/index.js';
import { runCli } from './lib/cli.js';
import { createEngine } from './lib/engine.js';
import { info, judged, median, progress, repeat, timed, type BenchResult } from './lib/figures.js';
import { parseLakeTarget } from '../functions/warehouse/lake/target.js';

/** Days of the benchmarked report (the report function's benchmark reads the same lake). */
export const REPORT_DAYS = 90;
const SEED_DAYS = 3;
const RUNS = 3;
/** The last day of the report: a fixed day, so runs compare. */
export const LAST_DAY = '2026-09-30';

/** The REPORT_DAYS days to LAST_DAY. */
export function benchPeriod(): Period {
  return periodOf(addDays(LAST_DAY, 1 - REPORT_DAYS), addDays(LAST_DAY, 1));
}
/** Tables the report reads; the others are not cloned (it never opens them). */
const READ_TABLES = ['visitors_totals', 'views_totals', 'searches_totals', 'assistant_conversations', 'feedback', 'views_pages', 'searches'];

export async function benchReport(): Promise<BenchResult> {
  // A RAM-backed folder when there is one, as the memory benchmark: disk noise of a shared machine out.
  const root = await mkdtemp(path.join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'mintlify-bench-report-'));
  try {
    const period = benchPeriod();
    const lake = await buildLake(root, period);
    const now = () => Date.parse(`${period.to}T06:00:00Z`);

    progress('report: 90-day report, in process');
    const cpuBefore = process.cpuUsage();
    const builds = await repeat(RUNS, () => timed(() => buildReport({ target: parseLakeTarget(root, '--out'), period, projects: [] }, { now })));
    const cpu = process.cpuUsage(cpuBefore);
    const buildCpuMs = (cpu.user + cpu.system) / 1000 / RUNS;
    const html = builds[0]?.result.html ?? '';
    const bytes = Buffer.byteLength(html);

    progress('report: the same SQL, DuckDB alone');
    const projects = DEFAULT_PROJECTS.map((p) => p.id);
    const before = previousPeriod(period);
    // The report's figure questions; GapFigureByDay and GapRatesByDay are asked only of the gaps
    // fixes name (they join temporary tables of them, wanted_gaps and rate_gaps), and the
    // benchmark's lake has no fixes.
    const FIXES_ONLY: readonly string[] = [QUESTION_IDS.gapFigureByDay, QUESTION_IDS.gapRatesByDay];
    const figureIds = Object.values(QUESTION_IDS).filter((id) => !FIXES_ONLY.includes(id));
    const duckdb = await repeat(RUNS, () =>
      timed(async () => {
        const warehouse = await loadWarehouse(localLake(root), { days: [...before.days, ...period.days], projects });
        try {
          for (const id of figureIds) {
            for (const range of [period, before]) {
              await warehouse.session.query(
                questionSql(questionById(id), 'duckdb', { tables: warehouse.tables }, { from: range.from, to: range.to, projects }),
              );
            }
          }
        } finally {
          warehouse.close();
        }
      }),
    );

    progress('report: the CLI in a fresh process');
    const cli = await timed(() => runCli(['report', '--from', period.from, '--to', period.to, '--out', root, '--file', path.join(root, 'cli-report.html')]));

    const buildMs = median(builds.map((b) => b.ms));
    const duckdbMs = median(duckdb.map((d) => d.ms));
    return {
      figures: {
        'report.90d.build_ms': judged(buildMs, 'ms', '<=', 3000, `buildReport, 3 projects × 90 days (+90 compared), median of ${RUNS}`),
        'report.90d.bytes': judged(bytes, 'bytes', '<=', 1_000_000, 'the HTML file, charts inline'),
        'report.90d.build_cpu_ms': info(
          buildCpuMs,
          'ms',
          'CPU time of one build (every thread), mean of the runs: less sensitive than wall time to a busy machine',
        ),
        'report.90d.duckdb_ms': info(duckdbMs, 'ms', `the report's ${figureIds.length * 2} questions of queries/ alone on the same tables, median of ${RUNS}`),
        'report.90d.build_vs_duckdb': info(buildMs / duckdbMs, 'x', 'build time ÷ DuckDB-alone time (the rest: unit states, run log, charts, HTML)'),
        'report.90d.cli_ms': info(cli.ms, 'ms', 'mintlify-exporter report in a fresh node process (tsx, module loading included), once'),
        'report.lake.views_pages_rows': info(lake.viewsPagesRows, 'rows', 'rows the top-pages query scans'),
      },
      details: {
        report: {
          loadAverage: loadavg(),
          buildsMs: builds.map((b) => b.ms),
          duckdbMs: duckdb.map((d) => d.ms),
          cliMs: cli.ms,
          bytes,
          seedDays: SEED_DAYS,
          lakeFiles: lake.files,
        },
      },
    };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

/** Exports the seed days for real, then clones them over the 180 days; returns what it wrote. */
export async function buildLake(root: string, period: Period): Promise<{ readonly files: number; readonly viewsPagesRows: number }> {
  const previousFrom = addDays(period.from, -REPORT_DAYS);
  const allDays = Array.from({ length: REPORT_DAYS * 2 }, (_, i) => addDays(previousFrom, i));
  const seeds = allDays.slice(-SEED_DAYS);
  const projects = DEFAULT_PROJECTS.map((p) => p.id);

  progress(`report: exporting ${SEED_DAYS} seed days of ${projects.join(', ')}`);
  const sandbox = await startSandbox();
  const requestsBySeed = new Map<string, number>();
  try {
    const engine = createEngine({ apiUrl: sandbox.url, apiKey: sandbox.apiKey, destination: createLocalDestination(root) });
    for (const day of seeds) {
      const summary = await engine.run(unitsOf([day], projects, DATASET_NAMES));
      if (summary.completed !== projects.length * DATASET_NAMES.length) throw new Error(`seed day ${day}: ${summary.completed} unit(s) complete`);
      requestsBySeed.set(day, summary.requests);
    }
  } finally {
    await sandbox.close();
  }

  progress('report: cloning the seed days to 180 days with DuckDB');
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  let files = 0;
  try {
    for (const [index, day] of allDays.entries()) {
      const seed = seeds[index % SEED_DAYS] as string;
      if (seeds.includes(day)) continue;
      for (const dataset of DATASET_NAMES) {
        for (const projectId of projects) {
          for (const table of DATASET_TABLES[dataset]) {
            if (!READ_TABLES.includes(table.name)) continue;
            const source = path.join(root, partitionKey(table, seed, `${projectId}.parquet`));
            const target = path.join(root, partitionKey(table, day, `${projectId}.parquet`));
            await mkdir(path.dirname(target), { recursive: true });
            await connection.run(`COPY (SELECT * REPLACE (DATE '${day}' AS date) FROM read_parquet('${source}')) TO '${target}' (FORMAT parquet)`);
            files += 1;
          }
          const manifest = JSON.parse(await readFile(path.join(root, manifestKey(dataset, seed, projectId)), 'utf8')) as Record<string, unknown>;
          const target = path.join(root, manifestKey(dataset, day, projectId));
          await mkdir(path.dirname(target), { recursive: true });
          await writeFile(target, JSON.stringify({ ...manifest, date: day, window: { dateFrom: day, dateTo: addDays(day, 1) } }));
        }
      }
      const run = {
        run_id: `${day}T02-05-00Z-bench000`,
        trigger: 'schedule',
        started_at: `${addDays(day, 1)}T02:05:00.000Z`,
        requests: requestsBySeed.get(seed) ?? 0,
        units_failed: 0,
      };
      const runFile = path.join(root, dayKey(LAYOUT.runs.folder, addDays(day, 1), `${run.run_id}.json`));
      await mkdir(path.dirname(runFile), { recursive: true });
      await writeFile(runFile, `${JSON.stringify(run)}\n`);
    }
    const reader = await connection.runAndReadAll(
      `SELECT count(*) AS n FROM read_parquet('${path.join(root, 'views_pages', '*', '*.parquet')}') WHERE date >= DATE '${period.from}'`,
    );
    return { files, viewsPagesRows: Number(reader.getRowObjectsJS()[0]?.['n'] ?? 0) };
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}
