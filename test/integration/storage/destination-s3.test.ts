import { GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Writable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTableWriter } from '../../../functions/export/parquet.js';
import type { Destination } from '../../../functions/shared/storage/destination.js';
import { createS3Destination, PART_SIZE } from '../../../functions/shared/storage/destination-s3.js';
import { openDestination } from '../../../functions/shared/storage/destinations.js';
import { ConfigError, DestinationError } from '../../../functions/shared/errors.js';
import { VISITORS_PAGES } from '../../../functions/warehouse/tables.js';
import { readParquetBytes } from '../../helpers/read-back.js';
import { emulatorS3Config, startS3Sqs, type S3Sqs } from '../../../scripts/lib/s3-sqs.js';

let aws: S3Sqs;

beforeAll(async () => {
  aws = await startS3Sqs();
});

afterAll(async () => {
  await aws?.close();
});

async function newDestination(prefix?: string): Promise<{ bucket: string; destination: Destination }> {
  const bucket = await aws.createBucket();
  return { bucket, destination: createS3Destination({ bucket, client: aws.s3, ...(prefix === undefined ? {} : { prefix }) }) };
}

async function keysIn(bucket: string): Promise<string[]> {
  const { Contents } = await aws.s3.send(new ListObjectsV2Command({ Bucket: bucket }));
  return (Contents ?? []).map((object) => object.Key ?? '').sort();
}

const text = (bytes: Uint8Array | undefined) => (bytes === undefined ? undefined : Buffer.from(bytes).toString('utf8'));

/** Writes `bytes` in 1 MiB chunks, honouring back-pressure. */
async function writeBytes(stream: Writable, bytes: Buffer): Promise<void> {
  const chunk = 1024 * 1024;
  for (let offset = 0; offset < bytes.length; offset += chunk) {
    await new Promise<void>((resolve, reject) => stream.write(bytes.subarray(offset, offset + chunk), (error) => (error ? reject(error) : resolve())));
  }
}

/** An S3 client on the emulator that records the name of every command it sends. */
function recordingClient(): { client: S3Client; commands: string[] } {
  const client = new S3Client(emulatorS3Config(aws.endpoint));
  const commands: string[] = [];
  client.middlewareStack.add(
    (next, context) => (args) => {
      commands.push(String(context.commandName));
      return next(args);
    },
    { step: 'initialize' },
  );
  return { client, commands };
}

function pseudoRandomBytes(size: number): Buffer {
  // Incompressible, deterministic content: part boundaries and byte order both matter.
  const out = Buffer.alloc(size + 4);
  let seed = 42;
  for (let i = 0; i < size; i += 4) {
    seed = (seed * 1_103_515_245 + 12_345) >>> 0;
    out.writeUInt32LE(seed, i);
  }
  return out.subarray(0, size);
}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

