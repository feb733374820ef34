/**
 * Comparable periods only (issue 41): the first 30-day report after a one-month backfill — 30
 * days exported and the last day before them — compares nothing as totals: no change of 100 %
 * or more, no colour, no `new`, no mover drawn from the one day before; the headline per day,
 * marked so, with a sentence naming the export that fills the period before. With both periods
 * complete the same lake compares totals as it always did.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { changeBeyondChance, type Figures } from '../../../functions/report/figures.js';
import { beyondChance } from '../../../functions/warehouse/noise.js';
import { FIGURE_MEANINGS } from '../../../functions/warehouse/figure-names.js';
import { readFiguresIn } from '../../helpers/read-figures.js';
import { periodOf } from '../../../functions/warehouse/period.js';
import type { Sandbox } from '../../../sandbox/index.js';
import {
  BACKFILL_DAY_BEFORE,
  BACKFILL_NOW,
  BACKFILL_PERIOD,
  BACKFILL_PREVIOUS,
  BACKFILL_PROJECT,
  buildBackfillLake,
  startBackfillSandbox,
} from '../../helpers/backfill-lake.js';
import { runCliInProcess } from '../../helpers/cli.js';
import { cliEnv } from '../../helpers/env.js';
import { removeTempDirs } from '../../helpers/files.js';

let lake: { readonly root: string; readonly out: string };
let sandbox: Sandbox;

beforeAll(async () => {
  lake = await buildBackfillLake();
  sandbox = await startBackfillSandbox();
});

afterAll(async () => {
  await sandbox?.close();
  await removeTempDirs();
});

/** The page of `report --days N` at the lake's clock. */
async function reportPage(days: number): Promise<string> {
  const file = `report-${days}.html`;
  const result = await runCliInProcess(['report', '--days', String(days), '--out', './data', '--file', file], {
    env: await cliEnv(sandbox),
    now: () => BACKFILL_NOW,
    extra: { cwd: lake.root },
  });
  expect(result.code, result.stderr).toBe(0);
  return readFile(path.join(lake.root, file), 'utf8');
}

/** Every signed percentage on the page (a change): `+3994.5 %` → 3994.5. */
const signedPercents = (html: string) => [...html.matchAll(/[+−]([\d,]+(?:\.\d+)?) %/g)].map((m) => Number((m[1] as string).replaceAll(',', '')));
const deltas = (html: string) =>
  [...html.matchAll(/<div class="delta ([^"]*)" data-comparison="([^"]*)">([^<]*)<\/div>/g)].map((m) => ({ classes: m[1], comparison: m[2], text: m[3] }));
const noMovers = { new: [], lapsed: [], risers: [], fallers: [] };

