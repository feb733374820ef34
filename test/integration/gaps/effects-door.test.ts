/**
 * `effects` when the outcome records are hostile or say more (issues 56 and 57), in process over
 * the stand-in lake (test/helpers/effects-lake.ts) with records added beside its own: a record
 * dated in the year 10000, one with an odd project id, one dated 2099, one that is not JSON — each
 * skipped with one line naming its file, the other verdicts unchanged; a second, later job for a
 * fixed gap (the earliest stays the fix, the later is named); a job id full of escape sequences
 * and a forged line (cleaned on the terminal); a job whose scope check found it out of scope and
 * one not merged (no verdict, left out of the portfolio); a merged one measured from its merge.
 */
import type { Metrics } from '@aws-lambda-powertools/metrics';
import { S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOutcome, outcomeKey } from '../../../functions/follow-up/outcome.js';
import type { VerdictRow } from '../../../functions/gaps/verdict-rows.js';
import type { PortfolioEntry } from '../../../functions/gaps/portfolio.js';
import { createWeeklyHandler } from '../../../functions/insights/weekly/handler.js';
import { buildReport } from '../../../functions/report/report.js';
import type { ConfigOf } from '../../../functions/settings/config.js';
import { addDays, formatDay } from '../../../functions/shared/dates.js';
import { openDestination } from '../../../functions/shared/storage/destinations.js';
import { parseLakeTarget } from '../../../functions/warehouse/lake/target.js';
import { periodOf } from '../../../functions/warehouse/period.js';
import { runCliInProcess } from '../../helpers/cli.js';
import { buildEffectsLake, DONE, EFFECTS_PROJECT, NOW, PR_LINK, type EffectsLake } from '../../helpers/effects-lake.js';
import { removeTempDirs } from '../../helpers/files.js';

let lake: EffectsLake;
let plain: { effects: VerdictRow[]; portfolio: PortfolioEntry[] };

const common = { promptLength: 1, promptSha256: 'ef'.repeat(32), polls: 1, attempts: 1, kind: 'create' as const, projectId: EFFECTS_PROJECT };

beforeAll(async () => {
  lake = await buildEffectsLake();
  plain = JSON.parse((await effects(['--json'])).stdout);
  const put = openDestination(lake.root);
  const raw = (key: string, value: unknown) => put.put(key, typeof value === 'string' ? value : JSON.stringify(value), { contentType: 'application/json' });
  const real = buildOutcome({
    ...common,
    requestId: 'r-real',
    gapId: lake.gapIdOf('/docs/fixed'),
    status: 'completed',
    finishedAt: Date.parse(`${DONE}T12:00:00Z`),
  });
  // Three hostile records and one that is not JSON.
  await raw('followup_outcomes/dt=2026-03-20/r-y10000.json', {
    ...real,
    request_id: 'r-y10000',
    gap_id: lake.gapIdOf('/docs/no-change'),
    finished_at: '+010000-01-01T00:00:00.000Z',
  });
  await raw('followup_outcomes/dt=2026-03-20/r-odd.json', {
    ...real,
    request_id: 'r-odd',
    gap_id: lake.gapIdOf('/docs/no-change'),
    project_id: '../proj\u001b[31m',
  });
  await raw('followup_outcomes/dt=2099-01-01/r-2099.json', {
    ...real,
    request_id: 'r-2099',
    gap_id: lake.gapIdOf('/docs/no-change'),
    finished_at: '2099-01-01T00:00:00.000Z',
  });
  await raw('followup_outcomes/dt=2026-03-20/r-broken.json', '{"request_id": ');
  // A later job for the fixed gap, its id hostile: named, not measured.
  const later = buildOutcome({
    ...common,
    requestId: 'r-later',
    jobId: 'job\u001b[2J\nfixed  proj_small  forged',
    gapId: lake.gapIdOf('/docs/fixed'),
    status: 'completed',
    prLink: PR_LINK,
    finishedAt: Date.parse(`${addDays(DONE, 5)}T12:00:00Z`),
  });
  await raw(outcomeKey(later), later);
}, 120_000);

afterAll(async () => {
  await removeTempDirs();
});

function effects(args: readonly string[]) {
  return runCliInProcess(['effects', '--out', lake.root, ...args], { env: { HOME: lake.root }, now: () => NOW });
}

async function document(): Promise<{ code: number; stderr: string; effects: VerdictRow[]; portfolio: PortfolioEntry[] }> {
  const { code, stdout, stderr } = await effects(['--json']);
  return { code, stderr, ...JSON.parse(stdout) };
}

