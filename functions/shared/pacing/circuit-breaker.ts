/**
 * A circuit breaker for the analytics API: when the service answers one failure after another
 * (5xx, timeouts, dropped connections) across units, every further unit would pay its nine
 * attempts for the same answer and spend an hour's budget on an outage. After `threshold`
 * consecutive server failures — a little more than one unit's retries, so one unlucky unit
 * does not trip it — the breaker opens: no further request is sent, and the run stops early
 * (the next run tries again). Any success closes it.
 *
 * Per run (one breaker per API client): an outage is over for the next hourly run or the next
 * CLI run, which then tries again with a closed breaker.
 */
import { ApiError, NetworkError, describeError } from '../errors.js';
import { CircuitOpenError } from './errors.js';

export interface CircuitBreaker {
  /** Throws CircuitOpenError when open: no request may be sent. */
  check(): void;
  /** An answer that was not a server failure (a success, a 4xx, a 429): closes the breaker. */
  succeeded(): void;
  /** A failed attempt: counted when it is a server failure (5xx, 408, network, timeout). */
  failed(error: unknown): void;
  readonly open: boolean;
}

/** Consecutive server failures that open the breaker: one unit's nine attempts and three more. */
export const DEFAULT_BREAKER_THRESHOLD = 12;

/** Whether `error` says the service (or the way to it) is failing, rather than refusing us. */
export function isServerFailure(error: unknown): boolean {
  if (error instanceof ApiError) return error.status >= 500 || error.status === 408;
  return error instanceof NetworkError;
}

export function createCircuitBreaker(options: { readonly threshold?: number } = {}): CircuitBreaker {
  const threshold = options.threshold ?? DEFAULT_BREAKER_THRESHOLD;
  let consecutive = 0;
  let last: unknown;
  return {
    get open() {
      return consecutive >= threshold;
    },
    check() {
      if (consecutive >= threshold) {
        throw new CircuitOpenError(
          `the API failed ${consecutive} requests in a row across units (last: ${describeError(last).replace(/^[A-Za-z]*Error: /, '')}): the run stops early instead of paying every unit's retries; the next run tries again — check the service's status page if it lasts`,
        );
      }
    },
    succeeded() {
      consecutive = 0;
    },
    failed(error) {
      if (!isServerFailure(error)) {
        consecutive = 0;
        return;
      }
      consecutive += 1;
      last = error;
    },
  };
}
