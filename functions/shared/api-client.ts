/**
 * The Mintlify API client: fetch + per-request timeout + retries + response validation.
 *
 * Three uses of the one retry policy (retry-policy.ts), because the operations differ in what a
 * repeat can do:
 * - analytics reads go through the request budget (`BudgetGate`) before EVERY attempt, the
 *   only way to reach an analytics endpoint from this code; they are retried on 408, 5xx,
 *   network errors and timeouts, a malformed body once, and a 429 is not an error but a signal:
 *   the gate pauses every analytics request of the deployment until `Retry-After` (or a
 *   backoff), then the request goes on, however long that takes — only the caller's deadline
 *   or signal ends the wait;
 * - the agent read (get job) is retried on 429, 408, 5xx, network errors and timeouts, a
 *   malformed body once;
 * - the follow-up POST is retried only where the service cannot have acted on it (429, or a
 *   connection that failed before the request was sent). Anything that leaves the send
 *   unknown becomes `SendUncertainError` at once, so a prompt is never POSTed twice.
 *
 * The key goes only into the Authorization header; api/redact.ts keeps it (and a prompt) out of
 * everything built from a reply.
 */
import type { AgentJob, ApiClient, ApiOperation, ApiStats, CallOptions } from './api-types.js';
import { validateApiKey } from './config.js';
import { resolveApiOptions, type ApiClientOptions } from './api/options.js';
import { createRedactor } from './api/redact.js';
import { httpError, type RequestIds } from './api/status-messages.js';
import { createTransport, isSuccess, type RawResponse } from './api/transport.js';
export { CLOCK_SKEW_LOG_MESSAGE } from './api/transport.js';
import { ApiError, ConfigError, MalformedResponseError, NetworkError, RateLimitedError, SendUncertainError, describeError } from './errors.js';
import { retry } from './retry.js';
import { isRetryableAnalyticsRead, isRetryableRead, isRetryableSend, isUncertainSend } from './retry-policy.js';
import { parseAgentJob, type ParseOptions } from './schemas.js';

/** Query of an analytics endpoint: the window (always both ends) plus its paging parameters. */
export interface AnalyticsQuery {
  /** `YYYY-MM-DD`, inclusive. */
  readonly dateFrom: string;
  /** `YYYY-MM-DD`, exclusive. */
  readonly dateTo: string;
  readonly [param: string]: string | number | undefined;
}

/** The analytics side of the client: one method for every `/v1/analytics/{projectId}/…` endpoint. */
export interface AnalyticsApi {
  /**
   * GET `/v1/analytics/{projectId}/{endpoint}?{query}`, validated by `parse`. Every attempt
   * first takes a start from the budget (which may wait, or throw `BudgetExhaustedError` when
   * the wait would pass `options.deadline`); 429s pause the budget and are never failures.
   */
  getAnalytics<T>(endpoint: string, projectId: string, query: AnalyticsQuery, parse: BodyParser<T>, options?: CallOptions): Promise<T>;
  /** Counters since the client was created. */
  readonly stats: ApiStats;
}

/**
 * Validates a parsed 2xx body (a schemas.ts function). `options.redact` keeps the key and the
 * prompt out of what its error quotes.
 */
export type BodyParser<T> = (body: unknown, options: ParseOptions) => T;

/** What `createApiClient` returns: the agent operations and the analytics reads. */
export type MintlifyClient = Pick<ApiClient, 'getJob' | 'sendMessage' | 'stats'> & AnalyticsApi;

/** Endpoint names as the API spells them after `/v1/analytics/{projectId}/`. */
const ENDPOINT_PATTERN = /^[a-z]+(?:[/-][a-z]+)*$/;

export type { ApiClientOptions } from './api/options.js';

