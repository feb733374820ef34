import { describe, expect, it } from 'vitest';
import { daysUntilDetectable, detectableFall } from '../../../functions/gaps/power.js';
import { scoreInterval } from '../../../functions/gaps/score-interval.js';
import { studentQuantile } from '../../../functions/gaps/student.js';
import { dispersionOf, EQUIVALENCE_MARGIN, judgeEffect, totalsOf, type DayCount, type VerdictInput } from '../../../functions/gaps/verdict.js';

const WORDS = { signal: 'thumbs down', exposure: 'views', rate: 'thumbs down per view' };
const days = (n: number, signal: number, exposure: number): DayCount[] => Array.from({ length: n }, () => ({ signal, exposure }));

/** A fix judged after 28 days a side: the gap `signal` a day before and after, its controls 60 thumbs down in 3,000 views a day. */
function input(before: number, after: number, more: Partial<VerdictInput> = {}): VerdictInput {
  return {
    daysSince: 30,
    before: days(28, before, 200),
    after: days(28, after, 200),
    control: { gaps: 5, before: days(28, 60, 3000), after: days(28, 60, 3000) },
    words: WORDS,
    ...more,
  };
}

describe('judgeEffect', () => {
  it('says fixed when the rate falls beyond the controls, the whole interval below 1', () => {
    const result = judgeEffect(input(5, 2));

    expect(result.verdict).toBe('fixed');
    expect(result.effect.ratio).toBeCloseTo(0.4, 10);
    expect(result.effect.high).toBeLessThan(1);
    expect(result.reason).toMatch(
      /^thumbs down per view fell 60 % \(140 thumbs down in 5,600 views before, 56 in 5,600 after\): ×0.40 beyond the change of 5 similar gaps/,
    );
  });

  it('says worse when the interval is above 1', () => {
    expect(judgeEffect(input(3, 6)).verdict).toBe('worse');
  });

  it('says no_change when the gap moved as its controls did, its whole interval inside the margin', () => {
    // The site's traffic and every gap's thumbs down rose 50 %: the rates held.
    const result = judgeEffect({
      ...input(4, 6),
      after: days(28, 6, 300),
      control: { gaps: 5, before: days(28, 60, 3000), after: days(28, 90, 4500) },
    });

    expect(result.verdict).toBe('no_change');
    expect(result.effect.ratio).toBeCloseTo(1, 10);
    expect(result.control.ratio).toBeCloseTo(1, 10);
    expect(result.effect.low).toBeGreaterThanOrEqual(EQUIVALENCE_MARGIN);
    expect(result.effect.high).toBeLessThanOrEqual(1 / EQUIVALENCE_MARGIN);
    expect(result.daysToVerdict).toBeNull();
    expect(result.reason).toMatch(/inside 0\.70–1\.43: if it changed at all, by less than 30 %; these counts could have seen a fall of \d+ % or more$/);
  });

  it('says inconclusive, never no_change, when the interval holds 1 but leaves the margin — with what it could have seen', () => {
    // 30 thumbs down before over 10 days, a true 30 % fall after: 21.
    const result = judgeEffect({
      daysSince: 10,
      before: days(10, 3, 100),
      after: days(10, 2.1, 100),
      control: { gaps: 6, before: days(10, 24, 1200), after: days(10, 24, 1200) },
      words: WORDS,
      maxDays: { before: 90, after: 90 },
    });

    expect(result.verdict).toBe('inconclusive');
    expect(result.effect.low).toBeLessThan(EQUIVALENCE_MARGIN);
    expect(result.effect.high).toBeGreaterThan(1);
    expect(result.detectable).toBeGreaterThan(0.5);
    const expected = detectableFall({ before: 30, expectedAfter: 30, controlBefore: 240, controlAfter: 240, phi: 1, phiControl: 1 });
    expect(result.detectable).toBeCloseTo(expected as number, 10);
    expect(result.daysToVerdict).toBe(
      daysUntilDetectable({
        daysBefore: 10,
        daysAfter: 10,
        counts: { before: 30, expectedAfter: 30, controlBefore: 240, controlAfter: 240, phi: 1, phiControl: 1 },
        maxBefore: 90,
        maxAfter: 90,
      }),
    );
    expect(result.daysToVerdict).toBeGreaterThan(0);
    expect(result.reason).toMatch(
      /too small to tell yet — could only have seen a fall of \d\d % or more; at this pace, a 30 % fall is visible in about \d+ days$/,
    );
  });

  it('takes the controls’ change out: a fall the controls share is no fix', () => {
    const result = judgeEffect({ ...input(5, 3), control: { gaps: 5, before: days(28, 60, 3000), after: days(28, 36, 3000) } });

    expect(result.effect.ratio).toBeCloseTo(1, 10);
    expect(result.verdict).toBe('no_change');
  });

  it('gives no verdict on a side with too little exposure for a finite interval: a moved page, a control with one view after', () => {
    const moved = judgeEffect({ ...input(5, 0), after: days(28, 0, 0).map((d, i) => (i === 0 ? { signal: 0, exposure: 3 } : d)) });
    expect(moved.verdict).toBe('too_little_data');
    expect(moved.reason).toMatch(/^only 3 views in the 28 days after the job: at the rate before, 0\.1 thumbs down were expected there/);
    expect(moved.effect).toEqual({ ratio: null, low: null, high: null });
    const lonelyControl = judgeEffect({
      ...input(5, 2),
      control: { gaps: 1, before: days(28, 60, 3000), after: days(28, 0, 0).map((d, i) => (i === 0 ? { signal: 1, exposure: 1 } : d)) },
    });
    expect(lonelyControl.verdict).toBe('too_little_data');
    for (const result of [moved, lonelyControl]) expect(JSON.stringify(result)).not.toMatch(/NaN|Infinity|null,"low":[^n]/);
    expect(`${moved.reason} ${lonelyControl.reason}`).not.toMatch(/NaN|Infinity/);
  });

  it('says too_little_data under 7 whole days, without signals before, without exposure or without a control — in words; never for few signals alone', () => {
    expect(judgeEffect(input(5, 2, { daysSince: 6 })).reason).toBe('only 6 whole days since the job completed: a verdict needs 7');
    expect(judgeEffect({ ...input(1, 1) }).verdict).toBe('inconclusive');
    expect(judgeEffect({ ...input(0, 1) }).reason).toBe('no thumbs down in the 28 days before the job: there was no rate to fall');
    expect(judgeEffect({ ...input(5, 2), after: days(28, 2, 0) }).reason).toBe('no views exported in the 28 days after the job: its rate cannot be measured');
    const { control: _, ...noControl } = input(5, 2);
    const result = judgeEffect(noControl);
    expect(result).toMatchObject({ verdict: 'too_little_data', control: { gaps: 0, ratio: null }, effect: { ratio: null, low: null, high: null } });
    expect(result.reason).toMatch(/^no control: /);
  });

  it('gives a fix whose signal vanished an interval from 0 (its point estimate counts 0 as 0.5)', () => {
    const result = judgeEffect(input(5, 0));

    expect(result.verdict).toBe('fixed');
    expect(result.effect.low).toBe(0);
    expect(result.effect.ratio).toBeGreaterThan(0);
    expect(result.effect.high).toBeLessThan(1);
  });

  it('widens the interval by the days’ overdispersion, never narrows it below Poisson, on a t quantile', () => {
    const steady = input(5, 4);
    const bursty = { ...steady, before: steady.before.map((d, i) => ({ ...d, signal: i % 2 === 0 ? 0 : 10 })) };
    const width = (r: ReturnType<typeof judgeEffect>) => Math.log((r.effect.high ?? 0) / (r.effect.low ?? 1));

    expect(dispersionOf(steady.before, steady.after)).toBe(0);
    expect(dispersionOf(bursty.before, bursty.after)).toBeGreaterThan(2.5);
    expect(width(judgeEffect(bursty))).toBeGreaterThan(1.4 * width(judgeEffect(steady)));
    // φ at its floor of 1: the Poisson score interval, at Student's t on the 56 days − 2 φ was estimated from.
    const sum = (list: readonly DayCount[]) => ({ signals: list.reduce((a, d) => a + d.signal, 0), exposure: list.reduce((a, d) => a + d.exposure, 0) });
    const control = steady.control as NonNullable<VerdictInput['control']>;
    const table = { gapBefore: sum(steady.before), gapAfter: sum(steady.after), controlBefore: sum(control.before), controlAfter: sum(control.after) };
    const t54 = scoreInterval(table, studentQuantile(0.975, 54));
    expect(judgeEffect(steady).effect.low).toBeCloseTo(t54.low, 9);
    expect(judgeEffect(steady).effect.high).toBeCloseTo(t54.high, 9);
    expect(width(judgeEffect(steady))).toBeGreaterThan(width(judgeEffect({ ...steady, dispersion: 'poisson' })));
  });
});

describe('totalsOf', () => {
  it('sums a side and divides: the rate is 0 without exposure', () => {
    expect(totalsOf(days(3, 2, 100))).toEqual({ days: 3, signals: 6, exposure: 300, rate: 0.02 });
    expect(totalsOf(days(2, 1, 0))).toEqual({ days: 2, signals: 2, exposure: 0, rate: 0 });
  });
});
