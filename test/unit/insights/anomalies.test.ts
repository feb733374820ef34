/**
 * How an anomaly is found and claimed (insights/anomalies.ts), on typed figures in milliseconds:
 * the days a day is compared with and their median as its usual level; no claim with fewer than
 * 3 comparable days or against a usual of 0; the drop and rise thresholds; once per project, day
 * and figure however many runs find it.
 */
import { describe, expect, it } from 'vitest';
import {
  type Anomaly,
  comparedDays,
  findAnomalies,
  type IsComplete,
  MIN_USUAL,
  type NewDay,
  publishAnomalies,
  type Thresholds,
} from '../../../functions/insights/anomalies.js';
import { median } from '../../../functions/shared/median.js';
import type { FigureName } from '../../../functions/warehouse/figure-names.js';
import { type DayFigures, type FigureTable, figureKey } from '../../../functions/insights/figures.js';
import type { InsightMessage } from '../../../functions/insights/publish.js';
import { createMemoryStore } from '../../../functions/shared/storage/shared-store.js';

describe('the usual level of a day', () => {
  it('compares a day with the same weekday of the 4 weeks before, by their median', () => {
    expect(comparedDays('2026-11-17')).toEqual(['2026-10-20', '2026-10-27', '2026-11-03', '2026-11-10']);
    expect(median([3, 1, 2])).toBe(2);
    expect(median([480, 520, 500, 510])).toBe(505);
  });
});

/** A Tuesday, and the four Tuesdays before it, oldest first. */
const DAY = '2026-11-17';
const WEEKS = ['2026-10-20', '2026-10-27', '2026-11-03', '2026-11-10'] as const;
const DEFAULTS: Thresholds = { drop: 0.5, rise: 3 };
const NONE: DayFigures = { human: 0, views: 0, searches: 0, questions: 0, thumbsDown: 0 };

/** proj_a's human visitors: the four weeks before, then the day judged (undefined: no row). */
function humans(weeks: readonly number[], day: number | undefined, projectId = 'proj_a') {
  const table = new Map<string, DayFigures>();
  for (const [i, value] of weeks.entries()) table.set(figureKey(projectId, WEEKS[i] as string), { ...NONE, human: value });
  if (day !== undefined) table.set(figureKey(projectId, DAY), { ...NONE, human: day });
  return table;
}
const everyUnitComplete: IsComplete = () => true;
/** Complete except the units of these days. */
const completeExcept =
  (...days: string[]): IsComplete =>
  (_projectId, _figure, day) =>
    !days.includes(day);
const newDay = (figures: readonly FigureName[] = ['human'], projectId = 'proj_a'): NewDay => ({ projectId, day: DAY, figures });
const found = (anomalies: readonly Anomaly[]) => anomalies.map((a) => `${a.projectId} ${a.figure} ${a.direction} ${a.value} vs ${a.usual}`);

describe('finding anomalies', () => {
  it('claims nothing with fewer than 3 comparable days, and claims with 3', () => {
    const table = humans([100, 100, 100, 100], 0);

    expect(findAnomalies([newDay()], table, completeExcept(WEEKS[0], WEEKS[1]), DEFAULTS)).toEqual([]);
    expect(found(findAnomalies([newDay()], table, completeExcept(WEEKS[0]), DEFAULTS))).toEqual(['proj_a human drop 0 vs 100']);
  });

  it('compares only the weeks whose units are complete, oldest first, and takes their median as the usual', () => {
    const table = humans([20, 999, 100, 60], 10);

    const [anomaly] = findAnomalies([newDay()], table, completeExcept(WEEKS[1]), DEFAULTS);

    expect(anomaly?.compared).toEqual([
      { day: WEEKS[0], value: 20 },
      { day: WEEKS[2], value: 100 },
      { day: WEEKS[3], value: 60 },
    ]);
    expect(anomaly?.usual).toBe(60);
  });

  it('claims nothing against a usual of 0, however large the day', () => {
    expect(findAnomalies([newDay()], humans([0, 0, 0, 40], 5_000), everyUnitComplete, DEFAULTS)).toEqual([]);
  });

  it('claims a drop below drop × usual, not at it', () => {
    expect(findAnomalies([newDay()], humans([100, 100, 100, 100], 50), everyUnitComplete, DEFAULTS)).toEqual([]);
    expect(found(findAnomalies([newDay()], humans([100, 100, 100, 100], 49), everyUnitComplete, DEFAULTS))).toEqual(['proj_a human drop 49 vs 100']);
  });

  it('claims a rise above rise × usual, not at it', () => {
    expect(findAnomalies([newDay()], humans([100, 100, 100, 100], 300), everyUnitComplete, DEFAULTS)).toEqual([]);
    expect(found(findAnomalies([newDay()], humans([100, 100, 100, 100], 301), everyUnitComplete, DEFAULTS))).toEqual(['proj_a human rise 301 vs 100']);
  });

  it('takes the thresholds it is given (ANOMALY_DROP, ANOMALY_RISE)', () => {
    const table = humans([100, 100, 100, 100], 40);

    expect(findAnomalies([newDay()], table, everyUnitComplete, { drop: 0.3, rise: 3 })).toEqual([]);
    expect(found(findAnomalies([newDay()], humans([100, 100, 100, 100], 160), everyUnitComplete, { drop: 0.5, rise: 1.5 }))).toEqual([
      'proj_a human rise 160 vs 100',
    ]);
  });

  it('counts the figure of a complete unit without a row as 0 (an export that found nothing)', () => {
    expect(found(findAnomalies([newDay()], humans([100, 100, 100, 100], undefined), everyUnitComplete, DEFAULTS))).toEqual(['proj_a human drop 0 vs 100']);
  });

  it('judges neither a day whose own unit is incomplete nor a figure whose unit is not newly complete', () => {
    const table = humans([100, 100, 100, 100], 0);

    expect(findAnomalies([newDay()], table, completeExcept(DAY), DEFAULTS)).toEqual([]);
    expect(findAnomalies([newDay(['views'])], table, everyUnitComplete, DEFAULTS)).toEqual([]);
  });

  it('judges each project on its own figures', () => {
    const table = new Map([...humans([100, 100, 100, 100], 0, 'proj_a'), ...humans([100, 100, 100, 100], 100, 'proj_b')]);

    expect(found(findAnomalies([newDay(['human'], 'proj_a'), newDay(['human'], 'proj_b')], table, everyUnitComplete, DEFAULTS))).toEqual([
      'proj_a human drop 0 vs 100',
    ]);
  });
});

