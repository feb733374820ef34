/**
 * Issue 33, erasure: `forget` survives a real kill. The real CLI runs `forget` on a local
 * destination of many feedback files and is killed with SIGKILL as soon as it has replaced its
 * first file (a watch on the day folders sees the rename). Then no reader sees half a day: every
 * Parquet file DuckDB reads is whole, and every manifest there is says what its file holds. A
 * second `forget` finishes the job: exactly that person's rows gone, every manifest back and
 * right, the erasure recorded once (with the rows of both runs), and no copy of a file left in
 * the temp folder. The same on an S3 destination (fauxqs), killed while it works on its second
 * unit.
 */
import { createHash, createHmac } from 'node:crypto';
import { watch, type FSWatcher } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runExport } from '../../../functions/export/run.js';
import { createLocalDestination } from '../../../functions/shared/storage/destination-local.js';
import { createS3Destination } from '../../../functions/shared/storage/destination-s3.js';
import type { Destination } from '../../../functions/shared/storage/destination.js';
import { keyIdOf } from '../../../functions/shared/personal-data/index.js';
import { startSandbox, type Sandbox } from '../../../sandbox/index.js';
import { runSpawnedCli, spawnCli } from '../../helpers/cli.js';
import { startS3Sqs, type S3Sqs } from '../../../scripts/lib/s3-sqs.js';
import { emulatorAwsEnv, hostEnv } from '../../helpers/env.js';
import { listFiles, makeTempDir, removeTempDirs } from '../../helpers/files.js';
import { cachedLake } from '../../helpers/lake-cache.js';
import { queryDuckDb, readManifest } from '../../helpers/read-back.js';
import { DATASET_CLIENT, exportDeps, TEST_PERSONAL_DATA_KEY, testSettings } from '../../helpers/run-deps.js';

const API_KEY = 'mint_forget_kill_0123456789abcdef';
const PROJECTS = ['proj_k1', 'proj_k2', 'proj_k3'];
const DAYS = ['2026-03-02', '2026-03-03', '2026-03-04', '2026-03-05'];
const START = Date.parse('2026-03-06T04:00:00.000Z');
const PERSON = 'ana.silva@example.com';
const HMAC = createHmac('sha256', TEST_PERSONAL_DATA_KEY).update(PERSON).digest('hex');
/** The sandbox's projects: what the export reads. */
const SANDBOX_PROJECTS = PROJECTS.map((id) => ({ id, paths: 20, exact: true, rows: { feedback: 300 } }));
/** What the local export is made of, in the name of its cached copy. */
const FIXTURE = createHash('sha256').update(JSON.stringify({ API_KEY, SANDBOX_PROJECTS, DAYS, START })).digest('hex').slice(0, 8);

let sandbox: Sandbox;
let aws: S3Sqs;

beforeAll(async () => {
  [sandbox, aws] = await Promise.all([startSandbox({ apiKey: API_KEY, projects: SANDBOX_PROJECTS }), startS3Sqs()]);
}, 60_000);

afterAll(async () => {
  await Promise.all([sandbox?.close(), aws?.close()]);
  await removeTempDirs();
});

/** Exports feedback of every day and project into `destination`. */
async function exportAll(destination: Destination): Promise<void> {
  const deps = exportDeps({ sandbox, destination, start: START, client: DATASET_CLIENT });
  const exported = await runExport(
    { kind: 'days', days: DAYS, projects: PROJECTS, datasets: ['feedback'] },
    testSettings({ datasets: ['feedback'] }),
    {},
    deps,
  );
  expect(exported.units.every((unit) => unit.status === 'complete')).toBe(true);
}

/** A local copy of everything under `destination` (what a reader of the bucket sees now). */
async function copyOf(destination: Destination): Promise<string> {
  const local = await makeTempDir('forget-sigkill-copy');
  for (const key of (await Promise.all(['feedback/', '_manifests/', '_privacy/'].map((prefix) => destination.list?.(prefix) ?? []))).flat()) {
    const bytes = await destination.get(key);
    if (bytes === undefined) continue;
    await mkdir(path.dirname(path.join(local, key)), { recursive: true });
    await writeFile(path.join(local, key), bytes);
  }
  return local;
}

