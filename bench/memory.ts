/**
 * Figure 4 — memory. Peak RSS of a whole export of a day of 10k, 100k and 1M paths, each in
 * its own child process (the bundled bench/child/export.ts: the engine wired as the Lambda
 * wires it, pages staged in the destination as they arrive), so the RSS is the export's own;
 * the sandbox and the S3 emulator (fauxqs) stay in this process. Once to a local directory,
 * once to S3. Then (issue 9) an `assistant` day of 200,000 conversation turns — 200 pages of
 * 1,000 turns with long texts, about 0.5 KB a row — against one of 2,000. Goal: flat (largest
 * ≤ 1.3 × smallest + 100 MB) and under 256 MB, so the function fits a 512 MB Lambda with room
 * to spare.
 */
import { execFile } from 'node:child_process';
import { constants } from 'node:fs';
import { access, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startSandbox } from '../sandbox/index.js';
import { startS3Sqs } from '../scripts/lib/s3-sqs.js';
import type { ExportChildInput, ExportChildOutput } from './child/export.js';
import { bundleLikeLambda } from './lib/bundle.js';
import { info, judged, median, progress, type BenchResult, type Figures } from './lib/figures.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../', import.meta.url));
const MIB = 1024;
export const MEMORY_SIZES = [
  { paths: 10_000, runs: 3, label: '10k' },
  { paths: 100_000, runs: 3, label: '100k' },
  { paths: 1_000_000, runs: 1, label: '1M' },
] as const;
/** Assistant turns per day (issue 9): the large day and the small one it is compared with. */
export const ASSISTANT_SIZES = [
  { turns: 2_000, runs: 3, label: '2k' },
  { turns: 200_000, runs: 1, label: '200k' },
] as const;
const CEILING_MB = 256;
/**
 * V8 collects lazily while the heap is far below its limit (several GB on a big machine), so
 * maxRSS with the default limit includes garbage. This cap shows what the export needs when
 * V8 must collect, as in a small Lambda (whose runtime caps the heap from the memory size).
 */
const CAPPED_HEAP_FLAG = '--max-old-space-size=160';

async function runChild(bundle: string, input: ExportChildInput, nodeFlags: readonly string[] = []): Promise<ExportChildOutput> {
  const { stdout } = await run(process.execPath, [...nodeFlags, bundle, JSON.stringify(input)], {
    cwd: ROOT,
    // No AWS configuration from the machine: the child only talks to loopback.
    env: { PATH: process.env['PATH'] ?? '', AWS_EC2_METADATA_DISABLED: 'true', NODE_NO_WARNINGS: '1' },
    timeout: 300_000,
    maxBuffer: 1024 * 1024,
  });
  const output = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as ExportChildOutput;
  if (!output.ok) throw new Error(`export child for ${input.projectId} failed: ${output.error ?? 'unknown error'}`);
  return output;
}

/**
 * Where the local exports go: a RAM-backed folder (`/dev/shm`) when the machine has one, else
 * the temp folder. The engine stages every page (an fsync'd file and checkpoint per page)
 * before asking for the next: on a shared disk the fsyncs doubled the run time without
 * touching the figure, which is the child's own RSS (files on tmpfs are not in it).
 */
async function ramDir(): Promise<string> {
  const shm = '/dev/shm';
  try {
    await access(shm, constants.W_OK);
    return shm;
  } catch {
    return tmpdir();
  }
}

export async function benchMemory(outDir: string): Promise<BenchResult> {
  const bundle = await bundleLikeLambda(path.join(ROOT, 'bench/child/export.ts'), path.join(outDir, 'bundles', 'export-child.cjs'));
  const [sandbox, aws] = await Promise.all([startSandbox(), startS3Sqs()]);
  const dir = await mkdtemp(path.join(await ramDir(), 'mintlify-bench-memory-'));
  const figures: Figures = {};
  const details: Record<string, unknown> = {};
  try {
    const bucket = await aws.createBucket();
    const targets = [
      { name: 'local', destination: dir, extra: {} },
      { name: 's3', destination: `s3://${bucket}/exports`, extra: { s3Endpoint: aws.endpoint } },
    ] as const;
    for (const target of targets) {
      const peaks: Record<string, number> = {};
      for (const { paths, runs, label } of MEMORY_SIZES) {
        progress(`memory: export of ${label} paths to ${target.name}, ${runs} child run(s)`);
        const samples: ExportChildOutput[] = [];
        for (let i = 0; i < runs; i++) {
          sandbox.clearRequests();
          samples.push(
            await runChild(bundle.file, {
              apiUrl: sandbox.url,
              apiKey: sandbox.apiKey,
              projectId: `proj_synth_${paths}`,
              day: '2026-01-15',
              destination: target.destination,
              ...target.extra,
            }),
          );
          if (samples.at(-1)?.rows !== paths) throw new Error(`memory: ${label} export wrote ${samples.at(-1)?.rows} rows`);
        }
        const peakMb = median(samples.map((s) => s.maxRssKiB)) / MIB;
        peaks[label] = peakMb;
        figures[`memory.${target.name}.${label}.peak_rss`] = judged(
          peakMb,
          'MB',
          '<=',
          CEILING_MB,
          `child maxRSS, median of ${runs}; export ${(median(samples.map((s) => s.ms)) / 1000).toFixed(1)} s`,
        );
        details[`memory.${target.name}.${label}`] = samples;
      }
      const small = peaks['10k'] ?? NaN;
      const large = peaks['1M'] ?? NaN;
      figures[`memory.${target.name}.flat`] = judged(large, 'MB', '<=', 1.3 * small + 100, '1M peak vs 1.3 × 10k peak + 100 MB');
      figures[`memory.${target.name}.growth_1M_vs_10k`] = info(large - small, 'MB', 'peak RSS added by 100× the rows');
      if (target.name === 'local') {
        progress(`memory: export of 1M paths to local with ${CAPPED_HEAP_FLAG}`);
        const capped = await runChild(
          bundle.file,
          { apiUrl: sandbox.url, apiKey: sandbox.apiKey, projectId: 'proj_synth_1000000', day: '2026-01-15', destination: target.destination },
          [CAPPED_HEAP_FLAG],
        );
        figures['memory.local.1M.peak_rss_heap160'] = judged(
          capped.maxRssKiB / MIB,
          'MB',
          '<=',
          CEILING_MB,
          `same export, ${CAPPED_HEAP_FLAG} (completes: live data fits)`,
        );
        details['memory.local.1M.heap160'] = capped;
      }
    }

    Object.assign(figures, await assistantFigures(bundle.file, sandbox, dir, details));
  } finally {
    sandbox.clearRequests();
    await Promise.all([sandbox.close(), aws.close()]);
    await rm(dir, { recursive: true, force: true });
  }
  return { figures, details };
}

