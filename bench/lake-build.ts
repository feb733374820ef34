/**
 * `lake-build` (issue 50): the time, CPU and peak memory of building one month's roll-ups of a
 * lake of 20 projects × every dataset with `compactLake`, the goal ≤ 10 s.
 *
 * The lake: three days exported for real (the engine against the sandbox, every dataset, the
 * sandbox's three projects, into a folder of seeds), then cloned by DuckDB to every day of one
 * month for 20 projects — project n a clone of the sandbox's project n mod 3 under its own id,
 * day d of seed day d mod 3, each clone its seed's rows with `date` and `project_id` rewritten,
 * and each manifest its seed's with its day, project, files and bytes — and the month's index
 * of units brought up to date as the export leaves it. A roll-up's cost is the files and rows it
 * reads and writes, not their values, so clones measure it as exported days would.
 *
 * The build runs in a child process (this file again, `--child`), so its CPU time and peak RSS
 * are the build's alone, as an export function holds it; the destination is wrapped to time its
 * reads and writes by kind of key (what the build waits on besides DuckDB), and the same child
 * runs `compactLake` a second time over the built month (every roll-up kept: the cost of
 * checking) and times DuckDB's instance start alone (the build opens one per lane, at most two,
 * and reuses it from one roll-up to the next).
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { DuckDBInstance } from '@duckdb/node-api';
import { addDays } from '../functions/shared/dates.js';
import type { Destination } from '../functions/shared/storage/destination.js';
import { openTarget } from '../functions/shared/storage/destinations.js';
import { DATASET_NAMES } from '../functions/warehouse/catalog.js';
import { compactLake } from '../functions/warehouse/lake/rollups.js';
import { readUnitIndexes } from '../functions/warehouse/lake/unit-index.js';
import { DEFAULT_PROJECTS } from '../sandbox/generators/projects.js';
import { cloneDays, exportSeeds } from './lib/lake-clone.js';
import { info, judged, progress, type BenchResult } from './lib/figures.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../', import.meta.url));
const SELF = fileURLToPath(import.meta.url);
/** The month built: a fixed one, so runs compare. */
const MONTH = '2026-09';
const FROM = `${MONTH}-01`;
const TO = '2026-10-01';
const PROJECTS = 20;
const SEED_DAYS = [FROM, addDays(FROM, 1), addDays(FROM, 2)] as const;
/** DuckDB instances started alone in the child: what a lane's opening costs the build. */
const INSTANCE_STARTS = 20;

/** What the child measures. */
interface ChildOutput {
  readonly buildMs: number;
  readonly buildCpuMs: number;
  readonly counts: Record<string, unknown>;
  /** Calls and milliseconds waited on the destination during the build, by method and kind of key. */
  readonly io: Record<string, { calls: number; ms: number; bytes: number }>;
  readonly recheckMs: number;
  readonly recheckCounts: Record<string, unknown>;
  readonly instanceStartMs: number;
  readonly instanceStartCpuMs: number;
  /** Wall time from one roll-up written to the next (its days read, DuckDB, its write), by the seed project its project clones. */
  readonly rollupMsBySource: Record<string, { count: number; meanMs: number }>;
  readonly maxRssKiB: number;
}

function kindOfKey(key: string): string {
  if (key.includes('_rollups/')) return key.endsWith('.json') ? 'rollup records' : 'roll-ups';
  if (key.includes('_index/')) return 'indexes';
  if (key.includes('_manifests/')) return 'manifests';
  return 'day files';
}

/**
 * `destination` with each call timed into `io` (by method and kind of key): every member is
 * forwarded, so the build sees the destination it would see.
 */
function timedDestination(destination: Destination, io: ChildOutput['io'], rollupsPut: { key: string; at: number }[]): Destination {
  const timedMethods = new Set(['get', 'put', 'delete', 'list', 'listModified', 'exists']);
  return new Proxy(destination, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (typeof value !== 'function' || typeof property !== 'string' || !timedMethods.has(property)) return value;
      return async (...args: unknown[]) => {
        const started = performance.now();
        const result = (await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args)) as unknown;
        const kind = kindOfKey(String(args[0]));
        if (property === 'put' && kind === 'roll-ups') rollupsPut.push({ key: String(args[0]), at: performance.now() });
        const entry = `${property} ${kind}`;
        const slot = (io[entry] ??= { calls: 0, ms: 0, bytes: 0 });
        slot.calls += 1;
        slot.ms += performance.now() - started;
        const body = property === 'put' ? args[1] : result;
        if (body instanceof Uint8Array) slot.bytes += body.byteLength;
        else if (typeof body === 'string') slot.bytes += Buffer.byteLength(body);
        return result;
      };
    },
  });
}

