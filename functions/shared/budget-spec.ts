/**
 * `ANALYTICS_BUDGET`: how many analytics requests may start within any sliding window, e.g.
 * `90/1h` (the default: the service's documented 100 per organisation per hour, minus
 * headroom for the organisation's other tools), `30/30m`, `5/20s`.
 */
import { ConfigError } from './errors.js';

export interface BudgetSpec {
  /** Requests that may start within any window. */
  readonly requests: number;
  /** Window length, ms. */
  readonly windowMs: number;
  /** As written, e.g. `90/1h`. */
  readonly text: string;
}

export const DEFAULT_BUDGET = '90/1h';

const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
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
  return { requests, windowMs: count * UNIT_MS[unit], text: `${requests}/${count}${unit}` };
}

