/**
 * `gaps`: the time `findGaps` takes to rank the content gaps of 90 days of the sandbox's three
 * projects (`proj_small`, `proj_medium`, `proj_large`), every gap kept (`--top` as large as the
 * gaps), and the CLI's time in a fresh process.
 *
 * The warehouse is built as bench/report.ts builds its own: three days of the tables gaps read
 * (assistant_conversations, searches, feedback) exported for real by the engine against the
 * sandbox, then cloned by DuckDB to 90 days, each clone a seed day's file with its `date`
 * rewritten. What gaps cost depends on the files and rows read, not on their values.
 */
import { DuckDBInstance } from '@duckdb/node-api';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { unitsOf } from '../functions/export/unit-id.js';
import { DEFAULT_TOP } from '../functions/cli/gaps.js';
import { findGaps } from '../functions/gaps/find.js';
import { GAP_TABLES } from '../functions/gaps/read.js';
import { DATASET_TABLES, type DatasetName } from '../functions/warehouse/catalog.js';
import { addDays } from '../functions/shared/dates.js';
import { createLocalDestination } from '../functions/shared/storage/destination-local.js';
import { partitionKey } from '../functions/warehouse/tables.js';
import { DEFAULT_PROJECTS } from '../sandbox/generators/projects.js';
import { startSandbox } from '../sandbox/index.js';
import { runCli } from './lib/cli.js';
import { createEngine } from './lib/engine.js';
import { info, judged, median, progress, repeat, timed, type BenchResult } from './lib/figures.js';
import { parseLakeTarget } from '../functions/warehouse/lake/target.js';

const DAYS = 90;
const SEED_DAYS = 3;
const RUNS = 3;
/** The last day: a fixed day, so runs compare. */
const LAST_DAY = '2026-09-30';
/** The datasets whose tables gaps read. */
const DATASETS: readonly DatasetName[] = ['assistant', 'searches', 'feedback'];

export async function benchGaps(): Promise<BenchResult> {
  const root = await mkdtemp(path.join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'mintlify-bench-gaps-'));
  try {
    const days = Array.from({ length: DAYS }, (_, i) => addDays(LAST_DAY, i + 1 - DAYS));
    const lake = await buildLake(root, days);

    progress('gaps: 90 days of three projects, in process');
    const cpuBefore = process.cpuUsage();
    const found = await repeat(RUNS, () => timed(() => findGaps({ target: parseLakeTarget(root, '--out'), days, projects: [], top: DEFAULT_TOP })));
    const cpu = process.cpuUsage(cpuBefore);
    const every = await repeat(RUNS, () => timed(() => findGaps({ target: parseLakeTarget(root, '--out'), days, projects: [] })));
    const total = every[0]?.result.gaps.length ?? 0;

    progress('gaps: the CLI in a fresh process');
    const cli = await timed(() => runCli(['gaps', '--from', days[0] as string, '--to', addDays(LAST_DAY, 1), '--out', root, '--json']));

    return {
      figures: {
        'gaps.90d.ms': judged(
          median(found.map((f) => f.ms)),
          'ms',
          '<=',
          2000,
          `findGaps, 3 projects × 90 days, the first ${DEFAULT_TOP} (the CLI's default), median of ${RUNS}`,
        ),
        'gaps.90d.cpu_ms': info(
          (cpu.user + cpu.system) / 1000 / RUNS,
          'ms',
          'CPU time of one run (every thread), mean: less sensitive than wall time to a busy machine',
        ),
        'gaps.90d.every_ms': info(median(every.map((f) => f.ms)), 'ms', `every gap ranked (no --top), median of ${RUNS}`),
        'gaps.90d.gaps': info(total, 'gaps', 'gaps found (every kind, every project)'),
        'gaps.90d.cli_ms': info(cli.ms, 'ms', 'mintlify-exporter gaps --json in a fresh node process (tsx, module loading included), once'),
        'gaps.lake.rows': info(lake.rows, 'rows', 'rows of the three tables gaps read'),
      },
      details: { gaps: { loadAverage: loadavg(), runsMs: found.map((f) => f.ms), everyMs: every.map((f) => f.ms), cliMs: cli.ms, files: lake.files } },
    };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

/** Exports the seed days for real, then clones them over the 90 days; returns what it wrote. */
async function buildLake(root: string, days: readonly string[]): Promise<{ readonly files: number; readonly rows: number }> {
  const seeds = days.slice(-SEED_DAYS);
  const projects = DEFAULT_PROJECTS.map((p) => p.id);
  progress(`gaps: exporting ${SEED_DAYS} seed days of ${projects.join(', ')}`);
  const sandbox = await startSandbox();
  try {
    const engine = createEngine({ apiUrl: sandbox.url, apiKey: sandbox.apiKey, destination: createLocalDestination(root) });
    for (const day of seeds) {
      const summary = await engine.run(unitsOf([day], projects, DATASETS));
      if (summary.completed !== projects.length * DATASETS.length) throw new Error(`seed day ${day}: ${summary.completed} unit(s) complete`);
    }
  } finally {
    await sandbox.close();
  }

  progress('gaps: cloning the seed days to 90 days with DuckDB');
  const read = new Set<string>(GAP_TABLES.map((table) => table.name));
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  let files = 0;
  try {
    for (const [index, day] of days.entries()) {
      if (seeds.includes(day)) continue;
      const seed = seeds[index % SEED_DAYS] as string;
      for (const dataset of DATASETS) {
        for (const table of DATASET_TABLES[dataset].filter((t) => read.has(t.name))) {
          for (const projectId of projects) {
            const source = path.join(root, partitionKey(table, seed, `${projectId}.parquet`));
            const target = path.join(root, partitionKey(table, day, `${projectId}.parquet`));
            await mkdir(path.dirname(target), { recursive: true });
            await connection.run(`COPY (SELECT * REPLACE (DATE '${day}' AS date) FROM read_parquet('${source}')) TO '${target}' (FORMAT parquet)`);
            files += 1;
          }
        }
      }
    }
    let rows = 0;
    for (const table of GAP_TABLES) {
      const reader = await connection.runAndReadAll(`SELECT count(*) AS n FROM read_parquet('${path.join(root, table.prefix, '*', '*.parquet')}')`);
      rows += Number(reader.getRowObjectsJS()[0]?.['n'] ?? 0);
    }
    return { files, rows };
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}
