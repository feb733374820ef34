/** What findAnomalies calls an anomaly: a ratio against a usual that is big enough to mean something. */
import { describe, expect, it } from 'vitest';
import { findAnomalies, MIN_USUAL } from '../../../functions/insights/anomalies.js';
import { figureKey, type FigureTable } from '../../../functions/insights/figures.js';

const THRESHOLDS = { drop: 0.5, rise: 3 };
const MONDAYS = ['2026-10-26', '2026-11-02', '2026-11-09', '2026-11-16'];

/** Thumbs down on four Mondays: three before, then `today`. */
function thumbsDown(usual: number, today: number): FigureTable {
  return new Map(MONDAYS.map((day, i) => [figureKey('proj_a', day), { thumbsDown: i === 3 ? today : usual } as never]));
}

describe('findAnomalies', () => {
  const day = [{ projectId: 'proj_a', day: '2026-11-16', figures: ['thumbsDown' as const] }];
  const all = () => true;

  it('claims nothing against a usual below the minimum base (0 against a usual 1 is no alert)', () => {
    expect(MIN_USUAL).toBe(10);
    expect(findAnomalies(day, thumbsDown(1, 0), all, THRESHOLDS)).toEqual([]);
    expect(findAnomalies(day, thumbsDown(9, 40), all, THRESHOLDS)).toEqual([]);
  });

  it('claims a drop or a rise against a usual of at least the minimum base', () => {
    expect(findAnomalies(day, thumbsDown(10, 0), all, THRESHOLDS).map((a) => a.direction)).toEqual(['drop']);
    expect(findAnomalies(day, thumbsDown(10, 31), all, THRESHOLDS).map((a) => a.direction)).toEqual(['rise']);
  });
});
