import { describe, expect, it } from 'vitest';
import { dispersionAt, scoreInterval } from '../../../functions/gaps/score-interval.js';

const Z = 1.959963984540054;
/** Controls so large that their change is known: the gap's two counts alone decide. */
const HUGE = { controlBefore: { signals: 1e9, exposure: 1e9 }, controlAfter: { signals: 1e9, exposure: 1e9 } };

describe('scoreInterval', () => {
  it('is the two-sample Poisson score interval when the controls are known: z = ±1.96 at its ends, from the counts refitted under θ', () => {
    const table = { gapBefore: { signals: 549, exposure: 1000 }, gapAfter: { signals: 701, exposure: 1500 }, ...HUGE };
    const { low, high } = scoreInterval(table, Z);
    // Given the total T, the count after is binomial with p = θ·1.5 ÷ (1 + θ·1.5): the score statistic of θ.
    const z = (theta: number) => {
      const t = 1250;
      const p = (theta * 1.5) / (1 + theta * 1.5);
      return (701 - t * p) / Math.sqrt(t * p * (1 - p));
    };
    expect(z(low)).toBeCloseTo(Z, 3);
    expect(z(high)).toBeCloseTo(-Z, 3);
  });

  it('starts at 0 when no signal is left after, and is never negative or NaN', () => {
    const { low, high } = scoreInterval({ gapBefore: { signals: 30, exposure: 900 }, gapAfter: { signals: 0, exposure: 1400 }, ...HUGE }, Z);
    expect(low).toBe(0);
    expect(high).toBeGreaterThan(0);
    expect(high).toBeLessThan(0.2);
  });

  it('takes each side’s dispersion at the refit: a before side high by chance does not shrink it', () => {
    const pearson = { before: 54, after: 54, df: 54 };
    // At its own fit φ is 2; refitted with fewer signals before than seen and more after, the before side weighs more.
    expect(dispersionAt(pearson, { before: 549, after: 701 }, { before: 549, after: 701 })).toBe(2);
    expect(dispersionAt(pearson, { before: 549, after: 701 }, { before: 502, after: 748 })).toBeGreaterThan(2);
    expect(dispersionAt(pearson, { before: 30, after: 30 }, { before: 30, after: 30 })).toBe(2);
    expect(dispersionAt({ before: 10, after: 10, df: 54 }, { before: 30, after: 30 }, { before: 30, after: 30 })).toBe(1);
    expect(dispersionAt(undefined, { before: 30, after: 30 }, { before: 3, after: 3 })).toBe(1);
    const table = { gapBefore: { signals: 549, exposure: 1000 }, gapAfter: { signals: 701, exposure: 1500 }, ...HUGE };
    const plain = scoreInterval(table, Z);
    const dispersed = scoreInterval({ ...table, pearson: { gap: pearson, control: { before: 10, after: 10, df: 54 } } }, Z);
    expect(Math.log(dispersed.high / dispersed.low)).toBeGreaterThan(Math.SQRT2 * Math.log(plain.high / plain.low));
    // Where the count before is high by chance (552 against 500 expected, the case that calls chance a fix), the Wald
    // interval with φ at the observed fit (2) ends lower than the score one with φ at the refit.
    const high = { ...table, gapBefore: { signals: 552, exposure: 1000 }, pearson: { gap: pearson, control: { before: 10, after: 10, df: 54 } } };
    const wald = Math.exp(Math.log(701 / 1500 / (552 / 1000)) + 2.0049 * Math.sqrt(2 * (1 / 552 + 1 / 701)));
    expect(scoreInterval(high, 2.0049).high).toBeGreaterThan(wald + 0.001);
  });
});
