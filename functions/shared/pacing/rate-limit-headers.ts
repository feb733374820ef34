/**
 * How long a 429 (or a 503) asks us to wait, from whichever header the answer carries. The
 * service documents `Retry-After`, but a proxy, a CDN or a later version of the service may
 * send only the rate-limit headers instead:
 *
 * - `Retry-After`: delta-seconds or an HTTP date (RFC 9110);
 * - `RateLimit-Reset` / `X-RateLimit-Reset`: seconds until the window resets — or, in the
 *   older convention (GitHub, many gateways), the epoch second it resets at. A value that
 *   large cannot be a delay: anything from {@link EPOCH_SECONDS_FROM} on is read as an epoch;
 * - `RateLimit: limit=100, remaining=0, reset=30` (the IETF draft's structured field).
 *
 * The first header that gives a usable wait wins, in that order. Bounding an absurd wait is
 * the budget's business (it knows its window): this module only reads.
 */
import { parseRetryAfter } from './retry.js';

/** What the answer asked for, and which header said so (for a warning that names it). */
export interface RateLimitWait {
  /** The wait, ms (> 0). */
  readonly ms: number;
  /** `Retry-After: 99999999`: the header as sent, cut short, for messages. */
  readonly header: string;
}

/** 2001-09-09 in epoch seconds: a reset value this large is a time, not a delay. */
export const EPOCH_SECONDS_FROM = 1_000_000_000;

const NUMBER = /^\d+(?:\.\d+)?$/;

/** The wait a `RateLimit-Reset`-style value gives at `nowMs`, or undefined. */
export function parseResetValue(value: string | null | undefined, nowMs: number): number | undefined {
  if (value == null) return undefined;
  const text = value.trim();
  if (!NUMBER.test(text)) return undefined;
  const n = Number(text);
  const ms = n >= EPOCH_SECONDS_FROM ? Math.ceil(n * 1000 - nowMs) : Math.ceil(n * 1000);
  return Number.isFinite(ms) && ms > 0 ? ms : undefined;
}

/** `reset=30` of a structured `RateLimit` field (`limit=100, remaining=0, reset=30`). */
function structuredReset(value: string | null): string | undefined {
  if (value == null) return undefined;
  const match = /(?:^|[;,\s])reset\s*=\s*"?(\d+(?:\.\d+)?)"?/i.exec(value);
  return match?.[1];
}

/** The wait `headers` ask for at `nowMs`; undefined when none gives one (use the backoff). */
export function rateLimitWait(headers: Pick<Headers, 'get'>, nowMs: number): RateLimitWait | undefined {
  const shown = (name: string, value: string) => `${name}: ${value.trim().slice(0, 40)}`;
  const retryAfter = headers.get('retry-after');
  const fromRetryAfter = parseRetryAfter(retryAfter, nowMs);
  if (fromRetryAfter !== undefined && retryAfter !== null) return { ms: fromRetryAfter, header: shown('Retry-After', retryAfter) };
  for (const name of ['RateLimit-Reset', 'X-RateLimit-Reset']) {
    const value = headers.get(name);
    const ms = parseResetValue(value, nowMs);
    if (ms !== undefined && value !== null) return { ms, header: shown(name, value) };
  }
  const structured = headers.get('ratelimit');
  const reset = structuredReset(structured);
  const ms = parseResetValue(reset, nowMs);
  if (ms !== undefined && structured !== null) return { ms, header: shown('RateLimit', structured) };
  return undefined;
}
