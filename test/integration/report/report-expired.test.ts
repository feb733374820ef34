/**
 * Expired is not missing (issue 56 item 3, issue 57 item 4): after retention deleted the first 11
 * days of a 30-day period's personal datasets (searches, assistant, feedback), the report's health
 * calls them `expired (retention)` — not `missing` —, the headline says those datasets cover 19 of
 * the 30 days, the sections name the days their per-day figures leave out, nothing offers to
 * "fill" them, and the weekly digest says the same. The backfill lake, retention run on it as the
 * export runs it (export/retention.ts `deleteExpired`).
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deleteExpired } from '../../../functions/export/retention.js';
import { digestOf } from '../../../functions/insights/weekly/digest.js';
import type { Figures } from '../../../functions/report/figures.js';
import { headlineSection } from '../../../functions/report/sections/headline.js';
import { healthSection } from '../../../functions/report/sections/health.js';
import { searchesSection } from '../../../functions/report/sections/searches.js';
import { createLocalDestination } from '../../../functions/shared/storage/destination-local.js';
import { periodOf } from '../../../functions/warehouse/period.js';
import type { Sandbox } from '../../../sandbox/index.js';
import { BACKFILL_NOW, BACKFILL_PERIOD, buildBackfillLake, startBackfillSandbox } from '../../helpers/backfill-lake.js';
import { runCliInProcess } from '../../helpers/cli.js';
import { cliEnv } from '../../helpers/env.js';
import { removeTempDirs } from '../../helpers/files.js';
import { readFiguresIn } from '../../helpers/read-figures.js';

/** Days before it expired: the period's first 11 (2026-05-02 … 2026-05-12). */
const CUTOFF = '2026-05-13';
/** 2026-06-01 − 19 days = the cutoff. */
const RETENTION_DAYS = 19;
const EXPIRED_DAYS = 11;
const PERSONAL = ['searches', 'assistant', 'feedback'] as const;

let lake: { readonly root: string; readonly out: string };
let sandbox: Sandbox;
let figures: Figures;

beforeAll(async () => {
  lake = await buildBackfillLake();
  sandbox = await startBackfillSandbox();
  const deleted = await deleteExpired(createLocalDestination(lake.out), CUTOFF, { now: BACKFILL_NOW, retentionDays: RETENTION_DAYS });
  expect(deleted.units).toBeGreaterThan(0);
  // The expiry records alone (no cutoff given): what a reader without the setting still knows.
  figures = await readFiguresIn(lake.out, { period: periodOf(BACKFILL_PERIOD.from, BACKFILL_PERIOD.to), projects: [] });
}, 120_000);

afterAll(async () => {
  await sandbox?.close();
  await removeTempDirs();
});

describe('a period whose first days retention deleted', () => {
  it('calls the deleted units expired, never missing, and the others what they are', () => {
    for (const dataset of PERSONAL) {
      const cells = figures.health.filter((c) => c.dataset === dataset);
      expect(cells.filter((c) => c.state === 'expired').map((c) => c.day)).toEqual(periodOf(BACKFILL_PERIOD.from, CUTOFF).days);
      expect(cells.filter((c) => c.state === 'missing')).toEqual([]);
    }
    expect(figures.health.filter((c) => c.dataset === 'visitors' && c.state !== 'complete')).toEqual([]);
  });

  it('names them "expired (retention)" in the health calendar, its legend and its cells', () => {
    const html = String(healthSection(figures));

    expect(html.match(/data-state="expired"/g)).toHaveLength(EXPIRED_DAYS * PERSONAL.length);
    expect(html).toContain(`expired (retention): ${EXPIRED_DAYS * PERSONAL.length}`);
    expect(html).toContain('missing: 0');
    expect(html).toContain('expired (retention): its personal data was deleted after PERSONAL_DATA_RETENTION_DAYS');
  });

  it('says in the headline how many days the expired datasets cover, and each section which days it leaves out', () => {
    const html = String(headlineSection(figures));

    expect(html).toContain(`Searches, assistant questions and feedback cover ${30 - EXPIRED_DAYS} of the 30 day(s): ${EXPIRED_DAYS} expired (retention)`);
    for (const dataset of PERSONAL) {
      expect(figures.comparisons[dataset].leftOut.current).toEqual(periodOf(BACKFILL_PERIOD.from, CUTOFF).days.map((day) => ({ day, state: 'expired' })));
      expect(String(searchesSection(figures, { many: false }))).toContain('this period leaves out 2026-05-02 to 2026-05-12 expired (retention) (11 days)');
      // Nothing fills an expired day: a fill is of the period before only (1 of its 30 days exported).
      expect((figures.comparisons[dataset].fill?.to ?? BACKFILL_PERIOD.from) <= BACKFILL_PERIOD.from, dataset).toBe(true);
    }
  });

  it('says so in the weekly digest', () => {
    const { body } = digestOf({ figures, week: '2026-05' });

    expect(body).toContain(`expired (retention) ${EXPIRED_DAYS * PERSONAL.length}`);
    expect(body).toContain(
      'Per-day figures and movers of searches, assistant, feedback leave out this period 2026-05-02 to 2026-05-12 expired (retention) (11 days);',
    );
    expect(body).not.toMatch(/missing [1-9]/);
  });

  it('writes a page that calls them expired and offers no export to fill them (the CLI, with the setting)', async () => {
    const result = await runCliInProcess(['report', '--days', '30', '--out', './data', '--file', 'expired.html'], {
      env: await cliEnv(sandbox, { PERSONAL_DATA_RETENTION_DAYS: String(RETENTION_DAYS) }),
      now: () => BACKFILL_NOW,
      extra: { cwd: lake.root },
    });

    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).not.toContain('Not complete');
    const html = await readFile(path.join(lake.root, 'expired.html'), 'utf8');
    expect(html).toContain(`expired (retention): ${EXPIRED_DAYS * PERSONAL.length}`);
    expect(html).toContain(`cover ${30 - EXPIRED_DAYS} of the 30 day(s)`);
  });
});