describe('createS3Destination', () => {
  it('reports s3://bucket/prefix as url', async () => {
    expect(createS3Destination({ bucket: 'b', prefix: 'exports/mintlify/', client: aws.s3 }).url).toBe('s3://b/exports/mintlify');
    expect(createS3Destination({ bucket: 'b', client: aws.s3 }).url).toBe('s3://b');
  });

  it('shows no object while a streamed write is in progress', async () => {
    const { bucket, destination } = await newDestination();
    const pending = await destination.openWrite('visitors_pages/dt=2026-01-30/p.parquet');
    pending.stream.write('first half ');

    expect(await destination.exists('visitors_pages/dt=2026-01-30/p.parquet')).toBe(false);
    expect(await keysIn(bucket)).toEqual([]);
    await pending.abort();
  });

  it('publishes the whole object on commit', async () => {
    const { destination } = await newDestination();
    const pending = await destination.openWrite('visitors_pages/dt=2026-01-30/p.parquet');
    pending.stream.write('first half ');
    pending.stream.end('second half');

    const { bytes } = await pending.commit();

    expect(bytes).toBe(22);
    expect(text(await destination.get('visitors_pages/dt=2026-01-30/p.parquet'))).toBe('first half second half');
  });

  it('leaves no object when a small write is aborted', async () => {
    const { bucket, destination } = await newDestination();
    const pending = await destination.openWrite('a/b.parquet');
    pending.stream.write('partial');

    await pending.abort(new Error('upstream failed'));

    expect(await keysIn(bucket)).toEqual([]);
  });

  it('keeps the previous object when a rewrite is aborted, and replaces it on commit', async () => {
    const { destination } = await newDestination();
    await destination.put('a.json', 'old');

    const aborted = await destination.openWrite('a.json');
    aborted.stream.write('half');
    await aborted.abort();
    const afterAbort = text(await destination.get('a.json'));
    const committed = await destination.openWrite('a.json');
    committed.stream.end('new');
    await committed.commit();

    expect(afterAbort).toBe('old');
    expect(text(await destination.get('a.json'))).toBe('new');
  });

  it('uploads a file larger than one PUT allows as a multipart upload, byte for byte', async () => {
    const { client, commands } = recordingClient();
    const bucket = await aws.createBucket();
    const destination = createS3Destination({ bucket, client });
    const body = pseudoRandomBytes(12 * 1024 * 1024 + 123);
    const pending = await destination.openWrite('big.bin', { contentType: 'application/octet-stream' });

    await writeBytes(pending.stream, body);
    pending.stream.end();
    const { bytes } = await pending.commit();
    const stored = await aws.s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'big.bin' }));
    const storedBytes = await stored.Body!.transformToByteArray();
    client.destroy();

    expect(bytes).toBe(body.length);
    expect(storedBytes.length).toBe(body.length);
    expect(sha256(storedBytes)).toBe(sha256(body));
    expect(stored.ContentType).toBe('application/octet-stream');
    expect(commands.filter((name) => name === 'UploadPartCommand')).toHaveLength(2);
    expect(commands).toContain('CompleteMultipartUploadCommand');
  });

  it('aborts the multipart upload and leaves no object when a large write is aborted', async () => {
    const { client, commands } = recordingClient();
    const bucket = await aws.createBucket();
    const destination = createS3Destination({ bucket, client });
    const pending = await destination.openWrite('big.bin');
    await writeBytes(pending.stream, pseudoRandomBytes(PART_SIZE + 1024 * 1024));
    await expect.poll(() => commands.includes('UploadPartCommand'), { timeout: 10_000 }).toBe(true);

    await pending.abort(new Error('bad row'));
    client.destroy();

    expect(commands).toContain('AbortMultipartUploadCommand');
    expect(commands).not.toContain('CompleteMultipartUploadCommand');
    expect(await keysIn(bucket)).toEqual([]);
  });

  it('writes a Parquet file that DuckDB reads back', async () => {
    const { bucket, destination } = await newDestination('warehouse');
    const exportedAt = new Date('2026-01-31T02:00:00.000Z');
    const rows = ['/', '/docs/ünïcode', '/日本語'].map((pagePath, i) => ({
      project_id: 'proj_1',
      date: '2024-02-29',
      path: pagePath,
      human: i,
      ai: 2 * i,
      total: 3 * i,
      exported_at: exportedAt,
    }));
    const writer = await openTableWriter(VISITORS_PAGES, await destination.openWrite('visitors_pages/dt=2024-02-29/proj_1.parquet'));
    for (const row of rows) await writer.append(row);
    await writer.close();

    const stored = await aws.s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'warehouse/visitors_pages/dt=2024-02-29/proj_1.parquet' }));
    const read = await readParquetBytes(await stored.Body!.transformToByteArray());

    expect(read.columns.map((column) => column.type)).toEqual(['VARCHAR', 'DATE', 'VARCHAR', 'BIGINT', 'BIGINT', 'BIGINT', 'TIMESTAMP', 'VARCHAR']);
    expect(read.rows).toEqual(rows.map((row) => ({ ...row, exported_at: exportedAt.toISOString(), unknown_fields: null })));
  });

  it('puts, gets, checks and deletes objects under the prefix', async () => {
    const { bucket, destination } = await newDestination('/exports//mintlify');
    await destination.put('_manifests/visitors/dt=2026-01-30/p.json', '{"ok":true}', { contentType: 'application/json' });

    const head = await aws.s3.send(new HeadObjectCommand({ Bucket: bucket, Key: 'exports/mintlify/_manifests/visitors/dt=2026-01-30/p.json' }));
    expect(head.ContentType).toBe('application/json');
    expect(text(await destination.get('_manifests/visitors/dt=2026-01-30/p.json'))).toBe('{"ok":true}');
    expect(await destination.exists('_manifests/visitors/dt=2026-01-30/p.json')).toBe(true);

    await destination.delete('_manifests/visitors/dt=2026-01-30/p.json');

    expect(await destination.exists('_manifests/visitors/dt=2026-01-30/p.json')).toBe(false);
    expect(await keysIn(bucket)).toEqual([]);
  });

  it('lists a range of a folder: the keys the whole listing gives inside it, asked from its first bound on', async () => {
    const { bucket } = await newDestination('exports');
    const days = ['2026-06-30', '2026-07-01', '2026-08-15', '2026-09-30', '2026-10-01'];
    const keys = [...days.map((day) => `_manifests/visitors/dt=${day}/p.json`), '_manifests/views/dt=2026-08-01/p.json'];
    const { client, commands } = recordingClient();
    const destination = createS3Destination({ bucket, prefix: 'exports', client });
    for (const key of keys) await destination.put(key, '{}');
    const range = { after: '_manifests/visitors/dt=2026-07', before: '_manifests/visitors/dt=2026-10' };
    const asked: { StartAfter?: string }[] = [];
    client.middlewareStack.add(
      (next, context) => (args) => {
        if (context.commandName === 'ListObjectsV2Command') asked.push(args.input as { StartAfter?: string });
        return next(args);
      },
      { step: 'initialize' },
    );

    const whole = await destination.list?.('_manifests/visitors/');
    const ranged = await destination.listModified?.('_manifests/visitors/', range);

    expect(ranged?.map((object) => object.key).sort()).toEqual(whole?.filter((key) => key > range.after && key < range.before).sort());
    expect(ranged?.map((object) => object.key).sort()).toEqual(days.slice(1, 4).map((day) => `_manifests/visitors/dt=${day}/p.json`));
    expect(asked.map((input) => input.StartAfter)).toEqual([undefined, 'exports/_manifests/visitors/dt=2026-07']);
    expect(commands.filter((name) => name === 'ListObjectsV2Command')).toHaveLength(2);
  });

  it('answers absent for missing keys and deletes them without error', async () => {
    const { destination } = await newDestination();

    expect(await destination.get('missing.json')).toBeUndefined();
    expect(await destination.exists('missing.json')).toBe(false);
    await expect(destination.delete('missing.json')).resolves.toBeUndefined();
  });

  it.each(['../../escape', '/abs', 'a//b', 'a/./b', ''])('refuses the key %j', async (key) => {
    const { destination } = await newDestination();

    await expect(destination.put(key, 'x')).rejects.toBeInstanceOf(ConfigError);
    await expect(destination.openWrite(key)).rejects.toBeInstanceOf(ConfigError);
  });

  it('fails with a message naming bucket and key when the bucket does not exist', async () => {
    const destination = createS3Destination({ bucket: 'no-such-bucket', prefix: 'p', client: aws.s3 });

    const error = await destination.put('k.json', '{}').catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(DestinationError);
    expect((error as Error).message).toMatch(/^S3 PutObject of s3:\/\/no-such-bucket\/p\/k\.json failed \(NoSuchBucket 404/);
    expect((error as Error).message).toMatch(/check that bucket "no-such-bucket" exists$/);
  });

  it('fails the commit, not silently, when a streamed upload to a missing bucket fails', async () => {
    const destination = createS3Destination({ bucket: 'no-such-bucket', client: aws.s3 });
    const writer = await openTableWriter(VISITORS_PAGES, await destination.openWrite('p.parquet'));
    await writer.append({ project_id: 'p', date: '2026-01-30', path: '/', human: 1, ai: 0, total: 1, exported_at: 0 });

    await expect(writer.close()).rejects.toThrow(/s3:\/\/no-such-bucket\/p\.parquet.*NoSuchBucket/);
  });

  it('does not hang a large streamed write when the upload fails mid-way', async () => {
    const destination = createS3Destination({ bucket: 'no-such-bucket', client: aws.s3 });
    const pending = await destination.openWrite('big.bin');

    const written = writeBytes(pending.stream, pseudoRandomBytes(3 * PART_SIZE));

    await expect(written).rejects.toThrow();
    await expect(pending.commit()).rejects.toBeInstanceOf(DestinationError);
  });
});

