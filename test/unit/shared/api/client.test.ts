import { createServer } from 'node:http';
import { gzipSync } from 'node:zlib';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { retryLinePrinter } from '../../../../functions/cli/retry-lines.js';
import { createApiClient } from '../../../../functions/shared/api/index.js';
import type { ApiClientOptions } from '../../../../functions/shared/api/index.js';
import type { BudgetGate } from '../../../../functions/shared/budget.js';
import {
  ApiError,
  BudgetExhaustedError,
  ConfigError,
  DeadlineExceededError,
  MalformedResponseError,
  NetworkError,
  RateLimitedError,
  ResponseTooLargeError,
  SendUncertainError,
  UnreachableError,
} from '../../../../functions/shared/errors.js';
import { parseVisitorsPage } from '../../../../functions/shared/schemas.js';
import { createPager } from '../../../../functions/export/paging.js';
import { rejectionOf } from '../../../helpers/errors.js';

const KEY = 'mint_Zq8xTopSecretAdminKey0123456789';
const PROMPT = 'Please rewrite the quickstart so it mentions the new CLI flags and the sandbox.';
const QUERY = { dateFrom: '2026-01-15', dateTo: '2026-01-16', limit: 250, offset: 0 } as const;

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}
type Reply = (req: IncomingMessage, res: ServerResponse, body: string) => void;

/**
 * A loopback API whose replies are scripted per test, in order; it records every request.
 * Every reply closes its connection, so no test reuses a socket another test left behind.
 */
