/**
 * The client's log records of its retries (for logs only; the typed events a caller renders are
 * tested through the CLI's printer: test/unit/cli/retry-lines.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { json, page, visitors, useScriptedApi } from '../../../helpers/scripted-api.js';

const api = useScriptedApi();
const { makeClient } = api;

describe('retry logs', () => {
  it('logs each retry at warn with the operation and the delay', async () => {
    api.replies = [json(503, { error: 'busy' }), json(200, page())];
    const { client, logs } = makeClient();
    await visitors(client);
    const warnings = logs.filter((entry) => entry.level === 'warn');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.extra[0]).toMatchObject({ operation: 'getAnalytics', attempt: 1, delayMs: 250, status: 503 });
  });
});
