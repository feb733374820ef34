/**
 * Role: the lake of the roll-up tests — two whole settled months and a few days of one sandbox
 * project, exported once per content of the tree (lake-cache.ts) — put into a bucket as the
 * export leaves it (with its indexes brought up to date by `compact`), the report over that bucket
 * with the roll-ups read or not, and a report page compared without its chart instance numbers. Used by
 * test/integration/lake/rollups.test.ts and rollups-fetched-early.test.ts.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { expect } from 'vitest';
import { eachAtOnce } from '../../functions/shared/concurrency.js';
import type { startSandbox } from '../../sandbox/index.js';
import type { S3Sqs } from '../../scripts/lib/s3-sqs.js';
import { runCliAt, runCliInProcess } from './cli.js';
import { cliEnv, withRollups } from './env.js';
import { cachedLake } from './lake-cache.js';

/** The lake's one project. */
export const ROLLED_PROJECT = 'proj_rolled';
/** The clock of every run over the lake: 2026-03 and 2026-04 settled, May begun. */
export const ROLLED_NOW = Date.parse('2026-05-05T06:00:00.000Z');

/** The cached lake exported from `sandbox` (a sandbox serving {@link ROLLED_PROJECT} with 12 paths): its folder and its `data` destination. */
export async function rolledLake(sandbox: Awaited<ReturnType<typeof startSandbox>>): Promise<{ root: string; out: string }> {
  const { root } = await cachedLake('rollups', async (folder) => {
    const argv = ['export', '--from', '2026-03-01', '--to', '2026-05-04', '--project', ROLLED_PROJECT, '--out', path.join(folder, 'data')];
    const { code, stderr } = await runCliAt(sandbox, argv, { now: ROLLED_NOW });
    expect(code, stderr).toBe(0);
  });
  return { root, out: path.join(root, 'data') };
}

/** Every file under `folder` put into `bucket` under `prefix/`, 16 at a time (one by one, the round trips of 2,302 files took seconds). */
async function putFolder(s3: S3Client, bucket: string, folder: string, prefix: string): Promise<void> {
  const files = (await readdir(folder, { recursive: true, withFileTypes: true })).filter((entry) => entry.isFile());
  await eachAtOnce(files, 16, async (entry, signal) => {
    const file = path.join(entry.parentPath, entry.name);
    const key = `${prefix}/${path.relative(folder, file).split(path.sep).join('/')}`;
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: await readFile(file) }), { abortSignal: signal });
  });
}

/** A bucket of the lake in `out` (under `lake/`) and the CLI's environment for it. */
export interface RolledBucket {
  readonly aws: S3Sqs;
  readonly bucket: string;
  readonly env: Record<string, string>;
}

/**
 * The lake in `out` put into a new bucket of `aws` under `lake/`. Copied, every manifest and run
 * record is newer than the indexes built beside them: `compact` brings them up to date in the
 * bucket, as the export writing there leaves them (a reader never writes). Returns what `compact
 * --json` printed too.
 */
export async function rolledBucket(
  aws: S3Sqs,
  sandbox: Awaited<ReturnType<typeof startSandbox>>,
  out: string,
): Promise<RolledBucket & { readonly compacted: string }> {
  const bucket = await aws.createBucket();
  await putFolder(aws.s3, bucket, out, 'lake');
  const env = await cliEnv(sandbox);
  const { code, stdout, stderr } = await runCliInProcess(['compact', '--out', `s3://${bucket}/lake`, '--json'], {
    env,
    now: () => ROLLED_NOW,
    extra: { clients: { s3: aws.s3 } },
  });
  expect(code, stderr).toBe(0);
  return { aws, bucket, env, compacted: stdout };
}

/** `report` of `range` over the bucket's lake into `file`, with the roll-ups read or not (`MINTLIFY_ROLLUPS=off`). */
export async function bucketReport({ aws, bucket, env }: RolledBucket, rollups: boolean, range: readonly string[], file: string): Promise<void> {
  await withRollups(rollups, async () => {
    const argv = ['report', ...range, '--out', `s3://${bucket}/lake`, '--file', file];
    const run = await runCliInProcess(argv, { env, now: () => ROLLED_NOW, extra: { clients: { s3: aws.s3 } } });
    expect(run.code, run.stderr).toBe(0);
  });
}

/** A report page without the chart library's instance numbers (`zr3-cls-10`: how many charts this process drew before). */
export async function reportPage(file: string): Promise<string> {
  return (await readFile(file, 'utf8')).replace(/zr\d+-c(?:ls-)?\d+/g, 'zr');
}
