/**
 * The planner's pure parts (functions/export/plan.ts, the backoff in units.ts, the request
 * estimate in estimates.ts): which day is due, the failure backoff, estimates from the nearest
 * day, and what counts as missing — no destination, no clock.
 */
import { describe, expect, it } from 'vitest';
import { estimateUnit } from '../../../functions/export/estimates.js';
import type { Manifest } from '../../../functions/export/manifest.js';
import { countMissing, daysBefore, doneSince, type Plan } from '../../../functions/export/plan.js';
import { dueAt, lastDueDay } from '../../../functions/export/settle.js';
import { startMeter } from '../../../functions/export/request-meter.js';
import { retryAfter, type UnitState } from '../../../functions/export/units.js';
import { unitKey, unitsOf, type Unit } from '../../../functions/export/unit-id.js';
import { HOUR_MS, MINUTE_MS } from '../../../functions/shared/time.js';
import { DATASET_CATALOG, DATASET_NAMES, typicalPagesPerDay } from '../../../functions/warehouse/catalog.js';

const complete = (unit: Unit, pages: number, finishedAt = '2026-11-21T03:00:00.000Z'): UnitState => ({
  kind: 'complete',
  manifest: { dataset: unit.dataset, projectId: unit.projectId, date: unit.day, pages, finishedAt } as unknown as Manifest,
});
const visitors = (projectId: string, day: string): Unit => ({ dataset: 'visitors', projectId, day });

describe('due days', () => {
  it('a day is due its settle hours after it ends', () => {
    expect(lastDueDay(Date.parse('2026-11-21T01:59:59Z'), 2)).toBe('2026-11-19');
    expect(lastDueDay(Date.parse('2026-11-21T02:00:00Z'), 2)).toBe('2026-11-20');
    expect(dueAt('2026-11-20', 2)).toBe(Date.parse('2026-11-21T02:00:00Z'));
  });

  it('daysBefore lists the days before, oldest first; unitsOf crosses days, projects and datasets, days first', () => {
    expect(daysBefore('2026-03-01', 2)).toEqual(['2026-02-27', '2026-02-28']);
    expect(unitsOf(['2026-11-20', '2026-11-21'], ['a', 'b'], ['visitors']).map(unitKey)).toEqual([
      'visitors/a/2026-11-20',
      'visitors/b/2026-11-20',
      'visitors/a/2026-11-21',
      'visitors/b/2026-11-21',
    ]);
  });
});

describe('retryAfter', () => {
  const at = '2026-11-21T10:00:00.000Z';
  const t = Date.parse(at);
  const slack = 15 * MINUTE_MS;

  it('leaves a failing unit 1 h, then 2 h, 4 h … at most a day, less the schedule slack', () => {
    expect([1, 2, 3, 6, 30].map((attempts) => (retryAfter({ error: 'x', at, attempts }) as number) - t + slack)).toEqual(
      [1, 2, 4, 24, 24].map((h) => h * HOUR_MS),
    );
  });

  it('does not back off a unit that has not failed, a failure every unit shares, or a record with no readable time', () => {
    expect(retryAfter(undefined)).toBeUndefined();
    expect(retryAfter({ error: 'x', at, attempts: 0 })).toBeUndefined();
    expect(retryAfter({ error: 'x', at: 'yesterday' })).toBeUndefined();
  });
});

