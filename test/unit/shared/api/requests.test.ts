/**
 * What the client sends (method, headers, path, query, body) and what it refuses before sending
 * anything; the options a client is created with.
 */
import { describe, expect, it } from 'vitest';
import { createApiClient } from '../../../../functions/shared/api/index.js';
import { ConfigError } from '../../../../functions/shared/errors.js';
import { parseVisitorsPage } from '../../../../functions/shared/schemas.js';
import { KEY, PROMPT, QUERY, json, page, job, visitors, useScriptedApi } from '../../../helpers/scripted-api.js';

const api = useScriptedApi();
const { seen, makeClient } = api;

describe('requests', () => {
  it('sends the key as a bearer token, asks for JSON and builds the query', async () => {
    api.replies = [json(200, page())];
    const { client } = makeClient();
    await visitors(client, 'proj_1', { offset: 500 });
    const [request] = seen;
    expect(request?.method).toBe('GET');
    expect(request?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(request?.headers.accept).toBe('application/json');
    expect(request?.url).toBe('/v1/analytics/proj_1/visitors?dateFrom=2026-01-15&dateTo=2026-01-16&limit=250&offset=500');
  });

  it('encodes path parameters', async () => {
    api.replies = [json(200, job())];
    const { client } = makeClient();
    await client.getJob('proj 1', 'job/../x');
    expect(seen[0]?.url).toBe('/v2/agent/proj%201/job/job%2F..%2Fx');
  });

  it('posts the prompt as JSON to the message endpoint', async () => {
    api.replies = [json(200, job())];
    const { client } = makeClient();
    const result = await client.sendMessage('proj_1', 'job_1', PROMPT);
    expect(result.status).toBe('active');
    expect(seen[0]?.method).toBe('POST');
    expect(seen[0]?.url).toBe('/v2/agent/proj_1/job/job_1/message');
    expect(seen[0]?.headers['content-type']).toBe('application/json');
    expect(JSON.parse(seen[0]?.body ?? '')).toEqual({ prompt: PROMPT });
  });

  it('counts requests, retries and successes', async () => {
    api.replies = [json(503, { error: 'busy' }), json(200, page())];
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
    api.replies = [json(200, { web: 1, api: 2, other: 0, total: 3 })];
    const { client } = makeClient();
    await client.getAnalytics('assistant/caller-stats', 'proj_1', { dateFrom: '2026-01-15', dateTo: '2026-01-16' }, (body) => body);
    expect(seen[0]?.url).toBe('/v1/analytics/proj_1/assistant/caller-stats?dateFrom=2026-01-15&dateTo=2026-01-16');
  });
});

describe('creating a client', () => {
  it('refuses an assistant key', () => {
    expect(() => createApiClient({ baseUrl: api.baseUrl, apiKey: 'mint_dsc_abcdef' })).toThrow(ConfigError);
  });

  it('refuses a key without the mint_ prefix', () => {
    expect(() => createApiClient({ baseUrl: api.baseUrl, apiKey: 'abcdef' })).toThrow(/starting with mint_/);
  });

  it('refuses plain http off loopback', () => {
    expect(() => createApiClient({ baseUrl: 'http://api.mintlify.com', apiKey: KEY })).toThrow(ConfigError);
  });

  it('accepts plain http on 127.0.0.1', () => {
    expect(() => createApiClient({ baseUrl: 'http://127.0.0.1:9', apiKey: KEY })).not.toThrow();
  });
});