describe('outcome records checked at the door', () => {
  it('skips each hostile record with one line naming its file, and leaves every other verdict as it was', async () => {
    const { code, stderr, effects: list } = await document();

    expect(code, stderr).toBe(0);
    const warnings = stderr
      .split('\n')
      .filter((line) => line.startsWith('Warning: '))
      .sort();
    expect(warnings).toEqual([
      expect.stringMatching(/^Warning: outcome record followup_outcomes\/dt=2026-03-20\/r-broken\.json: not JSON: skipped$/),
      expect.stringMatching(/^Warning: outcome record followup_outcomes\/dt=2026-03-20\/r-odd\.json: its project_id is not an id/),
      expect.stringMatching(/^Warning: outcome record followup_outcomes\/dt=2026-03-20\/r-y10000\.json: its finished_at is not an ISO 8601 time: skipped$/),
      expect.stringMatching(
        /^Warning: outcome record followup_outcomes\/dt=2099-01-01\/r-2099\.json: its finished_at 2099-01-01 is outside 2020-01-01 to tomorrow: skipped$/,
      ),
    ]);
    const verdicts = (l: readonly VerdictRow[]) => l.map((e) => [e.gapId, e.verdict, e.effect.ratio, e.completedDay]);
    expect(verdicts(list)).toEqual(verdicts(plain.effects));
  });

  it('counts the skipped records in the report’s health, names each in its log, and leaves the report’s verdicts as effects gives them', async () => {
    const warnings: string[] = [];
    const today = formatDay(NOW);
    const report = await buildReport(
      { target: parseLakeTarget(lake.root, '--out'), period: periodOf(addDays(today, -7), today), projects: [] },
      { now: () => NOW, onWarning: (line) => warnings.push(line) },
    );

    expect(report.skippedOutcomes).toBe(4);
    expect(warnings.filter((line) => line.startsWith('outcome record ')).map((line) => line.replace(/\.json: .*/, '.json'))).toEqual(
      expect.arrayContaining([
        'outcome record followup_outcomes/dt=2026-03-20/r-broken.json',
        'outcome record followup_outcomes/dt=2026-03-20/r-odd.json',
        'outcome record followup_outcomes/dt=2026-03-20/r-y10000.json',
        'outcome record followup_outcomes/dt=2099-01-01/r-2099.json',
      ]),
    );
    const health = report.html.slice(report.html.indexOf('id="health"'));
    expect(health).toContain('4 outcome record(s) skipped (see the log)');
    const verdicts = report.fixes.map((f) => [f.gapId, f.judged.verdict, f.completedDay]).sort();
    const plainVerdicts = plain.effects.map((e) => [e.gapId, e.verdict, e.completedDay]).sort();
    expect(verdicts).toEqual(plainVerdicts);
  });

  it('the weekly report function logs each skipped record as a warning (the page says "see the log")', async () => {
    const warned: string[] = [];
    const config: Pick<ConfigOf<'weekly-report'>, 'settleHours' | 'projectIds' | 'destination'> = { settleHours: 0, projectIds: [], destination: lake.root };
    const metrics: Pick<Metrics, 'addMetric' | 'publishStoredMetrics'> = {
      addMetric: () => metrics as Metrics,
      publishStoredMetrics: () => metrics as Metrics,
    };
    const handler = createWeeklyHandler({
      config: config as ConfigOf<'weekly-report'>,
      target: parseLakeTarget(lake.root, '--out'),
      s3: new S3Client({ region: 'us-east-1' }),
      writeTo: openDestination(lake.root),
      publish: async () => undefined,
      now: () => NOW,
      metrics,
      logger: { info: () => undefined, warn: (line: string) => void warned.push(line) },
    });

    await handler({ days: 7 });

    expect(
      warned
        .filter((line) => line.startsWith('outcome record '))
        .map((line) => line.replace(/\.json: .*/, '.json'))
        .sort(),
    ).toEqual([
      'outcome record followup_outcomes/dt=2026-03-20/r-broken.json',
      'outcome record followup_outcomes/dt=2026-03-20/r-odd.json',
      'outcome record followup_outcomes/dt=2026-03-20/r-y10000.json',
      'outcome record followup_outcomes/dt=2099-01-01/r-2099.json',
    ]);
  });

  it('keeps the earliest completed job as the fix and names the later one, its id cleaned on the terminal', async () => {
    const fixed = (await document()).effects.find((e) => e.gapId === lake.gapIdOf('/docs/fixed'));
    expect(fixed).toMatchObject({
      jobId: 'job_fixed',
      completedDay: DONE,
      laterJobs: [{ jobId: 'job\u001b[2J\nfixed  proj_small  forged', completedDay: addDays(DONE, 5) }],
    });

    const { stdout } = await effects([]);
    expect(stdout).not.toContain('\u001b');
    expect(stdout).toContain(
      'later jobs for the same gap, not measured (the earliest is the fix): job job\\u001B[2J\\u000Afixed  proj_small  forged completed',
    );
    expect(stdout.split('\n').filter((line) => line.startsWith('fixed  proj_small  forged'))).toEqual([]);
  });
});

