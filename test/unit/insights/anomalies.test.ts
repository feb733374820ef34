/** How an anomaly is found: which days a day is compared with, and their median as its usual level. */
import { describe, expect, it } from 'vitest';
import { comparedDays, median } from '../../../functions/insights/anomalies.js';

describe('the usual level of a day', () => {
  it('compares a day with the same weekday of the 4 weeks before, by their median', () => {
    expect(comparedDays('2026-11-17')).toEqual(['2026-10-20', '2026-10-27', '2026-11-03', '2026-11-10']);
    expect(median([3, 1, 2])).toBe(2);
    expect(median([480, 520, 500, 510])).toBe(505);
  });
});