/** Creates the client. Validates the key and URL now, so a typo fails before any request. */
export function createApiClient(options: ApiClientOptions): MintlifyClient {
  const resolved = resolveApiOptions(options);
  const { apiKey: keySource, maxRetries, minDelayMs, maxDelayMs, maxRetryAfterMs, now, sleep, random, logger, circuitBreaker: breaker } = resolved;
  const redactor = createRedactor(resolved.givenKey !== undefined ? [resolved.givenKey] : []);
  const stats: ApiStats = { requests: 0, retries: 0, successes: 0 };

  const { scrub } = redactor;
  const send = createTransport(resolved, stats);

  /** The key to send (read again from its source with `fresh`), remembered for scrubbing. */
  async function keyToSend(fresh: boolean): Promise<string> {
    const key = validateApiKey(await (fresh ? keySource.refresh() : keySource.get()));
    redactor.remember(key);
    return key;
  }

  /**
   * Runs an attempt with the current key. After a 401 it reads the key again and, only when
   * that gives another key (the secret was rotated), runs the attempt once more with it: the
   * service refused the first request, so even a POST may be sent again.
   */
  async function withKey<T>(op: ApiOperation, fn: (key: string) => Promise<T>): Promise<T> {
    const key = await keyToSend(false);
    try {
      return await fn(key);
    } catch (error) {
      if (!(error instanceof ApiError && error.status === 401)) throw error;
      let fresh: string;
      try {
        fresh = await keyToSend(true);
      } catch (readError) {
        logger?.warn('could not read the API key again after a 401', { operation: op, reason: describeError(readError) });
        throw error;
      }
      if (fresh === key) throw error;
      stats.retries += 1;
      logger?.warn('API key rejected (401): sending once more with the key read again', { operation: op });
      return fn(fresh);
    }
  }

  /**
   * Decodes a 2xx body as UTF-8, parses it as JSON, then with the operation's schema. Invalid
   * UTF-8 (one bad byte in a comment) becomes U+FFFD, counted and warned about: failing the day
   * over it would fail it on every run forever.
   */
  function parseBody<T>(op: ApiOperation, response: RawResponse, parse: BodyParser<T>, secrets: readonly string[], path: string): T {
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(response.bytes);
    } catch {
      text = new TextDecoder('utf-8').decode(response.bytes);
      const replaced = countReplacements(text) - countEncodedReplacements(response.bytes);
      stats.invalidUtf8 = (stats.invalidUtf8 ?? 0) + replaced;
      logger?.warn(INVALID_UTF8_LOG_MESSAGE, { operation: op, request: path.split('?')[0], replaced });
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch (error) {
      const type = (response.headers.get('content-type') ?? 'no content type').split(';')[0];
      throw new MalformedResponseError(
        `${op} got an HTTP ${response.status} response that is not JSON (${type}, ${response.bytes.byteLength} bytes): the API did not answer as documented`,
        { cause: error },
      );
    }
    return parse(redactor.redactBody(body), { redact: (text) => redactor.redact(text, secrets) });
  }

  /** One attempt: request, classify, validate. */
  async function attempt<T>(
    op: ApiOperation,
    method: 'GET' | 'POST',
    path: string,
    body: string | undefined,
    ids: RequestIds,
    parse: BodyParser<T>,
    call: CallOptions,
    key: string,
    secrets: readonly string[] = [],
  ): Promise<T> {
    const response = await send(method, path, body, call, key);
    if (!isSuccess(response.status)) throw httpError(op, response, ids, now(), (text) => scrub(text, secrets));
    const value = parseBody(op, response, parse, secrets, path);
    stats.successes += 1;
    return value;
  }

  function run<T>(
    op: ApiOperation,
    request: string,
    fn: () => Promise<T>,
    shouldRetry: (error: unknown, earlier: readonly unknown[]) => boolean,
    call: CallOptions,
    retries: number = maxRetries,
    failures: unknown[] = [],
  ): Promise<T> {
    return retry(() => fn(), {
      retries,
      failures,
      minMs: minDelayMs,
      maxMs: maxDelayMs,
      random,
      now,
      sleep,
      maxRetryAfterMs,
      shouldRetry,
      ...(call.deadline !== undefined ? { deadline: call.deadline } : {}),
      ...(call.signal ? { signal: call.signal } : {}),
      // The backoff before a retry ends at a stop too (the retry would not be sent anyway).
      ...(call.stop
        ? { sleep: (ms: number, signal?: AbortSignal) => sleep(ms, signal ? AbortSignal.any([signal, call.stop as AbortSignal]) : call.stop) }
        : {}),
      onRetry: ({ error, attempt: failed, delayMs, fromRetryAfter }) => {
        stats.retries += 1;
        logger?.warn(RETRY_LOG_MESSAGE, {
          operation: op,
          request,
          attempt: failed,
          delayMs,
          fromRetryAfter,
          ...(error instanceof ApiError ? { status: error.status } : {}),
          reason: describeError(error),
        });
      },
    });
  }

  const checkId = (what: string, id: string): string => {
    if (typeof id !== 'string' || id === '') throw new ConfigError(`${what} is empty: pass the id from the dashboard`);
    return encodeURIComponent(id);
  };

  return {
    stats,

    async getAnalytics<T>(endpoint: string, projectId: string, query: AnalyticsQuery, parse: BodyParser<T>, call: CallOptions = {}): Promise<T> {
      const { budget } = resolved;
      if (!budget) {
        throw new ConfigError('analytics requests need the request budget: pass `budget` (ANALYTICS_BUDGET) to createApiClient');
      }
      if (!ENDPOINT_PATTERN.test(endpoint)) throw new ConfigError(`"${endpoint.slice(0, 40)}" is not an analytics endpoint name`);
      const project = checkId('project id', projectId);
      const search = new URLSearchParams();
      for (const [name, value] of Object.entries(query)) {
        if (value === undefined) continue;
        if (typeof value === 'number' && (!Number.isSafeInteger(value) || value < 0)) {
          throw new ConfigError(`analytics parameter ${name} must be a whole number ≥ 0 (got ${value})`);
        }
        search.set(name, String(value));
      }
      const path = `/v1/analytics/${project}/${endpoint}?${search.toString()}`;
      // A stop ends waits and keeps new attempts from starting; the attempt in flight goes on.
      const waits = call.stop ? { ...call, signal: call.signal ? AbortSignal.any([call.signal, call.stop]) : call.stop } : call;
      const once = (): Promise<T> =>
        withKey('getAnalytics', async (key) => {
          call.stop?.throwIfAborted();
          breaker.check();
          await budget.take(waits);
          try {
            const value = await attempt('getAnalytics', 'GET', path, undefined, { projectId }, parse, call, key);
            breaker.succeeded();
            return value;
          } catch (error) {
            breaker.failed(error);
            // A connection refused or a name that does not resolve never reached the service:
            // it spent none of the organisation's budget, so it gives the start back.
            if (error instanceof NetworkError && error.beforeSend) await budget.refund();
            throw error;
          }
        });
      // A 429 leaves the retry loop at once (it is not counted against maxRetries): it pauses
      // the whole deployment through the ledger, and the request goes on once the pause ends.
      // Other failures keep their count across 429s, so alternating 5xx and 429 still ends.
      let retriesUsed = 0;
      const failures: unknown[] = [];
      for (;;) {
        const retriesBefore = stats.retries;
        try {
          return await run(
            'getAnalytics',
            `GET /v1/analytics/${project}/${endpoint}`,
            once,
            isRetryableAnalyticsRead,
            call,
            maxRetries - retriesUsed,
            failures,
          );
        } catch (error) {
          if (!(error instanceof RateLimitedError)) throw error;
          retriesUsed += stats.retries - retriesBefore;
          stats.retries += 1;
          logger?.warn('analytics rate limited (429): pausing every analytics request', {
            endpoint,
            retryAfterMs: error.retryAfterMs ?? null,
          });
          const pause = await budget.rateLimited(error.retryAfterMs);
          if (pause.askedMs !== undefined) {
            logger?.warn(WAIT_CUT_LOG_MESSAGE, {
              endpoint,
              header: error.waitHeader ?? null,
              askedMs: pause.askedMs,
              pausedMs: pause.pausedMs,
            });
          }
        }
      }
    },

    async getJob(projectId: string, jobId: string, call: CallOptions = {}): Promise<AgentJob> {
      const path = `/v2/agent/${checkId('project id', projectId)}/job/${checkId('job id', jobId)}`;
      return run(
        'getJob',
        `GET ${path}`,
        () => withKey('getJob', (key) => attempt('getJob', 'GET', path, undefined, { projectId, jobId }, parseAgentJob, call, key)),
        isRetryableRead,
        call,
      );
    },

    async sendMessage(projectId: string, jobId: string, prompt: string, call: CallOptions = {}): Promise<AgentJob> {
      const path = `/v2/agent/${checkId('project id', projectId)}/job/${checkId('job id', jobId)}/message`;
      if (typeof prompt !== 'string' || prompt.length === 0) {
        throw new ConfigError('the follow-up prompt is empty: the API requires at least one character');
      }
      const body = JSON.stringify({ prompt });
      const once = async (): Promise<AgentJob> => {
        try {
          return await withKey('sendMessage', (key) => attempt('sendMessage', 'POST', path, body, { projectId, jobId }, parseAgentJob, call, key, [prompt]));
        } catch (error) {
          if (call.signal?.aborted && error === call.signal.reason) throw error;
          throw uncertainOrAsIs(error, (text) => scrub(text, [prompt]));
        }
      };
      return run('sendMessage', `POST ${path}`, once, isRetryableSend, call);
    },
  };
}

