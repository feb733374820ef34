/**
 * Retry mechanics: Retry-After parsing, backoff with jitter and a deadline-bounded retry loop
 * built on p-retry. Which failures are worth another attempt — or a pause that is no failure at
 * all (an analytics 429) — is retry-policy.ts's answer, passed in as `shouldRetry`.
 *
 * Why the waiting happens here and not inside p-retry: p-retry sleeps with the global
 * `setTimeout` and knows nothing about `Retry-After` or a wall-clock deadline. We run it with
 * `minTimeout: 0` (so it never sleeps itself) and do the one wait per retry inside its
 * `shouldRetry` hook, with an injected `sleep` and `now`. That gives us p-retry's attempt
 * accounting and abort-signal handling while tests drive time with a fake clock.
 */
import pRetry, { AbortError } from 'p-retry';
import { ApiError, DeadlineExceededError, RateLimitedError, describeError } from '../errors.js';
import { backoffDelay as timeBackoff, sleep as realSleep, type Sleep } from '../time.js';

const HTTP_DATE_HINT = /[A-Za-z]/;
const DELTA_SECONDS = /^\d+(?:\.\d+)?$/;

/**
 * Parses an HTTP `Retry-After` header into a wait in milliseconds.
 *
 * Accepts delta-seconds (`"120"`, also `"1.5"`) or an HTTP date (`"Wed, 21 Oct 2015 07:28:00
 * GMT"`), measured against `nowMs`. Returns `undefined` — meaning "use the backoff" — for an
 * absent header, `0`, a negative number, a date already past, or anything unparsable: the
 * service documents `0` as "no particular wait", and a bad header must not stall us.
 */
export function parseRetryAfter(header: string | null | undefined, nowMs: number): number | undefined {
  if (header == null) return undefined;
  const value = header.trim();
  if (value === '') return undefined;
  if (DELTA_SECONDS.test(value)) {
    const ms = Math.ceil(Number(value) * 1000);
    return ms > 0 && Number.isFinite(ms) ? ms : undefined;
  }
  // Date.parse accepts bare numbers like "-5" as years: only try dates that contain letters
  // (every HTTP date names its weekday/month and zone).
  if (!HTTP_DATE_HINT.test(value)) return undefined;
  const at = Date.parse(value);
  if (Number.isNaN(at)) return undefined;
  const ms = at - nowMs;
  return ms > 0 ? ms : undefined;
}

/**
 * The retry defaults, once: `retry`/`backoffDelay` below and the API client's options
 * (api/options.ts) fall back to these.
 */
export const RETRY_DEFAULTS = {
  /** Retries after the first attempt. */
  retries: 8,
  /** Base delay of the first retry, ms. */
  minMs: 500,
  /** Cap of any single backoff delay, ms. */
  maxMs: 30_000,
  /** Growth per retry. */
  factor: 2,
  /** The longest Retry-After slept through, ms. */
  maxRetryAfterMs: 300_000,
} as const;

export interface BackoffOptions {
  /** Base delay of the first retry, ms. @default RETRY_DEFAULTS.minMs */
  readonly minMs?: number;
  /** Cap of any single backoff delay, ms. @default RETRY_DEFAULTS.maxMs */
  readonly maxMs?: number;
  /** Growth per retry. @default RETRY_DEFAULTS.factor */
  readonly factor?: number;
  /** A random number in [0, 1). @default Math.random */
  readonly random?: () => number;
}

/**
 * The wait before retry number `attempt` (1 = first retry), in ms.
 *
 * Exponential with **equal jitter**: with `cap = min(maxMs, minMs · factor^(attempt-1))` the
 * delay is uniform in `[cap/2, cap]`. Equal rather than full jitter because the analytics
 * budget is about 100 requests per hour per organisation: full jitter can retry after ~0 ms
 * and spend that budget on a server that just said it is overloaded; equal jitter still
 * spreads concurrent clients over half the window.
 */
export function backoffDelay(attempt: number, options: BackoffOptions = {}): number {
  const { minMs = RETRY_DEFAULTS.minMs, maxMs = RETRY_DEFAULTS.maxMs, factor = RETRY_DEFAULTS.factor, random = Math.random } = options;
  return timeBackoff(attempt, { baseMs: minMs, maxMs, factor, jitter: 'equal', random });
}

/** What the retry loop tells its observer before each wait. */
export interface RetryEvent {
  readonly error: unknown;
  /** The attempt that just failed, 1-based. */
  readonly attempt: number;
  /** How long it will wait before the next attempt, ms. */
  readonly delayMs: number;
  /** Whether the wait came from the server's Retry-After (else: backoff). */
  readonly fromRetryAfter: boolean;
}