let server: Server;
let baseUrl: string;
let replies: Reply[] = [];
const seen: Seen[] = [];
/** Budget takes and requests, interleaved in the order they happened. */
const order: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      order.push('request');
      const reply = replies.shift() ?? json(500, { error: 'no scripted reply' });
      reply(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterEach(() => {
  replies = [];
  seen.length = 0;
  order.length = 0;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

function json(status: number, body: unknown, headers: Record<string, string> = {}): Reply {
  return (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json', connection: 'close', ...headers });
    res.end(typeof body === 'string' ? body : JSON.stringify(body));
  };
}
const html =
  (status: number): Reply =>
  (_req, res) => {
    res.writeHead(status, { 'content-type': 'text/html', connection: 'close' });
    res.end('<html><body><h1>Bad gateway</h1></body></html>');
  };
/** Reads the request, then drops the connection without answering. */
const hangUp: Reply = (req) => req.socket.destroy();
/** Reads the request and never answers: only the client's timeout (or abort) ends the exchange. */
const silent: Reply = () => undefined;
/** Answers after `ms` of real time (the per-request timeout is a real timer). */
const slow =
  (ms: number, reply: Reply): Reply =>
  (req, res, body) => {
    const timer = setTimeout(() => reply(req, res, body), ms);
    res.on('close', () => clearTimeout(timer));
  };

const page = (hasMore = false) => ({
  totals: { human: 3, ai: 1, total: 4 },
  visitors: [{ path: '/intro', human: 3, ai: 1, total: 4 }],
  hasMore,
});
const job = (status = 'active') => ({ id: 'job_1', status, prLink: null });

/**
 * A budget that always admits at once and records what the client asks of it. The client
 * only ever calls `take` and `rateLimited`; the rest of a gate is not needed here.
 */
function fakeBudget(refuse?: Error) {
  const takes: { deadline?: number; signal?: AbortSignal }[] = [];
  const rateLimited: (number | undefined)[] = [];
  const refunds: string[] = [];
  const gate: Pick<BudgetGate, 'take' | 'rateLimited' | 'refund'> = {
    async take(options = {}) {
      takes.push({ ...options });
      order.push('take');
      if (refuse) throw refuse;
    },
    async rateLimited(retryAfterMs) {
      rateLimited.push(retryAfterMs);
      return { pausedMs: retryAfterMs ?? 0 };
    },
    async refund() {
      refunds.push('refund');
      order.push('refund');
    },
  };
  return { gate: gate as BudgetGate, takes, rateLimited, refunds };
}

/** The visitors endpoint through the analytics method, as the export calls it. */
const visitors = (client: ReturnType<typeof makeClient>['client'], projectId = 'proj_1', query: Record<string, string | number> = QUERY, options = {}) =>
  client.getAnalytics('visitors', projectId, { ...QUERY, ...query }, parseVisitorsPage, options);

/** A fake clock: sleeping advances it instantly and is recorded. A budget that admits at once. */
function makeClient(overrides: Partial<ApiClientOptions> = {}) {
  let time = 1_700_000_000_000;
  const waits: number[] = [];
  const logs: { level: string; message: string; extra: unknown[] }[] = [];
  const record =
    (level: string) =>
    (message: unknown, ...extra: unknown[]) =>
      logs.push({ level, message: String(message), extra });
  const budget = fakeBudget();
  const client = createApiClient({
    baseUrl,
    apiKey: KEY,
    timeoutMs: 2_000,
    budget: budget.gate,
    now: () => time,
    sleep: async (ms) => {
      waits.push(ms);
      time += ms;
    },
    random: () => 0,
    logger: { debug: record('debug'), info: record('info'), warn: record('warn') } as never,
    ...overrides,
  });
  return { client, waits, logs, now: () => time, budget };
}

/** Everything a failure could leak through: message, cause chain, logs and stats. */
function leakSurface(error: unknown, logs: unknown, stats: unknown): string {
  const parts: string[] = [JSON.stringify(logs), JSON.stringify(stats)];
  let current: unknown = error;
  for (let depth = 0; current instanceof Error && depth < 5; depth += 1) {
    parts.push(current.message, String(current.stack));
    current = current.cause;
  }
  return parts.join('\n');
}

describe('requests', () => {
  it('sends the key as a bearer token, asks for JSON and builds the query', async () => {
    replies = [json(200, page())];
    const { client } = makeClient();
    await visitors(client, 'proj_1', { offset: 500 });
    const [request] = seen;
    expect(request?.method).toBe('GET');
    expect(request?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(request?.headers.accept).toBe('application/json');
    expect(request?.url).toBe('/v1/analytics/proj_1/visitors?dateFrom=2026-01-15&dateTo=2026-01-16&limit=250&offset=500');
  });

  it('encodes path parameters', async () => {
    replies = [json(200, job())];
    const { client } = makeClient();
    await client.getJob('proj 1', 'job/../x');
    expect(seen[0]?.url).toBe('/v2/agent/proj%201/job/job%2F..%2Fx');
  });

  it('posts the prompt as JSON to the message endpoint', async () => {
    replies = [json(200, job())];
    const { client } = makeClient();
    const result = await client.sendMessage('proj_1', 'job_1', PROMPT);
    expect(result.status).toBe('active');
    expect(seen[0]?.method).toBe('POST');
    expect(seen[0]?.url).toBe('/v2/agent/proj_1/job/job_1/message');
    expect(seen[0]?.headers['content-type']).toBe('application/json');
    expect(JSON.parse(seen[0]?.body ?? '')).toEqual({ prompt: PROMPT });
  });

  it('counts requests, retries and successes', async () => {
    replies = [json(503, { error: 'busy' }), json(200, page())];
    const { client } = makeClient();
    await visitors(client);
    expect(client.stats).toEqual({ requests: 2, retries: 1, successes: 1 });
  });

  it('refuses an empty prompt before sending anything', async () => {
    const { client } = makeClient();
    await expect(client.sendMessage('proj_1', 'job_1', '')).rejects.toBeInstanceOf(ConfigError);
    expect(seen).toHaveLength(0);
  });

  it.each([
    ['a negative limit', { limit: -1 }],
    ['a fractional offset', { offset: 1.5 }],
  ])('refuses %s before sending anything', async (_name, query) => {
    const { client } = makeClient();
    await expect(visitors(client, 'proj_1', query)).rejects.toBeInstanceOf(ConfigError);
    expect(seen).toHaveLength(0);
  });

  it('refuses an analytics endpoint name that is not one before sending anything', async () => {
    const { client } = makeClient();
    await expect(client.getAnalytics('../agent', 'proj_1', QUERY, parseVisitorsPage)).rejects.toBeInstanceOf(ConfigError);
    expect(seen).toHaveLength(0);
  });

  it('asks for a nested analytics endpoint under the project', async () => {
    replies = [json(200, { web: 1, api: 2, other: 0, total: 3 })];
    const { client } = makeClient();
    await client.getAnalytics('assistant/caller-stats', 'proj_1', { dateFrom: '2026-01-15', dateTo: '2026-01-16' }, (body) => body);
    expect(seen[0]?.url).toBe('/v1/analytics/proj_1/assistant/caller-stats?dateFrom=2026-01-15&dateTo=2026-01-16');
  });
});

describe('creating a client', () => {
  it('refuses an assistant key', () => {
    expect(() => createApiClient({ baseUrl, apiKey: 'mint_dsc_abcdef' })).toThrow(ConfigError);
  });

  it('refuses a key without the mint_ prefix', () => {
    expect(() => createApiClient({ baseUrl, apiKey: 'abcdef' })).toThrow(/starting with mint_/);
  });

  it('refuses plain http off loopback', () => {
    expect(() => createApiClient({ baseUrl: 'http://api.mintlify.com', apiKey: KEY })).toThrow(ConfigError);
  });

  it('accepts plain http on 127.0.0.1', () => {
    expect(() => createApiClient({ baseUrl: 'http://127.0.0.1:9', apiKey: KEY })).not.toThrow();
  });
});

describe('reads', () => {
  it.each([500, 502, 503, 504])('retries an analytics read after HTTP %i', async (status) => {
    replies = [json(status, { error: 'try later' }), json(200, page())];
    const { client, waits } = makeClient();
    await expect(visitors(client)).resolves.toMatchObject({ hasMore: false });
    expect(seen).toHaveLength(2);
    expect(waits).toHaveLength(1);
  });

  it('honours Retry-After on a 429', async () => {
    replies = [json(429, { error: 'slow down' }, { 'retry-after': '3' }), json(200, job())];
    const { client, waits } = makeClient();
    await client.getJob('proj_1', 'job_1');
    expect(waits).toEqual([3_000]);
  });

  it('uses the backoff when Retry-After is 0', async () => {
    replies = [json(429, { error: 'slow down' }, { 'retry-after': '0' }), json(200, job())];
    const { client, waits } = makeClient({ minDelayMs: 800 });
    await client.getJob('proj_1', 'job_1');
    expect(waits).toEqual([400]);
  });

  it('retries a read after the server drops the connection', async () => {
    replies = [hangUp, json(200, page())];
    const { client } = makeClient();
    await expect(visitors(client)).resolves.toMatchObject({ hasMore: false });
    expect(seen).toHaveLength(2);
  });

  it('retries a read that timed out', async () => {
    // The first attempt goes to a server that never answers, so it ends by the timeout however
    // slow the machine is; the retry is answered from memory, within microtasks, so no timer
    // can fire before it (a second loopback request could outlast 100 ms under load).
    replies = [silent];
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
    replies = [json(200, { ...page(), hasMore: 'yes' }), json(200, page())];
    const { client } = makeClient();
    await expect(visitors(client)).resolves.toMatchObject({ hasMore: false });
  });

  it('retries a 2xx body that stays malformed only once, however many retries are left', async () => {
    replies = Array.from({ length: 9 }, () => json(200, { ...page(), hasMore: 'yes' }));
    const { client } = makeClient({ maxRetries: 8 });
    const error = await rejectionOf(visitors(client));
    expect(error).toBeInstanceOf(MalformedResponseError);
    expect(seen).toHaveLength(2);
  });

  it('retries a malformed job read only once', async () => {
    replies = Array.from({ length: 9 }, () => html(200));
    const { client } = makeClient({ maxRetries: 8 });
    await expect(client.getJob('proj_1', 'job_1')).rejects.toBeInstanceOf(MalformedResponseError);
    expect(seen).toHaveLength(2);
  });

  it('counts a malformed body before a 429 pause against the one retry', async () => {
    replies = [json(200, { ...page(), hasMore: 'yes' }), json(429, { error: 'slow down' }), json(200, { ...page(), hasMore: 'yes' }), json(200, page())];
    const { client } = makeClient();
    await expect(visitors(client)).rejects.toBeInstanceOf(MalformedResponseError);
    expect(seen).toHaveLength(3);
  });

  it('gives up with a MalformedResponseError when a 2xx body stays HTML', async () => {
    replies = [html(200), html(200), html(200)];
    const { client } = makeClient({ maxRetries: 2 });
    const error = await rejectionOf(visitors(client));
    expect(error).toBeInstanceOf(MalformedResponseError);
    expect(error.message).toContain('not JSON');
    expect(error.message).not.toContain('<html>');
  });

  it('reports an HTML error page as an ApiError with its status', async () => {
    replies = [html(502)];
    const { client } = makeClient({ maxRetries: 0 });
    const error = await rejectionOf(visitors(client));
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(502);
    expect(error.message).not.toContain('<html>');
  });

  it('throws a network error after the retries are spent on a closed port', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const { client, waits } = makeClient({ baseUrl: `http://127.0.0.1:${port}`, maxRetries: 2 });
    const error = await rejectionOf(client.getJob('proj_1', 'job_1'));
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as NetworkError).beforeSend).toBe(true);
    expect(error.message).toContain('ECONNREFUSED');
    expect(waits).toHaveLength(2);
  });

  it('stops retrying when the next wait would pass the deadline', async () => {
    replies = Array.from({ length: 10 }, () => json(503, { error: 'down' }));
    const { client, waits, now } = makeClient({ minDelayMs: 1_000 });
    const deadline = now() + 5_000;
    const error = await rejectionOf(visitors(client, 'proj_1', QUERY, { deadline }));
    expect(error).toBeInstanceOf(DeadlineExceededError);
    expect(error.cause).toBeInstanceOf(ApiError);
    expect(now()).toBeLessThanOrEqual(deadline);
    expect(waits.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(5_000);
  });

  it('sends nothing when the deadline has already passed', async () => {
    const { client, now } = makeClient();
    await expect(client.getJob('proj_1', 'job_1', { deadline: now() - 1 })).rejects.toBeInstanceOf(DeadlineExceededError);
    expect(seen).toHaveLength(0);
  });
});

describe('the request budget', () => {
  it('refuses analytics without a budget, before sending anything', async () => {
    const client = createApiClient({ baseUrl, apiKey: KEY });
    const error = await rejectionOf(client.getAnalytics('visitors', 'proj_1', QUERY, parseVisitorsPage));
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.message).toContain('budget');
    expect(seen).toHaveLength(0);
  });

  it('takes a start from the budget before every attempt, retries included', async () => {
    replies = [json(503, { error: 'busy' }), hangUp, json(200, page())];
    const { client, budget } = makeClient();
    await visitors(client);
    expect(order).toEqual(['take', 'request', 'take', 'request', 'take', 'request']);
    expect(budget.takes).toHaveLength(3);
  });

  it("passes the call's deadline to the budget", async () => {
    replies = [json(200, page())];
    const { client, budget, now } = makeClient();
    const deadline = now() + 60_000;
    await visitors(client, 'proj_1', QUERY, { deadline });
    expect(budget.takes).toEqual([{ deadline }]);
  });

  it("ends the call with the budget's refusal, without sending anything", async () => {
    const refusal = new BudgetExhaustedError('no room before the deadline', 1_700_000_360_000);
    const { gate } = fakeBudget(refusal);
    const { client } = makeClient({ budget: gate });
    await expect(visitors(client)).rejects.toBe(refusal);
    expect(seen).toHaveLength(0);
  });

  it("reports a 429 to the budget with the server's Retry-After, then sends the request again", async () => {
    replies = [json(429, { error: 'slow down' }, { 'retry-after': '3' }), json(200, page())];
    const { client, budget, waits } = makeClient();
    await expect(visitors(client)).resolves.toMatchObject({ hasMore: false });
    expect(budget.rateLimited).toEqual([3_000]);
    expect(waits).toEqual([]);
    expect(order).toEqual(['take', 'request', 'take', 'request']);
  });

  it('reports a 429 whose Retry-After is 0 or absent as one without a wait, so the budget backs off', async () => {
    replies = [json(429, { error: 'slow down' }, { 'retry-after': '0' }), json(429, { error: 'slow down' }), json(200, page())];
    const { client, budget } = makeClient();
    await visitors(client);
    expect(budget.rateLimited).toEqual([undefined, undefined]);
  });

  it('goes on through any number of 429s without counting them against maxRetries', async () => {
    replies = [...Array.from({ length: 6 }, () => json(429, { error: 'slow down' }, { 'retry-after': '1' })), json(200, page())];
    const { client, budget } = makeClient({ maxRetries: 1 });
    await expect(visitors(client)).resolves.toMatchObject({ hasMore: false });
    expect(budget.rateLimited).toHaveLength(6);
    expect(seen).toHaveLength(7);
  });

  it('still gives up on 5xx after maxRetries once a 429 has passed', async () => {
    replies = [json(429, { error: 'slow down' }), json(503, { error: 'busy' }), json(503, { error: 'busy' }), json(200, page())];
    const { client } = makeClient({ maxRetries: 1 });
    const error = await rejectionOf(visitors(client));
    expect((error as ApiError).status).toBe(503);
    expect(seen).toHaveLength(3);
  });

  it('counts a 429 as a retry in the stats', async () => {
    replies = [json(429, { error: 'slow down' }), json(200, page())];
    const { client } = makeClient();
    await visitors(client);
    expect(client.stats).toEqual({ requests: 2, retries: 1, successes: 1 });
  });
});

describe('errors that say what to fix', () => {
  it('fails at once on 401 and says to create a new admin key', async () => {
    replies = [json(401, { error: 'unauthorized' })];
    const { client } = makeClient();
    const error = await rejectionOf(visitors(client));
    expect(error).toBeInstanceOf(ApiError);
    expect(error.message).toContain('API key rejected (401)');
    expect(error.message).toContain('admin key');
    expect(seen).toHaveLength(1);
  });

  it('fails at once on 403 and names scope, plan and IP allowlist', async () => {
    replies = [json(403, { error: 'forbidden' })];
    const { client } = makeClient();
    const error = await rejectionOf(client.getJob('proj_1', 'job_1'));
    expect(error.message).toMatch(/scope.*plan.*IP allowlist/);
    expect(seen).toHaveLength(1);
  });

  it('fails at once on an analytics 404 and says the key cannot see the project (not where the id came from: the run says that)', async () => {
    replies = [json(404, { error: 'not found' })];
    const { client } = makeClient();
    const error = await rejectionOf(visitors(client, 'proj_missing'));
    expect(error.message).toContain('project "proj_missing" not found (404): the key cannot see it; check the project id');
    expect(error.message).not.toContain('MINTLIFY_PROJECT_IDS');
    expect(seen).toHaveLength(1);
  });

  it('fails at once on a job 404 and names the job and the project', async () => {
    replies = [json(404, { error: 'not found' })];
    const { client } = makeClient();
    const error = await rejectionOf(client.getJob('proj_1', 'job_gone'));
    expect((error as ApiError).status).toBe(404);
    expect(error.message).toContain('job "job_gone" not found in project "proj_1"');
  });

  it("fails at once on 400 and includes the server's error and details", async () => {
    replies = [json(400, { error: 'Invalid query', details: [{ message: 'dateTo must be after dateFrom' }] })];
    const { client } = makeClient();
    const error = await rejectionOf(visitors(client));
    expect(error.message).toContain('Invalid query');
    expect(error.message).toContain('dateTo must be after dateFrom');
    expect(seen).toHaveLength(1);
  });

  it('does not follow a redirect and points to MINTLIFY_API_URL', async () => {
    replies = [json(301, {}, { location: 'https://elsewhere.example.com/v1' })];
    const { client } = makeClient();
    const error = await rejectionOf(visitors(client));
    expect((error as ApiError).status).toBe(301);
    expect(error.message).toContain('MINTLIFY_API_URL');
    expect(seen).toHaveLength(1);
  });

  it('cuts a long server message short', async () => {
    replies = [json(400, { error: 'x'.repeat(10_000) })];
    const { client } = makeClient();
    const error = await rejectionOf(visitors(client));
    expect(error.message.length).toBeLessThan(500);
  });
});

describe('the follow-up POST', () => {
  it('is retried after a 429 and honours Retry-After', async () => {
    replies = [json(429, { error: 'rate limited' }, { 'retry-after': '2' }), json(200, job())];
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
    replies = [json(status, { error: 'oops' }), json(200, job())];
    const { client } = makeClient();
    const error = await rejectionOf(client.sendMessage('proj_1', 'job_1', PROMPT));
    expect(error).toBeInstanceOf(SendUncertainError);
    expect(seen).toHaveLength(1);
  });

  it('is never resent after the connection drops once the request was read', async () => {
    replies = [hangUp, json(200, job())];
    const { client } = makeClient();
    const error = await rejectionOf(client.sendMessage('proj_1', 'job_1', PROMPT));
    expect(error).toBeInstanceOf(SendUncertainError);
    expect(seen).toHaveLength(1);
  });

  it('is never resent after a timeout', async () => {
    replies = [slow(1_000, json(200, job())), json(200, job())];
    const { client } = makeClient({ timeoutMs: 100 });
    const error = await rejectionOf(client.sendMessage('proj_1', 'job_1', PROMPT));
    expect(error).toBeInstanceOf(SendUncertainError);
    expect(error.message).toContain('timed out');
    expect(seen).toHaveLength(1);
  });

  it('is never resent when a 2xx body is unreadable, since the service accepted it', async () => {
    replies = [html(200), json(200, job())];
    const { client } = makeClient();
    await expect(client.sendMessage('proj_1', 'job_1', PROMPT)).rejects.toBeInstanceOf(SendUncertainError);
    expect(seen).toHaveLength(1);
  });

  it('fails as rejected (not uncertain) on a 404', async () => {
    replies = [json(404, { error: 'no such job' })];
    const { client } = makeClient();
    const error = await rejectionOf(client.sendMessage('proj_1', 'job_x', PROMPT));
    expect(error).toBeInstanceOf(ApiError);
    expect(error).not.toBeInstanceOf(SendUncertainError);
    expect(error.message).toContain('job "job_x" not found in project "proj_1"');
  });

  it('throws RateLimitedError with the wait when 429s outlast the retries', async () => {
    replies = [json(429, {}, { 'retry-after': '5' }), json(429, {}, { 'retry-after': '5' })];
    const { client } = makeClient({ maxRetries: 1 });
    const error = await rejectionOf(client.sendMessage('proj_1', 'job_1', PROMPT));
    expect(error).toBeInstanceOf(RateLimitedError);
    expect((error as RateLimitedError).retryAfterMs).toBe(5_000);
    expect(seen).toHaveLength(2);
  });

  it('throws RateLimitedError at once when Retry-After would pass the deadline', async () => {
    replies = [json(429, {}, { 'retry-after': '3600' })];
    const { client, now, waits } = makeClient();
    const error = await rejectionOf(client.sendMessage('proj_1', 'job_1', PROMPT, { deadline: now() + 60_000 }));
    expect(error).toBeInstanceOf(RateLimitedError);
    expect((error as RateLimitedError).retryAfterMs).toBe(3_600_000);
    expect(waits).toEqual([]);
  });
});

describe('secrets', () => {
  it('keeps the key and the prompt out of errors, logs and stats', async () => {
    replies = [json(503, { error: `upstream echoed ${KEY}` }), json(400, { error: 'bad', details: [{ message: `auth was Bearer ${KEY}` }] })];
    const { client, logs } = makeClient();
    const readError = await rejectionOf(visitors(client));
    replies = [json(400, { error: `prompt rejected: ${PROMPT}`, details: [{ message: `auth was Bearer ${KEY}` }] })];
    const sendError = await rejectionOf(client.sendMessage('proj_1', 'job_1', PROMPT));
    replies = [hangUp];
    const uncertain = await rejectionOf(client.sendMessage('proj_1', 'job_1', PROMPT));
    expect(logs.some((entry) => entry.level === 'warn')).toBe(true);
    for (const error of [readError, sendError, uncertain]) {
      const surface = leakSurface(error, logs, client.stats);
      expect(surface).not.toContain(KEY);
      expect(surface).not.toContain(PROMPT);
    }
    expect(readError.message).toContain('[redacted]');
  });

  it('logs each retry at warn with the operation and the delay', async () => {
    replies = [json(503, { error: 'busy' }), json(200, page())];
    const { client, logs } = makeClient();
    await visitors(client);
    const warnings = logs.filter((entry) => entry.level === 'warn');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.extra[0]).toMatchObject({ operation: 'getAnalytics', attempt: 1, delayMs: 250, status: 503 });
  });
});

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
    replies = [
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
    expect(() => createApiClient({ baseUrl, apiKey: KEY, maxResponseBytes })).toThrow(ConfigError);
  });
});

