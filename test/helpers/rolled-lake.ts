/**
 * Role: the lake of the roll-up tests — two whole settled months and a few days of one sandbox
 * project, exported once per content of the tree (lake-cache.ts) — put into a bucket as the
 * export leaves it, and a report page compared without its chart instance numbers. Used by
 * test/integration/lake/rollups.test.ts and rollups-fetched-early.test.ts.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { expect } from 'vitest';
import { eachAtOnce } from '../../functions/shared/concurrency.js';
import type { startSandbox } from '../../sandbox/index.js';
import { runCliAt } from './cli.js';
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
export async function putFolder(s3: S3Client, bucket: string, folder: string, prefix: string): Promise<void> {
  const files = (await readdir(folder, { recursive: true, withFileTypes: true })).filter((entry) => entry.isFile());
  await eachAtOnce(files, 16, async (entry, signal) => {
    const file = path.join(entry.parentPath, entry.name);
    const key = `${prefix}/${path.relative(folder, file).split(path.sep).join('/')}`;
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: await readFile(file) }), { abortSignal: signal });
  });
}

/** A report page without the chart library's instance numbers (`zr3-cls-10`: how many charts this process drew before). */
export async function reportPage(file: string): Promise<string> {
  return (await readFile(file, 'utf8')).replace(/zr\d+-c(?:ls-)?\d+/g, 'zr');
}
