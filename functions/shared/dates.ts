/**
 * UTC calendar days as `YYYY-MM-DD` strings. The export works on half-open windows
 * `[D, D+1)`: `dateTo` is exclusive, as the visitors endpoint defines it.
 */
import { ConfigError } from './errors.js';
import { DAY_MS } from './time.js';

const DAY_PATTERN = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A day window: `from` inclusive, `to` exclusive, both `YYYY-MM-DD` (UTC). */
export interface DayWindow {
  readonly from: string;
  readonly to: string;
}

/** Parses `YYYY-MM-DD`, refusing impossible dates such as `2026-02-30`. */
export function parseDay(value: string, what = 'date'): string {
  const match = DAY_PATTERN.exec(value);
  if (!match) throw new ConfigError(`${what} "${value}" is not a date: use YYYY-MM-DD, e.g. 2026-01-31`);
  const [, y, m, d] = match;
  const time = Date.UTC(Number(y), Number(m) - 1, Number(d));
  if (formatDay(time) !== value) {
    // Name the part that is wrong: a month 13 is not "the day of the month".
    const month = Number(m);
    if (month < 1 || month > 12) throw new ConfigError(`${what} "${value}" does not exist in the calendar: month ${m} does not exist: use 01 to 12`);
    if (Number(d) < 1) throw new ConfigError(`${what} "${value}" does not exist in the calendar: day ${d} does not exist: days start at 01`);
    const days = new Date(Date.UTC(Number(y), month, 0)).getUTCDate();
    const name = new Date(Date.UTC(Number(y), month - 1, 1)).toLocaleString('en-US', { month: 'long', timeZone: 'UTC' });
    throw new ConfigError(`${what} "${value}" does not exist in the calendar: ${name} ${y} has ${days} days: check the day of the month`);
  }
  return value;
}

/** Epoch ms of the UTC midnight that starts `day`. */
export function dayStart(day: string): number {
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  return Date.UTC(y, m - 1, d);
}

/** `YYYY-MM-DD` of the UTC day containing `epochMs`. */
export function formatDay(epochMs: number): string {
  return new Date(epochMs).toISOString().slice(0, 10);
}

export function addDays(day: string, days: number): string {
  return formatDay(dayStart(day) + days * DAY_MS);
}

/** The one-day window `[day, day+1)`. */
export function dayWindow(day: string): DayWindow {
  return { from: day, to: addDays(day, 1) };
}

/** The UTC day before the one containing `time` (the CLI's default day). */
export function previousDay(time: number | string | Date): string {
  const ms = typeof time === 'number' ? time : new Date(time).getTime();
  if (Number.isNaN(ms)) throw new ConfigError(`time "${String(time)}" is not a valid timestamp: use ISO 8601`);
  return addDays(formatDay(ms), -1);
}

/** Every day in `[from, to)`, oldest first. Throws when `from` is after `to`. */
export function daysBetween(from: string, to: string): string[] {
  const start = dayStart(parseDay(from, '--from'));
  const end = dayStart(parseDay(to, '--to'));
  if (start > end) throw new ConfigError(`--from ${from} is after --to ${to}: swap them (--to is exclusive)`);
  const days: string[] = [];
  for (let t = start; t < end; t += DAY_MS) days.push(formatDay(t));
  return days;
}

/**
 * Refuses a day that is not over yet (UTC) at `now`: its data is still growing, and a
 * manifest would mark a partial day complete, which the hourly runs' heal would then never redo.
 */
export function assertFinishedDays(days: readonly string[], now: number, what = 'date'): void {
  const today = formatDay(now);
  const unfinished = days.find((day) => day >= today);
  if (unfinished !== undefined) {
    throw new ConfigError(`${what} ${unfinished} is not over yet (UTC): export finished days only, the latest is ${addDays(today, -1)}`);
  }
}
