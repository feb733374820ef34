/**
 * The CLI's retry lines (functions/cli/retry-lines.ts): the client's typed events rendered as one
 * line each, through a real client against the scripted loopback API.
 */
import { describe, expect, it } from 'vitest';
import { CLEAR_LINE, createTerminalLine } from '../../../functions/cli/progress.js';
import { retryLinePrinter } from '../../../functions/cli/retry-lines.js';
import type { BudgetGate } from '../../../functions/shared/pacing/budget.js';
import { rejectionOf } from '../../helpers/errors.js';
import { json, hangUp, page, job, visitors, closedPort, useScriptedApi } from '../../helpers/scripted-api.js';

const api = useScriptedApi();
const { makeClient } = api;

describe('retryLinePrinter', () => {
  it('prints one line per retry: the request, what failed and how long it waits', async () => {
    api.replies = [json(503, { error: 'busy' }), json(429, { error: 'slow down' }, { 'retry-after': '12' }), json(200, job())];
    const lines: string[] = [];
    const { client } = makeClient({ events: retryLinePrinter((line) => lines.push(line)) });
    await client.getJob('proj_1', 'job_1');
    expect(lines).toEqual([
      'retrying GET /v2/agent/proj_1/job/job_1 in 0.3 s (attempt 1 failed: HTTP 503 from the API (server error): busy)\n',
      'retrying GET /v2/agent/proj_1/job/job_1 in 12 s, as the API asked (attempt 2 failed: rate limited (429) by the API, retry after 12000 ms: slow down)\n',
    ]);
  });

  it('prints nothing for a request that needs no retry', async () => {
    api.replies = [json(200, page())];
    const lines: string[] = [];
    const { client } = makeClient({ events: retryLinePrinter((line) => lines.push(line)) });
    await visitors(client);
    expect(lines).toEqual([]);
  });

  it('leaves the query out of an analytics request and keeps the line short', async () => {
    api.replies = [json(500, { error: 'x'.repeat(5_000) }), json(200, page())];
    const lines: string[] = [];
    const { client } = makeClient({ events: retryLinePrinter((line) => lines.push(line)) });
    await visitors(client);
    expect(lines[0]).toMatch(/^retrying GET \/v1\/analytics\/proj_1\/visitors in 0\.3 s \(attempt 1 failed: HTTP 500/);
    expect(lines[0]?.length).toBeLessThanOrEqual(201);
  });

  it('clears a progress line on a terminal before printing (written through the terminal line, as `export` does)', async () => {
    api.replies = [json(503, { error: 'busy' }), json(200, page())];
    const lines: string[] = [];
    const line = createTerminalLine({ isTTY: true, columns: 80, write: (text: string) => lines.push(text) });
    line.frame('3/14 units');
    const stderr = line.through({ write: (text: string) => lines.push(text) });
    const { client } = makeClient({ events: retryLinePrinter((text) => stderr.write(text)) });
    await visitors(client);
    expect(lines[1]).toBe(CLEAR_LINE);
    expect(lines[2]).toMatch(/^retrying GET /);
  });

  it('warns with the header when the budget cut an absurd wait to its window', async () => {
    api.replies = [json(429, { error: 'slow down' }, { 'retry-after': '99999999' }), json(200, page())];
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
    const port = await closedPort();
    const lines: string[] = [];
    const { client } = makeClient({ baseUrl: `http://127.0.0.1:${port}`, events: retryLinePrinter((line) => lines.push(line)) });
    await rejectionOf(visitors(client));
    expect(lines).toEqual([]);
  });

  it('keeps the cause in the retry line of a connection dropped after sending', async () => {
    api.replies = [hangUp, json(200, page())];
    const lines: string[] = [];
    const { client } = makeClient({ events: retryLinePrinter((line) => lines.push(line)) });
    await visitors(client);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^retrying GET \/v1\/analytics\/\S+ in .*\(attempt 1 failed: .*\((ECONNRESET|UND_ERR_SOCKET)\)\)\n$/);
  });
});
