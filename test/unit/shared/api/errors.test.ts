/**
 * The errors a call ends with, each saying what to fix: the status messages, a plain-text body
 * quoted, and a request that never reached the service (unreachable, its budget start given back).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import type { BudgetGate } from '../../../../functions/shared/pacing/budget.js';
import { ApiError, DeadlineExceededError, UnreachableError } from '../../../../functions/shared/errors.js';
import { rejectionOf } from '../../../helpers/errors.js';
import { json, text, hangUp, page, visitors, closedPort, useScriptedApi } from '../../../helpers/scripted-api.js';

const api = useScriptedApi();
const { seen, makeClient, fakeBudget } = api;

describe('errors that say what to fix', () => {
  it('fails at once on 401 and says to create a new admin key', async () => {
    api.replies = [json(401, { error: 'unauthorized' })];
    const { client } = makeClient();
    const error = await rejectionOf(visitors(client));
    expect(error).toBeInstanceOf(ApiError);
    expect(error.message).toContain('API key rejected (401)');
    expect(error.message).toContain('admin key');
    expect(seen).toHaveLength(1);
  });

  it('fails at once on 403 and names scope, plan and IP allowlist', async () => {
    api.replies = [json(403, { error: 'forbidden' })];
    const { client } = makeClient();
    const error = await rejectionOf(client.getJob('proj_1', 'job_1'));
    expect(error.message).toMatch(/scope.*plan.*IP allowlist/);
    expect(seen).toHaveLength(1);
  });

  it('fails at once on an analytics 404 and says the key cannot see the project (not where the id came from: the run says that)', async () => {
    api.replies = [json(404, { error: 'not found' })];
    const { client } = makeClient();
    const error = await rejectionOf(visitors(client, 'proj_missing'));
    expect(error.message).toContain('project "proj_missing" not found (404): the key cannot see it; check the project id');
    expect(error.message).not.toContain('MINTLIFY_PROJECT_IDS');
    expect(seen).toHaveLength(1);
  });

  it('fails at once on a job 404 and names the job and the project', async () => {
    api.replies = [json(404, { error: 'not found' })];
    const { client } = makeClient();
    const error = await rejectionOf(client.getJob('proj_1', 'job_gone'));
    expect((error as ApiError).status).toBe(404);
    expect(error.message).toContain('job "job_gone" not found in project "proj_1"');
  });

  it("fails at once on 400 and includes the server's error and details", async () => {
    api.replies = [json(400, { error: 'Invalid query', details: [{ message: 'dateTo must be after dateFrom' }] })];
    const { client } = makeClient();
    const error = await rejectionOf(visitors(client));
    expect(error.message).toContain('Invalid query');
    expect(error.message).toContain('dateTo must be after dateFrom');
    expect(seen).toHaveLength(1);
  });

  it('does not follow a redirect and points to MINTLIFY_API_URL', async () => {
    api.replies = [json(301, {}, { location: 'https://elsewhere.example.com/v1' })];
    const { client } = makeClient();
    const error = await rejectionOf(visitors(client));
    expect((error as ApiError).status).toBe(301);
    expect(error.message).toContain('MINTLIFY_API_URL');
    expect(seen).toHaveLength(1);
  });

  it('quotes a plain-text error body instead of saying it is not JSON', async () => {
    api.replies = [text(400, 'dateFrom must be a date')];
    const { client } = makeClient();
    const error = await rejectionOf(visitors(client));
    expect(error.message).toBe('request refused as invalid (400): dateFrom must be a date');
  });

  it('cuts a long server message short', async () => {
    api.replies = [json(400, { error: 'x'.repeat(10_000) })];
    const { client } = makeClient();
    const error = await rejectionOf(visitors(client));
    expect(error.message.length).toBeLessThan(500);
  });
});

describe('a request that never reached the service', () => {
  it('gives its budget start back when the connection is refused, and keeps the cause', async () => {
    const port = await closedPort();
    const { client, budget } = makeClient({ baseUrl: `http://127.0.0.1:${port}`, maxRetries: 2 });
    const error = await rejectionOf(visitors(client));
    expect(error.message).toContain('ECONNREFUSED');
    expect(budget.takes).toHaveLength(3);
    expect(budget.refunds).toHaveLength(3);
  });

  it('is given up within seconds: three attempts (waits of at most 0.5 s and 1 s), an UnreachableError naming the URL and ECONNREFUSED', async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
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
    api.replies = [json(503, { error: 'busy' }), hangUp, json(200, page())];
    const { client, budget } = makeClient();
    await visitors(client);
    expect(budget.refunds).toEqual([]);
  });
});
