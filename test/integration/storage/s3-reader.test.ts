/**
 * The mirror's object reader (functions/shared/storage/s3-reader.ts): GETs signed by the
 * client's own signer and sent on its own handler, without the command stack — against the S3
 * emulator (the bytes as `GetObjectCommand` reads them, every kind of key) and against a
 * loopback stand-in that answers as S3 does when it fails (errors named by their code, the
 * transient ones retried as the SDK would, the others not), and where the SDK's endpoint rules
 * send it (path or virtual-hosted style; anything the reader cannot reproduce goes through the
 * command).
 */
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { encodeKey, openObjectReader, S3ReadError } from '../../../functions/shared/storage/s3-reader.js';
import { emulatorS3Config, startS3Sqs, TEST_REGION, type S3Sqs } from '../../helpers/emulators.js';

let aws: S3Sqs;

beforeAll(async () => {
  aws = await startS3Sqs();
});

afterAll(async () => {
  await aws?.close();
});

const KEYS = [
  'visitors_totals/dt=2026-09-01/proj_a.parquet',
  '_manifests/visitors/dt=2026-09-01/project=a b/manifest.json',
  "odd/it's (1) *star* !bang~/x+y,z;w@v$u&t.json",
  'unicode/é—日本/ü.json',
  'percent/100%/a%2Fb.json',
];

describe('the object reader against the S3 emulator', () => {
  it('reads every object byte for byte as GetObjectCommand does, without the command stack', async () => {
    const bucket = await aws.createBucket();
    const bodies = KEYS.map((key, i) => Buffer.from(`${key} → ${'x'.repeat(i * 1000)}`));
    for (const [i, key] of KEYS.entries()) await aws.s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: bodies[i] as Buffer }));
    const reader = await openObjectReader(aws.s3, bucket);
    expect(reader.direct).toBe(true);
    for (const [i, key] of KEYS.entries()) {
      const viaCommand = await (await aws.s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }))).Body?.transformToByteArray();
      const read = await reader.read(key);
      expect(Buffer.from(read).equals(Buffer.from(viaCommand ?? []))).toBe(true);
      expect(Buffer.from(read).equals(bodies[i] as Buffer)).toBe(true);
    }
  });

  it('names a missing key as S3 does (NoSuchKey, 404)', async () => {
    const bucket = await aws.createBucket();
    const reader = await openObjectReader(aws.s3, bucket);
    const error = await reader.read('nothing/here.json').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(S3ReadError);
    expect(error).toMatchObject({ name: 'NoSuchKey', status: 404 });
  });

  it('goes through GetObjectCommand when the endpoint asks for what only the command does (headers of its own)', async () => {
    const bucket = await aws.createBucket();
    await aws.s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'a.json', Body: '{"a":1}' }));
    const config = emulatorS3Config(aws.endpoint);
    const client = new S3Client({
      ...config,
      endpointProvider: () => ({ url: new URL(`${aws.endpoint}/${bucket}`), headers: { 'x-required-by-endpoint': ['1'] } }),
    });
    const reader = await openObjectReader(client, bucket);
    expect(reader.direct).toBe(false);
    expect(Buffer.from(await reader.read('a.json')).toString()).toBe('{"a":1}');
  });
});

/** A loopback server that answers each GET from `answers` in turn (the last one repeated) and records what it was asked. */
async function standIn(answers: readonly { status: number; body: string }[]): Promise<{ url: string; requests: IncomingMessage[]; server: Server }> {
  const requests: IncomingMessage[] = [];
  const server = createServer((req, res) => {
    requests.push(req);
    const answer = answers[Math.min(requests.length - 1, answers.length - 1)] as { status: number; body: string };
    res.writeHead(answer.status, { 'content-type': answer.status === 200 ? 'application/octet-stream' : 'application/xml' });
    res.end(answer.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests, server };
}

const s3Error = (code: string, message: string) => `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${message}</Message></Error>`;

describe('the object reader against a stand-in that fails as S3 does', () => {
  const servers: Server[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
  });

  const clientOn = (url: string, extra: Partial<ConstructorParameters<typeof S3Client>[0] & object> = {}) =>
    new S3Client({
      region: TEST_REGION,
      endpoint: url,
      forcePathStyle: true,
      credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret', sessionToken: 'session-token' },
      ...extra,
    });

  it('retries a transient answer (503 SlowDown) and signs every attempt with the session token', async () => {
    const stand = await standIn([
      { status: 503, body: s3Error('SlowDown', 'Please reduce your request rate.') },
      { status: 200, body: 'the bytes' },
    ]);
    servers.push(stand.server);
    const reader = await openObjectReader(clientOn(stand.url), 'bkt');
    expect(Buffer.from(await reader.read('dt=2026-09-01/a b.json')).toString()).toBe('the bytes');
    expect(stand.requests).toHaveLength(2);
    for (const req of stand.requests) {
      expect(req.url).toBe(`/bkt/${encodeKey('dt=2026-09-01/a b.json')}?x-id=GetObject`);
      expect(req.headers.authorization).toMatch(
        /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/us-east-1\/s3\/aws4_request, SignedHeaders=host;x-amz-content-sha256;x-amz-date;x-amz-security-token/,
      );
      expect(req.headers['x-amz-security-token']).toBe('session-token');
    }
  });

  it("does not retry a refusal (403 AccessDenied) and names it by S3's code and message", async () => {
    const stand = await standIn([{ status: 403, body: s3Error('AccessDenied', 'Access Denied') }]);
    servers.push(stand.server);
    const reader = await openObjectReader(clientOn(stand.url), 'bkt');
    const error = await reader.read('a.json').catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'AccessDenied', message: 'Access Denied', status: 403 });
    expect(stand.requests).toHaveLength(1);
  });

  it("gives up after the client's maxAttempts", async () => {
    const stand = await standIn([{ status: 500, body: s3Error('InternalError', 'We encountered an internal error.') }]);
    servers.push(stand.server);
    const reader = await openObjectReader(clientOn(stand.url, { maxAttempts: 2 }), 'bkt');
    await expect(reader.read('a.json')).rejects.toMatchObject({ name: 'InternalError', status: 500 });
    expect(stand.requests).toHaveLength(2);
  });

  it("follows the SDK's endpoint rules: a virtual-hosted endpoint is asked for the key alone", async () => {
    const stand = await standIn([{ status: 200, body: 'hosted' }]);
    servers.push(stand.server);
    const client = clientOn(stand.url, {
      forcePathStyle: false,
      endpointProvider: () => ({
        url: new URL(stand.url),
        properties: { authSchemes: [{ name: 'sigv4', signingName: 's3', signingRegion: 'eu-west-1', properties: {} }] },
      }),
    });
    const reader = await openObjectReader(client, 'bkt');
    expect(reader.direct).toBe(true);
    expect(Buffer.from(await reader.read('k/(1).json')).toString()).toBe('hosted');
    expect(stand.requests[0]?.url).toBe('/k/%281%29.json?x-id=GetObject');
    expect(stand.requests[0]?.headers.authorization).toContain('/eu-west-1/s3/aws4_request');
  });
});

describe('encodeKey', () => {
  it("encodes each segment as the SDK's REST path does, the slashes kept", () => {
    expect(encodeKey("a b/dt=1/it's(1)*!~.json")).toBe('a%20b/dt%3D1/it%27s%281%29%2A%21~.json');
    expect(encodeKey('100%/é')).toBe('100%25/%C3%A9');
  });
});
