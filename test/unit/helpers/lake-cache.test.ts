/**
 * The lake cache the integration tests share (test/helpers/lake-cache.ts): built once for callers
 * that ask at the same time, reused after, and a copy of its own for each caller.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { removeTempDirs } from '../../helpers/files.js';
import { builtFolder, cachedLake, LAKE_CACHE } from '../../helpers/lake-cache.js';

const NAME = `lake-cache-test-${randomUUID().slice(0, 8)}`;

afterAll(async () => {
  for (const entry of await readdir(LAKE_CACHE)) if (entry.startsWith(NAME)) await rm(path.join(LAKE_CACHE, entry), { recursive: true, force: true });
  await removeTempDirs();
});

describe('the lake cache', () => {
  it('builds a lake once for callers asking at the same time and after, each getting its own copy', async () => {
    let builds = 0;
    const build = async (root: string) => {
      builds += 1;
      await new Promise((resolve) => setTimeout(resolve, 300));
      await writeFile(path.join(root, 'table.parquet'), 'rows');
      return { page: '/quickstart' };
    };

    const [first, second] = await Promise.all([cachedLake(NAME, build), cachedLake(NAME, build)]);
    await writeFile(path.join(first.root, 'table.parquet'), 'changed by a test');
    const third = await cachedLake(NAME, build);

    expect(builds).toBe(1);
    expect([first.meta, second.meta, third.meta]).toEqual([{ page: '/quickstart' }, { page: '/quickstart' }, { page: '/quickstart' }]);
    expect(new Set([first.root, second.root, third.root]).size).toBe(3);
    expect(await readFile(path.join(second.root, 'table.parquet'), 'utf8')).toBe('rows');
    expect(await readFile(path.join(third.root, 'table.parquet'), 'utf8')).toBe('rows');
  });

  it('gives the lock back when a build fails, so the next caller builds', async () => {
    const name = `${NAME}-failing`;
    await expect(
      cachedLake(name, async () => {
        throw new Error('export failed');
      }),
    ).rejects.toThrow('export failed');

    const { meta } = await cachedLake(name, async () => 'built');

    expect(meta).toBe('built');
  });

  it('takes over at once the lock of a process that is gone, and removes its half-made build', async () => {
    const name = `${NAME}-orphan`;
    const built = await builtFolder(name);
    // A process that held the lock and died mid-build (its id is free once it has exited).
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout;
    await mkdir(`${built}.lock`, { recursive: true });
    await writeFile(path.join(`${built}.lock`, 'pid'), dead);
    await mkdir(`${built}.building-${dead}`, { recursive: true });

    // "At once": the dead holder's lock is removed on the first look, so one round of waiting (a
    // 200 ms timer) at most, not the stale-lock age (10 minutes) — counted, not timed.
    const timers = vi.spyOn(globalThis, 'setTimeout');
    const { meta } = await cachedLake(name, async () => 'built');
    const waits = timers.mock.calls.filter(([, delay]) => delay === 200).length;
    timers.mockRestore();

    expect(meta).toBe('built');
    expect(waits).toBeLessThanOrEqual(1);
    expect((await readdir(LAKE_CACHE)).filter((entry) => entry.startsWith(`${path.basename(built)}.`))).toEqual([]);
  });
});
