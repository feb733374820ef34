/**
 * One call of an operation, in the steps every operation shares:
 * - `withKey` runs an attempt with the current key; after a 401 it reads the key again and,
 *   only when that gives another key (a rotation), runs the attempt once more with it;
 * - `attempt` sends one request through the transport (transport.ts); a non-2xx answer becomes
 *   the error that says what to fix (status-messages.ts), a 2xx body its checked value (body.ts);
 * - `run` is the retry loop (retry.ts) with the client's numbers, the call's deadline, signal
 *   and stop, and before each wait a warn record (for logs) and an `onRetry` event (events.ts;
 *   the CLI prints it: functions/cli/retry-lines.ts).
 *
 * Which failures get another attempt — or a pause — is each operation's choice, a
 * retry-policy.ts function (analytics.ts, agent.ts).
 */
import type { ApiOperation, ApiStats, CallOptions } from '../api-types.js';
import { validateApiKey } from '../validators.js';
import { ApiError, ConfigError, describeError } from '../errors.js';
import { type RetryOptions, retry } from '../pacing/retry.js';
import { type BodyParser, parseBody } from './body.js';
import type { ResolvedApiOptions } from './options.js';
import { createRedactor, type Redactor } from './redact.js';
import { httpError, type RequestIds } from './status-messages.js';
import { createTransport, isSuccess } from './transport.js';

/** The message of the warn record the client logs before each retry wait (for logs; the CLI reads `onRetry`). */
export const RETRY_LOG_MESSAGE = 'retrying API request';

/** One request of an operation, as `attempt` sends it. */
export interface AttemptRequest<T> {
  readonly op: ApiOperation;
  readonly method: 'GET' | 'POST';
  /** Path and query. */
  readonly path: string;
  /** JSON body (a POST). */
  readonly body?: string;
  /** The ids a status message names (project, job). */
  readonly ids: RequestIds;
  readonly parse: BodyParser<T>;
  readonly call: CallOptions;
  /** Kept out of its errors (a prompt). */
  readonly secrets?: readonly string[];
}

/** What the retry loop of one call needs besides the attempt it repeats. */
export interface RetryLoop {
  readonly op: ApiOperation;
  /** Names the call in the retry records and events (`GET /v1/analytics/…`). */
  readonly request: string;
  readonly shouldRetry: RetryOptions['shouldRetry'];
  readonly call: CallOptions;
  /** What a pause of the policy does (an analytics 429). */
  readonly onPause?: RetryOptions['onPause'];
}

/** The steps of a call, and what one client's operations share: its options, counters and redactor. */
export interface CallSteps {
  readonly options: ResolvedApiOptions;
  /** Counters since the client was created. */
  readonly stats: ApiStats;
  readonly redactor: Redactor;
  /**
   * Runs an attempt with the current key. After a 401 it reads the key again and, only when
   * that gives another key (the secret was rotated), runs the attempt once more with it: the
   * service refused the first request, so even a POST may be sent again.
   */
  withKey<T>(op: ApiOperation, fn: (key: string) => Promise<T>): Promise<T>;
  /** One attempt with `key`: request, classify, validate. */
  attempt<T>(request: AttemptRequest<T>, key: string): Promise<T>;
  /** Runs `fn` in the retry loop. */
  run<T>(loop: RetryLoop, fn: () => Promise<T>): Promise<T>;
}

/** The steps for one client: a transport, a redactor and counters of its own. */
export function createCallSteps(options: ResolvedApiOptions): CallSteps {
  const { apiKey: keySource, maxRetries, minDelayMs, maxDelayMs, maxRetryAfterMs, now, sleep, random, logger, events } = options;
  const stats: ApiStats = { requests: 0, retries: 0, successes: 0 };
  const redactor = createRedactor(options.givenKey !== undefined ? [options.givenKey] : []);
  const send = createTransport(options, stats);

  /** The key to send (read again from its source with `fresh`), remembered for scrubbing. */
  async function keyToSend(fresh: boolean): Promise<string> {
    const key = validateApiKey(await (fresh ? keySource.refresh() : keySource.get()));
    redactor.remember(key);
    return key;
  }

  return {
    options,
    stats,
    redactor,

    async withKey(op, fn) {
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
    },

    async attempt({ op, method, path, body, ids, parse, call, secrets = [] }, key) {
      const response = await send(method, path, body, call, key);
      if (!isSuccess(response.status)) throw httpError(op, response, ids, now(), (text) => redactor.scrub(text, secrets));
      const value = parseBody(response, parse, { op, path, redactor, secrets, stats, logger, events });
      stats.successes += 1;
      return value;
    },

    run({ op, request, shouldRetry, call, onPause }, fn) {
      return retry(() => fn(), {
        retries: maxRetries,
        ...(onPause ? { onPause } : {}),
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
          events.onRetry?.({ operation: op, request, attempt: failed, delayMs, fromRetryAfter, error });
        },
      });
    },
  };
}

/** An id as a path segment: refused when empty, otherwise percent-encoded. */
export function checkId(what: string, id: string): string {
  if (typeof id !== 'string' || id === '') throw new ConfigError(`${what} is empty: pass the id from the dashboard`);
  return encodeURIComponent(id);
}