/** The warn record of a 2xx body with invalid UTF-8 (replaced by U+FFFD, kept). */
export const INVALID_UTF8_LOG_MESSAGE = 'the API answered with invalid UTF-8: replaced by U+FFFD';

const REPLACEMENT = '\uFFFD';

function countReplacements(text: string): number {
  let count = 0;
  for (let at = text.indexOf(REPLACEMENT); at !== -1; at = text.indexOf(REPLACEMENT, at + 1)) count += 1;
  return count;
}

/** U+FFFD the body really sent (EF BF BD), which are not replacements. */
function countEncodedReplacements(bytes: Uint8Array): number {
  let count = 0;
  for (let i = 0; i + 2 < bytes.length; i++) if (bytes[i] === 0xef && bytes[i + 1] === 0xbf && bytes[i + 2] === 0xbd) count += 1;
  return count;
}

/** The message of the warn record the client logs before each retry wait. */
export const RETRY_LOG_MESSAGE = 'retrying API request';

/** The warn record of a 429 that asked for longer than the budget window (the wait was cut). */
export const WAIT_CUT_LOG_MESSAGE = 'a 429 asked for a wait longer than the budget window: pausing one window instead';

/**
 * For the POST: an error after which the service may have acted (retry-policy's `uncertain`)
 * becomes `SendUncertainError`, which is never resent. The others are kept as they are: 429, a
 * connection that failed before sending, other 4xx (the service refused it), a deadline
 * reached before sending.
 */
function uncertainOrAsIs(error: unknown, scrub: (text: string) => string): unknown {
  if (!isUncertainSend(error) || error instanceof SendUncertainError) return error;
  const what =
    error instanceof MalformedResponseError
      ? 'the API accepted the follow-up but its response was unreadable'
      : error instanceof ApiError
        ? `the follow-up may or may not have been processed (HTTP ${error.status})`
        : 'the follow-up may or may not have been received';
  return new SendUncertainError(`${what} (${scrub(error instanceof Error ? error.message : String(error))}): it is not sent again`, {
    cause: error,
  });
}
