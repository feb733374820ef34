/**
 * The Mintlify API client: fetch + per-request timeout + retries + response validation, for the
 * analytics reads (the export) and the agent job operations (the follow-ups). This file is its
 * public surface; each part does one job:
 *
 * - options.ts: the options, validated and every default resolved once;
 * - transport.ts: one HTTP exchange (fetch, timeout, abort, a capped body read);
 * - status-messages.ts: a non-2xx answer as the error that says what to fix;
 * - redact.ts: the key (and a prompt) kept out of every message and every value from a reply;
 * - body.ts: a 2xx body decoded, parsed, redacted and checked by its schema;
 * - call.ts: the steps of a call (the key and its rotation, one attempt, the retry loop);
 * - analytics.ts, agent.ts: the operations, each with the retry policy its repeats allow
 *   (retry-policy.ts): analytics reads through the request budget, a job read retried freely,
 *   the follow-up POST never sent twice;
 * - client.ts: `createApiClient`, which composes them.
 *
 * The log records the client writes are named here too (the CLI prints them:
 * functions/cli/retry-lines.ts).
 */
export { type AnalyticsApi, type AnalyticsQuery, WAIT_CUT_LOG_MESSAGE } from './analytics.js';
export { type BodyParser, INVALID_UTF8_LOG_MESSAGE } from './body.js';
export { RETRY_LOG_MESSAGE } from './call.js';
export { createApiClient, type MintlifyClient } from './client.js';
export { API_CLIENT_DEFAULTS, type ApiClientOptions } from './options.js';
export { CLOCK_SKEW_LOG_MESSAGE } from './transport.js';
