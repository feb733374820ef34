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
 * - events.ts: what the client tells its caller as it goes (a retry, a 429's pause, a clock
 *   off, invalid UTF-8), typed: the CLI renders them (functions/cli/retry-lines.ts); its log
 *   records are for logs only, and their wording is no API;
 * - client.ts: `createApiClient`, which composes them.
 */
export type { AnalyticsApi, AnalyticsQuery } from './analytics.js';
export type { BodyParser } from './body.js';
export { createApiClient, type MintlifyClient } from './client.js';
export type { ApiEvents, ClockSkewEvent, InvalidUtf8Event, RateLimitEvent, RetryEvent } from './events.js';
export { API_CLIENT_DEFAULTS, type ApiClientOptions } from './options.js';
