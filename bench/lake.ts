/**
 * `lake` (issue 50): the weekly report function's bundle (as `report-function` runs it: synthesized
 * by `cdk synth`, DuckDB in its asset, its own Node process) over the report benchmark's lake of
 * 90 days × 3 projects (and the 90 compared) from S3 (fauxqs), with the lake's monthly roll-ups
 * and index of units built by `compactLake` first — the objects it reads counted by a loopback
 * proxy in front of the emulator (every GET that is not a listing), its run and peak memory;
 * then the same invocation with the roll-ups turned off (`MINTLIFY_ROLLUPS=off`), alternately;
 * the roll-ups' build time and their bytes against the day files'.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { addDays } from '../functions/shared/dates.js';
import { openTarget } from '../functions/shared/storage/destinations.js';
import { DATASET_NAMES } from '../functions/warehouse/catalog.js';
import { manifestsOf, parseManifestKey } from '../functions/warehouse/keys.js';
import { readUnitIndexes } from '../functions/warehouse/lake/unit-index.js';
import { refreshRunIndexes } from '../functions/warehouse/lake/run-index.js';
import { compactLake } from '../functions/warehouse/lake/rollups.js';
import { DEFAULT_PROJECTS } from '../sandbox/generators/projects.js';
import { startS3Sqs } from '../scripts/lib/s3-sqs.js';
import { type Figures, info, judged, median, progress, type BenchResult } from './lib/figures.js';
import { countingProxy, invokeWeekly, weeklyBundles } from './lib/weekly-function.js';
import { benchPeriod, buildLake, LAST_DAY, REPORT_DAYS } from './report.js';
import { sizeOf, upload } from './report-function.js';

/** Invocations of each variant, alternately. @default 2 (MINTLIFY_BENCH_RUNS) */
const RUNS = Number(process.env['MINTLIFY_BENCH_RUNS'] ?? 2);