/** Rows, and the person's rows, of each feedback file under `root`, by its relative key. */
async function rowsByFile(root: string): Promise<Map<string, { readonly total: number; readonly person: number }>> {
  const rows = await queryDuckDb(
    `SELECT source_file, count(*) AS total, count(*) FILTER (WHERE contact = '${HMAC}') AS person
       FROM read_parquet('${path.join(root, 'feedback', '**', '*.parquet')}', filename = 'source_file') GROUP BY source_file`,
  );
  return new Map(
    rows.map((row) => [
      path.relative(root, String(row['source_file'])).split(path.sep).join('/'),
      { total: Number(row['total']), person: Number(row['person']) },
    ]),
  );
}

/** For every unit: its manifest's feedback row count (undefined: no manifest), and its file's. */
async function manifestsAndFiles(root: string): Promise<{ readonly key: string; readonly manifest: number | undefined; readonly file: number }[]> {
  const files = await rowsByFile(root);
  const out = [];
  for (const day of DAYS) {
    for (const projectId of PROJECTS) {
      const key = `feedback/dt=${day}/${projectId}.parquet`;
      const manifest = await readManifest(createLocalDestination(root), 'feedback', day, projectId);
      out.push({ key, manifest: manifest?.rows['feedback'], file: files.get(key)?.total ?? -1 });
    }
  }
  return out;
}

/** Spawns `forget` and kills it with SIGKILL the moment it has replaced a first table file. */
async function forgetKilledAfterFirstFile(root: string, env: Record<string, string>): Promise<void> {
  const cli = spawnCli(['forget', '--email', PERSON, '--out', root], env);
  const watchers: FSWatcher[] = [];
  let killed = false;
  const replaced = new Promise<void>((resolve) => {
    for (const day of DAYS) {
      watchers.push(
        watch(path.join(root, 'feedback', `dt=${day}`), (_event, name) => {
          // The rename of a temp file onto `<project>.parquet`: the first file is replaced.
          if (!killed && name !== null && PROJECTS.includes(String(name).replace(/\.parquet$/, '')) && String(name).endsWith('.parquet')) {
            killed = cli.child.kill('SIGKILL');
            resolve();
          }
        }),
      );
    }
  });
  try {
    const ended = await Promise.race([replaced.then(() => cli.exited), cli.exited]);
    expect(killed, `forget ended before it was killed: ${cli.stderr()}${cli.stdout()}`).toBe(true);
    expect(ended.signal).toBe('SIGKILL');
  } finally {
    for (const watcher of watchers) watcher.close();
  }
}

describe('forget killed half-way (the real CLI, SIGKILL)', () => {
  it('leaves every file whole and every manifest true to its file, and a second run finishes the job, recorded once', async () => {
    // The export, made once per content of the tree and of what it exports (test/helpers/lake-cache.ts): this run's own copy.
    const { root } = await cachedLake(`forget-killed-${FIXTURE}`, (folder) => exportAll(createLocalDestination(folder)));
    const temp = await makeTempDir('forget-sigkill-tmp');
    const before = await rowsByFile(root);
    const person = [...before.values()].reduce((sum, file) => sum + file.person, 0);
    const total = [...before.values()].reduce((sum, file) => sum + file.total, 0);
    const holding = [...before.values()].filter((file) => file.person > 0).length;
    expect(holding).toBeGreaterThan(6);
    const env = { ...hostEnv(), TMPDIR: temp, EXPORT_STATE_DIR: await makeTempDir('forget-sigkill-state'), PERSONAL_DATA_KEY: TEST_PERSONAL_DATA_KEY };

    await forgetKilledAfterFirstFile(root, env);

    // Half-way: some files are rewritten, some still hold the person.
    const midway = await rowsByFile(root);
    const left = [...midway.values()].filter((file) => file.person > 0).length;
    expect(left).toBeGreaterThan(0);
    expect(left).toBeLessThan(holding);
    // Whole files only: every file DuckDB reads holds all its other rows.
    expect([...midway.keys()].sort()).toEqual([...before.keys()].sort());
    for (const [key, file] of midway) expect(file.total - file.person, key).toBe((before.get(key)?.total ?? 0) - (before.get(key)?.person ?? 0));
    // No manifest disagrees with its file (a unit caught between its two writes has none for now).
    for (const unit of await manifestsAndFiles(root)) {
      if (unit.manifest !== undefined) expect(unit.manifest, unit.key).toBe(unit.file);
    }

    const again = await runSpawnedCli(['forget', '--email', PERSON, '--out', root, '--json'], env);

    expect(again.code, again.stderr).toBe(0);
    const after = await rowsByFile(root);
    expect([...after.values()].reduce((sum, file) => sum + file.person, 0)).toBe(0);
    expect([...after.values()].reduce((sum, file) => sum + file.total, 0)).toBe(total - person);
    for (const unit of await manifestsAndFiles(root)) expect(unit.manifest, unit.key).toBe(unit.file);
    const records = (await listFiles(root)).filter((key) => key.startsWith('_privacy/erasures/'));
    expect(records).toHaveLength(1);
    const record = JSON.parse(await readFile(path.join(root, records[0] as string), 'utf8'));
    expect(record).toMatchObject({ hmac: HMAC, keyId: keyIdOf(TEST_PERSONAL_DATA_KEY), status: 'done', rows: person, files: holding });
    expect(JSON.parse(again.stdout)).toMatchObject({ record: records[0] });
    // Nothing else of forget's is left: no pending work, no copy of a file in the temp folder.
    expect((await listFiles(root)).filter((key) => key.startsWith('_privacy/') && !key.startsWith('_privacy/erasures/'))).toEqual([]);
    expect((await readdir(temp)).filter((name) => name.startsWith('mintlify-'))).toEqual([]);
  }, 180_000);
});

