/**
 * `mintlify-exporter effects`, the CLI in this process (one test runs the real bin in a child process), over a stand-in lake with planted
 * truths (test/helpers/effects-lake.ts): a fix whose rate falls 60 % with 280 signals before, one
 * with no change (280 signals) while the site's traffic rises 50 %, a true 30 % fall with 30
 * signals (inconclusive, never no_change), one completed three days ago, unchanged gaps without a
 * job as controls, and a job that failed — and the portfolio pooling each kind's completed jobs. The clock is the
 * lake's NOW (the child's through test/helpers/fixed-now.mjs).
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { GlueClient } from '@aws-sdk/client-glue';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VerdictRow } from '../../../functions/gaps/verdict-rows.js';
import type { PortfolioEntry } from '../../../functions/gaps/portfolio.js';
import { formatDay } from '../../../functions/shared/dates.js';
import { duckDbType } from '../../../functions/warehouse/duckdb.js';
import { FIX_EFFECTS } from '../../../functions/warehouse/tables.js';
import { runCliInProcess, runSpawnedCli } from '../../helpers/cli.js';
import { buildEffectsLake, DONE, EFFECTS_PROJECT, NOW, PR_LINK, RECENT, SMALL, TOPIC_TRUTH, TRUTH, type EffectsLake } from '../../helpers/effects-lake.js';
import { TEST_REGION } from '../../../scripts/lib/s3-sqs.js';
import { removeTempDirs } from '../../helpers/files.js';
import { parquetTable, startGlueStandIn } from '../../helpers/glue-stand-in.js';
import { queryDuckDb } from '../../helpers/read-back.js';

const FIXED_NOW = pathToFileURL(path.join(import.meta.dirname, '../../helpers/fixed-now.mjs')).href;

let lake: EffectsLake;

beforeAll(async () => {
  lake = await buildEffectsLake();
}, 60_000);

afterAll(async () => {
  await removeTempDirs();
});

/** `effects` over the lake at `now`, in this process; with `spawned`, the bin in a child process. */
function effects(args: readonly string[], options: { readonly now?: number; readonly spawned?: boolean } = {}) {
  const now = options.now ?? NOW;
  const argv = ['effects', '--out', lake.root, ...args];
  if (options.spawned) return runSpawnedCli(argv, { HOME: lake.root, FIXED_NOW: String(now) }, { nodeArgs: ['--import', FIXED_NOW] });
  return runCliInProcess(argv, { env: { HOME: lake.root }, now: () => now });
}

async function effectsDocument(args: readonly string[] = []): Promise<{ effects: VerdictRow[]; portfolio: PortfolioEntry[] }> {
  const { code, stdout, stderr } = await effects([...args, '--json']);
  expect(code, stderr).toBe(0);
  expect(stdout.trimEnd().split('\n')).toHaveLength(1);
  expect(stdout).not.toMatch(/NaN|Infinity/);
  return JSON.parse(stdout) as { effects: VerdictRow[]; portfolio: PortfolioEntry[] };
}

async function effectsJson(args: readonly string[] = []): Promise<VerdictRow[]> {
  return (await effectsDocument(args)).effects;
}

const byPage = (list: readonly VerdictRow[], page: string) => list.find((e) => e.gapId === lake.gapIdOf(page));
/** A key's gap id (the order of a day's jobs of one verdict). */
const byKey = (key: string) => (key.startsWith('/') ? lake.gapIdOf(key) : lake.topicGapId);

