/**
 * The analytics read: GET `/v1/analytics/{projectId}/{endpoint}`, one method for every endpoint
 * (the catalog, catalog.ts, names them and their schemas).
 *
 * Every attempt goes through the request budget (`BudgetGate`) first, the only way to reach an
 * analytics endpoint from this code, and through the circuit breaker. A read is retried on 408,
 * 5xx, network errors and timeouts, a malformed body once (retry-policy.ts
 * `retryAnalyticsRead`), and a 429 is not an error but a pause in the same loop: the gate pauses every
 * analytics request of the deployment until `Retry-After` (or a backoff), then the request goes
 * on, however long that takes — only the caller's deadline or signal ends the wait.
 */
import type { ApiStats, CallOptions } from '../api-types.js';
import { ConfigError, RateLimitedError } from '../errors.js';
import { retryAnalyticsRead, sendOutcome } from '../pacing/retry-policy.js';
import type { BodyParser } from './body.js';
import { type CallSteps, checkId } from './call.js';

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

/** The warn record of a 429 that asked for longer than the budget window (the wait was cut). */
export const WAIT_CUT_LOG_MESSAGE = 'a 429 asked for a wait longer than the budget window: pausing one window instead';

/** Endpoint names as the API spells them after `/v1/analytics/{projectId}/`. */
const ENDPOINT_PATTERN = /^[a-z]+(?:[/-][a-z]+)*$/;

/** The analytics read over `steps`. */
export function analyticsOperations(steps: CallSteps): Pick<AnalyticsApi, 'getAnalytics'> {
  const { stats, withKey, attempt, run } = steps;
  const { budget, circuitBreaker: breaker, logger, events } = steps.options;
  return {
    async getAnalytics<T>(endpoint: string, projectId: string, query: AnalyticsQuery, parse: BodyParser<T>, call: CallOptions = {}): Promise<T> {
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
            const value = await attempt({ op: 'getAnalytics', method: 'GET', path, ids: { projectId }, parse, call }, key);
            breaker.succeeded();
            return value;
          } catch (error) {
            breaker.failed(error);
            // A request that provably never left this machine (a connection refused, a name
            // that does not resolve, TLS, no time left to send it) spent none of the
            // organisation's budget: it gives the start back.
            if (sendOutcome(error) === 'not-sent') await budget.refund();
            throw error;
          }
        });
      // A 429 is a pause, not a failure (retry-policy.ts): it pauses the whole deployment
      // through the ledger and spends none of the call's retries; the next attempt's budget
      // gate waits the pause out. Other failures keep their count across 429s, so
      // alternating 5xx and 429 still ends.
      const pause = async (error: unknown): Promise<void> => {
        const retryAfterMs = error instanceof RateLimitedError ? error.retryAfterMs : undefined;
        const header = error instanceof RateLimitedError ? error.waitHeader : undefined;
        stats.retries += 1;
        logger?.warn('analytics rate limited (429): pausing every analytics request', { endpoint, retryAfterMs: retryAfterMs ?? null });
        const paused = await budget.rateLimited(retryAfterMs);
        if (paused.askedMs !== undefined) {
          logger?.warn(WAIT_CUT_LOG_MESSAGE, { endpoint, header: header ?? null, askedMs: paused.askedMs, pausedMs: paused.pausedMs });
        }
        events.onRateLimited?.({
          endpoint,
          pausedMs: paused.pausedMs,
          ...(paused.askedMs !== undefined ? { askedMs: paused.askedMs } : {}),
          ...(header !== undefined ? { header } : {}),
        });
      };
      return run({ op: 'getAnalytics', request: `GET /v1/analytics/${project}/${endpoint}`, shouldRetry: retryAnalyticsRead, call, onPause: pause }, once);
    },
  };
}