/**
 * The assistant days (issue 9) with the personal-data policy on (its defaults: the question and
 * the answer masked before a page is staged), and the 200k-turn day once more with the policy
 * off (every column kept), side by side (issue 33).
 */
async function assistantFigures(
  bundle: string,
  sandbox: { readonly url: string; readonly apiKey: string; clearRequests(): void },
  dir: string,
  details: Record<string, unknown>,
): Promise<Figures> {
  const figures: Figures = {};
  const peaks: Record<string, number> = {};
  for (const { turns, runs, label } of ASSISTANT_SIZES) {
    progress(`memory: assistant day of ${label} turns to local, ${runs} child run(s)`);
    const samples: ExportChildOutput[] = [];
    for (let i = 0; i < runs; i++) {
      sandbox.clearRequests();
      const output = await runChild(bundle, {
        apiUrl: sandbox.url,
        apiKey: sandbox.apiKey,
        dataset: 'assistant',
        projectId: `proj_synth_${turns}`,
        day: '2026-01-15',
        destination: dir,
      });
      if (output.rows !== turns) throw new Error(`memory: assistant ${label} export wrote ${output.rows} rows`);
      samples.push(output);
    }
    const peakMb = median(samples.map((s) => s.maxRssKiB)) / MIB;
    peaks[label] = peakMb;
    const sample = samples[0] as ExportChildOutput;
    figures[`memory.assistant.${label}.peak_rss`] = judged(
      peakMb,
      'MB',
      '<=',
      CEILING_MB,
      `child maxRSS, median of ${runs}, personal-data policy on (query and response masked); ${sample.requests} requests, ${(sample.bytes / 1_048_576).toFixed(0)} MB Parquet, export ${(median(samples.map((s) => s.ms)) / 1000).toFixed(1)} s`,
    );
    details[`memory.assistant.${label}`] = samples;
  }
  const small = peaks['2k'] ?? NaN;
  const large = peaks['200k'] ?? NaN;
  figures['memory.assistant.flat'] = judged(large, 'MB', '<=', 1.3 * small + 100, '200k-turn peak vs 1.3 × 2k peak + 100 MB');
  figures['memory.assistant.growth_200k_vs_2k'] = info(large - small, 'MB', 'peak RSS added by 100× the turns');
  progress('memory: assistant day of 200k turns to local with the personal-data policy off, 1 child run');
  sandbox.clearRequests();
  const off = await runChild(bundle, {
    apiUrl: sandbox.url,
    apiKey: sandbox.apiKey,
    dataset: 'assistant',
    projectId: 'proj_synth_200000',
    day: '2026-01-15',
    destination: dir,
    keepPersonalData: true,
  });
  figures['memory.assistant.200k.peak_rss_policy_off'] = info(
    off.maxRssKiB / MIB,
    'MB',
    `the same day, every column kept; export ${(off.ms / 1000).toFixed(1)} s`,
  );
  figures['memory.assistant.200k.policy_on_vs_off'] = info(large / (off.maxRssKiB / MIB), 'x', 'peak RSS with the policy on ÷ off');
  details['memory.assistant.200k.policy_off'] = off;
  return figures;
}

/** Only the assistant days of the memory figure (`npm run bench -- memory-assistant`). */
export async function benchAssistantMemory(outDir: string): Promise<BenchResult> {
  const bundle = await bundleLikeLambda(path.join(ROOT, 'bench/child/export.ts'), path.join(outDir, 'bundles', 'export-child.cjs'));
  const sandbox = await startSandbox();
  const dir = await mkdtemp(path.join(await ramDir(), 'mintlify-bench-memory-'));
  const details: Record<string, unknown> = {};
  try {
    return { figures: await assistantFigures(bundle.file, sandbox, dir, details), details };
  } finally {
    sandbox.clearRequests();
    await sandbox.close();
    await rm(dir, { recursive: true, force: true });
  }
}