describe('estimateUnit', () => {
  it("takes the pages of the project's nearest complete day, the later one on a tie", () => {
    const states = new Map<string, UnitState>([
      [unitKey(visitors('a', '2026-11-18')), complete(visitors('a', '2026-11-18'), 4)],
      [unitKey(visitors('a', '2026-11-22')), complete(visitors('a', '2026-11-22'), 7)],
    ]);

    expect(estimateUnit(visitors('a', '2026-11-20'), states)).toEqual({ estimate: 7, estimateFrom: { projectId: 'a', day: '2026-11-22' } });
  });

  it('without a day of its own, takes the most another project needed, and says it is a guess', () => {
    const states = new Map<string, UnitState>([
      [unitKey(visitors('b', '2026-11-20')), complete(visitors('b', '2026-11-20'), 5)],
      [unitKey(visitors('c', '2026-11-20')), complete(visitors('c', '2026-11-20'), 9)],
    ]);

    expect(estimateUnit(visitors('a', '2026-11-20'), states)).toEqual({ estimate: 9, estimateFrom: { projectId: 'c', day: '2026-11-20' }, guess: true });
  });

  it("with nothing of the dataset exported anywhere, takes the dataset's typical day from the catalog, a guess (not a floor of 1)", () => {
    const views = { ...visitors('a', '2026-11-20'), dataset: 'views' as const };
    const callerStats = { ...visitors('a', '2026-11-20'), dataset: 'caller_stats' as const };

    expect(estimateUnit(views, new Map())).toEqual({ estimate: typicalPagesPerDay(DATASET_CATALOG.views), guess: true, typical: true });
    expect(typicalPagesPerDay(DATASET_CATALOG.views)).toBe(Math.ceil(DATASET_CATALOG.views.typicalRowsPerDay / 250));
    expect(typicalPagesPerDay(DATASET_CATALOG.views)).toBeGreaterThan(1);
    // One request a day whatever the traffic: the typical day is that request.
    expect(estimateUnit(callerStats, new Map())).toEqual({ estimate: 1, guess: true, typical: true });
  });

  it('a typical day is a guess for a moderate site, every dataset declared: a new project of 90 days is no longer 630 requests', () => {
    const perDay = DATASET_NAMES.reduce((sum, name) => sum + typicalPagesPerDay(DATASET_CATALOG[name]), 0);

    expect(perDay * 90).toBeGreaterThan(630 * 3);
  });

  it('a partial unit needs what is left of it, at least one request', () => {
    const partial = (pages: number): UnitState => ({ kind: 'partial', checkpoint: { state: { pages } } as never });
    const known = complete(visitors('a', '2026-11-19'), 10);
    const at = (pages: number) =>
      estimateUnit(
        visitors('a', '2026-11-20'),
        new Map([
          [unitKey(visitors('a', '2026-11-19')), known],
          [unitKey(visitors('a', '2026-11-20')), partial(pages)],
        ]),
      ).estimate;

    expect([at(4), at(10), at(12)]).toEqual([6, 1, 1]);
  });

  it('a partial unit that has staged as many pages as its known day needs at least one more: a floor, said so', () => {
    const states = new Map<string, UnitState>([
      [unitKey(visitors('a', '2026-11-19')), complete(visitors('a', '2026-11-19'), 10)],
      [unitKey(visitors('a', '2026-11-20')), { kind: 'partial', checkpoint: { state: { pages: 10 } } as never }],
    ]);

    expect(estimateUnit(visitors('a', '2026-11-20'), states)).toEqual({ estimate: 1, estimateFrom: { projectId: 'a', day: '2026-11-19' }, floor: true });
  });
});

describe('doneSince and countMissing', () => {
  it('a unit is done since a time when its manifest was written at or after it', () => {
    const state = complete(visitors('a', '2026-11-20'), 1, '2026-11-21T03:00:00.000Z');

    expect(doneSince(state, Date.parse('2026-11-21T03:00:00.000Z'))).toBe(true);
    expect(doneSince(state, Date.parse('2026-11-21T03:00:00.001Z'))).toBe(false);
    expect(doneSince({ kind: 'missing' }, 0)).toBe(false);
  });

  it('counts the heal window units not complete, less those waiting for budget or time', () => {
    const lastDay = '2026-11-21';
    const states = new Map<string, UnitState>([[unitKey(visitors('a', '2026-11-19')), complete(visitors('a', '2026-11-19'), 1)]]);
    const plan: Plan = { units: [], states, lastDay };
    const input = { healDays: 3, projects: ['a'], datasets: ['visitors'] as const };

    expect(countMissing(plan, input)).toBe(2);
    expect(countMissing(plan, input, new Set([unitKey(visitors('a', '2026-11-18'))]))).toBe(1);
  });
});

describe('startMeter', () => {
  it('reads what each live counter gained since it started, an absent one counting as 0', () => {
    const live: { requests: number; invalidUtf8?: number } = { requests: 5 };
    const meter = startMeter(live, ['requests', 'invalidUtf8']);

    live.requests += 3;
    live.invalidUtf8 = 2;

    expect(meter.read()).toEqual({ requests: 3, invalidUtf8: 2 });
  });
});