describe('publishing anomalies', () => {
  const anomaly = (overrides: Partial<Anomaly> = {}): Anomaly => ({
    projectId: 'proj_a',
    day: DAY,
    figure: 'human',
    value: 0,
    usual: 100,
    compared: WEEKS.map((day) => ({ day, value: 100 })),
    direction: 'drop',
    ...overrides,
  });
  const publisher = () => {
    const sent: InsightMessage[] = [];
    return { sent, publish: async (message: InsightMessage) => void sent.push(message) };
  };
  const now = () => Date.parse('2026-11-18T06:00:00Z');

  it('publishes an anomaly once per project, day and figure, however many runs find it', async () => {
    const store = createMemoryStore();
    const { sent, publish } = publisher();

    const first = await publishAnomalies([anomaly()], DEFAULTS, { store, publish, now });
    const again = await publishAnomalies([anomaly(), anomaly({ value: 3 })], DEFAULTS, { store, publish, now });

    expect(first).toHaveLength(1);
    expect(again).toEqual([]);
    expect(sent.map((m) => m.subject)).toEqual(['proj_a: human visitors fell to 0 % on 2026-11-17 (0 vs 100)']);
  });

  it('publishes another figure, day or project apart', async () => {
    const store = createMemoryStore();
    const { sent, publish } = publisher();
    await publishAnomalies([anomaly()], DEFAULTS, { store, publish, now });

    const others = [anomaly({ figure: 'views' }), anomaly({ day: '2026-11-16' }), anomaly({ projectId: 'proj_b' })];
    const published = await publishAnomalies(others, DEFAULTS, { store, publish, now });

    expect(published).toEqual(others);
    expect(sent).toHaveLength(4);
  });

  it('gives the claim back when the publish fails, so the next run sends it', async () => {
    const store = createMemoryStore();
    const { sent, publish } = publisher();
    const failing = async () => {
      throw new Error('SNS said no');
    };

    await expect(publishAnomalies([anomaly()], DEFAULTS, { store, publish: failing, now })).rejects.toThrow('SNS said no');
    const published = await publishAnomalies([anomaly()], DEFAULTS, { store, publish, now });

    expect(published).toHaveLength(1);
    expect(sent).toHaveLength(1);
  });
});

/** What findAnomalies calls an anomaly: a ratio against a usual that is big enough to mean something. */
const BASE_THRESHOLDS = { drop: 0.5, rise: 3 };
const BASE_MONDAYS = ['2026-10-26', '2026-11-02', '2026-11-09', '2026-11-16'];

/** Thumbs down on four Mondays: three before, then `today`. */
function thumbsDownAgainst(usual: number, today: number): FigureTable {
  return new Map(BASE_MONDAYS.map((day, i) => [figureKey('proj_a', day), { thumbsDown: i === 3 ? today : usual } as never]));
}

describe('the minimum base of an anomaly', () => {
  const day = [{ projectId: 'proj_a', day: '2026-11-16', figures: ['thumbsDown' as const] }];
  const all = () => true;

  it('claims nothing against a usual below the minimum base (0 against a usual 1 is no alert)', () => {
    expect(MIN_USUAL).toBe(10);
    expect(findAnomalies(day, thumbsDownAgainst(1, 0), all, BASE_THRESHOLDS)).toEqual([]);
    expect(findAnomalies(day, thumbsDownAgainst(9, 40), all, BASE_THRESHOLDS)).toEqual([]);
  });

  it('claims a drop or a rise against a usual of at least the minimum base', () => {
    expect(findAnomalies(day, thumbsDownAgainst(10, 0), all, BASE_THRESHOLDS).map((a) => a.direction)).toEqual(['drop']);
    expect(findAnomalies(day, thumbsDownAgainst(10, 31), all, BASE_THRESHOLDS).map((a) => a.direction)).toEqual(['rise']);
  });
});
