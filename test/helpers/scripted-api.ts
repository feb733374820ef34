/**
 * A loopback API whose replies are scripted per test, in order, for the API client's tests: it
 * records every request, and the budget takes beside them in the order they happened. Every
 * reply closes its connection, so no test reuses a socket another test left behind.
 *
 * ```ts
 * const api = useScriptedApi();
 * it('…', async () => {
 *   api.replies = [json(503, { error: 'busy' }), json(200, page())];
 *   const { client } = api.makeClient();
 *   await visitors(client);
 *   expect(api.seen).toHaveLength(2);
 * });
 * ```
 */
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { createApiClient } from '../../functions/shared/api/index.js';
import type { ApiClientOptions, MintlifyClient } from '../../functions/shared/api/index.js';
import type { BudgetGate } from '../../functions/shared/pacing/budget.js';
import { parseVisitorsPage } from '../../functions/shared/schemas.js';

export const KEY = 'mint_Zq8xTopSecretAdminKey0123456789';
/** The part of KEY after its public `mint_` prefix: none of it may appear anywhere. */
export const KEY_SECRET_PART = KEY.slice(5, 17);
export const PROMPT = 'Please rewrite the quickstart so it mentions the new CLI flags and the sandbox.';
export const QUERY = { dateFrom: '2026-01-15', dateTo: '2026-01-16', limit: 250, offset: 0 } as const;

export interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}
export type Reply = (req: IncomingMessage, res: ServerResponse, body: string) => void;

export function json(status: number, body: unknown, headers: Record<string, string> = {}): Reply {
  return (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json', connection: 'close', ...headers });
    res.end(typeof body === 'string' ? body : JSON.stringify(body));
  };
}
export const html =
  (status: number): Reply =>
  (_req, res) => {
    res.writeHead(status, { 'content-type': 'text/html', connection: 'close' });
    res.end('<html><body><h1>Bad gateway</h1></body></html>');
  };
export const text =
  (status: number, body: string, headers: Record<string, string> = {}): Reply =>
  (_req, res) => {
    res.writeHead(status, { 'content-type': 'text/plain', connection: 'close', ...headers });
    res.end(body);
  };
/** Reads the request, then drops the connection without answering. */
export const hangUp: Reply = (req) => req.socket.destroy();
/** Reads the request and never answers: only the client's timeout (or abort) ends the exchange. */
export const silent: Reply = () => undefined;
/** Answers after `ms` of real time (the per-request timeout is a real timer). */
export const slow =
  (ms: number, reply: Reply): Reply =>
  (req, res, body) => {
    const timer = setTimeout(() => reply(req, res, body), ms);
    res.on('close', () => clearTimeout(timer));
  };

export const page = (hasMore = false) => ({
  totals: { human: 3, ai: 1, total: 4 },
  visitors: [{ path: '/intro', human: 3, ai: 1, total: 4 }],
  hasMore,
});
export const job = (status = 'active') => ({ id: 'job_1', status, prLink: null });

/** The visitors endpoint through the analytics method, as the export calls it. */
export const visitors = (client: MintlifyClient, projectId = 'proj_1', query: Record<string, string | number> = QUERY, options = {}) =>
  client.getAnalytics('visitors', projectId, { ...QUERY, ...query }, parseVisitorsPage, options);

/** A port nothing listens on: opened on loopback, then closed. */
export async function closedPort(): Promise<number> {
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const port = (closed.address() as AddressInfo).port;
  await new Promise((resolve) => closed.close(resolve));
  return port;
}

/** Everything a failure could leak through: message, cause chain, logs and stats. */
export function leakSurface(error: unknown, logs: unknown, stats: unknown): string {
  const parts: string[] = [JSON.stringify(logs), JSON.stringify(stats)];
  let current: unknown = error;
  for (let depth = 0; current instanceof Error && depth < 5; depth += 1) {
    parts.push(current.message, String(current.stack));
    current = current.cause;
  }
  return parts.join('\n');
}

/** A fetch that answers every request with `body` as JSON: no server, no sandbox. */
export function jsonFetch(body: unknown, status = 200) {
  const calls: string[] = [];
  const fetchImpl = (async (url: string | URL | Request) => {
    calls.push(String(url));
    return new Response(typeof body === 'string' ? body : JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
  }) as typeof fetch;
  return { fetch: fetchImpl, calls };
}

/** The scripted API of one test file, its requests and its client factory. */
export interface ScriptedApi {
  /** The replies still to give, in order; a request with none left gets a 500. */
  replies: Reply[];
  /** Every request the API read, in order. */
  readonly seen: Seen[];
  /** Budget takes, refunds and requests, interleaved in the order they happened. */
  readonly order: string[];
  readonly baseUrl: string;
  /**
   * A budget that always admits at once and records what the client asks of it. The client
   * only ever calls `take`, `rateLimited` and `refund`; the rest of a gate is not needed here.
   */
  fakeBudget(refuse?: Error): FakeBudget;
  /** A client of this API on a fake clock: sleeping advances it instantly and is recorded. A budget that admits at once. */
  makeClient(overrides?: Partial<ApiClientOptions>): MadeClient;
}

export interface FakeBudget {
  gate: BudgetGate;
  takes: { deadline?: number; signal?: AbortSignal }[];
  rateLimited: (number | undefined)[];
  refunds: string[];
}

export interface MadeClient {
  client: MintlifyClient;
  waits: number[];
  logs: { level: string; message: string; extra: unknown[] }[];
  now: () => number;
  budget: FakeBudget;
}

/** Starts the scripted API for the calling test file (`beforeAll`), resets it after each test, closes it after all. */
export function useScriptedApi(): ScriptedApi {
  let server: Server | undefined;
  let baseUrl = '';
  const seen: Seen[] = [];
  const order: string[] = [];

  const api: ScriptedApi = {
    replies: [],
    seen,
    order,
    get baseUrl() {
      return baseUrl;
    },
    fakeBudget(refuse) {
      const takes: FakeBudget['takes'] = [];
      const rateLimited: FakeBudget['rateLimited'] = [];
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
    },
    makeClient(overrides = {}) {
      let time = 1_700_000_000_000;
      const waits: number[] = [];
      const logs: MadeClient['logs'] = [];
      const record =
        (level: string) =>
        (message: unknown, ...extra: unknown[]) =>
          logs.push({ level, message: String(message), extra });
      const budget = api.fakeBudget();
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
    },
  };

  beforeAll(async () => {
    const listening = createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (chunk: string) => (body += chunk));
      req.on('end', () => {
        seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
        order.push('request');
        const reply = api.replies.shift() ?? json(500, { error: 'no scripted reply' });
        reply(req, res, body);
      });
    });
    server = listening;
    await new Promise<void>((resolve) => listening.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(listening.address() as AddressInfo).port}`;
  });

  afterEach(() => {
    api.replies = [];
    seen.length = 0;
    order.length = 0;
  });

  afterAll(async () => {
    const listening = server;
    if (!listening) return;
    listening.closeAllConnections();
    await new Promise((resolve) => listening.close(resolve));
  });

  return api;
}
