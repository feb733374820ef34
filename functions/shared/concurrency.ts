/**
 * Work over many items with a bound on how much runs at once: the reads of the units' states,
 * the deletes of a unit's staged pages, forget's rewrites, the report's mirror. One rule for
 * all: items start in their order; after the first failure (or once `options.signal` is
 * aborted) no further item starts and the `signal` each run was given is aborted; the promise
 * rejects with that failure once the runs in flight have ended, so a caller may then remove
 * what they were writing into with nothing still writing there. And a `gate`: one bound shared
 * by callers that each run their own items (the monthly roll-ups' builds of a process).
 */

export interface EachOptions {
  /** Aborted by the caller (a stop): no further item starts; the promise rejects with its reason. */
  readonly signal?: AbortSignal;
}

/** Runs `work` on every item, at most `limit` at once (at least one). */
export async function eachAtOnce<T>(
  items: readonly T[],
  limit: number,
  work: (item: T, signal: AbortSignal) => Promise<void>,
  options: EachOptions = {},
): Promise<void> {
  const failed = new AbortController();
  let failure: { readonly error: unknown } | undefined;
  const fail = (error: unknown) => {
    if (failure !== undefined) return;
    failure = { error };
    failed.abort(error);
  };
  let next = 0;
  const worker = async () => {
    while (failure === undefined && next < items.length) {
      if (options.signal?.aborted) {
        fail(options.signal.reason);
        return;
      }
      const item = items[next++] as T;
      try {
        await work(item, failed.signal);
      } catch (error) {
        fail(error);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(Math.max(1, limit), items.length) }, worker));
  if (failure !== undefined) throw failure.error;
}

/**
 * A bound shared by callers that do not know of each other: the returned function runs `work`
 * once fewer than `limit` runs it started are in flight, in the order it was asked (the monthly
 * roll-ups' builds, each holding a DuckDB and a roll-up's bytes).
 */
export function gate(limit: number): <T>(work: () => Promise<T>) => Promise<T> {
  const bound = Math.max(1, limit);
  let running = 0;
  /** Runs waiting for a slot: an ending run hands its slot to the first of them, which starts without counting again. */
  const waiting: (() => void)[] = [];
  return async (work) => {
    if (running < bound) running += 1;
    else await new Promise<void>((resolve) => waiting.push(resolve));
    try {
      return await work();
    } finally {
      const next = waiting.shift();
      if (next !== undefined) next();
      else running -= 1;
    }
  };
}
