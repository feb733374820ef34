/**
 * Which failures the client tries again and which it does not: reads are retried after 5xx,
 * dropped connections, timeouts and one malformed body; a follow-up POST only when the service
 * surely did not take it; a 401 once with a rotated key; the circuit breaker across calls.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ApiError, MalformedResponseError, NetworkError, RateLimitedError, SendUncertainError } from '../../../../functions/shared/errors.js';
import { rejectionOf } from '../../../helpers/errors.js';
import { KEY, PROMPT, json, html, hangUp, silent, page, job, visitors, closedPort, leakSurface, useScriptedApi } from '../../../helpers/scripted-api.js';

const api = useScriptedApi();
const { seen, makeClient } = api;

describe('reads', () => {
  it.each([500, 502, 503, 504])('retries an analytics read after HTTP %i', async (status) => {
    api.replies = [json(status, { error: 'try later' }), json(200, page())];
    const { client, waits } = makeClient();
    await expect(visitors(client)).resolves.toMatchObject({ hasMore: false });
    expect(seen).toHaveLength(2);
    expect(waits).toHaveLength(1);
  });

  it('retries a read after the server drops the connection', async () => {
    api.replies = [hangUp, json(200, page())];
    const { client } = makeClient();
    await expect(visitors(client)).resolves.toMatchObject({ hasMore: false });
    expect(seen).toHaveLength(2);
  });

  it('retries a read that timed out', async () => {
    // The first attempt goes to a server that never answers, so it ends by the timeout however
    // slow the machine is; the retry is answered from memory, within microtasks, so no timer
    // can fire before it (a second loopback request could outlast 100 ms under load).
    api.replies = [silent];
    let calls = 0;
    const fetchImpl = ((url: string | URL | Request, init?: RequestInit) =>
      calls++ === 0 ? fetch(url, init) : Promise.resolve(Response.json(page()))) as typeof fetch;
    const { client, logs } = makeClient({ fetch: fetchImpl, timeoutMs: 100 });
    await expect(visitors(client)).resolves.toMatchObject({ hasMore: false });
    expect(client.stats.retries).toBe(1);
    expect(logs.filter((entry) => entry.message === 'retrying API request').map((entry) => entry.extra[0])).toEqual([
      expect.objectContaining({ reason: expect.stringContaining('timed out after 100 ms') }),
    ]);
  });

  it('retries a read whose 2xx body is malformed', async () => {
    api.replies = [json(200, { ...page(), hasMore: 'yes' }), json(200, page())];
    const { client } = makeClient();
    await expect(visitors(client)).resolves.toMatchObject({ hasMore: false });
  });

  it('retries a 2xx body that stays malformed only once, however many retries are left', async () => {
    api.replies = Array.from({ length: 9 }, () => json(200, { ...page(), hasMore: 'yes' }));
    const { client } = makeClient({ maxRetries: 8 });
    const error = await rejectionOf(visitors(client));
    expect(error).toBeInstanceOf(MalformedResponseError);
    expect(seen).toHaveLength(2);
  });

  it('retries a malformed job read only once', async () => {
    api.replies = Array.from({ length: 9 }, () => html(200));
    const { client } = makeClient({ maxRetries: 8 });
    await expect(client.getJob('proj_1', 'job_1')).rejects.toBeInstanceOf(MalformedResponseError);
    expect(seen).toHaveLength(2);
  });

  it('counts a malformed body before a 429 pause against the one retry', async () => {
    api.replies = [json(200, { ...page(), hasMore: 'yes' }), json(429, { error: 'slow down' }), json(200, { ...page(), hasMore: 'yes' }), json(200, page())];
    const { client } = makeClient();
    await expect(visitors(client)).rejects.toBeInstanceOf(MalformedResponseError);
    expect(seen).toHaveLength(3);
  });

  it('gives up with a MalformedResponseError when a 2xx body stays HTML', async () => {
    api.replies = [html(200), html(200), html(200)];
    const { client } = makeClient({ maxRetries: 2 });
    const error = await rejectionOf(visitors(client));
    expect(error).toBeInstanceOf(MalformedResponseError);
    expect(error.message).toContain('not JSON');
    expect(error.message).not.toContain('<html>');
  });

  it('reports an HTML error page as an ApiError with its status', async () => {
    api.replies = [html(502)];
    const { client } = makeClient({ maxRetries: 0 });
    const error = await rejectionOf(visitors(client));
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(502);
    expect(error.message).not.toContain('<html>');
  });

  it('throws a network error after the retries are spent on a closed port', async () => {
    const port = await closedPort();
    const { client, waits } = makeClient({ baseUrl: `http://127.0.0.1:${port}`, maxRetries: 2 });
    const error = await rejectionOf(client.getJob('proj_1', 'job_1'));
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as NetworkError).beforeSend).toBe(true);
    expect(error.message).toContain('ECONNREFUSED');
    expect(waits).toHaveLength(2);
  });
});

describe('the follow-up POST', () => {
  it('is retried after a 429 and honours Retry-After', async () => {
    api.replies = [json(429, { error: 'rate limited' }, { 'retry-after': '2' }), json(200, job())];
    const { client, waits } = makeClient();
    await expect(client.sendMessage('proj_1', 'job_1', PROMPT)).resolves.toMatchObject({ id: 'job_1' });
    expect(seen.filter((r) => r.method === 'POST')).toHaveLength(2);
    expect(waits).toEqual([2_000]);
  });

  it('is retried after a connection refused, which proves nothing was sent', async () => {
    const target = createServer((req, res) => {
      req.resume();
      req.on('end', () => json(200, job())(req, res, ''));
    });
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    const port = (target.address() as AddressInfo).port;
    await new Promise((resolve) => target.close(resolve));
    // Start listening on the same port only once the first attempt has been refused.
    const sleep = async () => {
      await new Promise<void>((resolve) => target.listen(port, '127.0.0.1', resolve));
    };
    const { client } = makeClient({ baseUrl: `http://127.0.0.1:${port}`, sleep });
    try {
      await expect(client.sendMessage('proj_1', 'job_1', PROMPT)).resolves.toMatchObject({ id: 'job_1' });
      expect(client.stats).toMatchObject({ requests: 2, retries: 1, successes: 1 });
    } finally {
      target.closeAllConnections();
      await new Promise((resolve) => target.close(resolve));
    }
  });

  it.each([500, 502, 503])('is never resent after HTTP %i: the send is uncertain', async (status) => {
    api.replies = [json(status, { error: 'oops' }), json(200, job())];
    const { client } = makeClient();
    const error = await rejectionOf(client.sendMessage('proj_1', 'job_1', PROMPT));
    expect(error).toBeInstanceOf(SendUncertainError);
    expect(seen).toHaveLength(1);
  });

  it('is never resent after the connection drops once the request was read', async () => {
    api.replies = [hangUp, json(200, job())];
    const { client } = makeClient();
    const error = await rejectionOf(client.sendMessage('proj_1', 'job_1', PROMPT));
    expect(error).toBeInstanceOf(SendUncertainError);
    expect(seen).toHaveLength(1);
  });

  it('is never resent after a timeout', async () => {
    // The request is counted as the client sends it and never answered (it ends when the client's
    // timeout aborts it, as fetch does), with no server: under load a loopback server had not read
    // the request within the 100 ms, and read it during the next test, taking that test's reply.
    let sent = 0;
    const fetchImpl = ((_url: string | URL | Request, init?: RequestInit) => {
      sent += 1;
      return new Promise<Response>((_resolve, reject) => init?.signal?.addEventListener('abort', () => reject(init.signal?.reason)));
    }) as typeof fetch;
    const { client } = makeClient({ fetch: fetchImpl, timeoutMs: 100 });
    const error = await rejectionOf(client.sendMessage('proj_1', 'job_1', PROMPT));
    expect(error).toBeInstanceOf(SendUncertainError);
    expect(error.message).toContain('timed out');
    expect(sent).toBe(1);
  });

  it('is never resent when a 2xx body is unreadable, since the service accepted it', async () => {
    api.replies = [html(200), json(200, job())];
    const { client } = makeClient();
    await expect(client.sendMessage('proj_1', 'job_1', PROMPT)).rejects.toBeInstanceOf(SendUncertainError);
    expect(seen).toHaveLength(1);
  });

  it('fails as rejected (not uncertain) on a 404', async () => {
    api.replies = [json(404, { error: 'no such job' })];
    const { client } = makeClient();
    const error = await rejectionOf(client.sendMessage('proj_1', 'job_x', PROMPT));
    expect(error).toBeInstanceOf(ApiError);
    expect(error).not.toBeInstanceOf(SendUncertainError);
    expect(error.message).toContain('job "job_x" not found in project "proj_1"');
  });

  it('throws RateLimitedError with the wait when 429s outlast the retries', async () => {
    api.replies = [json(429, {}, { 'retry-after': '5' }), json(429, {}, { 'retry-after': '5' })];
    const { client } = makeClient({ maxRetries: 1 });
    const error = await rejectionOf(client.sendMessage('proj_1', 'job_1', PROMPT));
    expect(error).toBeInstanceOf(RateLimitedError);
    expect((error as RateLimitedError).retryAfterMs).toBe(5_000);
    expect(seen).toHaveLength(2);
  });

  it('throws RateLimitedError at once when Retry-After would pass the deadline', async () => {
    api.replies = [json(429, {}, { 'retry-after': '3600' })];
    const { client, now, waits } = makeClient();
    const error = await rejectionOf(client.sendMessage('proj_1', 'job_1', PROMPT, { deadline: now() + 60_000 }));
    expect(error).toBeInstanceOf(RateLimitedError);
    expect((error as RateLimitedError).retryAfterMs).toBe(3_600_000);
    expect(waits).toEqual([]);
  });
});

/** A key source whose secret an operator can rotate; counts its reads. */
function rotatingKeys(first: string) {
  let stored = first;
  let cached = first;
  const counts = { gets: 0, refreshes: 0 };
  return {
    counts,
    rotate(next: string) {
      stored = next;
    },
    source: {
      async get() {
        counts.gets += 1;
        return cached;
      },
      async refresh() {
        counts.refreshes += 1;
        cached = stored;
        return cached;
      },
    },
  };
}

