/**
 * `plan` tells you whether your projects fit, backfills included (issue 15): a unit is
 * estimated from the nearest exported day of its dataset and project, however far from the
 * range; else from another project's (a guess, said so); and a run refreshes its estimates —
 * the requests still to go and the time the budget needs — as units finish.
 *
 * The CLI runs in process against the API sandbox on 127.0.0.1, with a fixed clock.
 */
import { cp, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../../sandbox/index.js';
import { makeTempDir, removeTempDirs } from '../../helpers/files.js';
import { analyticsRequests } from '../../helpers/request-log.js';
import { runCliInProcess } from '../../helpers/cli.js';
import { cliEnv } from '../../helpers/env.js';

/** Late November: the backfill below is three weeks back, the known day eight. */
const NOW = Date.parse('2026-11-23T10:00:00.000Z');
const KNOWN_DAY = '2026-10-01';

let sandbox: Sandbox;
let out: string;
let env: Record<string, string>;
/** Pages of the known day, by dataset. */
const knownPages: Record<string, number> = {};

interface PlanJson {
  readonly units: { dataset: string; projectId: string; date: string; estimate: number; estimateFrom?: { projectId: string; date: string }; guess?: true }[];
  readonly requests: number;
}

beforeAll(async () => {
  sandbox = await startSandbox();
  out = await makeTempDir('estimates');
  env = await cliEnv(sandbox, { ANALYTICS_BUDGET: '100000/1h' });
  const run = await cli(['export', '--date', KNOWN_DAY, '--project', 'proj_large', '--dataset', 'visitors', '--dataset', 'searches', '--out', out, '--json']);
  expect(run.code, run.stderr).toBe(0);
  for (const unit of (JSON.parse(run.stdout) as { units: { dataset: string; pages: number }[] }).units) knownPages[unit.dataset] = unit.pages;
  expect(knownPages['visitors']).toBeGreaterThan(10);
  sandbox.clearRequests();
}, 120_000);

afterAll(async () => {
  await sandbox?.close();
  await removeTempDirs();
});

function cli(argv: readonly string[], destination = out) {
  return runCliInProcess([...argv, '--out', destination], { env, now: () => NOW });
}

describe('plan estimates a backfill from the nearest known day', () => {
  const week = ['--from', '2026-11-01', '--to', '2026-11-03', '--dataset', 'visitors', '--dataset', 'searches'];

  it('estimates each unit from the same dataset and project, weeks away, and says from which day', async () => {
    const { code, stdout } = await cli(['plan', ...week, '--project', 'proj_large', '--json']);

    expect(code).toBe(0);
    const plan = JSON.parse(stdout) as PlanJson;
    expect(plan.units).toHaveLength(4);
    for (const unit of plan.units) {
      expect(unit).toMatchObject({ projectId: 'proj_large', estimate: knownPages[unit.dataset], estimateFrom: { projectId: 'proj_large', date: KNOWN_DAY } });
      expect(unit.guess).toBeUndefined();
    }
    expect(sandbox.requests).toEqual([]);
  });

  it('the estimate holds: the export of the range costs about what plan said', async () => {
    const range = ['--from', '2026-11-01', '--to', '2026-11-03', '--dataset', 'visitors', '--project', 'proj_large'];
    const planned = JSON.parse((await cli(['plan', ...range, '--json'])).stdout) as PlanJson;
    const dest = await makeTempDir('estimates-copy');
    // The known day's export (its manifests) in a second destination, so the export below leaves
    // `out` as it is: a copy of `out` (exporting the day again into it took seconds).
    await cp(out, dest, { recursive: true });
    sandbox.clearRequests();

    const run = await cli(['export', ...range], dest);

    expect(run.code, run.stderr).toBe(0);
    const spent = analyticsRequests(sandbox.requests).length;
    expect(planned.requests).toBe(2 * (knownPages['visitors'] as number));
    expect(planned.requests).toBeGreaterThan(spent * 0.8);
    expect(planned.requests).toBeLessThan(spent * 1.25);
  }, 120_000);

  it('estimates a project with nothing exported from another project, and says it is a guess', async () => {
    const [json, text] = await Promise.all([cli(['plan', ...week, '--project', 'proj_medium', '--json']), cli(['plan', ...week, '--project', 'proj_medium'])]);

    const plan = JSON.parse(json.stdout) as PlanJson;
    for (const unit of plan.units) {
      expect(unit).toMatchObject({
        projectId: 'proj_medium',
        estimate: knownPages[unit.dataset],
        estimateFrom: { projectId: 'proj_large', date: KNOWN_DAY },
        guess: true,
      });
    }
    expect(text.stdout).toContain(`~${knownPages['visitors']} request(s) (a guess: from proj_large ${KNOWN_DAY})`);
    expect(text.stdout).toContain('4 estimate(s) are guesses (no day of that dataset and project exported yet)');
  });

  it("with nothing of a dataset exported anywhere, the estimate is the dataset's typical day, a guess said so everywhere", async () => {
    const { stdout } = await cli(['plan', ...week, '--project', 'proj_large', '--dataset', 'views']);

    // views: a typical day of 2,000 paths, 250 a page — not 1 request a unit.
    expect(stdout).toMatch(/views\s+~8 request\(s\) \(a guess: the dataset's typical day, nothing of it exported yet\)/);
    const known = 2 * ((knownPages['visitors'] as number) + (knownPages['searches'] as number));
    expect(stdout).toContain(`6 unit(s), about ${known + 2 * 8} request(s) (a guess for 2 unit(s) at their dataset's typical day, nothing of it exported yet)`);
    expect(stdout).not.toMatch(/up to|at least/);
  });

  it("status of a new project's 90 days counts each unit at its dataset's typical day: about, a guess, and the budget's time a guess too", async () => {
    const fresh = await makeTempDir('estimates-new');
    const paced = { ...env, ANALYTICS_BUDGET: '90/1h', EXPORT_STATE_DIR: await makeTempDir('estimates-new-state') };

    const [text, json] = await Promise.all(
      [[], ['--json']].map((extra) =>
        runCliInProcess(['status', '--days', '90', '--project', 'proj_new', ...extra, '--out', fresh], { env: paced, now: () => NOW }),
      ),
    );

    expect(text?.code, text?.stderr).toBe(0);
    const todo = (JSON.parse(json?.stdout ?? '') as { todo: { units: number; requests: number; typical: number; floors: number; budgetMs: number } }).todo;
    expect(todo).toMatchObject({ units: 630, typical: 630, floors: 0 });
    // A typical day of every dataset, not 630 requests (1 a unit): the issue measured 20,867 for such 90 days.
    expect(todo.requests).toBeGreaterThan(630 * 3);
    expect(text?.stdout).toContain(
      `630 to do, about ${todo.requests} request(s) (a guess for 630 unit(s) at their dataset's typical day, nothing of it exported yet): the budget needs about `,
    );
    // 90 requests an hour: a whole day, not the 6 h of 630 requests.
    expect(todo.budgetMs).toBeGreaterThan(20 * 3_600_000);
    expect(text?.stdout).toMatch(/the budget needs about \d+ h \d+ min \(a guess\)\./);
    expect(text?.stdout).not.toMatch(/up to|at least/);
  });
});

describe('the embedded sandbox is not paced in any estimate', () => {
  it('plan without MINTLIFY_API_KEY (and without ANALYTICS_BUDGET) says the budget needs no wait, however many requests', async () => {
    const month = ['--from', '2026-10-02', '--to', '2026-11-01', '--project', 'proj_large', '--dataset', 'visitors'];

    const { code, stdout } = await runCliInProcess(['plan', ...month, '--out', out], {
      env: { EXPORT_STATE_DIR: await makeTempDir('estimates-unpaced') },
      now: () => NOW,
    });

    expect(code).toBe(0);
    expect(stdout).toContain(`Plan for ${out}: 30 unit(s), about ${30 * (knownPages['visitors'] as number)} request(s)`);
    expect(stdout).toContain('The budget needs no wait (the embedded sandbox is not paced; set ANALYTICS_BUDGET to pace it) for these requests.');
  });

  it('status without MINTLIFY_API_KEY says the same', async () => {
    const { code, stdout } = await runCliInProcess(
      ['status', '--from', '2026-10-02', '--to', '2026-11-01', '--project', 'proj_large', '--dataset', 'visitors', '--out', out],
      {
        env: { EXPORT_STATE_DIR: await makeTempDir('estimates-unpaced') },
        now: () => NOW,
      },
    );

    expect(code).toBe(0);
    expect(stdout).toMatch(
      /30 to do, about \d+ request\(s\): the budget needs no wait \(the embedded sandbox is not paced; set ANALYTICS_BUDGET to pace it\)\./,
    );
  });
});

describe('a run refreshes its estimates as units finish', () => {
  it('the progress line says the requests still to go and the time the budget needs, from the pages of the units done', async () => {
    const dest = await makeTempDir('estimates-run');

    const { code, stderr } = await runCliInProcess(
      ['export', '--from', '2026-11-01', '--to', '2026-11-04', '--project', 'proj_medium', '--dataset', 'visitors', '--out', dest],
      { env: { ...env, ANALYTICS_BUDGET: '100000/1h' }, now: () => NOW },
    );

    expect(code, stderr).toBe(0);
    const starts = stderr.split('\n').filter((line) => /^\[\d\/3\] exporting/.test(line));
    const firstPages = await pagesOf(dest, 'visitors', '2026-11-01', 'proj_medium');
    expect(firstPages).toBeGreaterThan(1);
    expect(stderr).toContain(
      "Plan: 3 unit(s), about 24 request(s) (a guess for 3 unit(s) at their dataset's typical day, nothing of it exported yet); refreshed as units finish; budget 100000/1h",
    );
    expect(starts).toEqual([
      // Nothing known: each unit a typical day of visitors (8 pages), a guess.
      '[1/3] exporting visitors proj_medium 2026-11-01 (~24 request(s) to go (a guess for 3 unit(s)), no wait for budget)',
      // The first day took `firstPages`: the two days left are expected to take as many each.
      `[2/3] exporting visitors proj_medium 2026-11-02 (~${2 * firstPages} request(s) to go, no wait for budget)`,
      `[3/3] exporting visitors proj_medium 2026-11-03 (~${firstPages} request(s) to go, no wait for budget)`,
    ]);
  });

  it('under a small budget, says how long the budget needs for what is left', async () => {
    const dest = await makeTempDir('estimates-budget');
    // 2026-11-01 known (2 pages), then 2026-11-02 under a budget of 1 request per hour with a
    // ledger of its own: the second page must wait for the next window.
    const first = await runCliInProcess(['export', '--date', '2026-11-01', '--project', 'proj_small', '--dataset', 'visitors', '--out', dest], {
      env,
      now: () => NOW,
    });
    expect(first.code).toBe(0);
    let stop = (): void => undefined;
    const stopSignal = new Promise<void>((resolve) => (stop = resolve));

    const { code, stderr } = await runCliInProcess(['export', '--date', '2026-11-02', '--project', 'proj_small', '--dataset', 'visitors', '--out', dest], {
      env: { ...env, ANALYTICS_BUDGET: '1/1h', EXPORT_STATE_DIR: await makeTempDir('estimates-budget-state') },
      now: () => NOW,
      stopSignal,
      // The wait for the next window: the user stops the run instead.
      sleep: (_ms, signal) => {
        stop();
        return new Promise((_, reject) => signal?.addEventListener('abort', () => reject(signal.reason)));
      },
    });

    expect(code).toBe(130);
    expect(stderr).toMatch(/^\[1\/1\] exporting visitors proj_small 2026-11-02 \(~2 request\(s\) to go, the budget needs ~1 h 00 min\)$/m);
  });
});

/** Pages of a unit's manifest in a local destination. */
async function pagesOf(dest: string, dataset: string, day: string, projectId: string): Promise<number> {
  return (JSON.parse(await readFile(path.join(dest, '_manifests', dataset, `dt=${day}`, `${projectId}.json`), 'utf8')) as { pages: number }).pages;
}
