/**
 * How long the client waits before it tries again: the server's Retry-After, the backoff, and
 * the call's deadline, on a fake clock.
 */
import { describe, expect, it } from 'vitest';
import { ApiError, DeadlineExceededError } from '../../../../functions/shared/errors.js';
import { rejectionOf } from '../../../helpers/errors.js';
import { QUERY, json, job, visitors, useScriptedApi } from '../../../helpers/scripted-api.js';

const api = useScriptedApi();
const { seen, makeClient } = api;

describe('retry timing', () => {
  it('honours Retry-After on a 429', async () => {
    api.replies = [json(429, { error: 'slow down' }, { 'retry-after': '3' }), json(200, job())];
    const { client, waits } = makeClient();
    await client.getJob('proj_1', 'job_1');
    expect(waits).toEqual([3_000]);
  });

  it('uses the backoff when Retry-After is 0', async () => {
    api.replies = [json(429, { error: 'slow down' }, { 'retry-after': '0' }), json(200, job())];
    const { client, waits } = makeClient({ minDelayMs: 800 });
    await client.getJob('proj_1', 'job_1');
    expect(waits).toEqual([400]);
  });

  it('stops retrying when the next wait would pass the deadline', async () => {
    api.replies = Array.from({ length: 10 }, () => json(503, { error: 'down' }));
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
