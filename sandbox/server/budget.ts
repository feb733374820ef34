/**
 * Budget mode: the service's shared analytics rate limit (100 requests per organisation per
 * hour, every analytics endpoint together, agent endpoints not included), on the sandbox's
 * injectable clock so tests and benchmarks run hours of schedule in milliseconds.
 *
 * Every authenticated analytics request spends one slot before anything else is checked
 * (a 400, a 404 or an injected fault spends it too: the service counted the request). A
 * request refused with 429 spends nothing (⚠ undocumented: so a client that keeps asking
 * still gets through once the window allows). Another client of the same organisation is
 * simulated by calling the API with the key, or with `spend`.
 *
 * Windows (⚠ the real kind is undocumented, hence both):
 * - `fixed`: windows aligned on multiples of `windowMs` since the epoch (1h → clock hours);
 *   the count restarts at each window start.
 * - `rolling`: a request counts until `windowMs` after it started; a slot frees when the
 *   oldest counted request leaves the window.
 */
import * as v from 'valibot';
import { ConfigError } from '../../functions/shared/errors.js';
import { HOUR_MS, MINUTE_MS, SECOND_MS } from '../../functions/shared/time.js';
import type { Answer } from './http.js';

export interface BudgetOptions {
  /** Analytics requests allowed per window (≥ 1). */
  readonly requests: number;
  /** Window length, ms (≥ 1). */
  readonly windowMs: number;
  readonly window: 'fixed' | 'rolling';
  /**
   * Default true: a 429 carries `Retry-After` (whole seconds until a slot frees, at least 1);
   * false: 429 without the header.
   */
  readonly retryAfter?: boolean;
}

/** The budget now (by the sandbox's clock). */
export interface BudgetState {
  readonly requests: number;
  readonly windowMs: number;
  readonly window: 'fixed' | 'rolling';
  readonly retryAfter: boolean;
  /** Requests counted in the current window. */
  readonly used: number;
  /** `requests - used`, never below 0. */
  readonly remaining: number;
  /**
   * Epoch ms when `used` next goes down (fixed: the end of the current window; rolling: when
   * the oldest counted request leaves the window); null when nothing is counted.
   */
  readonly resetAt: number | null;
}

const BudgetSchema = v.object({
  requests: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(1_000_000)),
  windowMs: v.pipe(v.number(), v.integer(), v.minValue(1)),
  window: v.picklist(['fixed', 'rolling']),
  retryAfter: v.optional(v.boolean()),
});

/** Validates budget options (from a test, the CLI or JSON); throws ConfigError naming the problem. */
export function parseBudgetOptions(input: unknown): BudgetOptions {
  const result = v.safeParse(BudgetSchema, input);
  if (!result.success) {
    const issues = result.issues.map((issue) => `${v.getDotPath(issue) ?? 'budget'}: ${issue.message}`);
    throw new ConfigError(`invalid sandbox budget: ${issues.join('; ')}`);
  }
  const { retryAfter, ...rest } = result.output;
  return retryAfter === undefined ? rest : { ...rest, retryAfter };
}

export class RequestBudget {
  private options: Required<BudgetOptions> | undefined;
  /** Start times of counted requests, oldest first, within the last `windowMs`. */
  private started: number[] = [];

  constructor(
    private readonly now: () => number,
    options?: BudgetOptions,
  ) {
    if (options) this.set(options);
  }

  /** Replaces the budget (null: unlimited). Requests already counted still count. */
  set(options: BudgetOptions | null): void {
    if (options === null) {
      this.options = undefined;
      this.started = [];
      return;
    }
    const parsed = parseBudgetOptions(options);
    this.options = { ...parsed, retryAfter: parsed.retryAfter ?? true };
  }

  /** Forgets every counted request. */
  reset(): void {
    this.started = [];
  }

  state(): BudgetState | null {
    const options = this.options;
    if (!options) return null;
    const now = this.now();
    const counted = this.counted(options, now);
    const used = counted.length;
    const resetAt = used === 0 ? null : options.window === 'fixed' ? windowStart(options, now) + options.windowMs : (counted[0] as number) + options.windowMs;
    return {
      requests: options.requests,
      windowMs: options.windowMs,
      window: options.window,
      retryAfter: options.retryAfter,
      used,
      remaining: Math.max(0, options.requests - used),
      resetAt,
    };
  }

  /** Counts one request; the 429 answer when the budget is spent (nothing is counted then). */
  take(): Answer | undefined {
    if (this.spend(1) === 1) return undefined;
    const state = this.state() as BudgetState;
    const seconds = Math.max(1, Math.ceil(((state.resetAt ?? this.now()) - this.now()) / 1000));
    return {
      status: 429,
      body: { error: `rate limit exceeded: at most ${state.requests} analytics requests per organisation per ${describeWindow(state.windowMs)}` },
      ...(state.retryAfter ? { headers: { 'retry-after': String(seconds) } } : {}),
    };
  }

  /** Counts up to `count` requests now, as another client would; returns how many fitted. */
  spend(count: number): number {
    const options = this.options;
    if (!options) return count;
    const now = this.now();
    const counted = this.counted(options, now);
    const fitting = Math.max(0, Math.min(count, options.requests - counted.length));
    for (let i = 0; i < fitting; i++) this.started.push(now);
    return fitting;
  }

  /** The counted requests of the current window (and drops those of no window any more). */
  private counted(options: Required<BudgetOptions>, now: number): number[] {
    const rollingFrom = now - options.windowMs;
    // Keep one window of history whatever the kind, so a switch of kind or size keeps counting.
    let drop = 0;
    while (drop < this.started.length && (this.started[drop] as number) <= rollingFrom) drop += 1;
    if (drop > 0) this.started = this.started.slice(drop);
    if (options.window === 'rolling') return this.started;
    const from = windowStart(options, now);
    return this.started.filter((at) => at >= from);
  }
}

function windowStart(options: BudgetOptions, now: number): number {
  return Math.floor(now / options.windowMs) * options.windowMs;
}

function describeWindow(windowMs: number): string {
  if (windowMs % HOUR_MS === 0) return windowMs === HOUR_MS ? 'hour' : `${windowMs / HOUR_MS} hours`;
  if (windowMs % MINUTE_MS === 0) return `${windowMs / MINUTE_MS} min`;
  return `${windowMs / SECOND_MS} s`;
}
