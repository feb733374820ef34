/** The days the insights read: the report's periods that cover them. */
import { describe, expect, it } from 'vitest';
import { periodCovering } from '../../../functions/insights/figures.js';

describe('the days read', () => {
  it("loads the report's two periods so that they cover the days read", () => {
    const period = periodCovering('2026-10-20', '2026-11-17');
    expect(period.to).toBe('2026-11-18');
    expect(Date.parse(period.from) - period.days.length * 86_400_000).toBeLessThanOrEqual(Date.parse('2026-10-20'));
  });
});
