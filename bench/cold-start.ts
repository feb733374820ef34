/**
 * Figure 5 — cold start. Each Lambda handler bundled as the CDK app bundles it, then loaded
 * in fresh Node processes: the time `require()` of the bundle takes (measured inside the
 * process with performance.now(); it includes the `@aws-sdk/*` clients the bundle requires,
 * which the Lambda runtime also has to load), and, as a cross-check, the whole process's
 * wall time minus an empty `node -e ""`.
 */
import { execFile } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { bundleLikeLambda, topInputs } from './lib/bundle.js';
import { info, judged, median, progress, type BenchResult, type Figures } from './lib/figures.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../', import.meta.url));
const RUNS = 9;
const MAX_BYTES = 1_000_000;
const MAX_LOAD_MS = 150;

export const HANDLERS = [
  { name: 'export', entry: 'functions/export/handler.ts' },
  { name: 'follow-up', entry: 'functions/follow-up/handler.ts' },
] as const;

/**
 * What the export handler reads at import time (it parses its config at cold start). Dummy,
 * loopback-free values: nothing is contacted while loading.
 */
const LOAD_ENV: Record<string, string> = {
  PATH: process.env['PATH'] ?? '',
  AWS_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'bench',
  AWS_SECRET_ACCESS_KEY: 'bench',
  AWS_EC2_METADATA_DISABLED: 'true',
  MINTLIFY_PROJECT_IDS: 'proj_bench',
  MINTLIFY_API_KEY_SECRET_ARN: 'arn:aws:secretsmanager:us-east-1:123456789012:secret:bench-AbCdEf',
  EXPORT_DESTINATION: 's3://bench-bucket/exports',
  // The hourly export keeps its budget ledger and leases in this table (required at cold start).
  EXPORT_STATE_TABLE: 'bench-export-state',
  NODE_NO_WARNINGS: '1',
};

/** Requires the external `@aws-sdk/*` modules a bundle needs, alone: how much of the load is the SDK's. */
const SDK_LOADER = `const t=performance.now();for(const m of JSON.parse(process.env.BENCH_SDK))require(m);process.stdout.write(String(performance.now()-t));`;

const LOADER = `const t=performance.now();const m=require(process.env.BENCH_BUNDLE);const ms=performance.now()-t;if(typeof m.handler!=='function')throw new Error('no handler export');process.stdout.write(String(ms));`;

async function wallOf(args: readonly string[], env: Record<string, string>): Promise<{ wallMs: number; stdout: string }> {
  const started = performance.now();
  const { stdout } = await run(process.execPath, args, { env, cwd: ROOT, timeout: 30_000 });
  return { wallMs: performance.now() - started, stdout };
}

export async function benchColdStart(outDir: string): Promise<BenchResult> {
  const dir = path.join(outDir, 'bundles');
  await mkdir(dir, { recursive: true });
  const figures: Figures = {};
  const details: Record<string, unknown> = {};
  for (const handler of HANDLERS) {
    progress(`cold start: bundling ${handler.entry}, ${RUNS} fresh loads`);
    const bundle = await bundleLikeLambda(path.join(ROOT, handler.entry), path.join(dir, `${handler.name}.cjs`));
    const env = { ...LOAD_ENV, BENCH_BUNDLE: bundle.file };
    const sdkModules = [
      ...new Set(
        Object.values(bundle.metafile.outputs).flatMap((output) =>
          output.imports.filter((i) => i.external && i.path.startsWith('@aws-sdk/')).map((i) => i.path),
        ),
      ),
    ];
    const sdkEnv = { ...env, BENCH_SDK: JSON.stringify(sdkModules) };
    const sdkLoads: number[] = [];
    const loads: number[] = [];
    const walls: number[] = [];
    const baselines: number[] = [];
    await wallOf(['-e', LOADER], env); // warm the OS file cache once
    for (let i = 0; i < RUNS; i++) {
      // Alternate with the baseline so both see the same background load.
      baselines.push((await wallOf(['-e', ''], env)).wallMs);
      const { wallMs, stdout } = await wallOf(['-e', LOADER], env);
      walls.push(wallMs);
      loads.push(Number(stdout));
      sdkLoads.push(Number((await wallOf(['-e', SDK_LOADER], sdkEnv)).stdout));
    }
    // The same handler with the SDK clients bundled in (tree-shaken, minified) instead of
    // the runtime's copy, loaded alternately with the other so both see the same load.
    const inlined = await bundleLikeLambda(path.join(ROOT, handler.entry), path.join(dir, `${handler.name}.sdk-bundled.cjs`), 'bundled');
    const inlinedEnv = { ...LOAD_ENV, BENCH_BUNDLE: inlined.file };
    const inlinedLoads: number[] = [];
    const externalLoads: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      externalLoads.push(Number((await wallOf(['-e', LOADER], env)).stdout));
      inlinedLoads.push(Number((await wallOf(['-e', LOADER], inlinedEnv)).stdout));
    }
    const ratio = median(inlinedLoads) / median(externalLoads);
    figures[`cold_start.${handler.name}.sdk_bundled.bytes`] = info(inlined.bytes, 'bytes', 'the same handler with the @aws-sdk clients bundled in');
    figures[`cold_start.${handler.name}.sdk_bundled.require`] = info(median(inlinedLoads), 'ms', `require() with the SDK bundled in, median of ${RUNS}`);
    figures[`cold_start.${handler.name}.sdk_bundled_vs_external`] = info(
      ratio,
      'ratio',
      `load time, SDK bundled in ÷ the runtime's copy (${Math.round(median(externalLoads))} ms), measured alternately; the infra keeps the faster: ${ratio < 1 ? 'bundled' : 'external'}`,
    );
    details[`cold_start.${handler.name}.sdk_bundled`] = { bytes: inlined.bytes, requireMs: inlinedLoads, externalRequireMs: externalLoads };
    const top = topInputs(bundle.metafile);
    figures[`cold_start.${handler.name}.bytes`] = judged(
      bundle.bytes,
      'bytes',
      '<=',
      MAX_BYTES,
      `minified; top: ${top
        .slice(0, 3)
        .map((t) => `${t.input} ${Math.round(t.bytes / 1024)}K`)
        .join(', ')}`,
    );
    figures[`cold_start.${handler.name}.require`] = judged(median(loads), 'ms', '<=', MAX_LOAD_MS, `require() in a fresh node, median of ${RUNS}`);
    figures[`cold_start.${handler.name}.process_delta`] = info(
      median(walls) - median(baselines),
      'ms',
      `process wall − empty node (${Math.round(median(baselines))} ms)`,
    );
    figures[`cold_start.${handler.name}.aws_sdk_require`] = info(median(sdkLoads), 'ms', `of which the external ${sdkModules.join(', ')} alone`);
    details[`cold_start.${handler.name}`] = {
      sdkModules,
      sdkRequireMs: sdkLoads,
      bytes: bundle.bytes,
      topInputs: top,
      requireMs: loads,
      wallMs: walls,
      baselineMs: baselines,
    };
  }
  return { figures, details };
}
