/**
 * Reading an answer's body: the size cap (streamed, Content-Length, gzip), large error bodies,
 * invalid UTF-8.
 */
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { createApiClient } from '../../../../functions/shared/api/index.js';
import { type ApiError, ConfigError, MalformedResponseError, ResponseTooLargeError } from '../../../../functions/shared/errors.js';
import { rejectionOf } from '../../../helpers/errors.js';
import { KEY, page, visitors, useScriptedApi } from '../../../helpers/scripted-api.js';

const api = useScriptedApi();
const { makeClient } = api;

/**
 * A fetch that answers every request with a body streamed in `chunk`-byte pieces, `total` bytes
 * in all, and counts what the client pulled from it. No server: the body is generated on demand.
 */
function streamingFetch(options: { status?: number; total: number; chunk?: number; byte?: number; headers?: Record<string, string> }) {
  const { status = 200, total, chunk = 64 * 1024, byte = 0x20, headers = {} } = options;
  const pulled = { bytes: 0, cancelled: false };
  const fetchImpl = (async () => {
    let sent = 0;
    const body = new ReadableStream<Uint8Array>(
      {
        pull(controller) {
          if (sent >= total) return controller.close();
          const size = Math.min(chunk, total - sent);
          sent += size;
          pulled.bytes += size;
          controller.enqueue(new Uint8Array(size).fill(byte));
        },
        cancel() {
          pulled.cancelled = true;
        },
      },
      { highWaterMark: 0 },
    );
    return new Response(body, { status, headers: { 'content-type': 'application/json', ...headers } });
  }) as typeof fetch;
  return { fetch: fetchImpl, pulled };
}

/** A fetch that answers every request with exactly these bytes. */
function bytesFetch(bytes: Uint8Array, status = 200) {
  return (async () => new Response(bytes, { status, headers: { 'content-type': 'application/json' } })) as typeof fetch;
}

describe('response bodies', () => {
  const MiB = 1024 * 1024;

  it('refuses a 2xx body larger than maxResponseBytes as malformed', async () => {
    const fake = streamingFetch({ total: 4 * MiB });
    const { client } = makeClient({ fetch: fake.fetch, maxResponseBytes: MiB, maxRetries: 0 });
    const error = await rejectionOf(visitors(client));
    expect(error).toBeInstanceOf(MalformedResponseError);
    expect(error.message).toContain('larger than 1048576 bytes');
  });

  it('stops reading a 2xx body at the cap instead of buffering it first', async () => {
    const fake = streamingFetch({ total: 64 * MiB });
    const { client } = makeClient({ fetch: fake.fetch, maxResponseBytes: MiB, maxRetries: 0 });
    await rejectionOf(visitors(client));
    expect(fake.pulled.bytes).toBeLessThanOrEqual(MiB + 64 * 1024);
    expect(fake.pulled.cancelled).toBe(true);
  });

  it('refuses a body whose Content-Length is over the cap without reading it', async () => {
    const fake = streamingFetch({ total: 2 * MiB, headers: { 'content-length': String(2 * MiB) } });
    const { client } = makeClient({ fetch: fake.fetch, maxResponseBytes: MiB, maxRetries: 0 });
    const error = await rejectionOf(visitors(client));
    expect(error).toBeInstanceOf(MalformedResponseError);
    expect(fake.pulled.bytes).toBe(0);
  });

  it('does not ask the same again after a body over the cap: the same request gets the same answer (the export asks for less)', async () => {
    const fake = streamingFetch({ total: 2 * MiB });
    const { client } = makeClient({ fetch: fake.fetch, maxResponseBytes: MiB });
    const error = await rejectionOf(visitors(client));
    expect(error).toBeInstanceOf(ResponseTooLargeError);
    expect(error.message).not.toContain('EXPORT_PAGE_LIMIT');
    expect(client.stats.requests).toBe(1);
  });

  it('caps the inflated size of a gzip body, not its size on the wire', async () => {
    const inflated = Buffer.alloc(8 * MiB, 0x20);
    const compressed = gzipSync(inflated);
    api.replies = [
      (_req, res) => {
        res.writeHead(200, {
          'content-type': 'application/json',
          'content-encoding': 'gzip',
          'content-length': String(compressed.length),
          connection: 'close',
        });
        res.end(compressed);
      },
    ];
    const { client } = makeClient({ maxResponseBytes: MiB, maxRetries: 0 });
    const error = await rejectionOf(visitors(client));
    expect(compressed.length).toBeLessThan(MiB);
    expect(error).toBeInstanceOf(MalformedResponseError);
    expect(error.message).toContain('larger than 1048576 bytes');
  });

  it('reads only the start of a large error body and still reports the status', async () => {
    const fake = streamingFetch({ status: 503, total: 64 * MiB });
    const { client } = makeClient({ fetch: fake.fetch, maxRetries: 0 });
    const error = await rejectionOf(visitors(client));
    expect((error as ApiError).status).toBe(503);
    expect(fake.pulled.bytes).toBeLessThanOrEqual(MiB);
  });

  it('reads invalid UTF-8 in a 2xx body as U+FFFD, counts it and warns, instead of failing the day forever', async () => {
    const text = JSON.stringify({ ...page(), visitors: [{ path: '/intro-@-\uFFFD', human: 3, ai: 1, total: 4 }] });
    const bytes = new TextEncoder().encode(text);
    bytes[bytes.indexOf(0x40)] = 0xff;
    const { client, logs } = makeClient({ fetch: bytesFetch(bytes), maxRetries: 0 });
    const body = await visitors(client);
    expect(body.visitors[0]?.path).toBe('/intro-\uFFFD-\uFFFD');
    expect(client.stats.invalidUtf8).toBe(1);
    expect(logs.filter((entry) => entry.level === 'warn').map((entry) => entry.message)).toEqual(['the API answered with invalid UTF-8: replaced by U+FFFD']);
  });

  it.each([0, -1, 1.5])('refuses a maxResponseBytes of %s', (maxResponseBytes) => {
    expect(() => createApiClient({ baseUrl: api.baseUrl, apiKey: KEY, maxResponseBytes })).toThrow(ConfigError);
  });
});
