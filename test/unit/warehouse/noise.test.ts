/**
 * Changes beyond noise (warehouse/noise.ts): the conditional binomial test of two Poisson counts,
 * against values computed by hand, and its minimum.
 */
import { describe, expect, it } from 'vitest';
import { beyondChance, changePValue, NOISE } from '../../../functions/warehouse/noise.js';

describe('the two-Poisson test of a change', () => {
  it('gives the exact binomial p-value for small counts (10 against 0: 2 × 0.5^10)', () => {
    expect(changePValue(10, 0)).toBeCloseTo(2 * 0.5 ** 10, 12);
    expect(changePValue(0, 10)).toBeCloseTo(2 * 0.5 ** 10, 12);
    expect(changePValue(5, 5)).toBe(1);
  });

  it('weighs each count by its exposure: 20 in 10 days against 20 in 20 days is a doubling a day', () => {
    // X ~ Bin(40, 1/3): P(X ≥ 20) ≈ 0.02144, two-sided ≈ 0.04288.
    expect(changePValue(20, 20, { current: 10, previous: 20 })).toBeCloseTo(0.04288, 4);
    expect(changePValue(20, 20, { current: 10, previous: 10 })).toBe(1);
  });

  it('agrees with the normal approximation above 2,000 events', () => {
    // 1,100 against 1,000: z = (50 − 0.5) / √525 ≈ 2.16, two-sided ≈ 0.031.
    expect(changePValue(1100, 1000)).toBeCloseTo(0.0308, 3);
  });

  it('calls +0.6 % on small and large counts chance, a real jump beyond it, and nothing below the minimum', () => {
    expect(beyondChance(503, 500)).toBe(false);
    expect(beyondChance(100_600, 100_000)).toBe(false);
    expect(beyondChance(160, 80)).toBe(true);
    expect(beyondChance(NOISE.minCount - 1, 0)).toBe(false);
    expect(beyondChance(12, 0)).toBe(true);
  });

  it('refuses what is not a count or has no exposure', () => {
    expect(changePValue(Number.NaN, 3)).toBe(1);
    expect(changePValue(-4, 30)).toBe(1);
    expect(changePValue(40, 3, { current: 0, previous: 5 })).toBe(1);
  });
});
