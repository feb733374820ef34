/** When a dataset is stale: its newest day ended more than the settle hours + 24 h ago. */
import { describe, expect, it } from 'vitest';
import { isStale } from '../../../functions/insights/stale.js';

describe('staleness', () => {
  it('calls a dataset stale once its newest day ended more than settle hours + 24 h ago', () => {
    const tuesday = '2026-11-17';
    expect(isStale(tuesday, Date.parse('2026-11-19T02:00:00Z'), 2)).toBe(false);
    expect(isStale(tuesday, Date.parse('2026-11-19T02:00:01Z'), 2)).toBe(true);
    expect(isStale(undefined, 0, 2)).toBe(true);
  });
});
