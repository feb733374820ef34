/** The follow-up records in memory: the typed layer of state.ts over the shared memory store. */
import { createStateStore, type StateStore } from '../../functions/follow-up/state.js';
import { createMemoryStore } from '../../functions/shared/storage/shared-store.js';

export function memoryStateStore(): StateStore {
  return createStateStore(createMemoryStore());
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
