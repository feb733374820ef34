/**
 * Whether the fixes work on average (gaps/portfolio.ts): the Student t quantiles, Paule–Mandel's
 * between-fix variance, the Hartung–Knapp–Sidik–Jonkman interval against values computed by
 * hand here, and the portfolio's verdict by the rules of one fix.
 */
import { describe, expect, it } from 'vitest';
import { pauleMandel, pooledInputOf, poolEffects, portfolioOf, type PortfolioEffect } from '../../../functions/gaps/portfolio.js';
import { studentQuantile } from '../../../functions/gaps/student.js';

const fix = (ratio: number, low: number, high: number, kind: PortfolioEffect['kind'] = 'thumbs_down_page'): PortfolioEffect => ({
  projectId: 'proj_a',
  kind,
  verdict: 'inconclusive',
  effect: { ratio, low, high },
});

describe('studentQuantile', () => {
  it('gives the tables’ t quantiles', () => {
    expect(studentQuantile(0.975, 19)).toBeCloseTo(2.093024, 5);
    expect(studentQuantile(0.975, 1)).toBeCloseTo(12.7062, 3);
    expect(studentQuantile(0.8, 4)).toBeCloseTo(0.940965, 5);
  });
});

describe('pauleMandel', () => {
  it('is 0 when the fixes spread no more than chance, and solves Q(τ²) = k − 1 when they do', () => {
    expect(
      pauleMandel([
        { logEffect: 0, variance: 1 },
        { logEffect: 0.1, variance: 1 },
        { logEffect: -0.1, variance: 1 },
      ]),
    ).toBe(0);
    // Equal variances v: Q(τ²) = Σ(yᵢ − ȳ)² / (v + τ²) = k − 1  ⇒  τ² = sample variance − v.
    const ys = [-1, 0, 1, 2];
    const tau2 = pauleMandel(ys.map((y) => ({ logEffect: y, variance: 0.1 })));
    expect(tau2).toBeCloseTo(5 / 3 - 0.1, 8);
  });
});

describe('poolEffects', () => {
  it('pools by inverse variance with the Hartung–Knapp interval (t, k − 1 degrees of freedom, never narrower than inverse variance)', () => {
    const fixes = [
      { logEffect: Math.log(0.7), variance: 0.04 },
      { logEffect: Math.log(0.8), variance: 0.09 },
      { logEffect: Math.log(0.6), variance: 0.16 },
    ];
    const pooled = poolEffects(fixes);
    const w = fixes.map((f) => 1 / f.variance);
    const sw = w.reduce((a, b) => a + b, 0);
    const mu = fixes.reduce((a, f, i) => a + (w[i] as number) * f.logEffect, 0) / sw;
    const q = fixes.reduce((a, f, i) => a + (w[i] as number) * (f.logEffect - mu) ** 2, 0) / 2;
    const se = Math.sqrt(Math.max(1, q) / sw);

    expect(pooled?.tau2).toBe(0);
    expect(pooled?.log).toBeCloseTo(mu, 12);
    expect(pooled?.high).toBeCloseTo(mu + 4.302653 * se, 5);
    expect(pooled?.low).toBeCloseTo(mu - 4.302653 * se, 5);
  });

  it('keeps a single fix as it is', () => {
    const pooled = poolEffects([{ logEffect: -0.5, variance: 0.01 }]);
    expect(pooled?.low).toBeCloseTo(-0.5 - 1.959964 * 0.1, 5);
  });
});

describe('pooledInputOf', () => {
  it('takes a fix’s variance from its interval’s width on the log scale, and from its upper half when it starts at 0 (no signal left after)', () => {
    const z = 1.959963984540054;
    const both = pooledInputOf({ ratio: 0.5, low: 0.25, high: 1 });
    expect(both?.logEffect).toBeCloseTo(Math.log(0.5), 12);
    expect(both?.variance).toBeCloseTo((Math.log(4) / (2 * z)) ** 2, 8);
    const fromZero = pooledInputOf({ ratio: 0.05, low: 0, high: 0.2 });
    expect(fromZero?.variance).toBeCloseTo((Math.log(4) / z) ** 2, 8);
    expect(pooledInputOf({ ratio: null, low: null, high: null })).toBeUndefined();
    expect(pooledInputOf({ ratio: 0.5, low: 0, high: 0.4 })).toBeUndefined();
  });
});

describe('portfolioOf', () => {
  it('finds a 30 % average fall in twenty fixes none of which could tell alone', () => {
    const fixes = Array.from({ length: 20 }, (_, i) => fix(0.7 * (i % 2 === 0 ? 1.05 : 0.95), 0.35, 1.45));
    const [entry] = portfolioOf(fixes);

    expect(entry).toMatchObject({ projectId: 'proj_a', kind: 'thumbs_down_page', fixes: 20, verdict: 'fixed' });
    expect(entry?.effect.high).toBeLessThan(1);
    expect(entry?.reason).toMatch(/^20 fixes pooled \(random effects\): on average the rate fell 30 % /);
  });

  it('groups by project and kind, leaves out jobs not measured, and says when no fix has an interval yet', () => {
    const entries = portfolioOf([
      fix(0.7, 0.35, 1.45),
      { ...fix(1, 0.9, 1.1, 'search_without_clicks'), verdict: 'no_change' },
      { projectId: 'proj_a', kind: 'unanswered_topic', verdict: 'too_little_data', effect: { ratio: null, low: null, high: null } },
      { projectId: 'proj_a', kind: 'thumbs_down_page', verdict: null, effect: { ratio: 0.1, low: 0.05, high: 0.2 } },
    ]);

    expect(entries.map((e) => [e.kind, e.fixes, e.verdict])).toEqual([
      ['search_without_clicks', 1, 'no_change'],
      ['thumbs_down_page', 1, 'inconclusive'],
      ['unanswered_topic', 0, 'too_little_data'],
    ]);
  });
});
