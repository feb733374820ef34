/**
 * The request budget: a start taken before every attempt, a 429 reported to the budget with the
 * wait the server asked for (Retry-After or the RateLimit headers), refusals and deadlines.
 */
import { describe, expect, it } from 'vitest';
import { createApiClient } from '../../../../functions/shared/api/index.js';
import { type ApiError, ConfigError } from '../../../../functions/shared/errors.js';
import { BudgetExhaustedError } from '../../../../functions/shared/pacing/errors.js';
import { parseVisitorsPage } from '../../../../functions/shared/schemas.js';
import { rejectionOf } from '../../../helpers/errors.js';
import { KEY, QUERY, json, text, hangUp, page, visitors, useScriptedApi } from '../../../helpers/scripted-api.js';

const api = useScriptedApi();
const { seen, order, makeClient, fakeBudget } = api;

describe('the request budget', () => {
  it('refuses analytics without a budget, before sending anything', async () => {
    const client = createApiClient({ baseUrl: api.baseUrl, apiKey: KEY });
    const error = await rejectionOf(client.getAnalytics('visitors', 'proj_1', QUERY, parseVisitorsPage));
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.message).toContain('budget');
    expect(seen).toHaveLength(0);
  });

  it('takes a start from the budget before every attempt, retries included', async () => {
    api.replies = [json(503, { error: 'busy' }), hangUp, json(200, page())];
    const { client, budget } = makeClient();
    await visitors(client);
    expect(order).toEqual(['take', 'request', 'take', 'request', 'take', 'request']);
    expect(budget.takes).toHaveLength(3);
  });

  it("passes the call's deadline to the budget", async () => {
    api.replies = [json(200, page())];
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
    api.replies = [json(429, { error: 'slow down' }, { 'retry-after': '3' }), json(200, page())];
    const { client, budget, waits } = makeClient();
    await expect(visitors(client)).resolves.toMatchObject({ hasMore: false });
    expect(budget.rateLimited).toEqual([3_000]);
    expect(waits).toEqual([]);
    expect(order).toEqual(['take', 'request', 'take', 'request']);
  });

  it('reports a 429 whose Retry-After is 0 or absent as one without a wait, so the budget backs off', async () => {
    api.replies = [json(429, { error: 'slow down' }, { 'retry-after': '0' }), json(429, { error: 'slow down' }), json(200, page())];
    const { client, budget } = makeClient();
    await visitors(client);
    expect(budget.rateLimited).toEqual([undefined, undefined]);
  });

  it('goes on through any number of 429s without counting them against maxRetries', async () => {
    api.replies = [...Array.from({ length: 6 }, () => json(429, { error: 'slow down' }, { 'retry-after': '1' })), json(200, page())];
    const { client, budget } = makeClient({ maxRetries: 1 });
    await expect(visitors(client)).resolves.toMatchObject({ hasMore: false });
    expect(budget.rateLimited).toHaveLength(6);
    expect(seen).toHaveLength(7);
  });

  it('still gives up on 5xx after maxRetries once a 429 has passed', async () => {
    api.replies = [json(429, { error: 'slow down' }), json(503, { error: 'busy' }), json(503, { error: 'busy' }), json(200, page())];
    const { client } = makeClient({ maxRetries: 1 });
    const error = await rejectionOf(visitors(client));
    expect((error as ApiError).status).toBe(503);
    expect(seen).toHaveLength(3);
  });

  it('counts a 429 as a retry in the stats', async () => {
    api.replies = [json(429, { error: 'slow down' }), json(200, page())];
    const { client } = makeClient();
    await visitors(client);
    expect(client.stats).toEqual({ requests: 2, retries: 1, successes: 1 });
  });
});

describe('other rate-limit signals', () => {
  it('reads RateLimit-Reset on a plain-text 429 without Retry-After', async () => {
    api.replies = [text(429, 'Too many requests, please try again later.', { 'ratelimit-reset': '3' }), json(200, page())];
    const { client, budget } = makeClient();
    await expect(visitors(client)).resolves.toMatchObject({ hasMore: false });
    expect(budget.rateLimited).toEqual([3_000]);
  });

  it('reads an X-RateLimit-Reset that large as the epoch second the window resets at', async () => {
    const { client, budget, now } = makeClient();
    const resetAt = Math.floor(now() / 1000) + 42;
    api.replies = [json(429, { error: 'slow down' }, { 'x-ratelimit-reset': String(resetAt) }), json(200, page())];
    await visitors(client);
    expect(budget.rateLimited).toEqual([resetAt * 1000 - now()]);
  });

  it('reads the reset of a structured RateLimit field', async () => {
    api.replies = [json(429, { error: 'slow down' }, { ratelimit: 'limit=100, remaining=0, reset=7' }), json(200, page())];
    const { client, budget } = makeClient();
    await visitors(client);
    expect(budget.rateLimited).toEqual([7_000]);
  });

  it('prefers Retry-After when both are sent', async () => {
    api.replies = [json(429, { error: 'slow down' }, { 'retry-after': '5', 'ratelimit-reset': '50' }), json(200, page())];
    const { client, budget } = makeClient();
    await visitors(client);
    expect(budget.rateLimited).toEqual([5_000]);
  });
});