export async function benchLake(): Promise<BenchResult> {
  const root = await mkdtemp(path.join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'mintlify-bench-lake-'));
  const projects = DEFAULT_PROJECTS.map((p) => p.id);
  const aws = await startS3Sqs();
  const proxy = await countingProxy(aws.endpoint);
  try {
    const lake = await buildLake(root, benchPeriod());
    const dayBytes = await sizeOf(root);
    progress('lake: building the monthly roll-ups and the index of units (compactLake)');
    const cpu = process.cpuUsage();
    const started = performance.now();
    const built = await compactLake(openTarget({ kind: 'local', dir: root }), {});
    const buildMs = performance.now() - started;
    const buildCpu = process.cpuUsage(cpu);
    const rollupBytes = await sizeOf(path.join(root, '_rollups'));
    const monthsBuilt = built.months.length;
    progress('lake: uploading the lake to S3 (fauxqs)');
    const bucket = await aws.createBucket();
    const uploaded = await upload(root, async (key, body) => {
      await aws.s3.send(new PutObjectCommand({ Bucket: bucket, Key: `mintlify/${key}`, Body: body }));
    });
    // Copied, every manifest is newer than the indexes built beside it, and every run record than
    // the run log's index: brought up to date in the bucket (their roll-ups' records kept) as an
    // export writing there leaves them, not by the first report.
    progress('lake: the indexes of units and of the run log brought up to date in the bucket');
    const inBucket = openTarget({ kind: 's3', bucket, prefix: 'mintlify/' }, { s3Client: aws.s3 });
    for (const dataset of DATASET_NAMES) {
      const months = [
        ...new Set(((await inBucket.list?.(manifestsOf(dataset))) ?? []).flatMap((key) => parseManifestKey(dataset, key)?.day.slice(0, 7) ?? [])),
      ];
      await readUnitIndexes(inBucket, dataset, months, { keep: true, check: true });
    }
    await refreshRunIndexes(inBucket);
    progress('lake: cdk synth (the deployed bundle, DuckDB in its asset)');
    const bundles = await weeklyBundles(projects);
    const { now: assembly, before } = bundles;
    try {
      const { topicArn } = await aws.createTopicWithSubscriber();
      const wiring = { bucket, topicArn, proxy, snsEndpoint: aws.endpoint };
      const event = { time: `${addDays(LAST_DAY, 1)}T06:00:00Z`, days: REPORT_DAYS };
      type Variant = 'on' | 'before' | 'off';
      const runs: {
        variant: Variant;
        rollups: boolean;
        runMs: number;
        cpuMs: number;
        rss: number;
        gets: number;
        kinds: Record<string, number>;
        listings: { requests: number; bytes: number };
        /** The digest of the pages the invocation wrote (roll-ups on): this bundle's and the one before's must be the same bytes. */
        pages?: string;
      }[] = [];
      // MINTLIFY_BENCH_PROFILE=<folder>: a V8 CPU profile of each invocation with the roll-ups, written there (what dominates the run).
      const profile = process.env['MINTLIFY_BENCH_PROFILE'];
      let logs = '';
      const variants: Variant[] = before ? ['on', 'before', 'off'] : ['on', 'off'];
      for (let run = 1; run <= RUNS; run++) {
        for (const variant of variants) {
          const rollups = variant !== 'off';
          const of = variant === 'before' && before ? before : assembly;
          progress(`lake: invocation ${run} of ${RUNS}, ${variant === 'before' ? 'the bundle before, roll-ups on' : `roll-ups ${variant}`}`);
          const env = rollups ? (profile ? { BUNDLE_CPU_PROFILE: path.resolve(profile) } : {}) : { MINTLIFY_ROLLUPS: 'off' };
          const invocation = await invokeWeekly(of, wiring, event, env);
          const cpuMs = invocation.cpuMs ?? Number.NaN;
          const { gets, kinds, listings } = invocation;
          const pages = rollups ? await pagesDigest(aws.s3, bucket) : undefined;
          runs.push({ variant, rollups, runMs: invocation.runMs, cpuMs, rss: invocation.maxRssBytes, gets, kinds, listings, ...(pages ? { pages } : {}) });
          if (variant === 'on' && logs === '') logs = invocation.logs.slice(-6000);
          progress(
            `lake: ${gets} objects read: ${JSON.stringify(kinds)}; ${listings.requests} listings (${listings.bytes} bytes); ` +
              `run ${Math.round(invocation.runMs)} ms, CPU ${Math.round(cpuMs)} ms`,
          );
        }
      }
      const on = runs.filter((r) => r.variant === 'on');
      const off = runs.filter((r) => r.variant === 'off');
      const earlier = runs.filter((r) => r.variant === 'before');
      const beforeFigures: Figures =
        earlier.length === 0
          ? {}
          : {
              'lake.90d.run_ms_before': info(median(earlier.map((r) => r.runMs)), 'ms', 'the bundle of MINTLIFY_BENCH_BEFORE, roll-ups on, alternately'),
              'lake.90d.cpu_ms_before': info(median(earlier.map((r) => r.cpuMs)), 'ms', 'the same, CPU time'),
              'lake.90d.objects_read_before': info(median(earlier.map((r) => r.gets)), 'objects', 'the same, objects read'),
              'lake.90d.listing_bytes_before': info(median(earlier.map((r) => r.listings.bytes)), 'bytes', 'the same, bytes of the listings S3 answered'),
              'lake.90d.page_same_as_before': judged(
                new Set([...on, ...earlier].map((r) => r.pages)).size === 1 ? 1 : 0,
                'yes',
                '>=',
                1,
                "every page written (roll-ups on) the same bytes as the bundle before's (sha-256 of the report objects)",
              ),
              'lake.90d.cpu_vs_before': info(
                median(on.map((r) => r.cpuMs)) / median(earlier.map((r) => r.cpuMs)),
                'x',
                "this bundle's CPU ÷ the bundle before's (medians of alternate runs)",
              ),
              'lake.90d.run_vs_before': info(
                median(on.map((r) => r.runMs)) / median(earlier.map((r) => r.runMs)),
                'x',
                "this bundle's run ÷ the bundle before's (medians of alternate runs)",
              ),
            };
      const load = `load: ${lake.files} day files of 3 projects × 180 days (90 reported + 90 compared), ${uploaded} objects in the bucket`;
      return {
        figures: {
          'lake.90d.objects_read': judged(
            median(on.map((r) => r.gets)),
            'objects',
            '<=',
            100,
            `GETs of objects by the weekly report function, 90 days × 3 projects; ${load}`,
          ),
          'lake.90d.objects_read_without_rollups': info(
            median(off.map((r) => r.gets)),
            'objects',
            'the same invocation with MINTLIFY_ROLLUPS=off (days and the index of units)',
          ),
          'lake.90d.run_ms': judged(
            median(on.map((r) => r.runMs)),
            'ms',
            '<=',
            3000,
            `the handler's run, median of ${RUNS} fresh processes (machine shared: noisy)`,
          ),
          'lake.90d.run_ms_without_rollups': info(median(off.map((r) => r.runMs)), 'ms', 'the same, roll-ups off, alternately with the runs above'),
          'lake.90d.listings': info(
            median(on.map((r) => r.listings.requests)),
            'requests',
            `ListObjectsV2 requests of the invocation, roll-ups on; their answers ${median(on.map((r) => r.listings.bytes))} bytes of XML`,
          ),
          'lake.90d.listing_bytes': info(median(on.map((r) => r.listings.bytes)), 'bytes', 'the bytes of those listings S3 answered (what the SDK parses)'),
          'lake.90d.cpu_ms': info(median(on.map((r) => r.cpuMs)), 'ms', "the handler's CPU time (every thread of the process, DuckDB's too), roll-ups on"),
          'lake.90d.cpu_ms_without_rollups': info(median(off.map((r) => r.cpuMs)), 'ms', 'the same, roll-ups off'),
          'lake.90d.peak_rss': judged(Math.max(...on.map((r) => r.rss)), 'bytes', '<=', 1024 ** 3, 'peak RSS of the invocation process, roll-ups on'),
          'lake.rollups.build_ms': info(
            buildMs,
            'ms',
            `compactLake over the whole lake: ${built.built} roll-ups (one a table and month, every project in it) of ${monthsBuilt} month(s), ${built.failed} could not be built; 3 projects × 7 datasets`,
          ),
          'lake.rollups.build_cpu_ms': info((buildCpu.user + buildCpu.system) / 1000, 'ms', 'the same, CPU of this process (DuckDB threads included)'),
          ...beforeFigures,
          'lake.rollups.extra_bytes_ratio': judged(
            rollupBytes / dayBytes,
            'x',
            '<=',
            1.1,
            "roll-ups' bytes (with their records) ÷ the lake's bytes before them",
          ),
        },
        details: { lake: { runs, built, dayBytes, rollupBytes, uploaded, logs } },
      };
    } finally {
      await bundles.close();
    }
  } finally {
    await proxy.close();
    await aws.close();
    await rm(root, { recursive: true, force: true });
  }
}

/** The sha-256 of every object under the bucket's `mintlify/reports/` (the pages the function wrote), key and bytes, in key order. */
export async function pagesDigest(s3: S3Client, bucket: string): Promise<string> {
  const hash = createHash('sha256');
  const listed = await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: 'mintlify/reports/' }));
  for (const { Key } of listed.Contents ?? []) {
    if (Key === undefined) continue;
    const object = await s3.send(new GetObjectCommand({ Bucket: bucket, Key }));
    hash.update(Key).update(await (object.Body?.transformToByteArray() ?? new Uint8Array()));
  }
  return hash.digest('hex');
}
