/**
 * A set of page paths for duplicate detection that costs 8 bytes a path, not the ~80 bytes a
 * `Set<string>` of the path strings would: a day of a million paths must not hold a million
 * strings alive while it streams (the benchmarks measure peak RSS against a flat goal).
 *
 * Each path is stored as a 64-bit hash (two independent 32-bit FNV-1a/murmur-style hashes) in
 * an open-addressing table of typed arrays. Two different paths share a 64-bit hash with
 * probability ~n²/2⁶⁵ (≈3·10⁻⁸ for a million paths); such a collision would be reported as a
 * duplicate path and fail the day, never hide a real duplicate.
 */
export class PathSet {
  private high: Uint32Array;
  private low: Uint32Array;
  private count = 0;

  constructor(initialCapacity = 1024) {
    const capacity = 2 ** Math.ceil(Math.log2(Math.max(16, initialCapacity)));
    this.high = new Uint32Array(capacity);
    this.low = new Uint32Array(capacity);
  }

  get size(): number {
    return this.count;
  }

  /** Adds `path`; returns false when it (or, with negligible probability, a hash twin) was already there. */
  add(path: string): boolean {
    if ((this.count + 1) * 2 > this.high.length) this.grow();
    const [h, l] = hashPath(path);
    const inserted = insert(this.high, this.low, h, l);
    if (inserted) this.count++;
    return inserted;
  }

  private grow(): void {
    const oldHigh = this.high;
    const oldLow = this.low;
    this.high = new Uint32Array(oldHigh.length * 2);
    this.low = new Uint32Array(oldLow.length * 2);
    for (let i = 0; i < oldLow.length; i++) {
      const l = oldLow[i] ?? 0;
      if (l !== 0) insert(this.high, this.low, oldHigh[i] ?? 0, l);
    }
  }
}

/** Linear probing; `low` is never 0 for a stored entry, so 0 marks an empty slot. */
function insert(high: Uint32Array, low: Uint32Array, h: number, l: number): boolean {
  const mask = low.length - 1;
  for (let slot = (h ^ Math.imul(l, 0x9e3779b1)) & mask; ; slot = (slot + 1) & mask) {
    const existing = low[slot];
    if (existing === 0) {
      high[slot] = h;
      low[slot] = l;
      return true;
    }
    if (existing === l && high[slot] === h) return false;
  }
}

/** Two independent 32-bit hashes of the UTF-16 code units; the low word is forced non-zero. */
function hashPath(path: string): [number, number] {
  let a = 0x811c9dc5; // FNV-1a offset basis
  let b = 0x2f1a7c35;
  for (let i = 0; i < path.length; i++) {
    const c = path.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 15;
  }
  b = Math.imul(b ^ (b >>> 13), 0xc2b2ae35);
  b ^= b >>> 16;
  return [a >>> 0, (b | 1) >>> 0];
}