describe('forget killed half-way on an S3 destination (fauxqs)', () => {
  it('leaves every object whole and every manifest true to its file, and a second run finishes the job, recorded once', async () => {
    const bucket = await aws.createBucket();
    const destination = createS3Destination({ bucket, prefix: 'mintlify', client: aws.s3 });
    await exportAll(destination);
    const before = await rowsByFile(await copyOf(destination));
    const person = [...before.values()].reduce((sum, file) => sum + file.person, 0);
    const holding = [...before.values()].filter((file) => file.person > 0).length;
    const scratch = await makeTempDir('forget-sigkill-s3');
    const env = {
      ...emulatorAwsEnv(aws.endpoint, scratch),
      TMPDIR: scratch,
      HOME: scratch,
      EXPORT_STATE_DIR: scratch,
      PERSONAL_DATA_KEY: TEST_PERSONAL_DATA_KEY,
    };
    const out = `s3://${bucket}/mintlify`;

    // Killed while it works on its second unit: a first manifest kept aside is gone again, or a second one appears.
    const cli = spawnCli(['forget', '--email', PERSON, '--out', out], env);
    const seen = new Set<string>();
    let killed = false;
    while (!killed && cli.child.exitCode === null) {
      const listed = await aws.s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: 'mintlify/_privacy/forgetting/' }));
      const keys = new Set((listed.Contents ?? []).map((object) => object.Key as string));
      if ([...seen].some((key) => !keys.has(key)) || new Set([...seen, ...keys]).size > 1) killed = cli.child.kill('SIGKILL');
      for (const key of keys) seen.add(key);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const ended = await cli.exited;
    expect(killed, `forget ended before it was killed: ${cli.stderr()}`).toBe(true);
    expect(ended.signal).toBe('SIGKILL');

    const midwayCopy = await copyOf(destination);
    const midway = await rowsByFile(midwayCopy);
    const left = [...midway.values()].filter((file) => file.person > 0).length;
    expect(left).toBeGreaterThan(0);
    expect(left).toBeLessThan(holding);
    for (const [key, file] of midway) expect(file.total - file.person, key).toBe((before.get(key)?.total ?? 0) - (before.get(key)?.person ?? 0));
    for (const unit of await manifestsAndFiles(midwayCopy)) {
      if (unit.manifest !== undefined) expect(unit.manifest, unit.key).toBe(unit.file);
    }

    const again = await runSpawnedCli(['forget', '--email', PERSON, '--out', out, '--json'], env);

    expect(again.code, again.stderr).toBe(0);
    const finalCopy = await copyOf(destination);
    const after = await rowsByFile(finalCopy);
    expect([...after.values()].reduce((sum, file) => sum + file.person, 0)).toBe(0);
    for (const unit of await manifestsAndFiles(finalCopy)) expect(unit.manifest, unit.key).toBe(unit.file);
    const records = (await listFiles(finalCopy)).filter((key) => key.startsWith('_privacy/'));
    expect(records).toHaveLength(1);
    expect(JSON.parse(await readFile(path.join(finalCopy, records[0] as string), 'utf8'))).toMatchObject({ status: 'done', rows: person, files: holding });
  }, 240_000);
});
