/**
 * What the client tells its caller as it goes, as typed events (the way ky's `beforeRetry` hooks
 * and the aws-cdk toolkit's coded messages work): the CLI renders them as lines
 * (functions/cli/retry-lines.ts), a test counts them. The client's log records are for logs
 * only; their wording is no API.
 */
import type { ApiOperation } from '../api-types.js';

/** Before the client waits to send a call's request again. */
export interface RetryEvent {
  readonly operation: ApiOperation;
  /** The request without its query, e.g. `GET /v1/analytics/proj/visitors`. */
  readonly request: string;
  /** The attempt that just failed, 1-based. */
  readonly attempt: number;
  /** How long the client waits before the next attempt, ms. */
  readonly delayMs: number;
  /** The wait is the server's Retry-After (else the backoff). */
  readonly fromRetryAfter: boolean;
  /** What failed (an `ApiError`, a `NetworkError`, …). */
  readonly error: unknown;
}

/** An analytics 429: every analytics request of the deployment pauses, then the request goes on. */
export interface RateLimitEvent {
  /** The analytics endpoint, e.g. `visitors`. */
  readonly endpoint: string;
  /** How long every analytics request pauses, ms. */
  readonly pausedMs: number;
  /** Set when the answer asked for longer than the budget window (the pause was cut to it): what it asked, ms. */
  readonly askedMs?: number;
  /** The header that asked for the wait, as sent (e.g. `Retry-After: 99999999`). */
  readonly header?: string;
}

/** The measured offset of this machine's clock from the API's changed (clock-skew.ts). */
export interface ClockSkewEvent {
  /** API time minus this machine's, ms; 0 when they agree again. */
  readonly offsetMs: number;
  /** The offset in words, e.g. `2 h 00 min ahead of`. */
  readonly skew: string;
}

/** A 2xx body held invalid UTF-8, kept as U+FFFD (counted in the manifest). */
export interface InvalidUtf8Event {
  readonly request: string;
  /** Sequences replaced. */
  readonly replaced: number;
}

/** The client's events; each handler is optional. */
export interface ApiEvents {
  readonly onRetry?: (event: RetryEvent) => void;
  readonly onRateLimited?: (event: RateLimitEvent) => void;
  readonly onClockSkew?: (event: ClockSkewEvent) => void;
  readonly onInvalidUtf8?: (event: InvalidUtf8Event) => void;
}
