/**
 * `lake-year` (issue 50): the weekly report function's bundle (as `lake` runs it: synthesized by
 * `cdk synth`, its own Node process, the objects it reads counted by a loopback proxy in front
 * of fauxqs) over a year of 20 projects, `{"days": 365}` — the goal ≤ 1,000 objects, ≤ 15 s,
 * ≤ 1 GB.
 *
 * The lake (bench/lib/lake-clone.ts): three seed days exported for real, cloned by DuckDB to
 * 365 days × 20 projects × every dataset table, each unit's manifest, one export run's record a
 * day; then the roll-ups, the indexes of units and the run log's indexes built by `compactLake`
 * over the folder, all uploaded to the bucket, and the indexes written again in the bucket with
 * the store's times of the manifests there (`writeUnitIndex`, their manifests and roll-ups'
 * records as built): what the export and `compact` leave in a bucket. The year before, which the
 * report compares with, has no day: a lake of one year.
 *
 * `MINTLIFY_BENCH_LAKE_YEAR_DIR=<folder>` keeps the built folder there and reuses it on the next
 * run (the clone and the build take minutes; the upload is made every run, fauxqs is in memory),
 * `compactLake` run over it first: a lake kept from an older writer gets what this one writes
 * (a roll-up without its sums, lake/rollup-sums.ts, is built again; the others are kept).
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { addDays } from '../functions/shared/dates.js';
import type { Destination } from '../functions/shared/storage/destination.js';
import { openTarget } from '../functions/shared/storage/destinations.js';
import { DATASET_NAMES } from '../functions/warehouse/catalog.js';
import { manifestsOf, parseManifestKey } from '../functions/warehouse/keys.js';
import { monthOfDay } from '../functions/warehouse/lake/layout.js';
import { compactLake } from '../functions/warehouse/lake/rollups.js';
import { refreshRunIndexes } from '../functions/warehouse/lake/run-index.js';
import { type IndexedRollups, readUnitIndexes, writeUnitIndex } from '../functions/warehouse/lake/unit-index.js';
import { indexEntry } from '../functions/warehouse/lake/unit-marks.js';
import { startS3Sqs } from '../scripts/lib/s3-sqs.js';
import { type BenchResult, type Figures, info, judged, median, progress } from './lib/figures.js';
import { cloneDays, exportSeeds, writeRunRecords } from './lib/lake-clone.js';
import { countingProxy, invokeWeekly, weeklyBundles } from './lib/weekly-function.js';
import { pagesDigest } from './lake.js';
import { sizeOf, upload } from './report-function.js';

/** Invocations (of each bundle, alternately). @default 2 (MINTLIFY_BENCH_RUNS) */
const RUNS = Number(process.env['MINTLIFY_BENCH_RUNS'] ?? 2);
const PROJECTS = 20;
const DAYS = 365;
/** The year's last day: a fixed one, so runs compare. */
const LAST_DAY = '2026-09-30';
const SEED_DAYS = [addDays(LAST_DAY, -2), addDays(LAST_DAY, -1), LAST_DAY] as const;

/** What the folder's build made (kept beside it when the folder is kept). */
interface Built {
  readonly cloned: { files: number; bytes: number; rows: number };
  readonly cloneMs: number;
  readonly compactMs: number;
  readonly compactCpuMs: number;
  readonly rollups: number;
  readonly months: readonly string[];
  readonly lakeBytes: number;
}

/** The year's lake in `root`/lake: cloned, its run log, then `compactLake` over it. */
async function buildYear(root: string, projects: readonly string[]): Promise<Built> {
  const seeds = path.join(root, 'seeds');
  const lake = path.join(root, 'lake');
  const days = Array.from({ length: DAYS }, (_, i) => addDays(LAST_DAY, 1 - DAYS + i));
  const started = performance.now();
  await exportSeeds(seeds, SEED_DAYS, 'lake-year');
  const cloned = await cloneDays(seeds, lake, { projects, days, seedDays: SEED_DAYS, label: 'lake-year' });
  await writeRunRecords(lake, days);
  const cloneMs = performance.now() - started;
  progress('lake-year: the roll-ups, the indexes of units and of the run log (compactLake over the folder)');
  const cpu = process.cpuUsage();
  const compactStarted = performance.now();
  const built = await compactLake(openTarget({ kind: 'local', dir: lake }), {});
  const compactMs = performance.now() - compactStarted;
  const used = process.cpuUsage(cpu);
  return {
    cloned,
    cloneMs,
    compactMs,
    compactCpuMs: (used.user + used.system) / 1000,
    rollups: built.built,
    months: built.months,
    lakeBytes: await sizeOf(lake),
  };
}

/**
 * The indexes of units of the bucket as the export leaves them: each month's manifests and
 * roll-ups' records as built in `local`, written with the latest time the bucket gives that
 * month's manifests (uploaded after the indexes were built, each is newer than its index).
 */
