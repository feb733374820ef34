import { mkdir, readdir, readFile, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Destination } from '../../../functions/shared/storage/destination.js';
import { createLocalDestination } from '../../../functions/shared/storage/destination-local.js';
import { ConfigError, DestinationError } from '../../../functions/shared/errors.js';
import { listFiles, makeTempDir, removeTempDirs } from '../../helpers/files.js';

let dir: string;
let destination: Destination;

beforeEach(async () => {
  dir = await makeTempDir('destination-local');
  destination = createLocalDestination(path.join(dir, 'data'));
});

afterEach(async () => {
  await removeTempDirs();
});

const text = (bytes: Uint8Array | undefined) => (bytes === undefined ? undefined : Buffer.from(bytes).toString('utf8'));

describe('createLocalDestination', () => {
  it('reports its absolute directory as url', () => {
    expect(destination.url).toBe(path.join(dir, 'data'));
    expect(path.isAbsolute(createLocalDestination('relative/data').url)).toBe(true);
  });

  it('never shows the key while a streamed write is in progress', async () => {
    const pending = await destination.openWrite('visitors_pages/dt=2026-01-30/p.parquet');
    pending.stream.write('first half ');

    expect(await destination.exists('visitors_pages/dt=2026-01-30/p.parquet')).toBe(false);
    await pending.abort();
  });

  it('publishes the whole file on commit, creating folders', async () => {
    const pending = await destination.openWrite('visitors_pages/dt=2026-01-30/p.parquet');
    pending.stream.write('first half ');
    pending.stream.end('second half');

    const { bytes } = await pending.commit();

    expect(bytes).toBe(22);
    expect(await readFile(path.join(dir, 'data', 'visitors_pages', 'dt=2026-01-30', 'p.parquet'), 'utf8')).toBe('first half second half');
    expect(await listFiles(path.join(dir, 'data'))).toEqual(['visitors_pages/dt=2026-01-30/p.parquet']);
  });

  it('leaves the key absent and no temp file when a write is aborted', async () => {
    const pending = await destination.openWrite('a/b.parquet');
    pending.stream.write('partial');

    await pending.abort(new Error('upstream failed'));

    expect(await destination.exists('a/b.parquet')).toBe(false);
    expect(await listFiles(path.join(dir, 'data'))).toEqual([]);
  });

  it('keeps the previous content when a rewrite is aborted', async () => {
    await destination.put('a.json', 'old');
    const pending = await destination.openWrite('a.json');
    pending.stream.write('new, half written');

    await pending.abort();

    expect(text(await destination.get('a.json'))).toBe('old');
  });

  it('replaces the previous content on a committed rewrite', async () => {
    await destination.put('a.json', 'a much longer old content');
    const pending = await destination.openWrite('a.json');
    pending.stream.end('new');

    await pending.commit();

    expect(text(await destination.get('a.json'))).toBe('new');
    expect(await listFiles(path.join(dir, 'data'))).toEqual(['a.json']);
  });

  it('writes to a hidden temp file beside the key until commit', async () => {
    const pending = await destination.openWrite('dt=1/x.parquet');
    pending.stream.write('abc');

    const [temp] = await listFiles(path.join(dir, 'data'));
    await pending.abort();

    expect(temp).toMatch(/^dt=1\/\.x\.parquet\.[0-9a-f]{12}\.tmp$/);
  });

  it('ignores abort after commit', async () => {
    const pending = await destination.openWrite('k');
    pending.stream.end('done');
    await pending.commit();

    await pending.abort();

    expect(text(await destination.get('k'))).toBe('done');
  });

  it('refuses to commit twice', async () => {
    const pending = await destination.openWrite('k');
    await pending.commit();

    await expect(pending.commit()).rejects.toBeInstanceOf(DestinationError);
  });

  it('lists a range of a folder: the keys the whole listing gives inside it, with their times', async () => {
    const days = ['2026-06-30', '2026-07-01', '2026-08-15', '2026-09-30', '2026-10-01'];
    for (const day of days) await destination.put(`_manifests/visitors/dt=${day}/p.json`, '{}');
    await destination.put('_manifests/views/dt=2026-08-01/p.json', '{}');
    const range = { after: '_manifests/visitors/dt=2026-07', before: '_manifests/visitors/dt=2026-10' };

    const whole = await destination.list?.('_manifests/visitors/');
    const ranged = await destination.listModified?.('_manifests/visitors/', range);

    expect(ranged?.map((object) => object.key).sort()).toEqual(whole?.filter((key) => key > range.after && key < range.before).sort());
    expect((await destination.list?.('_manifests/visitors/', range))?.sort()).toEqual(days.slice(1, 4).map((day) => `_manifests/visitors/dt=${day}/p.json`));
    expect(ranged?.every((object) => object.modified > 0)).toBe(true);
  });

  it('puts, gets, checks and deletes small objects', async () => {
    await destination.put('_manifests/visitors/dt=2026-01-30/p.json', '{"ok":true}');
    await destination.put('bytes.bin', new Uint8Array([0, 1, 2, 255]));

    expect(text(await destination.get('_manifests/visitors/dt=2026-01-30/p.json'))).toBe('{"ok":true}');
    expect([...((await destination.get('bytes.bin')) ?? [])]).toEqual([0, 1, 2, 255]);
    expect(await destination.exists('bytes.bin')).toBe(true);

    await destination.delete('bytes.bin');

    expect(await destination.exists('bytes.bin')).toBe(false);
    expect(await destination.get('bytes.bin')).toBeUndefined();
  });

  it('writes an overlapped staging file (through the thread pool) as a synchronous one: whole, its folder made, replaced, nothing beside it', async () => {
    // A checkpoint is written while the next request is on its way (export/unit.ts): a
    // synchronous write would hold the event loop, and that request, for the disk's time.
    const root = path.join(dir, 'data');
    const key = '_staging/visitors/dt=2026-01-30/p/checkpoint.json';
    await destination.put(key, '{"pages":1}', { durable: false, overlapped: true });
    await destination.put(key, '{"pages":2}', { durable: false, overlapped: true });
    const page = '_staging/visitors/dt=2026-01-30/p/page-0001.json';
    await destination.put(page, '{"rows":[]}', { durable: false });
    expect(await readFile(path.join(root, ...key.split('/')), 'utf8')).toBe('{"pages":2}');
    expect(await listFiles(root)).toEqual([key, page]);
  });

  it('answers absent for keys that do not exist, even below a file', async () => {
    await destination.put('file', 'x');

    expect(await destination.get('missing/key')).toBeUndefined();
    expect(await destination.exists('missing/key')).toBe(false);
    expect(await destination.exists('file/below')).toBe(false);
  });

  it('does not count a folder as an existing key', async () => {
    await destination.put('folder/inside', 'x');

    expect(await destination.exists('folder')).toBe(false);
  });

  it('deletes absent keys without error', async () => {
    await expect(destination.delete('never/written')).resolves.toBeUndefined();
  });

  it.each(['../../escape', 'a/../../escape', '/etc/passwd', 'a//b', './a', 'a/./b', '', 'a\\b', 'C:/x', 'a/'])('refuses the key %j', async (key) => {
    await expect(destination.openWrite(key)).rejects.toBeInstanceOf(ConfigError);
    await expect(destination.put(key, 'x')).rejects.toBeInstanceOf(ConfigError);
    await expect(destination.get(key)).rejects.toBeInstanceOf(ConfigError);
    await expect(destination.exists(key)).rejects.toBeInstanceOf(ConfigError);
    await expect(destination.delete(key)).rejects.toBeInstanceOf(ConfigError);
  });

  it('writes nothing outside its directory when a traversal is refused', async () => {
    await destination.put('inside', 'x');

    await expect(destination.put('../../outside', 'x')).rejects.toThrow(/not a relative path inside the destination/);

    expect(await listFiles(dir)).toEqual(['data/inside']);
  });

  it('fails with a DestinationError naming the path when a folder cannot be created', async () => {
    await writeFile(path.join(dir, 'blocker'), 'a file where a folder should be');
    const blocked = createLocalDestination(path.join(dir, 'blocker'));

    const error = await blocked.openWrite('x/y.parquet').catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(DestinationError);
    expect((error as Error).message).toContain(path.join(dir, 'blocker'));
  });

  it('removes the stale temp files a killed writer left beside a key when that key is written again', async () => {
    const folder = path.join(dir, 'data', 'visitors_pages', 'dt=2026-01-01');
    await mkdir(folder, { recursive: true });
    const stale = path.join(folder, '.proj_a.parquet.0123456789ab.tmp');
    const fresh = path.join(folder, '.proj_a.parquet.ba9876543210.tmp');
    const other = path.join(folder, '.proj_b.parquet.0123456789ab.tmp');
    for (const file of [stale, fresh, other]) await writeFile(file, 'half a file');
    const hourAgo = new Date(Date.now() - 3_600_000);
    await utimes(stale, hourAgo, hourAgo);
    await utimes(other, hourAgo, hourAgo);

    await destination.put('visitors_pages/dt=2026-01-01/proj_a.parquet', 'new');

    // Once the key is committed even a fresh temp of it is dead (whoever commits a table file
    // holds its unit's lease: no other writer of it is alive); another key's temp is its own business.
    expect(await listFiles(folder)).toEqual(['.proj_b.parquet.0123456789ab.tmp', 'proj_a.parquet']);
  });

  it('keeps a fresh temp file of a key while that key is being written (it may be a live writer)', async () => {
    const folder = path.join(dir, 'data', 'visitors_pages', 'dt=2026-01-02');
    await mkdir(folder, { recursive: true });
    await writeFile(path.join(folder, '.proj_a.parquet.ba9876543210.tmp'), 'half a file');

    const pending = await destination.openWrite('visitors_pages/dt=2026-01-02/proj_a.parquet');

    expect((await listFiles(folder)).filter((name) => name.includes('ba9876543210'))).toEqual(['.proj_a.parquet.ba9876543210.tmp']);
    await pending.abort();
  });

  it("removes a unit's empty staging folders up to _staging with its last staged file", async () => {
    await destination.put('_staging/visitors/dt=2026-01-01/proj_a/page-000000.json', '{}');
    await destination.put('_staging/visitors/dt=2026-01-01/proj_b/page-000000.json', '{}');

    await destination.delete('_staging/visitors/dt=2026-01-01/proj_a/page-000000.json');
    expect(await readdir(path.join(dir, 'data', '_staging', 'visitors', 'dt=2026-01-01'))).toEqual(['proj_b']);
    await destination.delete('_staging/visitors/dt=2026-01-01/proj_b/page-000000.json');

    expect(await readdir(path.join(dir, 'data'))).not.toContain('_staging');
  });
});