/**
 * What the policy says of a failed attempt: `true` another attempt after the backoff (or the
 * Retry-After), `false` none, `'pause'` another attempt after `onPause` — not a failure, so it
 * spends none of `retries` and waits no backoff (an analytics 429: the budget pauses every
 * request of the deployment, and the next attempt's budget gate waits the pause out).
 */
export type RetryDecision = boolean | 'pause';

export interface RetryOptions extends BackoffOptions {
  /** Retries after the first attempt (pauses not counted). @default RETRY_DEFAULTS.retries */
  readonly retries?: number;
  /**
   * Which errors get another attempt (a retry-policy.ts function). `earlier` holds the failures
   * of the attempts before this one, oldest first (pauses included).
   */
  readonly shouldRetry: (error: unknown, earlier: readonly unknown[]) => RetryDecision;
  /** What a pause does before the next attempt starts (records the 429). @default nothing */
  readonly onPause?: (error: unknown) => Promise<void>;
  /**
   * Epoch ms (by `now`) after which no attempt starts and no wait may end. When the next
   * wait would end at or after it, the loop stops: a `RateLimitedError` is rethrown as is (the
   * caller defers on it), any other error is wrapped in a `DeadlineExceededError` whose
   * `cause` is the last error.
   */
  readonly deadline?: number;
  /**
   * The longest Retry-After we are willing to sleep through, ms. A longer one ends the loop
   * with the error itself (it carries `retryAfterMs`), so a CLI without a deadline never
   * sits silently for an hour. @default RETRY_DEFAULTS.maxRetryAfterMs
   */
  readonly maxRetryAfterMs?: number;
  readonly signal?: AbortSignal;
  /** @default Date.now */
  readonly now?: () => number;
  /** @default time.ts `sleep` */
  readonly sleep?: Sleep;
  /** Called before each wait (logging, counters). */
  readonly onRetry?: (event: RetryEvent) => void;
}

/** The Retry-After a failed attempt carried, when it was an API error that had one. */
function retryAfterOf(error: unknown): number | undefined {
  return error instanceof ApiError ? error.retryAfterMs : undefined;
}

function deadlineError(error: unknown, attempts: number, waitMs: number): Error {
  if (error instanceof RateLimitedError) return error;
  return new DeadlineExceededError(
    `gave up after ${attempts} attempt(s): waiting ${waitMs} ms more would pass the deadline; last error: ${describeError(error)}`,
    { cause: error },
  );
}

/**
 * Runs `fn` until it succeeds, a failure is not retryable, the retries are spent, or the
 * deadline would be passed. The wait before a retry is exactly the server's Retry-After when
 * it sent one (it knows its window; adding backoff only wastes the invocation's time), else
 * `backoffDelay`. Ends with the last error (see `deadline` for how a deadline ends it).
 */
export async function retry<T>(fn: (attempt: number) => Promise<T>, options: RetryOptions): Promise<T> {
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? realSleep;
  const { deadline, signal } = options;
  const maxRetryAfterMs = options.maxRetryAfterMs ?? RETRY_DEFAULTS.maxRetryAfterMs;
  let lastError: unknown;
  const failures: unknown[] = [];
  const retries = options.retries ?? RETRY_DEFAULTS.retries;
  /** Retries spent (pauses are not). */
  let spent = 0;

  return pRetry(
    async (attempt) => {
      if (deadline !== undefined && now() >= deadline) {
        const error =
          lastError === undefined
            ? new DeadlineExceededError('no time left before the deadline: the request was not sent')
            : deadlineError(lastError, attempt - 1, 0);
        throw new AbortError(error);
      }
      return fn(attempt);
    },
    {
      // The retries are counted here, where a pause (which is not one) can be told apart.
      retries: Number.POSITIVE_INFINITY,
      // p-retry must not sleep: every wait happens in shouldRetry below, with the injected clock.
      minTimeout: 0,
      maxTimeout: 0,
      ...(signal ? { signal } : {}),
      onFailedAttempt: ({ error }) => {
        lastError = error;
      },
      shouldRetry: async ({ error, attemptNumber }) => {
        const decision = options.shouldRetry(error, [...failures]);
        failures.push(error);
        if (decision === 'pause') {
          await options.onPause?.(error);
          return true;
        }
        if (!decision || spent >= retries) return false;
        const retriesConsumed = spent;
        spent += 1;
        const retryAfter = retryAfterOf(error);
        if (retryAfter !== undefined && retryAfter > maxRetryAfterMs) throw error;
        const delayMs = retryAfter ?? backoffDelay(retriesConsumed + 1, options);
        if (deadline !== undefined && now() + delayMs >= deadline) {
          throw deadlineError(error, attemptNumber, delayMs);
        }
        options.onRetry?.({ error, attempt: attemptNumber, delayMs, fromRetryAfter: retryAfter !== undefined });
        await sleep(delayMs, signal);
        return true;
      },
    },
  );
}
