/** An in-memory compare-and-swap `StateStore` (the same contract as the DynamoDB one). */
import type { FollowUpState, StateStore } from '../../functions/follow-up/state.js';

export function memoryStateStore(): StateStore {
  const records = new Map<string, FollowUpState>();
  return {
    async get(requestId) {
      return records.get(requestId);
    },
    async put(draft, expectedVersion) {
      if (records.get(draft.requestId)?.version !== expectedVersion) return undefined;
      // A JSON round trip drops `undefined` fields, as a real store does.
      const state = JSON.parse(JSON.stringify({ ...draft, version: (expectedVersion ?? 0) + 1 })) as FollowUpState;
      records.set(draft.requestId, state);
      return state;
    },
  };
}

/** A small seeded PRNG (mulberry32), so runs with jitter are repeatable. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}
