/**
 * The one place that decides "may this be tried again?" and "may this be sent again?", for the
 * client's retry loops and for the follow-up consumer. The status lists are declared once, here
 * (the way ky declares `retry.statusCodes`); nothing else compares statuses to decide a retry.
 *
 * Two questions, because a read and a POST differ in what a repeat can do:
 * - a **read** (visitors, any analytics endpoint, get job) is repeated freely on a transient
 *   failure: 408, 429, every 5xx, any network failure or timeout (one that never reached the
 *   service only twice, within seconds); a malformed 2xx body only
 *   once (it may be a proxy's hiccup; twice is the API's answer and a third request only spends
 *   the hourly budget);
 * - a **send** (the follow-up POST) has an outcome — `not-sent`, `refused` or `uncertain` — and
 *   is repeated only when the service cannot have acted on it. Whatever this module cannot
 *   classify is `uncertain`: it is never sent twice.
 */
import {
  ApiError,
  ClockSkewError,
  ConfigError,
  DeadlineExceededError,
  MalformedResponseError,
  NetworkError,
  ResponseTooLargeError,
  SendUncertainError,
  UnreachableError,
} from '../errors.js';
import { BudgetExhaustedError } from './errors.js';
import type { RetryDecision } from './retry.js';

/** Statuses after which a read is tried again, besides every 5xx. */
export const RETRYABLE_READ_STATUSES: readonly number[] = Object.freeze([408, 429]);

/**
 * Statuses that leave a send unknown, besides every 5xx and every 3xx (a 303 answers a POST
 * that was processed): the service may have acted on it. 408 is here because a proxy may
 * answer it after forwarding the request.
 */
export const UNCERTAIN_SEND_STATUSES: readonly number[] = Object.freeze([408]);

/** Statuses after which a send is sent again (after the wait): the service refused it for now. */
export const RESEND_STATUSES: readonly number[] = Object.freeze([429]);

/**
 * Statuses that say the organisation is out of agent credits (the service once documented
 * `402 "Insufficient AI credits"`). Not worth another attempt within the hour: see isOutOfCredits.
 */
export const OUT_OF_CREDITS_STATUSES: readonly number[] = Object.freeze([402]);

/** How an error text names credits ("Insufficient AI credits", "no agent credits left"). */
const NAMES_CREDITS = /\bcredits?\b/i;

/** Retries granted to a failed 2xx body (malformed, too large, not UTF-8) within one call. */
export const MAX_MALFORMED_RETRIES = 1;

/**
 * Retries granted to a request that never reached the service (`UnreachableError`) within one
 * call: with the backoff's first two waits (at most 0.5 s and 1 s) a refused connection or a name
 * that does not resolve is given up within seconds — it is a setting far more often than a
 * hiccup, and nine attempts over a minute only hide the cause. A port fetch refuses gets none.
 */
export const MAX_UNREACHABLE_RETRIES = 2;

/** Whether an unreachable API is worth another attempt, given the call's earlier failures. */
function mayRetryUnreachable(error: UnreachableError, earlier: readonly unknown[]): boolean {
  if (error.code === UnreachableError.BAD_PORT) return false;
  return earlier.filter((e) => e instanceof UnreachableError).length < MAX_UNREACHABLE_RETRIES;
}

const isServerError = (status: number): boolean => status >= 500 && status <= 599;
const isRedirect = (status: number): boolean => status >= 300 && status <= 399;

/**
 * Whether a failed read is worth another attempt.
 * @param earlier the failures of the same call's earlier attempts, oldest first.
 */
export function isRetryableRead(error: unknown, earlier: readonly unknown[] = []): boolean {
  if (error instanceof ApiError) return RETRYABLE_READ_STATUSES.includes(error.status) || isServerError(error.status);
  if (error instanceof UnreachableError) return mayRetryUnreachable(error, earlier);
  if (error instanceof NetworkError) return true;
  // The same request would get the same oversized answer: the caller asks for less instead.
  if (error instanceof ResponseTooLargeError) return false;
  if (error instanceof MalformedResponseError) {
    return earlier.filter((e) => e instanceof MalformedResponseError).length < MAX_MALFORMED_RETRIES;
  }
  return false;
}

/**
 * An analytics read: like any read, except a 429, which is no failure but a pause — the request
 * budget's business: it pauses every analytics request of the deployment, then the request goes
 * on, spending none of its retries.
 */
export function retryAnalyticsRead(error: unknown, earlier: readonly unknown[] = []): RetryDecision {
  if (error instanceof ApiError && error.status === 429) return 'pause';
  return isRetryableRead(error, earlier);
}

/**
 * What a failed POST says about the send:
 * - `not-sent`: it never reached the service (connection refused, DNS, bad input, a deadline or
 *   budget reached before the attempt);
 * - `refused`: the service answered that it did not act on it (4xx other than 408);
 * - `uncertain`: the service may have acted on it (408, 3xx, 5xx, a reset or timeout after
 *   sending, an unreadable 2xx body) — or the failure is one this function does not know.
 */
export type SendOutcome = 'not-sent' | 'refused' | 'uncertain';

export function sendOutcome(error: unknown): SendOutcome {
  if (error instanceof SendUncertainError) return 'uncertain';
  if (error instanceof NetworkError) return error.beforeSend ? 'not-sent' : 'uncertain';
  // Raised by the answer's own Date header: the request reached the service (and spent its budget).
  if (error instanceof ClockSkewError) return 'uncertain';
  if (error instanceof ConfigError || error instanceof BudgetExhaustedError) return 'not-sent';
  if (error instanceof DeadlineExceededError) return error.cause === undefined ? 'not-sent' : sendOutcome(error.cause);
  if (error instanceof ApiError) {
    const { status } = error;
    if (UNCERTAIN_SEND_STATUSES.includes(status) || isServerError(status) || isRedirect(status)) return 'uncertain';
    return status >= 400 && status <= 499 ? 'refused' : 'uncertain';
  }
  return 'uncertain';
}

/** The service may have acted on the POST: it must never be sent again. */
export function isUncertainSend(error: unknown): boolean {
  return sendOutcome(error) === 'uncertain';
}

/** The service provably did not act on the POST, so a later send is still "at most once". */
export function provablyNotSent(error: unknown): boolean {
  return sendOutcome(error) !== 'uncertain';
}

/**
 * Whether the service refused a send because the organisation ran out of agent credits: a 402,
 * or another 4xx (not 408 or 429, which keep their own meaning) whose error names credits.
 * Such a prompt is rejected at once — credits do not come back within the hour on their own.
 */
export function isOutOfCredits(error: unknown): error is ApiError {
  if (!(error instanceof ApiError)) return false;
  const { status } = error;
  if (OUT_OF_CREDITS_STATUSES.includes(status)) return true;
  const other4xx = status >= 400 && status <= 499 && !UNCERTAIN_SEND_STATUSES.includes(status) && !RESEND_STATUSES.includes(status);
  return other4xx && NAMES_CREDITS.test(error.message);
}

/**
 * Whether a failed POST is sent again within the same call: only when it provably did not
 * reach the service through a transient failure (a connection refused, DNS), or the service
 * refused it for now (429). Other refusals (400, 404, …) would only be refused again.
 */
export function isRetryableSend(error: unknown, earlier: readonly unknown[] = []): boolean {
  if (error instanceof UnreachableError) return mayRetryUnreachable(error, earlier);
  if (error instanceof NetworkError) return error.beforeSend;
  return error instanceof ApiError && RESEND_STATUSES.includes(error.status);
}