/** The child: the month built once (timed, profiled), then checked again, then DuckDB's start alone. */
async function child(lake: string, projects: readonly string[]): Promise<ChildOutput> {
  const io: ChildOutput['io'] = {};
  const rollupsPut: { key: string; at: number }[] = [];
  const destination = timedDestination(openTarget({ kind: 'local', dir: lake }), io, rollupsPut);
  const options = { from: FROM, to: TO, projects: new Set(projects) };
  const cpu = process.cpuUsage();
  const started = performance.now();
  const counts = await compactLake(destination, options);
  const buildMs = performance.now() - started;
  const used = process.cpuUsage(cpu);
  const maxRssKiB = process.resourceUsage().maxRSS;
  const recheckStarted = performance.now();
  const recheckCounts = await compactLake(openTarget({ kind: 'local', dir: lake }), options);
  const recheckMs = performance.now() - recheckStarted;
  const instanceStarted = performance.now();
  const instanceCpu = process.cpuUsage();
  for (let i = 0; i < INSTANCE_STARTS; i++) {
    const instance = await DuckDBInstance.create(':memory:');
    const connection = await instance.connect();
    await connection.run('SELECT 1');
    connection.closeSync();
    instance.closeSync();
  }
  const instanceStartMs = (performance.now() - instanceStarted) / INSTANCE_STARTS;
  const startCpu = process.cpuUsage(instanceCpu);
  // Each roll-up's cycle (the gap since the previous roll-up was written), by its project's seed:
  // a cost that does not grow with the rows is the same for the three.
  const sources = DEFAULT_PROJECTS.map((p) => p.id);
  const bySource: Record<string, { count: number; totalMs: number }> = {};
  rollupsPut.forEach(({ key, at }, i) => {
    if (i === 0) return;
    const n = projects.findIndex((projectId) => key.includes(projectId));
    const source = n < 0 ? 'every project' : (sources[n % sources.length] as string);
    const slot = (bySource[source] ??= { count: 0, totalMs: 0 });
    slot.count += 1;
    slot.totalMs += at - (rollupsPut[i - 1]?.at ?? at);
  });
  return {
    buildMs,
    buildCpuMs: (used.user + used.system) / 1000,
    counts: { ...counts },
    io,
    recheckMs,
    recheckCounts: { ...recheckCounts },
    instanceStartMs,
    instanceStartCpuMs: (startCpu.user + startCpu.system) / 1000 / INSTANCE_STARTS,
    rollupMsBySource: Object.fromEntries(Object.entries(bySource).map(([source, { count, totalMs }]) => [source, { count, meanMs: totalMs / count }])),
    maxRssKiB,
  };
}

export async function benchLakeBuild(): Promise<BenchResult> {
  const root = await mkdtemp(path.join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'mintlify-bench-lake-build-'));
  const seeds = path.join(root, 'seeds');
  const lake = path.join(root, 'lake');
  const projects = Array.from({ length: PROJECTS }, (_, n) => `proj_build_${String(n + 1).padStart(2, '0')}`);
  try {
    await exportSeeds(seeds, SEED_DAYS, 'lake-build');
    const days = Array.from({ length: 30 }, (_, i) => addDays(FROM, i));
    const cloned = await cloneDays(seeds, lake, { projects, days, seedDays: SEED_DAYS, label: 'lake-build' });
    progress('lake-build: the month’s index of units, as the export leaves it');
    const indexStarted = performance.now();
    const destination = openTarget({ kind: 'local', dir: lake });
    for (const dataset of DATASET_NAMES) await readUnitIndexes(destination, dataset, [MONTH], { keep: true });
    const indexMs = performance.now() - indexStarted;

    progress(`lake-build: compactLake over ${MONTH}, ${PROJECTS} projects × ${DATASET_NAMES.length} datasets, in a child process`);
    const { stdout } = await run(process.execPath, ['--import', 'tsx', SELF, '--child', JSON.stringify({ lake, projects })], {
      cwd: ROOT,
      timeout: 900_000,
      maxBuffer: 16 * 1024 * 1024,
    });
    const out = JSON.parse(stdout.slice(stdout.lastIndexOf('@@RESULT ') + 9)) as ChildOutput;
    const built = Number(out.counts['built'] ?? 0);
    const waited = Object.values(out.io).reduce((sum, slot) => sum + slot.ms, 0);
    const load = `load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')} on 2 cores`;
    return {
      figures: {
        'lake_build.month_ms': judged(
          out.buildMs,
          'ms',
          '<=',
          10_000,
          `compactLake over one month × ${PROJECTS} projects × ${DATASET_NAMES.length} datasets: ${built} roll-ups from ${cloned.files} day files; once (${load})`,
        ),
        'lake_build.month_cpu_ms': info(out.buildCpuMs, 'ms', 'CPU time of the build (its process, DuckDB threads included)'),
        'lake_build.peak_rss': info(out.maxRssKiB * 1024, 'bytes', "peak RSS of the build's process (the export function's memory must hold it)"),
        'lake_build.ms_per_rollup': info(built > 0 ? out.buildMs / built : 0, 'ms', 'build wall time ÷ roll-ups built'),
        'lake_build.io_waits_vs_wall': info(
          waited / out.buildMs,
          'x',
          "the destination's calls' durations summed (day files read 16 at once, roll-ups written, records, indexes) ÷ the build's wall time: above 1 when the reads overlap",
        ),
        'lake_build.duckdb_start_ms': info(
          out.instanceStartMs,
          'ms',
          `one DuckDB instance started, connected, closed (mean of ${INSTANCE_STARTS}); the build opens one per lane (two) and reuses it`,
        ),
        'lake_build.duckdb_start_cpu_ms': info(out.instanceStartCpuMs, 'ms', 'the same, CPU time'),
        ...Object.fromEntries(
          Object.entries(out.rollupMsBySource).map(([source, { count, meanMs }]) => [
            `lake_build.rollup_ms.${source}`,
            info(meanMs, 'ms', `one roll-up's cycle (days read, DuckDB, written), mean of ${count}, projects cloned from ${source}`),
          ]),
        ),
        'lake_build.recheck_ms': info(out.recheckMs, 'ms', 'compactLake again over the built month: every roll-up kept (reading records and indexes)'),
        'lake_build.index_ms': info(indexMs, 'ms', "the month's index of units built from its manifests (before the build, as the export leaves it)"),
      },
      details: { lakeBuild: { loadAverage: loadavg(), cloned, indexMs, ...out } },
    };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

if (process.argv[1] === SELF && process.argv[2] === '--child') {
  const input = JSON.parse(process.argv[3] ?? '{}') as { lake: string; projects: string[] };
  const output = await child(input.lake, input.projects);
  process.stdout.write(`\n@@RESULT ${JSON.stringify(output)}\n`);
}