describe('effects --json over planted truths', () => {
  it('says fixed, no_change, inconclusive, too_little_data, with the sides the stand-in planted', async () => {
    const list = await effectsJson();

    // The latest completion first; a day's jobs by verdict, then by gap id.
    const fixedTwo = [
      ['/docs/fixed', 'fixed'],
      ['retry webhook', 'fixed'],
    ].sort((a, b) => (byKey(a[0] ?? '') < byKey(b[0] ?? '') ? -1 : 1));
    expect(list.map((e) => [e.key, e.verdict])).toEqual([
      ['/docs/recent', 'too_little_data'],
      ['/docs/rare', 'inconclusive'],
      ...fixedTwo,
      ['/docs/no-change', 'no_change'],
    ]);
    const fixed = byPage(list, '/docs/fixed');
    expect(fixed).toMatchObject({
      gapId: lake.gapIdOf('/docs/fixed'),
      projectId: EFFECTS_PROJECT,
      kind: 'thumbs_down_page',
      key: '/docs/fixed',
      jobId: 'job_fixed',
      prLink: PR_LINK,
      completedDay: DONE,
      verdict: 'fixed',
      before: TRUTH.fixed.before,
      after: TRUTH.fixed.after,
      control: { gaps: 6 },
    });
    expect(fixed?.control.ratio).toBeCloseTo(1, 1);
    expect(fixed?.effect.ratio).toBeCloseTo(0.4, 1);
    expect(fixed?.effect.high).toBeLessThan(1);
    expect(fixed?.reason).toMatch(/thumbs down per view fell 60 %/);
  });

  it('judges an unanswered topic by unanswered ÷ asked over the questions its key terms name', async () => {
    const topic = (await effectsJson()).find((e) => e.gapId === lake.topicGapId);

    expect(topic).toMatchObject({
      kind: 'unanswered_topic',
      key: 'retry webhook',
      verdict: 'fixed',
      before: TOPIC_TRUTH.before,
      after: TOPIC_TRUTH.after,
      control: { gaps: 4 },
    });
    expect(topic?.reason).toMatch(
      /^share of questions unanswered fell 67 % \(168 unanswered questions in 560 questions asked in the topic before, 84 in 840 after\)/,
    );
  });

  it('says no_change for a fix whose rate held while the whole site’s traffic rose 50 %, its interval inside the margin', async () => {
    const noChange = byPage(await effectsJson(), '/docs/no-change');

    expect(noChange).toMatchObject({
      verdict: 'no_change',
      before: TRUTH.noChange.before,
      after: TRUTH.noChange.after,
      control: { gaps: 6 },
      daysToVerdict: null,
    });
    expect(noChange?.effect.low).toBeGreaterThanOrEqual(0.7);
    expect(noChange?.effect.high).toBeLessThanOrEqual(1 / 0.7);
    expect(noChange?.effect.low).toBeLessThan(1);
    expect(noChange?.effect.high).toBeGreaterThan(1);
    expect(noChange?.reason).toMatch(/inside 0\.70–1\.43: if it changed at all, by less than 30 %/);
  });

  it('says inconclusive, never no_change, for a true 30 % fall with 30 signals: what it could have seen, and when it will', async () => {
    const small = byPage(await effectsJson(), '/docs/rare');

    expect(small).toMatchObject({ verdict: 'inconclusive', completedDay: SMALL, before: TRUTH.rare.before, after: TRUTH.rare.after });
    expect(small?.effect.ratio).toBeCloseTo(0.7, 1);
    expect(small?.detectable).toBeGreaterThan(0.5);
    expect(small?.daysToVerdict).toBeGreaterThan(0);
    expect(small?.daysToVerdict).toBeLessThanOrEqual(90);
    expect(small?.reason).toMatch(
      new RegExp(
        `could only have seen a fall of ${Math.round((small?.detectable ?? 0) * 100)} % or more; at this pace, a 30 % fall is visible in about ${small?.daysToVerdict} days$`,
      ),
    );
  });

  it('leads with the portfolio: each kind’s completed jobs pooled, with its verdict, interval and number of fixes', async () => {
    const { portfolio } = await effectsDocument();

    expect(portfolio.map((p) => [p.projectId, p.kind, p.fixes])).toEqual([
      [EFFECTS_PROJECT, 'thumbs_down_page', 3],
      [EFFECTS_PROJECT, 'unanswered_topic', 1],
    ]);
    const pages = portfolio[0];
    expect(pages?.effect.ratio).toBeGreaterThan(0.4);
    expect(pages?.effect.ratio).toBeLessThan(1);
    expect(pages?.reason).toMatch(/^3 fixes \(of 4; the others have no interval yet\) pooled \(random effects\)/);
    expect(portfolio[1]).toMatchObject({ verdict: 'fixed' });
  });

  it('says too_little_data with the reason in words: three whole days since', async () => {
    const list = await effectsJson();

    expect(byPage(list, '/docs/recent')).toMatchObject({
      verdict: 'too_little_data',
      completedDay: RECENT,
      before: TRUTH.recent.before,
      after: TRUTH.recent.after,
      reason: 'only 3 whole days since the job completed: a verdict needs 7',
    });
  });

  it('prints the verdicts a lead acts on first, each with its reason, and a summary line', async () => {
    const { code, stdout, stderr } = await effects([], { spawned: true });

    expect(code, stderr).toBe(0);
    const lines = stdout.trimEnd().split('\n');
    expect(lines.slice(0, 3).map((line) => line.split(/\s+/).slice(0, 4))).toEqual([
      [expect.any(String), EFFECTS_PROJECT, 'all', 'thumbs_down_page'],
      ['fixed', EFFECTS_PROJECT, 'all', 'unanswered_topic'],
      [''],
    ]);
    const jobs = lines.slice(3);
    expect(jobs.filter((_, i) => i % 2 === 0).map((line) => line.split(/\s+/).slice(0, 2))).toEqual([
      ['fixed', EFFECTS_PROJECT],
      ['fixed', EFFECTS_PROJECT],
      ['no_change', EFFECTS_PROJECT],
      ['inconclusive', EFFECTS_PROJECT],
      ['too_little_data', EFFECTS_PROJECT],
    ]);
    const fixedAt = jobs.findIndex((line) => line.includes(`thumbs_down_page /docs/fixed: job job_fixed completed ${DONE}, ${PR_LINK}`));
    expect(fixedAt % 2).toBe(0);
    expect(jobs[fixedAt + 1]?.trim()).toMatch(/^thumbs down per view fell 60 %/);
    expect(stderr.trimEnd().split('\n')).toEqual([
      `5 completed job(s) made for a gap in ${lake.root}: 2 fixed, 1 no_change, 1 inconclusive, 1 too_little_data`,
    ]);
  });

  it('gives a job that did not complete no verdict', async () => {
    expect(byPage(await effectsJson(), '/docs/unfinished')).toBeUndefined();
  });

  it('keeps the jobs completed in --from/--to, and --project', async () => {
    expect((await effectsJson(['--from', RECENT, '--to', formatDay(NOW)])).map((e) => e.key)).toEqual(['/docs/recent']);
    expect((await effectsJson(['--days', '5', '--project', EFFECTS_PROJECT])).map((e) => e.key)).toEqual(['/docs/recent']);
    expect((await effects(['--days', '3'])).code).toBe(1);
  });

  it('exits 1 with one line when no job made for a gap completed in the days asked', async () => {
    const { code, stdout, stderr } = await effects(['--project', 'proj_medium']);

    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr.trimEnd().split('\n')).toEqual([expect.stringMatching(/^No effects: no job made for a gap for proj_medium has completed: write prompts/)]);
  });

  it('exits 2 for --from after --to, before any work', async () => {
    const { code, stderr } = await effects(['--from', DONE, '--to', '2026-03-01']);

    expect(code).toBe(2);
    expect(stderr).toMatch(/--from 2026-03-20 is after --to 2026-03-01/);
  });
});

