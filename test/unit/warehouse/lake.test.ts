/** Which bucket keys the report's S3 mirror writes, and where: never outside its folder; how it stops on a failed read. */
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { localLake, openLake, openRecords } from '../../../functions/warehouse/lake.js';
import { mirrorPath, unsafeKeyProblem } from '../../../functions/warehouse/lake/download.js';
import { parseLakeTarget } from '../../../functions/warehouse/lake/target.js';

const root = path.resolve('mirror-root');

/**
 * A narrow stand-in for S3 on `client`: `send` answers the listings (ListObjectsV2 of `objects`)
 * and the mirror's `GetObjectCommand`s with `get`'s bytes or stream (aborted with the read's signal), or
 * throws the error `get` throws (named by its `code`, as the SDK names S3's errors). Nothing leaves the process.
 */
function standInBucket(
  client: S3Client,
  objects: readonly string[],
  get: (key: string, signal: AbortSignal | undefined) => Promise<Uint8Array | Readable>,
): void {
  client.send = (async (command: { input: { Prefix?: string; Key?: string; ChecksumMode?: string } }, options?: { abortSignal?: AbortSignal }) => {
    if (command instanceof GetObjectCommand) {
      if (command.input.ChecksumMode !== 'ENABLED') throw new Error('the mirror must ask for the checksum to be validated');
      // An error S3 answers is named by its code, as the SDK names it.
      const bytes = await get(command.input.Key ?? '', options?.abortSignal).catch((error: { code?: string }) => {
        throw error.code === undefined ? error : Object.assign(error, { name: error.code });
      });
      // A stream, as the SDK's body is in Node: the mirror writes it to its file as it arrives.
      return { Body: bytes instanceof Readable ? bytes : Readable.from([Buffer.from(bytes)]) };
    }
    if (!(command instanceof ListObjectsV2Command)) throw new Error(`the stand-in answers listings and reads only, not ${command.constructor.name}`);
    return { Contents: objects.filter((key) => key.startsWith(command.input.Prefix ?? '')).map((Key) => ({ Key })), IsTruncated: false };
  }) as unknown as S3Client['send'];
}

describe('unsafeKeyProblem', () => {
  it('accepts plain keys', () => {
    expect(unsafeKeyProblem('visitors_totals/dt=2026-11-17/proj_a.parquet')).toBeUndefined();
    expect(unsafeKeyProblem('_manifests/visitors/dt=2026-11-17/proj_a.json')).toBeUndefined();
    expect(unsafeKeyProblem('..hidden/...')).toBeUndefined();
  });

  it.each([
    ['visitors_totals/dt=2026-11-17/../../../PWNED.txt', '".." segment'],
    ['visitors_totals/dt=2026-11-17/./x.parquet', '"." segment'],
    ['visitors_totals/dt=2026-11-17//x.parquet', 'empty segment'],
    ['visitors_totals/dt=2026-11-17/', 'empty segment'],
    ['/etc/passwd', 'empty segment'],
    ['visitors_totals/dt=2026-11-17/..\\..\\x', 'backslash'],
    ['visitors_totals/dt=2026-11-17/a\0b', 'NUL'],
  ])('refuses %j', (key, problem) => {
    expect(unsafeKeyProblem(key)).toContain(problem);
  });
});

describe('mirrorPath', () => {
  it('puts a plain key under the root', () => {
    expect(mirrorPath(root, 'a/dt=2026-11-17/p.parquet')).toBe(path.join(root, 'a', 'dt=2026-11-17', 'p.parquet'));
  });

  it('throws rather than resolve outside the root, whatever the key', () => {
    for (const key of ['../x', 'a/../../x', '', 'a/..', '..']) expect(() => mirrorPath(root, key), key).toThrow(/refused to mirror/);
  });
});

describe('openLake of a bucket, when a read fails', () => {
  it('stops its other reads, reports the first error and leaves no temporary folder behind', async () => {
    const tmp = await mkdtemp(path.join(tmpdir(), 'lake-failure-'));
    const previous = process.env['TMPDIR'];
    process.env['TMPDIR'] = tmp;
    const client = new S3Client({ region: 'us-east-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } });
    const keys = Array.from({ length: 40 }, (_, i) => `mintlify/visitors_totals/dt=2026-11-17/proj_${String(i).padStart(2, '0')}.parquet`);
    let started = 0;
    // Reads that take a while; the third refused.
    standInBucket(client, keys, async (_key, signal) => {
      const index = started++;
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(resolve, index === 2 ? 5 : 30);
        signal?.addEventListener('abort', () => {
          clearTimeout(timer);
          reject(Object.assign(new Error('Request aborted'), { name: 'AbortError' }));
        });
      });
      if (index === 2) throw Object.assign(new Error('Access Denied'), { code: 'AccessDenied' });
      return new Uint8Array([1, 2, 3]);
    });
    try {
      const opened = openLake(
        parseLakeTarget('s3://bucket/mintlify', '--out'),
        { from: '2026-11-16', to: '2026-11-23', prefixes: ['visitors_totals'] },
        { s3Client: client },
      );
      await expect(opened).rejects.toThrow(/^cannot read s3:\/\/bucket\/mintlify\/visitors_totals\/dt=2026-11-17\/proj_\d\d\.parquet: .*Access Denied/);
      expect(started, 'no read started after the failure beyond those in flight').toBeLessThanOrEqual(16);
      await new Promise((resolve) => setTimeout(resolve, 60));
      expect(await readdir(tmp)).toEqual([]);
    } finally {
      if (previous === undefined) delete process.env['TMPDIR'];
      else process.env['TMPDIR'] = previous;
      await rm(tmp, { recursive: true, force: true });
    }
  });
});

