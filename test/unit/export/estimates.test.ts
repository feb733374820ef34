/**
 * One estimator (functions/export/estimates.ts) for `plan`, `status`, the progress bar and the
 * log: the time the budget needs for what is left, and a partial unit's pages to go whatever
 * range it is looked at in.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { budgetTime } from '../../../functions/export/estimates.js';
import { manifestOf } from '../../../functions/export/manifest.js';
import { writeManifest } from '../../../functions/export/manifest.js';
import { CHECKPOINT_VERSION, unitStaging } from '../../../functions/export/staging.js';
import { readExportStatus } from '../../../functions/export/status.js';
import { unitsOf, type Unit } from '../../../functions/export/unit-id.js';
import { parseBudget } from '../../../functions/shared/pacing/budget-spec.js';
import type { BudgetSnapshot } from '../../../functions/shared/pacing/budget.js';
import { addDays } from '../../../functions/shared/dates.js';
import { createLocalDestination } from '../../../functions/shared/storage/destination-local.js';
import { HOUR_MS, MINUTE_MS, SECOND_MS } from '../../../functions/shared/time.js';
import { makeTempDir, removeTempDirs } from '../../helpers/files.js';

afterEach(removeTempDirs);

const NOW = Date.parse('2026-11-24T00:00:00Z');

function snapshot(budget: string, used: number, nextStartInMs: number): BudgetSnapshot {
  const spec = parseBudget(budget);
  return { spec, used, nextStartAt: NOW + nextStartInMs, pausedUntil: 0, rateLimited: 0, limit: spec.requests };
}

describe('budgetTime', () => {
  it('33 requests against a spent 30/1h whose window frees in 59 min 49 s need about 2 h, not 3: thirty start as the window frees, three an hour later', () => {
    const { ms } = budgetTime(snapshot('30/1h', 30, 59 * MINUTE_MS + 49 * SECOND_MS), 33, NOW);

    expect(ms).toBe(HOUR_MS + 59 * MINUTE_MS + 49 * SECOND_MS);
  });

  it('what fits in the free part of the window needs no wait; one more waits a window after the first start', () => {
    expect(budgetTime(snapshot('30/1h', 0, 0), 30, NOW).ms).toBe(0);
    expect(budgetTime(snapshot('30/1h', 0, 0), 31, NOW).ms).toBe(HOUR_MS);
    expect(budgetTime(snapshot('1/1h', 0, 0), 2, NOW).ms).toBe(HOUR_MS);
    expect(budgetTime(snapshot('30/1h', 0, 0), 61, NOW).ms).toBe(2 * HOUR_MS);
  });
});

describe('a partial unit in status', () => {
  /** Visitors of proj_a: `day - 3` complete with 11 pages, `day + 1` with 10, `day` partial with 9 staged. */
  async function destinationWithPartial(day: string) {
    const destination = createLocalDestination(await makeTempDir('estimates'));
    const complete = async (unit: Unit, pages: number) =>
      writeManifest(
        destination,
        manifestOf({
          unit,
          state: { kind: 'offset', pages, offset: pages * 250 },
          tables: [{ table: 'visitors_pages', key: 'k', rows: pages * 10, bytes: 1 }],
          drift: undefined,
          exportedAt: new Date(NOW),
          finishedAt: NOW,
          durationMs: 1,
          invalidUtf8: 0,
          requests: { successful: pages, sent: pages, retried: 0 },
          runs: 1,
        }),
      );
    const unit = (d: string): Unit => ({ dataset: 'visitors', projectId: 'proj_a', day: d });
    await complete(unit(addDays(day, -3)), 11);
    await complete(unit(addDays(day, 1)), 10);
    const at = new Date(NOW).toISOString();
    await unitStaging(destination, unit(day)).writeCheckpoint({
      version: CHECKPOINT_VERSION,
      dataset: 'visitors',
      projectId: 'proj_a',
      date: day,
      limit: null,
      startedAt: at,
      updatedAt: at,
      state: { kind: 'offset', pages: 9, offset: 2250 },
      requests: { successful: 9, sent: 9, retried: 0 },
      runs: 1,
    });
    return destination;
  }

  it('shows the same 9/~N whichever days are asked with it, from the nearest complete day (the day after, 10 pages)', async () => {
    const day = '2026-11-20';
    const destination = await destinationWithPartial(day);
    const cellOf = async (days: string[]) => {
      const status = await readExportStatus(destination, unitsOf(days, ['proj_a'], ['visitors']));
      return status.units.find((u) => u.date === day);
    };

    const ending = await cellOf([addDays(day, -3), addDays(day, -2), addDays(day, -1), day]);
    const around = await cellOf([addDays(day, -3), addDays(day, -2), addDays(day, -1), day, addDays(day, 1)]);
    const alone = await cellOf([day]);

    expect(around).toMatchObject({ state: 'partial', pages: 9, estimate: 10 });
    expect(ending).toEqual(around);
    expect(alone).toEqual(around);
  });
});