describe('a rotated key', () => {
  const NEW_KEY = 'mint_Zq8xRotatedAdminKey9876543210';
  const authorizations = () => seen.map((request) => request.headers.authorization);

  it('is read again after a 401 and the read is sent once more with it', async () => {
    const keys = rotatingKeys(KEY);
    keys.rotate(NEW_KEY);
    api.replies = [json(401, { error: 'unauthorized' }), json(200, page())];
    const { client } = makeClient({ apiKey: keys.source });
    await expect(visitors(client)).resolves.toMatchObject({ hasMore: false });
    expect(authorizations()).toEqual([`Bearer ${KEY}`, `Bearer ${NEW_KEY}`]);
    expect(keys.counts.refreshes).toBe(1);
  });

  it('takes the second attempt of an analytics read from the budget too', async () => {
    const keys = rotatingKeys(KEY);
    keys.rotate(NEW_KEY);
    api.replies = [json(401, { error: 'unauthorized' }), json(200, page())];
    const { client, budget } = makeClient({ apiKey: keys.source });
    await visitors(client);
    expect(budget.takes).toHaveLength(2);
  });

  it('is not tried when reading the key again gives the same key: the 401 fails the call at once', async () => {
    const keys = rotatingKeys(KEY);
    api.replies = [json(401, { error: 'unauthorized' }), json(200, page())];
    const { client } = makeClient({ apiKey: keys.source });
    const error = await rejectionOf(visitors(client));
    expect((error as ApiError).status).toBe(401);
    expect(seen).toHaveLength(1);
  });

  it('is tried only once: a second 401 fails the call', async () => {
    const keys = rotatingKeys(KEY);
    keys.rotate(NEW_KEY);
    api.replies = [json(401, { error: 'unauthorized' }), json(401, { error: 'unauthorized' }), json(200, page())];
    const { client } = makeClient({ apiKey: keys.source });
    const error = await rejectionOf(visitors(client));
    expect((error as ApiError).status).toBe(401);
    expect(seen).toHaveLength(2);
  });

  it('re-sends a follow-up POST after a 401, which the service refused', async () => {
    const keys = rotatingKeys(KEY);
    keys.rotate(NEW_KEY);
    api.replies = [json(401, { error: 'unauthorized' }), json(200, job())];
    const { client } = makeClient({ apiKey: keys.source });
    await expect(client.sendMessage('proj_1', 'job_1', PROMPT)).resolves.toMatchObject({ id: 'job_1' });
    expect(seen.filter((request) => request.method === 'POST')).toHaveLength(2);
  });

  it('that cannot be read before a POST leaves the follow-up not sent, not uncertain', async () => {
    const source = {
      get: async () => {
        throw new NetworkError('could not read the API key secret (ThrottlingException): try again', true);
      },
      refresh: async () => KEY,
    };
    const { client } = makeClient({ apiKey: source, maxRetries: 0 });
    const error = await rejectionOf(client.sendMessage('proj_1', 'job_1', PROMPT));
    expect(error).not.toBeInstanceOf(SendUncertainError);
    expect(seen).toHaveLength(0);
  });

  it('and the old one both stay out of messages', async () => {
    const keys = rotatingKeys(KEY);
    keys.rotate(NEW_KEY);
    api.replies = [json(401, { error: `bad key ${KEY}` }), json(400, { error: `still bad ${NEW_KEY} after ${KEY}` })];
    const { client, logs } = makeClient({ apiKey: keys.source });
    const error = await rejectionOf(visitors(client));
    const surface = leakSurface(error, logs, client.stats);
    expect(surface).not.toContain(KEY);
    expect(surface).not.toContain(NEW_KEY);
  });
});

describe('the circuit breaker', () => {
  it('stops sending after a storm of server failures across calls, and says why', async () => {
    api.replies = Array.from({ length: 20 }, () => json(503, { error: 'down' }));
    const { client } = makeClient({ maxRetries: 8 });
    expect((await rejectionOf(visitors(client))).message).toContain('HTTP 503');
    expect(seen).toHaveLength(9);
    const second = await rejectionOf(visitors(client));
    expect(second.name).toBe('CircuitOpenError');
    expect(second.message).toMatch(/the API failed 12 requests in a row across units \(last: HTTP 503/);
    expect(seen).toHaveLength(12);
  });

  it('closes again after a success', async () => {
    api.replies = [
      ...Array.from({ length: 9 }, () => json(503, { error: 'down' })),
      json(200, page()),
      ...Array.from({ length: 9 }, () => json(503, { error: 'down' })),
    ];
    const { client } = makeClient({ maxRetries: 8 });
    await rejectionOf(visitors(client));
    await visitors(client);
    expect((await rejectionOf(visitors(client))).name).toBe('ApiError');
    expect(seen).toHaveLength(19);
  });
});