/** A fetch that answers every request with `body` as JSON: no server, no sandbox. */
function jsonFetch(body: unknown, status = 200) {
  const calls: string[] = [];
  const fetchImpl = (async (url: string | URL | Request) => {
    calls.push(String(url));
    return new Response(typeof body === 'string' ? body : JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
  }) as typeof fetch;
  return { fetch: fetchImpl, calls };
}

/** The part of KEY after its public `mint_` prefix: none of it may appear anywhere. */
const KEY_SECRET_PART = KEY.slice(5, 17);

describe('the key in a 2xx answer', () => {
  it('stays out of the schema error, the retry logs and the stats when a mistyped field echoes it', async () => {
    const fake = jsonFetch({ ...page(), hasMore: KEY });
    const { client, logs } = makeClient({ fetch: fake.fetch });
    const error = await rejectionOf(visitors(client));
    expect(error).toBeInstanceOf(MalformedResponseError);
    expect(error.message).toContain('hasMore');
    expect(leakSurface(error, logs, client.stats)).not.toContain(KEY_SECRET_PART);
  });

  it('is redacted from the data, so nothing built from it (a duplicate-path message, a row) can carry it', async () => {
    const fake = jsonFetch({ ...page(), visitors: [{ path: `/docs/${KEY}`, human: 1, ai: 0, total: 1 }] });
    const { client } = makeClient({ fetch: fake.fetch });
    const result = await visitors(client);
    expect(result.visitors[0]?.path).toBe('/docs/[redacted]');
  });

  it('is redacted from a duplicate path before the pager reports it', async () => {
    const row = { path: `/docs/${KEY}`, human: 1, ai: 0, total: 1 };
    const fake = jsonFetch({ totals: { human: 1, ai: 0, total: 1 }, visitors: [row], hasMore: true });
    const { client } = makeClient({ fetch: fake.fetch });
    const pager = createPager('offset', { limit: 1, maxPages: 10, where: 'visitors proj_1 2026-01-15' });
    const view = (answer: Awaited<ReturnType<typeof visitors>>) => ({
      rowCount: answer.visitors.length,
      hasMore: answer.hasMore,
      rowKeys: () => answer.visitors.map((r) => r.path),
    });
    const { state } = pager.accept(pager.initial, view(await visitors(client, 'proj_1', { limit: 1, offset: 0 })));
    const second = view(await visitors(client, 'proj_1', { limit: 1, offset: 1 }));
    const error = await rejectionOf(Promise.resolve().then(() => pager.accept(state, second)));
    expect(error.message).toContain('appeared again');
    expect(error.message).not.toContain(KEY_SECRET_PART);
  });

  it('in prLink makes the job malformed, and the error does not show it', async () => {
    const fake = jsonFetch({ id: 'job_1', status: 'completed', prLink: KEY });
    const { client } = makeClient({ fetch: fake.fetch, maxRetries: 0 });
    const error = await rejectionOf(client.getJob('proj_1', 'job_1'));
    expect(error).toBeInstanceOf(MalformedResponseError);
    expect(error.message).toContain('prLink');
    expect(error.message).not.toContain(KEY_SECRET_PART);
  });

  it('and the prompt stay out of the uncertain error when the POST answer echoes the prompt', async () => {
    const fake = jsonFetch({ id: 'job_1', status: PROMPT, prLink: null });
    const { client, logs } = makeClient({ fetch: fake.fetch });
    const error = await rejectionOf(client.sendMessage('proj_1', 'job_1', PROMPT));
    expect(error).toBeInstanceOf(SendUncertainError);
    expect(leakSurface(error, logs, client.stats)).not.toContain(PROMPT.slice(0, 20));
  });
});

describe('terminal escapes in answers', () => {
  const ESCAPES = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

  it("are stripped from a 4xx error's text", async () => {
    const fake = jsonFetch({ error: 'bad \u001b]0;pwned\u0007 request \u001b[31mred\u009b0m' }, 400);
    const { client } = makeClient({ fetch: fake.fetch });
    const error = await rejectionOf(visitors(client));
    expect(error.message).toContain('bad');
    expect(error.message).not.toMatch(ESCAPES);
  });

  it('are stripped from a schema error showing a wrong value', async () => {
    const fake = jsonFetch({ ...page(), hasMore: '\u009b2J\u001b[2J' });
    const { client } = makeClient({ fetch: fake.fetch, maxRetries: 0 });
    const error = await rejectionOf(visitors(client));
    expect(error.message).toContain('hasMore');
    expect(error.message).not.toMatch(ESCAPES);
  });

  it('in prLink make the job malformed instead of reaching the terminal', async () => {
    const fake = jsonFetch({ id: 'job_1', status: 'completed', prLink: 'https://github.com/acme/docs/pull/7\u001b[2J' });
    const { client } = makeClient({ fetch: fake.fetch, maxRetries: 0 });
    const error = await rejectionOf(client.getJob('proj_1', 'job_1'));
    expect(error).toBeInstanceOf(MalformedResponseError);
    expect(error.message).not.toMatch(ESCAPES);
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
    replies = [json(401, { error: 'unauthorized' }), json(200, page())];
    const { client } = makeClient({ apiKey: keys.source });
    await expect(visitors(client)).resolves.toMatchObject({ hasMore: false });
    expect(authorizations()).toEqual([`Bearer ${KEY}`, `Bearer ${NEW_KEY}`]);
    expect(keys.counts.refreshes).toBe(1);
  });

  it('takes the second attempt of an analytics read from the budget too', async () => {
    const keys = rotatingKeys(KEY);
    keys.rotate(NEW_KEY);
    replies = [json(401, { error: 'unauthorized' }), json(200, page())];
    const { client, budget } = makeClient({ apiKey: keys.source });
    await visitors(client);
    expect(budget.takes).toHaveLength(2);
  });

  it('is not tried when reading the key again gives the same key: the 401 fails the call at once', async () => {
    const keys = rotatingKeys(KEY);
    replies = [json(401, { error: 'unauthorized' }), json(200, page())];
    const { client } = makeClient({ apiKey: keys.source });
    const error = await rejectionOf(visitors(client));
    expect((error as ApiError).status).toBe(401);
    expect(seen).toHaveLength(1);
  });

  it('is tried only once: a second 401 fails the call', async () => {
    const keys = rotatingKeys(KEY);
    keys.rotate(NEW_KEY);
    replies = [json(401, { error: 'unauthorized' }), json(401, { error: 'unauthorized' }), json(200, page())];
    const { client } = makeClient({ apiKey: keys.source });
    const error = await rejectionOf(visitors(client));
    expect((error as ApiError).status).toBe(401);
    expect(seen).toHaveLength(2);
  });

  it('re-sends a follow-up POST after a 401, which the service refused', async () => {
    const keys = rotatingKeys(KEY);
    keys.rotate(NEW_KEY);
    replies = [json(401, { error: 'unauthorized' }), json(200, job())];
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
    replies = [json(401, { error: `bad key ${KEY}` }), json(400, { error: `still bad ${NEW_KEY} after ${KEY}` })];
    const { client, logs } = makeClient({ apiKey: keys.source });
    const error = await rejectionOf(visitors(client));
    const surface = leakSurface(error, logs, client.stats);
    expect(surface).not.toContain(KEY);
    expect(surface).not.toContain(NEW_KEY);
  });
});

describe('retryLinePrinter', () => {
  it('prints one line per retry: the request, what failed and how long it waits', async () => {
    replies = [json(503, { error: 'busy' }), json(429, { error: 'slow down' }, { 'retry-after': '12' }), json(200, job())];
    const lines: string[] = [];
    const { client } = makeClient({ events: retryLinePrinter((line) => lines.push(line)) });
    await client.getJob('proj_1', 'job_1');
    expect(lines).toEqual([
      'retrying GET /v2/agent/proj_1/job/job_1 in 0.3 s (attempt 1 failed: HTTP 503 from the API (server error): busy)\n',
      'retrying GET /v2/agent/proj_1/job/job_1 in 12 s, as the API asked (attempt 2 failed: rate limited (429) by the API, retry after 12000 ms: slow down)\n',
    ]);
  });

  it('prints nothing for a request that needs no retry', async () => {
    replies = [json(200, page())];
    const lines: string[] = [];
    const { client } = makeClient({ events: retryLinePrinter((line) => lines.push(line)) });
    await visitors(client);
    expect(lines).toEqual([]);
  });

  it('leaves the query out of an analytics request and keeps the line short', async () => {
    replies = [json(500, { error: 'x'.repeat(5_000) }), json(200, page())];
    const lines: string[] = [];
    const { client } = makeClient({ events: retryLinePrinter((line) => lines.push(line)) });
    await visitors(client);
    expect(lines[0]).toMatch(/^retrying GET \/v1\/analytics\/proj_1\/visitors in 0\.3 s \(attempt 1 failed: HTTP 500/);
    expect(lines[0]?.length).toBeLessThanOrEqual(201);
  });

  it('clears a progress line on a terminal before printing', async () => {
    replies = [json(503, { error: 'busy' }), json(200, page())];
    const lines: string[] = [];
    const { client } = makeClient({ events: retryLinePrinter((line) => lines.push(line), { tty: true }) });
    await visitors(client);
    expect(lines[0]?.startsWith('\r\u001b[K')).toBe(true);
  });
});

describe('other rate-limit signals', () => {
  const text =
    (status: number, body: string, headers: Record<string, string> = {}): Reply =>
    (_req, res) => {
      res.writeHead(status, { 'content-type': 'text/plain', connection: 'close', ...headers });
      res.end(body);
    };

  it('reads RateLimit-Reset on a plain-text 429 without Retry-After', async () => {
    replies = [text(429, 'Too many requests, please try again later.', { 'ratelimit-reset': '3' }), json(200, page())];
    const { client, budget } = makeClient();
    await expect(visitors(client)).resolves.toMatchObject({ hasMore: false });
    expect(budget.rateLimited).toEqual([3_000]);
  });

  it('reads an X-RateLimit-Reset that large as the epoch second the window resets at', async () => {
    const { client, budget, now } = makeClient();
    const resetAt = Math.floor(now() / 1000) + 42;
    replies = [json(429, { error: 'slow down' }, { 'x-ratelimit-reset': String(resetAt) }), json(200, page())];
    await visitors(client);
    expect(budget.rateLimited).toEqual([resetAt * 1000 - now()]);
  });

  it('reads the reset of a structured RateLimit field', async () => {
    replies = [json(429, { error: 'slow down' }, { ratelimit: 'limit=100, remaining=0, reset=7' }), json(200, page())];
    const { client, budget } = makeClient();
    await visitors(client);
    expect(budget.rateLimited).toEqual([7_000]);
  });

  it('prefers Retry-After when both are sent', async () => {
    replies = [json(429, { error: 'slow down' }, { 'retry-after': '5', 'ratelimit-reset': '50' }), json(200, page())];
    const { client, budget } = makeClient();
    await visitors(client);
    expect(budget.rateLimited).toEqual([5_000]);
  });

  it('quotes a plain-text error body instead of saying it is not JSON', async () => {
    replies = [text(400, 'dateFrom must be a date')];
    const { client } = makeClient();
    const error = await rejectionOf(visitors(client));
    expect(error.message).toBe('request refused as invalid (400): dateFrom must be a date');
  });

  it('warns with the header when the budget cut an absurd wait to its window', async () => {
    replies = [json(429, { error: 'slow down' }, { 'retry-after': '99999999' }), json(200, page())];
    const lines: string[] = [];
    const gate = {
      async take() {},
      async refund() {},
      async rateLimited(ms: number | undefined) {
        return { pausedMs: 3_600_000, ...(ms !== undefined ? { askedMs: ms } : {}) };
      },
    } as unknown as BudgetGate;
    const { client } = makeClient({ budget: gate, events: retryLinePrinter((line) => lines.push(line)) });
    await visitors(client);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^warning: a 429 asked to wait .* \("Retry-After: 99999999"\), longer than the budget window: pausing 60 min instead/);
  });

  it('prints no retry line for an analytics request that found no server (the run says its cause once)', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const lines: string[] = [];
    const { client } = makeClient({ baseUrl: `http://127.0.0.1:${port}`, events: retryLinePrinter((line) => lines.push(line)) });
    await rejectionOf(visitors(client));
    expect(lines).toEqual([]);
  });

  it('keeps the cause in the retry line of a connection dropped after sending', async () => {
    replies = [hangUp, json(200, page())];
    const lines: string[] = [];
    const { client } = makeClient({ events: retryLinePrinter((line) => lines.push(line)) });
    await visitors(client);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^retrying GET \/v1\/analytics\/\S+ in .*\(attempt 1 failed: .*\((ECONNRESET|UND_ERR_SOCKET)\)\)\n$/);
  });
});

