/**
 * What a verdict could have seen (gaps/power.ts) against analytic values: the normal quantiles,
 * the smallest detectable fall of the log-ratio test (found independently here by fixed-point
 * iteration of −log(1 − d) = (z₀.₉₇₅ + z₀.₈)·√variance(d)), its power of 80 %, and the days at
 * the current pace until a 30 % fall is detectable.
 */
import { describe, expect, it } from 'vitest';
import {
  daysUntilDetectable,
  detectableFall,
  logEffectVariance,
  normalCdf,
  normalQuantile,
  powerOf,
  type EffectCounts,
} from '../../../functions/gaps/power.js';

/** The smallest root by fixed-point iteration from 0 (the map is increasing, so it climbs to the first root). */
function analyticFall(counts: EffectCounts): number {
  const k = 1.959963984540054 + 0.8416212335729143;
  let d = 0;
  for (let i = 0; i < 10_000; i++) d = 1 - Math.exp(-k * Math.sqrt(logEffectVariance(counts, d)));
  return d;
}

const BIG = 1e12;

describe('normal distribution', () => {
  it('gives the textbook quantiles and probabilities', () => {
    expect(normalQuantile(0.975)).toBeCloseTo(1.959963984540054, 8);
    expect(normalQuantile(0.8)).toBeCloseTo(0.8416212335729143, 8);
    expect(normalQuantile(0.025)).toBeCloseTo(-1.959963984540054, 8);
    expect(normalCdf(1.959963984540054)).toBeCloseTo(0.975, 6);
    expect(normalCdf(-0.8416212335729143)).toBeCloseTo(0.2, 6);
  });
});

describe('detectableFall', () => {
  it('is the analytic smallest fall with 80 % power, for a small gap and a large one', () => {
    for (const counts of [
      { before: 30, expectedAfter: 45, controlBefore: 600, controlAfter: 900, phi: 1, phiControl: 1 },
      { before: 500, expectedAfter: 500, controlBefore: BIG, controlAfter: BIG, phi: 2, phiControl: 1 },
      { before: 100, expectedAfter: 150, controlBefore: 2000, controlAfter: 3000, phi: 1.5, phiControl: 1.5 },
    ]) {
      const fall = detectableFall(counts) as number;
      expect(fall).toBeCloseTo(analyticFall(counts), 6);
      expect(powerOf(counts, fall)).toBeCloseTo(0.8, 4);
    }
  });

  it('matches the closed form when the counts are so large the fall barely changes the variance', () => {
    const counts = { before: BIG / 1e4, expectedAfter: BIG / 1e4, controlBefore: BIG, controlAfter: BIG, phi: 1, phiControl: 1 };
    // var ≈ 2e-8: d = 1 − exp(−2.8016 × √2e-8).
    expect(detectableFall(counts)).toBeCloseTo(1 - Math.exp(-2.801585218 * Math.sqrt(2e-8)), 6);
  });

  it('says a 30-signal gap could only have seen a fall of more than 50 %, and a 500-signal one about 25 %', () => {
    expect(detectableFall({ before: 30, expectedAfter: 45, controlBefore: 672, controlAfter: 1008, phi: 1, phiControl: 1 })).toBeGreaterThan(0.5);
    const large = detectableFall({ before: 500, expectedAfter: 500, controlBefore: BIG, controlAfter: BIG, phi: 1, phiControl: 1 }) as number;
    expect(large).toBeGreaterThan(0.15);
    expect(large).toBeLessThan(0.25);
  });

  it('is null when even a vanished signal could not be seen', () => {
    expect(detectableFall({ before: 1, expectedAfter: 1, controlBefore: 1, controlAfter: 1, phi: 3, phiControl: 3 })).toBeNull();
  });
});

describe('daysUntilDetectable', () => {
  const counts = { before: 30, expectedAfter: 45, controlBefore: 300, controlAfter: 450, phi: 1, phiControl: 1 };

  it('is the first whole day at which the grown counts detect a 30 % fall', () => {
    const days = daysUntilDetectable({ daysBefore: 10, daysAfter: 10, counts, maxBefore: 90, maxAfter: 90 }) as number;
    const grown = (extra: number) => {
      const f = (10 + extra) / 10;
      return { ...counts, before: 30 * f, expectedAfter: 45 * f, controlBefore: 300 * f, controlAfter: 450 * f };
    };
    expect(days).toBeGreaterThan(0);
    expect(analyticFall(grown(days))).toBeLessThanOrEqual(0.3);
    expect(analyticFall(grown(days - 1))).toBeGreaterThan(0.3);
  });

  it('is 0 when the fall is already detectable, and null when the windows stop growing before it is', () => {
    expect(daysUntilDetectable({ daysBefore: 28, daysAfter: 28, counts: { ...counts, before: 3000, expectedAfter: 4500 }, maxBefore: 90, maxAfter: 90 })).toBe(
      0,
    );
    expect(daysUntilDetectable({ daysBefore: 28, daysAfter: 28, counts, maxBefore: 28, maxAfter: 28 })).toBeNull();
  });
});