export async function indexesAsExported(local: Destination, inBucket: Destination): Promise<number> {
  let written = 0;
  for (const dataset of DATASET_NAMES) {
    const listed = new Map<string, Map<string, number>>();
    for (const { key, modified: at } of (await inBucket.listModified?.(manifestsOf(dataset))) ?? []) {
      const unit = parseManifestKey(dataset, key);
      if (unit === undefined) continue;
      const month = monthOfDay(unit.day);
      listed.set(month, (listed.get(month) ?? new Map<string, number>()).set(indexEntry(unit.day, unit.projectId), at));
    }
    const rollups: IndexedRollups = new Map();
    const indexes = await readUnitIndexes(local, dataset, [...listed.keys()], { rollups });
    for (const [month, manifests] of indexes ?? []) {
      await writeUnitIndex(inBucket, dataset, month, manifests, listed.get(month) ?? new Map(), rollups.get(month));
      written += 1;
    }
  }
  return written;
}

export async function benchLakeYear(): Promise<BenchResult> {
  const kept = process.env['MINTLIFY_BENCH_LAKE_YEAR_DIR'];
  const root = kept ? path.resolve(kept) : await mkdtemp(path.join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'mintlify-bench-lake-year-'));
  const marker = path.join(root, 'built.json');
  const projects = Array.from({ length: PROJECTS }, (_, n) => `proj_year_${String(n + 1).padStart(2, '0')}`);
  const aws = await startS3Sqs();
  const proxy = await countingProxy(aws.endpoint);
  try {
    let built: Built;
    if (kept && existsSync(marker)) {
      progress('lake-year: reusing the lake built before (MINTLIFY_BENCH_LAKE_YEAR_DIR); compactLake brings its roll-ups up to this writer');
      built = JSON.parse(await readFile(marker, 'utf8')) as Built;
      // A lake kept from an older writer: its roll-ups without what this one writes with them (their sums) are built again.
      const brought = await compactLake(openTarget({ kind: 'local', dir: path.join(root, 'lake') }), {});
      progress(`lake-year: roll-ups built again ${brought.built}, kept ${brought.kept}`);
    } else {
      await rm(root, { recursive: true, force: true });
      await mkdir(root, { recursive: true });
      built = await buildYear(root, projects);
      if (kept) await writeFile(marker, JSON.stringify(built));
    }
    const lake = path.join(root, 'lake');
    progress('lake-year: uploading the lake to S3 (fauxqs)');
    const bucket = await aws.createBucket();
    const uploadStarted = performance.now();
    const uploaded = await upload(lake, async (key, body) => {
      await aws.s3.send(new PutObjectCommand({ Bucket: bucket, Key: `mintlify/${key}`, Body: body }));
    });
    const uploadMs = performance.now() - uploadStarted;
    progress('lake-year: the indexes of units and of the run log as the export leaves them in the bucket');
    const inBucket = openTarget({ kind: 's3', bucket, prefix: 'mintlify/' }, { s3Client: aws.s3 });
    const indexes = await indexesAsExported(openTarget({ kind: 'local', dir: lake }), inBucket);
    await refreshRunIndexes(inBucket);

    progress('lake-year: cdk synth (the deployed bundle, DuckDB in its asset)');
    const bundles = await weeklyBundles(projects);
    const { now: assembly, before } = bundles;
    try {
      const { topicArn } = await aws.createTopicWithSubscriber();
      const wiring = { bucket, topicArn, proxy, snsEndpoint: aws.endpoint };
      const event = { time: `${addDays(LAST_DAY, 1)}T06:00:00Z`, days: DAYS };
      const profile = process.env['MINTLIFY_BENCH_PROFILE'];
      type Run = {
        runMs: number;
        cpuMs: number;
        rss: number;
        gets: number;
        kinds: Record<string, number>;
        listings: { requests: number; bytes: number };
        load: number[];
        /** The digest of the pages the invocation wrote: this bundle's and the one before's must be the same bytes. */
        pages: string;
      };
      const runs: Run[] = [];
      const earlier: Run[] = [];
      let logs = '';
      for (let run = 1; run <= RUNS; run++) {
        for (const of of before ? [assembly, before] : [assembly]) {
          const name = of === before ? 'the bundle before' : 'this bundle';
          progress(`lake-year: invocation ${run} of ${RUNS}, ${name}, ${DAYS} days × ${PROJECTS} projects`);
          const invocation = await invokeWeekly(of, wiring, event, profile ? { BUNDLE_CPU_PROFILE: path.resolve(profile) } : {}, 900_000);
          const cpuMs = invocation.cpuMs ?? Number.NaN;
          const { gets, kinds, listings } = invocation;
          const pages = await pagesDigest(aws.s3, bucket);
          (of === before ? earlier : runs).push({ runMs: invocation.runMs, cpuMs, rss: invocation.maxRssBytes, gets, kinds, listings, load: loadavg(), pages });
          if (logs === '') logs = invocation.logs.slice(-6000);
          progress(
            `lake-year: ${name}: ${gets} objects read: ${JSON.stringify(kinds)}; ${listings.requests} listings (${listings.bytes} bytes); run ${Math.round(invocation.runMs)} ms, ` +
              `CPU ${Math.round(cpuMs)} ms, peak RSS ${Math.round(invocation.maxRssBytes / 2 ** 20)} MiB (sampled peaks, MiB: heap ${Math.round(invocation.memoryPeaks.heapUsed / 2 ** 20)}, external ${Math.round(invocation.memoryPeaks.external / 2 ** 20)}, RSS ${Math.round(invocation.memoryPeaks.rss / 2 ** 20)}); ` +
              `the store's answers (fauxqs through the proxy, by kind: requests, ms to headers and to the end summed, the slowest): ${Object.entries(
                invocation.waits,
              )
                .map(([kind, w]) => `${kind} ${w.requests}, ${Math.round(w.headersMs)}/${Math.round(w.totalMs)} ms, ${Math.round(w.slowestMs)} ms`)
                .join('; ')}`,
          );
        }
      }
      const beforeFigures: Figures =
        earlier.length === 0
          ? {}
          : {
              'lake.365d.run_ms_before': info(median(earlier.map((r) => r.runMs)), 'ms', 'the bundle of MINTLIFY_BENCH_BEFORE, alternately'),
              'lake.365d.cpu_ms_before': info(median(earlier.map((r) => r.cpuMs)), 'ms', 'the same, CPU time'),
              'lake.365d.peak_rss_before': info(Math.max(...earlier.map((r) => r.rss)), 'bytes', 'the same, peak RSS'),
              'lake.365d.objects_read_before': info(median(earlier.map((r) => r.gets)), 'objects', 'the same, objects read'),
              'lake.365d.listing_bytes_before': info(median(earlier.map((r) => r.listings.bytes)), 'bytes', 'the same, bytes of the listings S3 answered'),
              'lake.365d.page_same_as_before': judged(
                new Set([...runs, ...earlier].map((r) => r.pages)).size === 1 ? 1 : 0,
                'yes',
                '>=',
                1,
                "every page written the same bytes as the bundle before's (sha-256 of the report objects)",
              ),
            };
      const load = `load average ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')} on 2 cores`;
      const lakeLine = `${built.cloned.files} day files (${PROJECTS} projects × ${DAYS} days × the tables), ${built.rollups} roll-ups, ${uploaded} objects in the bucket; the year before it (compared) has no day`;
      return {
        figures: {
          'lake.365d.objects_read': judged(
            median(runs.map((r) => r.gets)),
            'objects',
            '<=',
            1000,
            `GETs of objects by the weekly report function, {"days": 365}; ${lakeLine}`,
          ),
          'lake.365d.run_ms': judged(
            median(runs.map((r) => r.runMs)),
            'ms',
            '<=',
            15_000,
            `the handler's run, median of ${RUNS} fresh processes (${load}: noisy)`,
          ),
          'lake.365d.cpu_ms': info(median(runs.map((r) => r.cpuMs)), 'ms', "the handler's CPU time (every thread of the process, DuckDB's too)"),
          'lake.365d.peak_rss': judged(Math.max(...runs.map((r) => r.rss)), 'bytes', '<=', 1024 ** 3, 'peak RSS of the invocation process'),
          'lake.365d.listing_bytes': info(
            median(runs.map((r) => r.listings.bytes)),
            'bytes',
            `the bytes of the invocation's listings S3 answered (${median(runs.map((r) => r.listings.requests))} ListObjectsV2 requests)`,
          ),
          ...beforeFigures,
          'lake.365d.views_pages_rows': info(built.cloned.rows, 'rows', 'rows of views_pages in the year (the top pages scan them)'),
          'lake.365d.build_ms': info(
            built.cloneMs + built.compactMs,
            'ms',
            `the bench's lake: seeds exported and cloned (${Math.round(built.cloneMs / 1000)} s), compactLake over it (${Math.round(built.compactMs / 1000)} s, ${Math.round(built.compactCpuMs / 1000)} s CPU)`,
          ),
          'lake.365d.upload_ms': info(
            uploadMs,
            'ms',
            `${uploaded} objects put into fauxqs, 16 at once; then ${indexes} indexes of units written with the bucket's times`,
          ),
        },
        details: { lakeYear: { runs, earlier, built, uploaded, indexes, uploadMs, logs } },
      };
    } finally {
      await bundles.close();
    }
  } finally {
    await proxy.close();
    await aws.close();
    if (!kept) await rm(root, { recursive: true, force: true });
  }
}