describe('a request that never reached the service', () => {
  it('gives its budget start back when the connection is refused, and keeps the cause', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const { client, budget } = makeClient({ baseUrl: `http://127.0.0.1:${port}`, maxRetries: 2 });
    const error = await rejectionOf(visitors(client));
    expect(error.message).toContain('ECONNREFUSED');
    expect(budget.takes).toHaveLength(3);
    expect(budget.refunds).toHaveLength(3);
  });

  it('is given up within seconds: three attempts (waits of at most 0.5 s and 1 s), an UnreachableError naming the URL and ECONNREFUSED', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise((resolve) => closed.close(resolve));
    const { client, budget, waits } = makeClient({ baseUrl: url, random: () => 1 });

    const error = await rejectionOf(visitors(client));

    expect(error).toBeInstanceOf(UnreachableError);
    expect(error.message).toMatch(new RegExp(`^GET /v1/analytics/\\S+ never reached ${url} \\(ECONNREFUSED: nothing listens there\\)$`));
    expect(budget.takes).toHaveLength(3);
    expect(waits).toEqual([500, 1_000]);
  });

  it('a port fetch refuses (9): one attempt, the cause named rather than "TypeError"', async () => {
    const { client, budget } = makeClient({ baseUrl: 'http://127.0.0.1:9' });

    const error = await rejectionOf(visitors(client));

    expect(error).toBeInstanceOf(UnreachableError);
    expect((error as UnreachableError).code).toBe('bad port');
    expect(error.message).toContain('never reached http://127.0.0.1:9 (bad port: fetch refuses to connect to this port');
    expect(budget.takes).toHaveLength(1);
    expect(budget.refunds).toHaveLength(1);
  });

  it('a TLS handshake that fails (https to a plain-http port): unreachable, named by its code', async () => {
    const plain = createServer((_req, res) => res.end('{}'));
    await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve));
    try {
      const { client, budget } = makeClient({ baseUrl: `https://127.0.0.1:${(plain.address() as AddressInfo).port}` });

      const error = await rejectionOf(visitors(client));

      expect(error).toBeInstanceOf(UnreachableError);
      expect(error.message).toMatch(/\((ERR_SSL_\w+|EPROTO): the TLS handshake failed\)$/);
      expect(budget.refunds).toHaveLength(budget.takes.length);
    } finally {
      await new Promise((resolve) => plain.close(resolve));
    }
  });

  it("gives its budget start back when the budget's wait ran into the deadline and the request was never sent", async () => {
    let time = 1_700_000_000_000;
    const deadline = time + 5_000;
    const budget = fakeBudget();
    const take = budget.gate.take.bind(budget.gate);
    const gate = {
      ...budget.gate,
      take: async (options?: { deadline?: number; signal?: AbortSignal }) => {
        await take(options);
        time = deadline; // the wait for budget ended exactly at the deadline
      },
    } as unknown as BudgetGate;
    const { client } = makeClient({ budget: gate, now: () => time });

    const error = await rejectionOf(visitors(client, 'proj_1', {}, { deadline }));

    expect(error).toBeInstanceOf(DeadlineExceededError);
    expect(seen).toHaveLength(0);
    expect(budget.refunds).toHaveLength(1);
  });

  it('keeps the start of a request the service answered, even with an error', async () => {
    replies = [json(503, { error: 'busy' }), hangUp, json(200, page())];
    const { client, budget } = makeClient();
    await visitors(client);
    expect(budget.refunds).toEqual([]);
  });
});

describe('the circuit breaker', () => {
  it('stops sending after a storm of server failures across calls, and says why', async () => {
    replies = Array.from({ length: 20 }, () => json(503, { error: 'down' }));
    const { client } = makeClient({ maxRetries: 8 });
    expect((await rejectionOf(visitors(client))).message).toContain('HTTP 503');
    expect(seen).toHaveLength(9);
    const second = await rejectionOf(visitors(client));
    expect(second.name).toBe('CircuitOpenError');
    expect(second.message).toMatch(/the API failed 12 requests in a row across units \(last: HTTP 503/);
    expect(seen).toHaveLength(12);
  });

  it('closes again after a success', async () => {
    replies = [
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