describe('openDestination', () => {
  it('opens s3://bucket/prefix on the given client, with the prefix normalised', async () => {
    const bucket = await aws.createBucket();
    const destination = openDestination(`s3://${bucket}/exports/`, { s3Client: aws.s3 });

    await destination.put('k.txt', 'v');

    expect(destination.url).toBe(`s3://${bucket}/exports`);
    expect(await keysIn(bucket)).toEqual(['exports/k.txt']);
  });

  it('opens s3://bucket without a prefix', () => {
    expect(openDestination('s3://my-bucket', { s3Client: aws.s3 }).url).toBe('s3://my-bucket');
    expect(openDestination('s3://my-bucket/', { s3Client: aws.s3 }).url).toBe('s3://my-bucket');
  });

  it('builds a default S3 client when none is given', () => {
    expect(openDestination('s3://my-bucket/p').url).toBe('s3://my-bucket/p');
  });

  it('refuses s3:// without a bucket with a one-line fix', () => {
    expect(() => openDestination('s3://')).toThrow(new ConfigError('EXPORT_DESTINATION "s3://" has no bucket: use s3://bucket/prefix'));
    expect(() => openDestination('s3:///prefix')).toThrow(ConfigError);
  });

  it.each(['s3://My_Bucket/x', 's3://ab', 's3://-bucket', 's3://bucket-', 's3://a..b', 's3://192.168.1.1'])(
    'refuses the invalid bucket name in %s',
    (target) => {
      expect(() => openDestination(target)).toThrow(/is not a valid bucket name/);
    },
  );

  it('refuses a prefix with .. parts', () => {
    expect(() => openDestination('s3://bucket/a/../b')).toThrow(ConfigError);
  });

  it('refuses other URL schemes instead of making a folder of them', () => {
    expect(() => openDestination('gs://bucket/x')).toThrow(/unsupported scheme "gs:\/\/"/);
  });

  it('refuses an empty destination', () => {
    expect(() => openDestination('  ')).toThrow(ConfigError);
  });

  it('opens anything else as a local directory, relative paths made absolute', () => {
    expect(openDestination('./data').url).toBe(path.resolve('data'));
    const folder = path.join(tmpdir(), 'exports');
    expect(openDestination(pathToFileURL(folder).href).url).toBe(folder);
  });
});
