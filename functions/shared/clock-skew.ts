/**
 * This machine's clock against the API's. Every answer carries a `Date` header (whole seconds):
 * it says how far the system clock is off. The shared ledger and the leases compare times written
 * by every run of a deployment, so a laptop whose clock is off skews them all — minutes ahead
 * block correct runs, minutes behind let twice the budget through, and leases look expired.
 *
 * The header can be wrong too (a proxy's cache, a node of the service with a bad clock, a bare
 * number): one answer must never move the time every run of the deployment writes in the
 * ledger. So:
 * - `Date` is read strictly as an IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`, RFC 9110
 *   §5.6.7, weekday checked); anything else (`0`, `2026`, another date format) is ignored;
 * - an offset counts only once `AGREEING_ANSWERS` answers in a row agree on it (within
 *   `SKEW_TOLERANCE_MS`); one that disagrees starts the count again;
 * - an agreed offset within `SKEW_TOLERANCE_MS` (the header's resolution and a round trip) is
 *   no offset; up to `MAX_SKEW_MS` it is corrected: `now()` is the base clock plus the offset,
 *   and it is what the ledger, gate and leases read; past `MAX_SKEW_MS` the run is refused with
 *   one line (`ClockSkewError`), which names both possible culprits — a correction that large
 *   would let this run's ledger starts look that much older or newer to every other run.
 *
 * So a run never writes ledger times more than `MAX_SKEW_MS` away from its own clock: the
 * budget's headroom absorbs that, and two runs that see different headers cannot spend the
 * budget twice. The offset is measured against the system clock (`Date.now`), and added to the
 * base clock, which in production is the same clock and in tests a fake one.
 */
import { formatDuration } from './durations.js';
import { median } from './median.js';
import { ClockSkewError } from './errors.js';

/** Below this the Date header cannot tell skew from its 1-second resolution and the round trip. */
export const SKEW_TOLERANCE_MS = 5_000;
/** The largest correction: past this (agreed by several answers) the run is refused, not corrected. */
export const MAX_SKEW_MS = 60_000;
/** Answers in a row that must agree on an offset before it counts. */
export const AGREEING_ANSWERS = 3;

export interface SkewClock {
  /** The base clock corrected by the measured offset. */
  now(): number;
  /** The correction in force, ms (0 within the tolerance). */
  readonly offsetMs: number;
  /**
   * Takes an answer's `Date` header, read when the answer arrived (`receivedAt`, system clock).
   * Returns the new offset when it changed, so the caller can say so once. Throws
   * `ClockSkewError` when `AGREEING_ANSWERS` answers agree on an offset past `MAX_SKEW_MS`.
   */
  observe(dateHeader: string | null | undefined, receivedAt?: number): number | undefined;
}

const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const IMF_FIXDATE = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), (\d{2}) (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) (\d{4}) (\d{2}):(\d{2}):(\d{2}) GMT$/;

/**
 * Epoch ms of an HTTP date in the IMF-fixdate form every server must send (RFC 9110 §5.6.7),
 * or undefined for anything else: the obsolete forms, a bare number (`Date.parse('0')` is the
 * year 2000), an impossible day (`31 Feb`) or a weekday that does not match the date.
 */
export function parseImfFixdate(text: string): number | undefined {
  const match = IMF_FIXDATE.exec(text);
  if (!match) return undefined;
  const [, weekday, day, month, year, hour, minute, second] = match;
  const monthIndex = MONTHS.indexOf(month as string);
  const ms = Date.UTC(Number(year), monthIndex, Number(day), Number(hour), Number(minute), Number(second));
  const date = new Date(ms);
  const exact =
    date.getUTCDate() === Number(day) &&
    date.getUTCMonth() === monthIndex &&
    date.getUTCHours() === Number(hour) &&
    date.getUTCMinutes() === Number(minute) &&
    date.getUTCSeconds() === Number(second);
  return exact && WEEKDAYS[date.getUTCDay()] === weekday ? ms : undefined;
}

export function createSkewClock(base: () => number = Date.now, system: () => number = Date.now): SkewClock {
  let offsetMs = 0;
  /** The offsets measured by the latest answers in a row that agree with the first of them. */
  let streak: number[] = [];
  return {
    now: () => base() + offsetMs,
    get offsetMs() {
      return offsetMs;
    },
    observe(dateHeader, receivedAt = system()) {
      const server = dateHeader ? parseImfFixdate(dateHeader.trim()) : undefined;
      if (server === undefined) return undefined;
      // The header is truncated to the second: the server's time lies in [server, server + 1 s).
      const measured = server + 500 - receivedAt;
      const first = streak[0];
      streak = first !== undefined && Math.abs(measured - first) <= SKEW_TOLERANCE_MS ? [...streak, measured].slice(-AGREEING_ANSWERS) : [measured];
      if (streak.length < AGREEING_ANSWERS) return undefined;
      const agreed = median(streak);
      if (Math.abs(agreed) > MAX_SKEW_MS) {
        throw new ClockSkewError(
          `this machine's clock is ${describeSkew(agreed)} the API's, by its Date header on ${AGREEING_ANSWERS} answers in a row — more than the ${formatDuration(MAX_SKEW_MS)} a run sharing the deployment's budget ledger and leases may correct: set the clock right (e.g. enable NTP) and run again; if this clock is right, the API (or a proxy before it) sends a wrong Date`,
        );
      }
      const next = Math.abs(agreed) <= SKEW_TOLERANCE_MS ? 0 : Math.round(agreed);
      // Only a change past the tolerance moves the correction: jitter of a second stays put.
      if (Math.abs(next - offsetMs) <= SKEW_TOLERANCE_MS) return undefined;
      offsetMs = next;
      return offsetMs;
    },
  };
}

/** `4 min 10 s behind` / `1 h 02 min ahead of`: how this machine's clock stands to the API's. */
export function describeSkew(offsetMs: number): string {
  // A positive offset: the API is ahead, so this machine is behind.
  return offsetMs > 0 ? `${formatDuration(offsetMs)} behind` : `${formatDuration(-offsetMs)} ahead of`;
}