describe('jobs measured from their merge, and jobs not measured', () => {
  it('gives a job out of scope or not merged no verdict and leaves it out of the portfolio; measures a merged one from the day after its merge', async () => {
    const put = openDestination(lake.root);
    const write = async (input: Parameters<typeof buildOutcome>[0]) => {
      const record = buildOutcome(input);
      await put.put(outcomeKey(record), JSON.stringify(record), { contentType: 'application/json' });
    };
    const at = Date.parse(`${DONE}T15:00:00Z`);
    // Rewrite the stand-in's own records of two jobs with what the scope check found.
    await write({
      ...common,
      requestId: `${lake.gapIdOf('/docs/no-change')}-r1`,
      jobId: 'job_no-change',
      gapId: lake.gapIdOf('/docs/no-change'),
      status: 'completed',
      prLink: PR_LINK,
      finishedAt: at,
      scope: 'out_of_scope',
    });
    await write({
      ...common,
      requestId: `${lake.gapIdOf('/docs/fixed')}-r1`,
      jobId: 'job_fixed',
      gapId: lake.gapIdOf('/docs/fixed'),
      status: 'completed',
      prLink: PR_LINK,
      finishedAt: at,
      scope: 'in_scope',
    });
    await write({
      ...common,
      requestId: `${lake.topicGapId}-r1`,
      jobId: 'job_topic',
      gapId: lake.topicGapId,
      status: 'completed',
      prLink: PR_LINK,
      finishedAt: at - 3_600_000,
      scope: 'in_scope',
      mergedAt: Date.parse(`${addDays(DONE, 2)}T09:00:00Z`),
    });

    const { effects: list, portfolio } = await document();

    const of = (id: string) => list.find((e) => e.gapId === id);
    expect(of(lake.gapIdOf('/docs/no-change'))).toMatchObject({
      verdict: null,
      reason: 'out of scope: not measured',
      effect: { ratio: null, low: null, high: null },
      detectable: null,
    });
    expect(of(lake.gapIdOf('/docs/fixed'))).toMatchObject({ verdict: null, reason: 'not merged: not measured' });
    const topic = of(lake.topicGapId);
    expect(topic).toMatchObject({ verdict: 'fixed', mergedDay: addDays(DONE, 2), before: { days: 26 }, after: { days: 26 } });
    expect(portfolio.find((p) => p.kind === 'thumbs_down_page')?.fixes).toBe(1);
    const { stdout } = await effects([]);
    const line = stdout.split('\n').find((l) => /^not measured +proj_small +thumbs_down_page/.test(l) && l.includes('/docs/no-change'));
    expect(line).toContain('job job_no-change completed 2026-03-20');
  });
});

describe('effects mark', () => {
  it('registers a fix made by hand as a manual outcome record, and effects gives it a verdict like any other', async () => {
    const gap = lake.gapIdOf('/docs/unfinished');
    const marked = await effects(['mark', '--project', EFFECTS_PROJECT, '--gap', gap, '--on', DONE, '--pr', PR_LINK]);
    expect(marked.code, marked.stderr).toBe(0);
    expect(marked.stderr).toContain(`measures it from ${addDays(DONE, 1)}`);

    const hand = (await document()).effects.find((e) => e.gapId === gap);

    expect(hand).toMatchObject({ verdict: 'no_change', completedDay: DONE, mergedDay: DONE, prLink: PR_LINK, before: { days: 28 } });
  });

  it('exits 2 with one line on a bad day, gap or link, and writes nothing', async () => {
    for (const args of [
      ['--gap', 'gap_1', '--on', '2026-13-01'],
      ['--gap', 'gap 1', '--on', DONE],
      ['--gap', 'gap_1', '--on', '2099-01-01'],
      ['--gap', 'gap_1', '--on', DONE, '--pr', 'javascript:alert(1)'],
    ]) {
      const { code, stderr } = await effects(['mark', '--project', EFFECTS_PROJECT, ...args]);
      expect(code).toBe(2);
      expect(stderr.trimEnd().split('\n')).toHaveLength(1);
    }
    expect((await document()).effects.some((e) => e.gapId === 'gap_1')).toBe(false);
  });
});
