/**
 * This machine's clock against the API's. Every answer carries a `Date` header (whole seconds):
 * it says how far the system clock is off. The shared ledger and the leases compare times written
 * by every run of a deployment, so a laptop whose clock is off skews them all — minutes ahead
 * block correct runs, minutes behind let twice the budget through, and leases look expired.
 *
 * An offset beyond the header's resolution and a round trip (`SKEW_TOLERANCE_MS`) is corrected:
 * `now()` is the base clock plus the offset, and it is what the ledger, gate and leases read. An
 * offset beyond `MAX_SKEW_MS` is no latency but a broken clock: the run is refused with one line.
 * The offset is measured against the system clock (`Date.now`), and added to the base clock,
 * which in production is the same clock and in tests a fake one.
 */
import { formatDuration } from './durations.js';
import { ClockSkewError } from './errors.js';

/** Below this the Date header cannot tell skew from its 1-second resolution and the round trip. */
export const SKEW_TOLERANCE_MS = 5_000;
/** Past this the machine's clock is refused rather than corrected. */
export const MAX_SKEW_MS = 15 * 60_000;

export interface SkewClock {
  /** The base clock corrected by the measured offset. */
  now(): number;
  /** The correction in force, ms (0 within the tolerance). */
  readonly offsetMs: number;
  /**
   * Takes an answer's `Date` header, read when the answer arrived (`receivedAt`, system clock).
   * Returns the new offset when it changed, so the caller can say so once. Throws
   * `ClockSkewError` past `MAX_SKEW_MS`.
   */
  observe(dateHeader: string | null | undefined, receivedAt?: number): number | undefined;
}

export function createSkewClock(base: () => number = Date.now, system: () => number = Date.now): SkewClock {
  let offsetMs = 0;
  return {
    now: () => base() + offsetMs,
    get offsetMs() {
      return offsetMs;
    },
    observe(dateHeader, receivedAt = system()) {
      const server = dateHeader ? Date.parse(dateHeader) : Number.NaN;
      if (!Number.isFinite(server)) return undefined;
      // The header is truncated to the second: the server's time lies in [server, server + 1 s).
      const measured = server + 500 - receivedAt;
      if (Math.abs(measured) > MAX_SKEW_MS) {
        throw new ClockSkewError(
          `this machine's clock is ${describeSkew(measured)} the API's (its Date header): a run sharing the deployment's budget ledger and leases cannot trust it; set the clock right (e.g. enable NTP) and run again`,
        );
      }
      const next = Math.abs(measured) <= SKEW_TOLERANCE_MS ? 0 : Math.round(measured);
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
