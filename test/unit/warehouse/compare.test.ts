/**
 * The one comparison rule of the read side (warehouse/compare.ts): the usual level (median),
 * the change of a figure, and movers by a rule — absolute or relative, rises, falls or either,
 * a minimum base and a limit — on typed rows in milliseconds.
 */
import { describe, expect, it } from 'vitest';
import { absoluteChange, type Change, comparisonOf, isCovered, largestFirst, moversBy, relativeChange } from '../../../functions/warehouse/compare.js';
import { median } from '../../../functions/shared/median.js';

const change = (projectId: string, key: string, previous: number, current: number) => ({ projectId, key, previous, current });
const listed = (changes: readonly (Change & { key: string })[]) => changes.map((c) => `${c.projectId} ${c.key} ${c.previous}->${c.current}`);

describe('median', () => {
  it('takes the middle value of an odd count and the mean of the two middle values of an even count, whatever the order', () => {
    expect([median([3, 1, 2]), median([480, 520, 500, 510]), median([7]), median([1, 4])]).toEqual([2, 505, 7, 2.5]);
  });

  it('leaves its input as it was', () => {
    const values = [3, 1, 2];
    median(values);
    expect(values).toEqual([3, 1, 2]);
  });
});

describe('the change of a figure', () => {
  it('is current − previous, or current ÷ previous − 1 and none from 0', () => {
    expect(absoluteChange({ current: 120, previous: 100 })).toBe(20);
    expect(relativeChange({ current: 120, previous: 100 })).toBeCloseTo(0.2, 12);
    expect(relativeChange({ current: 50, previous: 100 })).toBe(-0.5);
    expect(relativeChange({ current: 5, previous: 0 })).toBeUndefined();
  });
});

describe('movers by a rule', () => {
  const changes = [
    change('proj_a', 'rise-small', 100, 110),
    change('proj_a', 'rise-big', 10, 60),
    change('proj_a', 'fall-big', 200, 100),
    change('proj_a', 'flat', 50, 50),
    change('proj_a', 'from-zero', 0, 40),
  ];

  it('by absolute change: the biggest rises, or the biggest falls, leaving out what did not move', () => {
    expect(listed(moversBy(changes, { by: 'absolute', direction: 'rise', limit: 5 }))).toEqual([
      'proj_a rise-big 10->60',
      'proj_a from-zero 0->40',
      'proj_a rise-small 100->110',
    ]);
    expect(listed(moversBy(changes, { by: 'absolute', direction: 'fall', limit: 5 }))).toEqual(['proj_a fall-big 200->100']);
  });

  it('by relative change either way: ordered by size whatever the sign, nothing from 0', () => {
    expect(listed(moversBy(changes, { by: 'relative', direction: 'either', limit: 5 }))).toEqual([
      'proj_a rise-big 10->60',
      'proj_a fall-big 200->100',
      'proj_a rise-small 100->110',
    ]);
  });

  it('leaves out what was below the minimum base in the previous period, and keeps at most the limit', () => {
    expect(listed(moversBy(changes, { by: 'relative', direction: 'either', minBase: 20, limit: 5 }))).toEqual([
      'proj_a fall-big 200->100',
      'proj_a rise-small 100->110',
    ]);
    expect(listed(moversBy(changes, { by: 'absolute', direction: 'either', limit: 2 }))).toEqual(['proj_a fall-big 200->100', 'proj_a rise-big 10->60']);
  });

  it('orders ties by project, then as given', () => {
    const tied = [change('proj_b', 'x', 10, 20), change('proj_a', 'z', 10, 20), change('proj_a', 'y', 10, 20)];
    expect(listed(moversBy(tied, { by: 'absolute', direction: 'rise', limit: 5 }))).toEqual(['proj_a z 10->20', 'proj_a y 10->20', 'proj_b x 10->20']);
    expect(largestFirst(tied, (c) => c.current, 2).map((c) => `${c.projectId} ${c.key}`)).toEqual(['proj_a z', 'proj_a y']);
  });
});

describe('comparable periods', () => {
  const days = (exported: number, of: number) => ({ exported, days: of });

  it('counts a period covered from 80 % of its days exported, in whole numbers', () => {
    expect([isCovered(days(12, 15)), isCovered(days(11, 15)), isCovered(days(24, 30)), isCovered(days(23, 30)), isCovered(days(1, 1))]).toEqual([
      true,
      false,
      true,
      false,
      true,
    ]);
    expect(isCovered(days(0, 0))).toBe(false);
  });

  it('compares totals only where both periods are covered, per day where one is not, nothing where one has no day', () => {
    expect(comparisonOf(days(30, 30), days(24, 30))).toBe('totals');
    expect(comparisonOf(days(30, 30), days(1, 30))).toBe('per-day');
    expect(comparisonOf(days(1, 30), days(30, 30))).toBe('per-day');
    expect(comparisonOf(days(30, 30), days(0, 30))).toBe('none');
    expect(comparisonOf(days(0, 30), days(30, 30))).toBe('none');
  });
});