describe('a 30-day report after a backfill of 30 days and the last day before', () => {
  let html: string;
  let figures: Figures;

  beforeAll(async () => {
    html = await reportPage(30);
    figures = await readFiguresIn(lake.out, { period: periodOf(BACKFILL_PERIOD.from, BACKFILL_PERIOD.to), projects: [] });
  });

  it('reads the period before as 1 of its 30 days exported, the period as all 30', () => {
    expect(figures.previous).toMatchObject(BACKFILL_PREVIOUS);
    for (const dataset of ['visitors', 'views', 'searches', 'assistant', 'feedback'] as const) {
      expect(figures.comparisons[dataset], dataset).toMatchObject({
        comparison: 'per-day',
        current: { exported: 30, days: 30 },
        previous: { exported: 1, days: 30 },
      });
    }
  });

  it('shows no change of 100 % or more, no colour and no `new`', () => {
    const percents = signedPercents(html);
    expect(percents.length).toBeGreaterThan(0);
    expect(Math.max(...percents)).toBeLessThan(100);
    expect(html).not.toMatch(/class="tag new/);
    expect(html).not.toMatch(/class="delta (good|bad)/);
    expect(html).not.toMatch(/data-tone="(good|bad)"/);
  });

  it('draws no mover from the one day before, and leaves every ranking’s change blank', () => {
    expect(figures.movers).toEqual({ pages: noMovers, searches: noMovers, categories: noMovers, thumbsDown: noMovers });
    expect(html).not.toContain('class="movers"');
    for (const ranked of [figures.topPages, figures.unclickedSearches, figures.unansweredByCategory, figures.thumbsDownPages]) {
      expect(ranked.length).toBeGreaterThan(0);
      expect(ranked.every((row) => row.previous === null)).toBe(true);
    }
  });

  it('compares the headline per day, marked so, over the days each period has', () => {
    const counts = deltas(html).filter((d) => d.text?.startsWith('per day:'));
    expect(counts.length).toBe(6);
    expect(deltas(html).every((d) => d.comparison === 'per-day' && d.classes === 'flat per-day')).toBe(true);
    const { current, previous } = figures.headline;
    // Steady traffic: a day of the period against the day before is well within a doubling, not 30-fold.
    expect(current.perDay.human).toBeCloseTo(current.human / 30, 6);
    expect(previous.perDay.human).toBe(previous.human);
    expect(Math.abs((current.perDay.human as number) / (previous.perDay.human as number) - 1)).toBeLessThan(0.5);
  });

  it('says why in a sentence, and which export fills the period before', () => {
    const command = `mintlify-exporter export --from ${BACKFILL_PREVIOUS.from} --to ${BACKFILL_DAY_BEFORE} --project ${BACKFILL_PROJECT} --out ./data`;
    const notes = [...html.matchAll(/<span data-comparison="per-day">(.*?)<\/span>/g)].map((m) => m[1] as string);
    // The headline's (every dataset at once) and one in each ranking's section.
    expect(notes).toHaveLength(5);
    for (const note of notes) {
      expect(note).toContain('compared per day, not as totals');
      expect(note).toContain(`the 30 day(s) before it (${BACKFILL_PREVIOUS.from} to ${BACKFILL_DAY_BEFORE}) have 1 of 30`);
      expect(note).toContain('at least 80 %');
      expect(note).toContain(`<code>${command}</code> fills the missing days.`);
    }
  });
});

describe('a report of the same lake whose periods are both complete', () => {
  it('compares totals as always: changes (coloured only beyond chance), changes in the rankings, movers beyond chance, and no sentence about coverage', async () => {
    const html = await reportPage(15);
    const figures = await readFiguresIn(lake.out, { period: periodOf('2026-05-17', BACKFILL_PERIOD.to), projects: [] });

    expect(Object.values(figures.comparisons).every((c) => c.comparison === 'totals')).toBe(true);
    expect(deltas(html)).toHaveLength(8);
    expect(deltas(html).every((d) => d.comparison === 'totals' && !d.classes?.includes('per-day'))).toBe(true);
    // A steady project's 15 days against 15: coloured only where a change is beyond chance at its counts (warehouse/noise.ts).
    const { current, previous } = figures.headline;
    for (const d of deltas(html)) expect(d.classes).toMatch(/^(good|bad|flat)$/);
    expect(deltas(html).filter((d) => d.classes !== 'flat')).toHaveLength(
      (['human', 'ai', 'aiShare', 'views', 'searches', 'questions', 'unansweredShare', 'thumbsDown'] as const).filter(
        (key) => changeBeyondChance(current, previous, key) && current[key] !== previous[key] && FIGURE_MEANINGS[key] !== 'neutral',
      ).length,
    );
    expect(html).not.toContain('data-comparison="per-day"');
    expect(figures.topPages.every((page) => page.previous !== null)).toBe(true);
    expect(html).toMatch(/id="top-pages">[\s\S]*data-tone=/);
    for (const movers of Object.values(figures.movers)) {
      for (const m of [...movers.new, ...movers.lapsed, ...movers.risers, ...movers.fallers])
        expect(beyondChance(m.current, m.previous, m.days), m.key).toBe(true);
    }
  });
});
