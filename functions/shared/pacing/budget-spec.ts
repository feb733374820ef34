/**
 * `ANALYTICS_BUDGET`: how many analytics requests may start within any sliding window, e.g.
 * `90/1h` (the default: the service's documented 100 per organisation per hour, minus
 * headroom for the organisation's other tools), `30/30m`, `5/20s`.
 */
import { ConfigError } from '../errors.js';
import { DAY_MS, HOUR_MS, MINUTE_MS, SECOND_MS } from '../time.js';

export interface BudgetSpec {
  /** Requests that may start within any window. */
  readonly requests: number;
  /** Window length, ms. */
  readonly windowMs: number;
  /** As written, e.g. `90/1h`. */
  readonly text: string;
}

export const DEFAULT_BUDGET = '90/1h';

const UNIT_MS = { s: SECOND_MS, m: MINUTE_MS, h: HOUR_MS, d: DAY_MS } as const;

/**
 * The longest window a budget may have: the service's limit is hourly, and the ledger keeps a
 * day of starts. A longer window (`1/30d`) would be a wait nobody can see through — a run
 * that sleeps for weeks — not a budget.
 */
export const MAX_WINDOW_MS = UNIT_MS.d;

const BUDGET_PATTERN = /^(\d{1,6})\s*\/\s*(\d{1,6})?\s*([smhd])$/;

/** Parses `<requests>/<window>`; throws a one-line ConfigError naming `source` and the fix. */
export function parseBudget(text: string, source = 'ANALYTICS_BUDGET'): BudgetSpec {
  const trimmed = text.trim();
  const match = BUDGET_PATTERN.exec(trimmed);
  const requests = Number(match?.[1]);
  const count = match?.[2] === undefined ? 1 : Number(match[2]);
  const unit = match?.[3] as keyof typeof UNIT_MS | undefined;
  if (!match || !unit || requests < 1 || count < 1) {
    throw new ConfigError(
      `${source} "${trimmed.slice(0, 30)}" is not a budget: use <requests>/<window> with a window in s, m, h or d, e.g. ${DEFAULT_BUDGET} or 30/30m`,
    );
  }
  const windowMs = count * UNIT_MS[unit];
  const normalized = `${requests}/${count}${unit}`;
  if (windowMs > MAX_WINDOW_MS) {
    throw new ConfigError(
      `${source} "${normalized}" cannot be honoured: its window is longer than 24h (the service's limit is per hour, and the ledger keeps one day); use a window of at most 24h, e.g. ${DEFAULT_BUDGET}`,
    );
  }
  return { requests, windowMs, text: normalized };
}
