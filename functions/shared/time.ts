/**
 * Time, once: the lengths of a second, minute, hour and day; the two sleeps; and the one
 * exponential backoff formula every retry, poll and failing unit uses (each with its own base
 * and cap). Everything that waits takes a sleep as a dependency (tests pass a fake clock's);
 * these are the real ones.
 */

export const SECOND_MS = 1_000;
export const MINUTE_MS = 60 * SECOND_MS;
export const HOUR_MS = 60 * MINUTE_MS;
export const DAY_MS = 24 * HOUR_MS;

/** Sleeps `ms` milliseconds; rejects with the signal's reason when `signal` aborts. */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

/**
 * The longest single timer Node keeps: a longer delay overflows to 1 ms (with a warning), so a
 * wait of weeks would turn into a busy loop.
 */
export const MAX_TIMER_MS = 2_147_483_647;

/**
 * Sleeps `ms` (in timer-sized chunks) on the global `setTimeout`, looked up at each call so a
 * test's fake timers drive it. Rejects with the signal's reason as soon as `signal` aborts —
 * a wait that must end early says so by throwing, never by returning as if the time had
 * passed. A {@link Sleep}.
 */
export const sleep: Sleep = async (ms, signal) => {
  let left = Math.max(0, ms);
  do {
    const chunk = Math.min(left, MAX_TIMER_MS);
    await new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const onAbort = () => {
        clearTimeout(timer);
        reject(signal?.reason);
      };
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, chunk);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
    left -= chunk;
  } while (left > 0);
};

export interface BackoffOptions {
  /** The first delay (attempt 1), ms. */
  readonly baseMs: number;
  /** Cap of any delay, ms. @default Infinity */
  readonly maxMs?: number;
  /** Growth per attempt. @default 2 */
  readonly factor?: number;
  /**
   * `none`: the capped delay itself; `equal`: uniform in [delay/2, delay] (spreads clients
   * without retrying at ~0 ms); `full`: uniform in [0, delay]. @default 'none'
   */
  readonly jitter?: 'none' | 'equal' | 'full';
  /** A random number in [0, 1). @default Math.random */
  readonly random?: () => number;
}

/**
 * The wait before attempt `attempt` (1 = the first wait), ms, rounded: `baseMs ·
 * factor^(attempt-1)`, capped at `maxMs`, then jittered.
 */
export function backoffDelay(attempt: number, options: BackoffOptions): number {
  const { baseMs, maxMs = Number.POSITIVE_INFINITY, factor = 2, jitter = 'none', random = Math.random } = options;
  const exponent = Math.max(0, Math.floor(attempt) - 1);
  const cap = Math.min(maxMs, baseMs * factor ** exponent);
  if (jitter === 'none') return Math.round(cap);
  const r = Math.min(Math.max(random(), 0), 1);
  return Math.round(jitter === 'equal' ? cap / 2 + (r * cap) / 2 : r * cap);
}