describe('openLake of a bucket, when a body fails on its way', () => {
  it('is a failed read: the error names the object, and nothing of the body is left on disk', async () => {
    const tmp = await mkdtemp(path.join(tmpdir(), 'lake-body-failure-'));
    const previous = process.env['TMPDIR'];
    process.env['TMPDIR'] = tmp;
    const client = new S3Client({ region: 'us-east-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } });
    const keys = ['mintlify/visitors_totals/dt=2026-11-17/proj_a.parquet'];
    // Half the body, then the error the SDK's checksum stream raises when the bytes do not match.
    standInBucket(client, keys, async () =>
      Readable.from(
        (async function* () {
          yield Buffer.from('PAR1 half of it');
          throw new Error('Checksum mismatch: expected "AAAA" but received "BBBB" in response header "x-amz-checksum-crc32"');
        })(),
      ),
    );
    try {
      const opened = openLake(
        parseLakeTarget('s3://bucket/mintlify', '--out'),
        { from: '2026-11-16', to: '2026-11-23', prefixes: ['visitors_totals'] },
        { s3Client: client },
      );
      await expect(opened).rejects.toThrow(/^cannot read s3:\/\/bucket\/mintlify\/visitors_totals\/dt=2026-11-17\/proj_a\.parquet: .*Checksum mismatch/);
      expect(await readdir(tmp)).toEqual([]);
    } finally {
      if (previous === undefined) delete process.env['TMPDIR'];
      else process.env['TMPDIR'] = previous;
      await rm(tmp, { recursive: true, force: true });
    }
  });
});

describe('openLake of a bucket, its scope', () => {
  it('mirrors the tables over every day of the scope, and the units’ states and recent folders from recentFrom on only', async () => {
    const client = new S3Client({ region: 'us-east-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } });
    const objects = [
      'mintlify/visitors_totals/dt=2026-11-09/proj_a.parquet',
      'mintlify/visitors_totals/dt=2026-11-16/proj_a.parquet',
      'mintlify/_manifests/visitors/dt=2026-11-09/proj_a.json',
      'mintlify/_manifests/visitors/dt=2026-11-16/proj_a.json',
      'mintlify/export_runs/dt=2026-11-09/run.json',
      'mintlify/export_runs/dt=2026-11-16/run.json',
    ];
    const read: string[] = [];
    standInBucket(client, objects, async (key) => {
      read.push(key);
      return new Uint8Array([1]);
    });

    const lake = await openLake(
      parseLakeTarget('s3://bucket/mintlify', '--out'),
      { from: '2026-11-09', to: '2026-11-23', prefixes: ['visitors_totals'], recent: ['export_runs'], recentFrom: '2026-11-16' },
      { s3Client: client },
    );
    await lake.close();

    expect(read.sort()).toEqual([
      'mintlify/_manifests/visitors/dt=2026-11-16/proj_a.json',
      'mintlify/export_runs/dt=2026-11-16/run.json',
      'mintlify/visitors_totals/dt=2026-11-09/proj_a.parquet',
      'mintlify/visitors_totals/dt=2026-11-16/proj_a.parquet',
    ]);
  });
});

describe('openLake of a bucket, streamed', () => {
  it('returns once the keys are listed; each table folder arrives by `folderReady` in the order asked, the units’ states by `ready`, and close waits for them', async () => {
    const client = new S3Client({ region: 'us-east-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } });
    const objects = [
      'mintlify/visitors_totals/dt=2026-11-16/proj_a.parquet',
      'mintlify/views_totals/dt=2026-11-16/proj_a.parquet',
      'mintlify/_manifests/visitors/dt=2026-11-16/proj_a.json',
    ];
    /** Each read waits for its own release. */
    const releases = new Map<string, () => void>();
    const held = new Map(
      objects.map((key) => [key.slice('mintlify/'.length), new Promise<void>((resolve) => releases.set(key.slice('mintlify/'.length), resolve))]),
    );
    const release = (key: string) => releases.get(key)?.();
    standInBucket(client, objects, async (key) => {
      await held.get(key.slice('mintlify/'.length));
      return new Uint8Array([1]);
    });
    const files = () => readdir(lake.root, { recursive: true });
    const settled = (promise: Promise<void>) =>
      Promise.race([promise.then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 20))]);

    const lake = await openLake(
      parseLakeTarget('s3://bucket/mintlify', '--out'),
      { from: '2026-11-16', to: '2026-11-23', prefixes: ['visitors_totals', 'views_totals'] },
      { s3Client: client, streamed: true },
    );
    expect(await files(), 'nothing read yet').toEqual([]);
    expect(await settled(lake.folderReady('visitors_totals'))).toBe(false);
    release('visitors_totals/dt=2026-11-16/proj_a.parquet');
    await lake.folderReady('visitors_totals');
    expect(await files()).toContain(path.join('visitors_totals', 'dt=2026-11-16', 'proj_a.parquet'));
    expect(await settled(lake.folderReady('views_totals'))).toBe(false);
    expect(await settled(lake.folderReady('not_asked_for')), 'a folder outside the scope').toBe(true);
    release('views_totals/dt=2026-11-16/proj_a.parquet');
    await lake.folderReady('views_totals');
    expect(await settled(lake.ready)).toBe(false);
    release('_manifests/visitors/dt=2026-11-16/proj_a.json');
    await lake.ready;
    expect(await files()).toContain(path.join('_manifests', 'visitors', 'dt=2026-11-16', 'proj_a.json'));
    await lake.close();
  });

  it('rejects the folders not yet mirrored, and `ready`, with the first failed read', async () => {
    const client = new S3Client({ region: 'us-east-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } });
    const objects = ['mintlify/visitors_totals/dt=2026-11-16/proj_a.parquet', 'mintlify/views_totals/dt=2026-11-16/proj_a.parquet'];
    standInBucket(client, objects, async (key) => {
      if (key.startsWith('mintlify/views_totals/')) throw Object.assign(new Error('Access Denied'), { code: 'AccessDenied' });
      return new Uint8Array([1]);
    });
    const lake = await openLake(
      parseLakeTarget('s3://bucket/mintlify', '--out'),
      { from: '2026-11-16', to: '2026-11-23', prefixes: ['visitors_totals', 'views_totals'] },
      { s3Client: client, streamed: true, concurrency: 1 },
    );
    await lake.folderReady('visitors_totals');
    await expect(lake.folderReady('views_totals')).rejects.toThrow(
      /^cannot read s3:\/\/bucket\/mintlify\/views_totals\/dt=2026-11-16\/proj_a\.parquet: AccessDenied/,
    );
    await expect(lake.ready).rejects.toThrow(/AccessDenied/);
    await lake.close();
    expect(existsSync(lake.root)).toBe(false);
  });
});

describe('the handle a reader is given', () => {
  const WEEK = { from: '2026-11-16', to: '2026-11-23', prefixes: ['visitors_totals'] };

  it('of a folder read in place: its files, and one destination on them for the records and the mirror', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'lake-local-'));
    try {
      const lake = localLake(dir);
      await lake.records.put('_manifests/visitors/dt=2026-11-16/proj_a.json', '{}');

      expect(lake.url).toBe(dir);
      expect(lake.root).toBe(dir);
      expect(lake.mirror).toBe(lake.records);
      expect(await readFile(path.join(dir, '_manifests', 'visitors', 'dt=2026-11-16', 'proj_a.json'), 'utf8')).toBe('{}');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('of a folder named relative: openRecords opens the destination the lake then reads, from the same cwd, and the lake hands it back', async () => {
    const cwd = await mkdtemp(path.join(tmpdir(), 'lake-cwd-'));
    try {
      const target = parseLakeTarget('out', '--out', cwd);
      const records = openRecords(target);
      await records.put('followup_outcomes/dt=2026-11-16/job.json', '{"gap_id":"g"}');
      const lake = await openLake(target, WEEK, { records });

      expect(lake.root).toBe(path.join(cwd, 'out'));
      expect(lake.url).toBe('out');
      expect(lake.records).toBe(records);
      expect(lake.mirror).toBe(records);
      expect(await readdir(path.join(lake.root, 'followup_outcomes', 'dt=2026-11-16'))).toEqual(['job.json']);
    } finally {
      await rm(cwd, { recursive: true, force: true });
    }
  });

  it('of a bucket: the records are the bucket (the one given), the mirror reads the units’ states where they were mirrored', async () => {
    const client = new S3Client({ region: 'us-east-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } });
    const objects = ['mintlify/_manifests/visitors/dt=2026-11-16/proj_a.json'];
    standInBucket(client, objects, async () => new TextEncoder().encode('{"mirrored":true}'));
    const records = openRecords(parseLakeTarget('s3://bucket/mintlify', '--out'), { s3Client: client });

    const lake = await openLake(parseLakeTarget('s3://bucket/mintlify', '--out'), WEEK, { s3Client: client, records });
    try {
      expect(lake.url).toBe('s3://bucket/mintlify');
      expect(lake.records).toBe(records);
      expect(lake.mirror).not.toBe(records);
      const state = await lake.mirror.get('_manifests/visitors/dt=2026-11-16/proj_a.json');
      expect(new TextDecoder().decode(state)).toBe('{"mirrored":true}');
    } finally {
      await lake.close();
    }
  });
});
