/** The days a report covers, and the period it compares them with. */
import { addDays } from '../shared/dates.js';

export interface Period {
  /** First day, `YYYY-MM-DD` (UTC). */
  readonly from: string;
  /** Day after the last one (exclusive). */
  readonly to: string;
  readonly days: readonly string[];
}

/**
 * The longest period a report covers: a year (and the year before, which it compares with).
 * A longer range reads files nobody looks at on one page; `--from 1950` is refused at once.
 */
export const MAX_REPORT_DAYS = 366;

/** The days of `[from, to)`. */
export function daysFrom(from: string, to: string): string[] {
  const days: string[] = [];
  for (let day = from; day < to; day = addDays(day, 1)) days.push(day);
  return days;
}

/** The period of `[from, to)`. */
export function periodOf(from: string, to: string): Period {
  return { from, to, days: daysFrom(from, to) };
}

/** The period before `period`, as long as it. */
export function previousPeriod(period: Period): Period {
  const length = period.days.length;
  const from = addDays(period.from, -length);
  return { from, to: period.from, days: Array.from({ length }, (_, i) => addDays(from, i)) };
}

/** The last day of `period` (its first when it has none). */
export function lastDayOf(period: Period): string {
  return period.days[period.days.length - 1] ?? period.from;
}
