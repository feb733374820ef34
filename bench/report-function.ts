/**
 * `report-function`: the weekly report function's bundle — synthesized by the real `cdk synth`,
 * DuckDB copied into its asset as deployed — building a 90-day report of the sandbox's three
 * projects from S3 (fauxqs), in its own Node process as Lambda would run it: the whole
 * invocation (mirroring the bucket's days to a temp folder, DuckDB, the page, both writes, the
 * pre-signed link, the digest) against 10 s, the process's peak memory against 1 GB; the cold
 * load of the bundle and the asset's size as figures. The lake is the report benchmark's
 * (bench/report.ts: three days exported for real, cloned to 180).
 */
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { addDays } from '../functions/shared/dates.js';
import { DEFAULT_PROJECTS } from '../sandbox/generators/projects.js';
import { functionEnvironment, functionHandler, invokeBundle, synthAssembly } from '../scripts/lib/bundles.js';
import { startS3Sqs } from '../scripts/lib/s3-sqs.js';
import { info, judged, median, progress, type BenchResult } from './lib/figures.js';
import { benchPeriod, buildLake, LAST_DAY, REPORT_DAYS } from './report.js';

const RUNS = 3;
const WEEKLY = 'Weekly: the report of the last 7 complete days';
const MAX_MS = 10_000;
const MAX_RSS = 1024 * 1024 * 1024;
/** The most of the run that may be spent waiting for the mirror. */
const MAX_MIRROR_SHARE = 0.5;
/** Lambda's limit on a function's unzipped code. */
const MAX_ASSET_BYTES = 250 * 1024 * 1024;

export async function benchReportFunction(): Promise<BenchResult> {
  const root = await mkdtemp(path.join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'mintlify-bench-report-fn-'));
  const projects = DEFAULT_PROJECTS.map((p) => p.id);
  const aws = await startS3Sqs();
  try {
    const period = benchPeriod();
    const lake = await buildLake(root, period);
    progress('report-function: uploading the lake to S3 (fauxqs)');
    const bucket = await aws.createBucket();
    const uploaded = await upload(root, async (key, body) => {
      await aws.s3.send(new PutObjectCommand({ Bucket: bucket, Key: `mintlify/${key}`, Body: body }));
    });

    progress('report-function: cdk synth (the deployed bundle, DuckDB in its asset)');
    const assembly = await synthAssembly({ projectIds: projects.join(',') });
    try {
      const asset = assembly.functionAssetDir(WEEKLY);
      const bundle = path.join(asset, 'index.js');
      const { topicArn } = await aws.createTopicWithSubscriber();
      const env = {
        ...functionEnvironment(assembly.resources, WEEKLY, {
          EXPORT_DESTINATION: `s3://${bucket}/mintlify`,
          INSIGHTS_TOPIC_ARN: topicArn,
          EXPORT_GLUE_DATABASE: '',
        }),
        AWS_ENDPOINT_URL_S3: aws.endpoint,
        AWS_ENDPOINT_URL_SNS: aws.endpoint,
      };
      // Monday after the report's last day, 06:00 UTC: the scheduled time; 90 days asked by hand.
      const event = { time: `${addDays(LAST_DAY, 1)}T06:00:00Z`, days: REPORT_DAYS };
      const runs = [];
      for (let run = 1; run <= RUNS; run++) {
        progress(`report-function: invocation ${run} of ${RUNS} in a fresh process`);
        const started = performance.now();
        const invocation = await invokeBundle(assembly.outDir, bundle, event, env, functionHandler(assembly.resources, WEEKLY));
        if (invocation.error !== undefined) throw new Error(`the report function failed: ${invocation.error}\n${invocation.logs.slice(-2000)}`);
        runs.push({ ...invocation, wallMs: performance.now() - started });
      }
      const runMs = median(runs.map((r) => r.runMs));
      const rss = Math.max(...runs.map((r) => r.maxRssBytes));
      const loadMs = median(runs.map((r) => r.loadMs));
      /** What each invocation waited for the mirror (its result's `mirrorMs`). */
      const mirrors = runs.map((r) => Number((r.result as { mirrorMs?: number } | undefined)?.mirrorMs ?? Number.NaN));
      const mirrorMs = median(mirrors);
      const mirrorShare = median(runs.map((r, i) => (mirrors[i] as number) / r.runMs));
      const assetBytes = await sizeOf(asset);
      const bundleBytes = (await stat(bundle)).size;
      return {
        figures: {
          'report_function.90d.run_ms': judged(
            runMs,
            'ms',
            '<=',
            MAX_MS,
            `the handler of the synthesized bundle, 3 projects × 90 days (+90 compared) from S3, median of ${RUNS} fresh processes`,
          ),
          'report_function.90d.peak_rss': judged(
            rss,
            'bytes',
            '<=',
            MAX_RSS,
            'peak RSS of the invocation process (DuckDB, the mirror, the page), the most of the runs',
          ),
          'report_function.90d.mirror_ms': info(
            mirrorMs,
            'ms',
            "of run_ms: the time waited for the bucket's days mirrored to /tmp (functions/warehouse/lake.ts, 16 GETs at once, each without the SDK's command stack; the units' states overlapped with DuckDB's load)",
          ),
          'report_function.90d.mirror_share': judged(
            mirrorShare,
            'x',
            '<=',
            MAX_MIRROR_SHARE,
            'mirror_ms ÷ run_ms, the median of the runs: the time waited for the mirror is at most half of the invocation',
          ),
          'report_function.cold_load_ms': info(loadMs, 'ms', 'import of the bundle in a fresh node: the AWS SDK clients and DuckDB’s native binding'),
          'report_function.bundle_bytes': info(bundleBytes, 'bytes', 'index.js of the asset (minified, @aws-sdk/* and @duckdb/* external)'),
          'report_function.asset_bytes': judged(
            assetBytes,
            'bytes',
            '<=',
            MAX_ASSET_BYTES,
            "the whole asset unzipped (DuckDB's linux-x64 binding included): Lambda's 250 MB limit",
          ),
        },
        details: {
          reportFunction: {
            runsMs: runs.map((r) => r.runMs),
            wallMs: runs.map((r) => r.wallMs),
            loadMs: runs.map((r) => r.loadMs),
            maxRssBytes: runs.map((r) => r.maxRssBytes),
            mirrorMs: mirrors,
            objects: uploaded,
            lakeFiles: lake.files,
          },
        },
      };
    } finally {
      await assembly.close();
    }
  } finally {
    await aws.close();
    await rm(root, { recursive: true, force: true });
  }
}

/** Puts every file under `root` (its relative path as the key), 16 at once; returns how many. */
export async function upload(root: string, put: (key: string, body: Uint8Array) => Promise<void>): Promise<number> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  const files = entries.filter((e) => e.isFile()).map((e) => path.relative(root, path.join(e.parentPath, e.name)).split(path.sep).join('/'));
  let next = 0;
  const worker = async () => {
    while (next < files.length) {
      const key = files[next++] as string;
      await put(key, await readFile(path.join(root, key)));
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
  return files.length;
}

/** Bytes of every file under `dir`. */
export async function sizeOf(dir: string): Promise<number> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const sizes = await Promise.all(entries.filter((e) => e.isFile()).map(async (e) => (await stat(path.join(e.parentPath, e.name))).size));
  return sizes.reduce((a, b) => a + b, 0);
}