describe('effects --save', () => {
  it('writes the verdicts into fix_effects, one JSON line each, that DuckDB reads back', async () => {
    const { code, stderr } = await effects(['--save']);
    expect(code, stderr).toBe(0);

    const file = path.join(lake.root, 'fix_effects', `dt=${formatDay(NOW)}`, `${EFFECTS_PROJECT}.json`);
    expect((await readFile(file, 'utf8')).trimEnd().split('\n')).toHaveLength(5);
    const rows = await queryDuckDb(
      `SELECT key, verdict, before_signals, before_exposure, after_signals, control_gaps FROM read_json('${file}', format = 'newline_delimited') ORDER BY key`,
    );
    expect(rows.map((r) => [r['key'], r['verdict'], Number(r['before_signals']), Number(r['before_exposure'])])).toEqual([
      ['/docs/fixed', 'fixed', 280, 11200],
      ['/docs/no-change', 'no_change', 280, 14000],
      ['/docs/rare', 'inconclusive', 30, 1500],
      ['/docs/recent', 'too_little_data', 18, 900],
      ['retry webhook', 'fixed', 168, 560],
    ]);
    // Every column holds values of its declared type (the one type map; Glue's comes from the same definition): read with those types, nothing is lost.
    const columns = FIX_EFFECTS.columns.map((c) => `'${c.name}': '${duckDbType(c)}'`).join(', ');
    const typed = await queryDuckDb(
      `SELECT count(*) AS n, count(judged_at) AS judged, count(effect_ratio) AS effects FROM read_json('${file}', format = 'newline_delimited', columns = {${columns}})`,
    );
    expect(typed.map((r) => [Number(r['n']), Number(r['judged']), Number(r['effects'])])).toEqual([[5, 5, 4]]);
  });

  it('with EXPORT_GLUE_DATABASE registers the day it wrote in fix_effects, in the same run (issue 53)', async () => {
    const database = 'mintlify_analytics';
    const glue = await startGlueStandIn(database, { fix_effects: parquetTable('s3://lake/mintlify/fix_effects/') });
    try {
      const client = new GlueClient({ endpoint: glue.endpoint, region: TEST_REGION, credentials: { accessKeyId: 'test', secretAccessKey: 'test' } });
      const { code, stderr } = await runCliInProcess(['effects', '--out', lake.root, '--save'], {
        env: { HOME: lake.root, EXPORT_GLUE_DATABASE: database },
        now: () => NOW,
        extra: { clients: { glue: client } },
      });

      expect(code, stderr).toBe(0);
      expect([...glue.partitions(database, 'fix_effects').keys()]).toEqual([formatDay(NOW)]);
    } finally {
      await glue.close();
    }
  });
});
