/**
 * What must never leave the client: the key and the prompt (in errors, logs, stats and data)
 * and terminal escapes from the service's answers.
 */
import { describe, expect, it } from 'vitest';
import { MalformedResponseError, SendUncertainError } from '../../../../functions/shared/errors.js';
import { createPager } from '../../../../functions/export/paging.js';
import { rejectionOf } from '../../../helpers/errors.js';
import { KEY, KEY_SECRET_PART, PROMPT, json, hangUp, page, visitors, leakSurface, jsonFetch, useScriptedApi } from '../../../helpers/scripted-api.js';

const api = useScriptedApi();
const { makeClient } = api;

describe('secrets', () => {
  it('keeps the key and the prompt out of errors, logs and stats', async () => {
    api.replies = [json(503, { error: `upstream echoed ${KEY}` }), json(400, { error: 'bad', details: [{ message: `auth was Bearer ${KEY}` }] })];
    const { client, logs } = makeClient();
    const readError = await rejectionOf(visitors(client));
    api.replies = [json(400, { error: `prompt rejected: ${PROMPT}`, details: [{ message: `auth was Bearer ${KEY}` }] })];
    const sendError = await rejectionOf(client.sendMessage('proj_1', 'job_1', PROMPT));
    api.replies = [hangUp];
    const uncertain = await rejectionOf(client.sendMessage('proj_1', 'job_1', PROMPT));
    expect(logs.some((entry) => entry.level === 'warn')).toBe(true);
    for (const error of [readError, sendError, uncertain]) {
      const surface = leakSurface(error, logs, client.stats);
      expect(surface).not.toContain(KEY);
      expect(surface).not.toContain(PROMPT);
    }
    expect(readError.message).toContain('[redacted]');
  });
});

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
