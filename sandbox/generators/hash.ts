/**
 * Stable hashing for the seeded data: every generated value is a pure function of
 * (seed, project, dataset, day, row index), so nothing has to be stored and a row can be
 * recomputed anywhere (HTTP answer, expected rows of a test) with the same result.
 */

/** FNV-1a over UTF-16 code units: stable across runs and platforms. */
export function hashString(value: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < value.length; i++) {
    h ^= value.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** Murmur3's finaliser: a good 32-bit avalanche. */
export function fmix32(value: number): number {
  let h = value >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Combines a key with an integer (row index, salt) into a new well-mixed key. */
export function mix(key: number, value: number): number {
  const lo = value >>> 0;
  const hi = Math.floor(value / 0x1_0000_0000) >>> 0;
  return fmix32(key ^ fmix32(lo + 0x9e3779b9) ^ Math.imul(fmix32(hi + 0x7f4a7c15), 0x27d4eb2f));
}

/** A uniform number in [0, 1) from a key. */
export function unit(key: number): number {
  return key / 0x1_0000_0000;
}

/** One item of a non-empty list, chosen by a key. */
export function pick<T>(items: readonly T[], key: number): T {
  return items[key % items.length] as T;
}

/** A seeded PRNG (mulberry32), for latency jitter and shuffles. */
export function createRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 0x1_0000_0000;
  };
}

export function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

/** `value` (a non-negative integer below 2^53) as `digits` lowercase hex digits, high digits dropped. */
export function hex(value: number, digits: number): string {
  return (value % 16 ** digits).toString(16).padStart(digits, '0');
}

/** A bijection of 32-bit integers keyed by `key`: distinct `value`s stay distinct but look unrelated. */
export function scramble(value: number, key: number): number {
  return Math.imul((value ^ key) >>> 0, 0x9e3779b1) >>> 0;
}
