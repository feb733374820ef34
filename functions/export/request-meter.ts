/**
 * A meter over shared live counters (the API client's `stats`, the budget gate's): what was
 * added since the meter started, for one unit, one attempt or one run. The one place that
 * subtracts a snapshot of counters another part of the program keeps incrementing.
 */

/** Live counters: numbers another part of the program increments (an absent one counts as 0). */
export type Counters<K extends string> = { readonly [P in K]?: number | undefined };

export interface RequestMeter<K extends string> {
  /** What each counter gained since the meter started. */
  read(): { readonly [P in K]: number };
}

/** Starts a meter over `live` now: `read()` gives what each of `keys` gained since. */
export function startMeter<K extends string>(live: Counters<K>, keys: readonly K[]): RequestMeter<K> {
  const start = Object.fromEntries(keys.map((key) => [key, live[key] ?? 0])) as Record<K, number>;
  return {
    read: () => Object.fromEntries(keys.map((key) => [key, (live[key] ?? 0) - start[key]])) as Record<K, number>,
  };
}

/** The API client's counters a unit's requests are metered by. */
export const API_COUNTERS = ['requests', 'retries', 'successes', 'invalidUtf8'] as const;

/** The budget gate's counters a run reports. */
export const GATE_COUNTERS = ['rateLimited', 'waitsCut', 'waits', 'waitedMs'] as const;
