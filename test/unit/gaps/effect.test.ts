/**
 * The before / after windows of a fix (gaps/effect.ts), on a gap's figure per day in
 * milliseconds: N = min(90, whole days since the job completed or its pull request merged), the completed day on neither
 * side, "too early to tell" under 7 whole days.
 */
import { describe, expect, it } from 'vitest';
import { EFFECT_MAX_DAYS, VERDICT_MIN_DAYS, effectWindows } from '../../../functions/gaps/effect.js';
import { addDays } from '../../../functions/shared/dates.js';

const COMPLETED = '2026-10-01';
/** The figure per day: 1 on each day from `from` for `days` days. */
const ones = (from: string, days: number) => new Map(Array.from({ length: days }, (_, i) => [addDays(from, i), 1] as const));

describe('the effect windows of a fix', () => {
  it('divides "a day" by the days exported, and names the days left out instead of counting them as 0', () => {
    const perDay = new Map([
      ['2026-10-02', 9],
      ['2026-10-04', 9],
    ]);
    const exported = new Set(['2026-09-21', '2026-09-22', '2026-10-02', '2026-10-04']);

    const windows = effectWindows(COMPLETED, '2026-10-12', perDay, exported);

    expect(windows.after).toMatchObject({ days: 2, total: 18, perDay: 9 });
    expect(windows.after?.leftOut).toEqual(['2026-10-03', '2026-10-05', '2026-10-06', '2026-10-07', '2026-10-08', '2026-10-09', '2026-10-10', '2026-10-11']);
    expect(windows.before).toMatchObject({ days: 2, total: 0 });
  });

  it('compares the N days before the completed day with the N days after it, N the whole days since', () => {
    // Today is 2026-10-12: 2026-10-02 to 2026-10-11 have ended, 10 whole days.
    const windows = effectWindows(COMPLETED, '2026-10-12', new Map());

    expect(windows).toMatchObject({ daysSince: 10, n: 10, tooEarly: false });
    expect(windows.before).toMatchObject({ from: '2026-09-21', last: '2026-09-30', days: 10 });
    expect(windows.after).toMatchObject({ from: '2026-10-02', last: '2026-10-11', days: 10 });
  });

  it(`compares at most ${EFFECT_MAX_DAYS} days on each side`, () => {
    const windows = effectWindows(COMPLETED, '2027-03-01', new Map());

    expect(windows).toMatchObject({ daysSince: 150, n: EFFECT_MAX_DAYS });
    expect(windows.before).toMatchObject({ from: '2026-07-03', last: '2026-09-30', days: 90 });
    expect(windows.after).toMatchObject({ from: '2026-10-02', last: '2026-12-30', days: 90 });
  });

  it(`is too early to tell under ${VERDICT_MIN_DAYS} whole days, and tells at ${VERDICT_MIN_DAYS}`, () => {
    expect(effectWindows(COMPLETED, addDays(COMPLETED, VERDICT_MIN_DAYS), new Map())).toMatchObject({ daysSince: 6, n: 6, tooEarly: true });
    expect(effectWindows(COMPLETED, addDays(COMPLETED, VERDICT_MIN_DAYS + 1), new Map())).toMatchObject({ daysSince: 7, n: 7, tooEarly: false });
  });

  it('has no windows before a whole day has passed', () => {
    for (const today of [COMPLETED, addDays(COMPLETED, 1)]) {
      const windows = effectWindows(COMPLETED, today, ones('2026-09-01', 60));
      expect(windows).toEqual({ daysSince: 0, n: 0, tooEarly: true });
    }
  });

  it('leaves the completed day out of both sides: part of it was before the fix', () => {
    const windows = effectWindows(COMPLETED, '2026-10-12', new Map([[COMPLETED, 500]]));

    expect(windows.before?.total).toBe(0);
    expect(windows.after?.total).toBe(0);
  });

  it('sums the figure over each side, a day without a row as 0, and gives the unrounded mean per day', () => {
    const perDay = new Map([
      ['2026-09-20', 1_000], // a day before the window: not counted
      ['2026-09-21', 4],
      ['2026-09-30', 6],
      ['2026-10-02', 1],
      ['2026-10-11', 1],
      ['2026-10-12', 1_000], // today, not ended: not counted
    ]);

    const windows = effectWindows(COMPLETED, '2026-10-12', perDay);

    expect(windows.before).toEqual({ from: '2026-09-21', last: '2026-09-30', days: 10, total: 10, perDay: 1, leftOut: [] });
    expect(windows.after).toEqual({ from: '2026-10-02', last: '2026-10-11', days: 10, total: 2, perDay: 0.2, leftOut: [] });
    expect(effectWindows(COMPLETED, '2026-10-04', ones('2026-09-29', 2)).before).toMatchObject({ days: 2, total: 2, perDay: 1 });
    expect(effectWindows(COMPLETED, '2026-10-05', ones('2026-09-29', 1)).before).toMatchObject({ days: 3, total: 1, perDay: 1 / 3 });
  });
});
