/**
 * Settled days (issue 37): a day is due EXPORT_SETTLE_HOURS after it ends. `export` with no day
 * exports the latest due day; an explicitly asked day that is not due yet is exported
 * `provisional` — so shown by `status` — and exported again, without `--force`, once it is due.
 * The CLI runs in process against the sandbox on a fixed clock, with EXPORT_SETTLE_HOURS=48.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../../../sandbox/index.js';
import { runCliInProcess } from '../../../helpers/cli.js';
import { HOUR_MS } from '../../../helpers/clock.js';
import { cliEnv } from '../../../helpers/env.js';
import { makeTempDir, removeTempDirs } from '../../../helpers/files.js';
import { analyticsRequests } from '../../../helpers/request-log.js';

const DAY_MS = 24 * HOUR_MS;
const PROJECT = 'proj_synth_600';
/** 06:00 UTC on 2026-10-09: with 48 settle hours the latest due day is 2026-10-06. */
const NOW = Date.parse('2026-10-09T06:00:00.000Z');
const YESTERDAY = '2026-10-08';
const LATEST_DUE = '2026-10-06';

let sandbox: Sandbox;
let env: Record<string, string>;
let out: string;

beforeAll(async () => {
  sandbox = await startSandbox();
  env = await cliEnv(sandbox, { EXPORT_SETTLE_HOURS: '48', EXPORT_DATASETS: 'searches', API_TIMEOUT_MS: '5000', ANALYTICS_BUDGET: '100000/1h' });
  out = await makeTempDir('settled');
});

afterAll(async () => {
  await sandbox?.close();
  await removeTempDirs();
});

async function cli(argv: readonly string[], now = NOW) {
  sandbox.clearRequests();
  const result = await runCliInProcess([...argv, '--project', PROJECT, '--out', out], { env, now: () => now, sleep: async () => undefined });
  return { ...result, requests: analyticsRequests(sandbox.requests).length };
}

type StatusUnit = { readonly date: string; readonly state: string };
async function states(days: readonly string[], now = NOW): Promise<Record<string, string>> {
  const { code, stdout } = await cli(['status', '--from', days[0] as string, '--to', nextDay(days[days.length - 1] as string), '--json'], now);
  expect(code).toBe(0);
  return Object.fromEntries((JSON.parse(stdout).units as StatusUnit[]).map((u) => [u.date, u.state]));
}

function nextDay(day: string): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + DAY_MS).toISOString().slice(0, 10);
}

describe('settled days (EXPORT_SETTLE_HOURS=48)', () => {
  it('export with no day exports the latest due day and leaves yesterday not complete', async () => {
    const run = await cli(['export', '--json']);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout).units.map((u: { date: string }) => u.date)).toEqual([LATEST_DUE]);
    const shown = await states([LATEST_DUE, '2026-10-07', YESTERDAY]);
    expect(shown).toEqual({ [LATEST_DUE]: 'complete', '2026-10-07': 'missing', [YESTERDAY]: 'missing' });
  });

  it('export --days 3 exports the last three due days, as status, report and gaps count them', async () => {
    const run = await cli(['export', '--days', '3']);
    expect(run.code, run.stderr).toBe(0);
    const shown = await states(['2026-10-03', '2026-10-04', '2026-10-05', LATEST_DUE, '2026-10-07']);
    expect(shown).toEqual({ '2026-10-03': 'missing', '2026-10-04': 'complete', '2026-10-05': 'complete', [LATEST_DUE]: 'complete', '2026-10-07': 'missing' });
    const both = await cli(['export', '--days', '3', '--date', LATEST_DUE]);
    expect(both.code).toBe(2);
  });

  it('an explicit --date that is not due is exported provisional, shown so by status, and not fetched again before it is due', async () => {
    const first = await cli(['export', '--date', YESTERDAY]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.requests).toBeGreaterThan(0);
    expect(first.stdout).toMatch(/provisional/);
    expect((await states([YESTERDAY]))[YESTERDAY]).toBe('provisional');
    const human = await cli(['status', '--date', YESTERDAY]);
    expect(human.stdout).toMatch(/provisional/);

    const again = await cli(['export', '--date', YESTERDAY], NOW + 3_600_000);
    expect(again.code, again.stderr).toBe(0);
    expect(again.requests).toBe(0);
  });

  it('once the day is due, a later run exports it again without --force and it is complete', async () => {
    const later = NOW + 2 * DAY_MS;
    const run = await cli(['export', '--date', YESTERDAY], later);
    expect(run.code, run.stderr).toBe(0);
    expect(run.requests).toBeGreaterThan(0);
    expect((await states([YESTERDAY], later))[YESTERDAY]).toBe('complete');
  });

  it("status of units nothing like which was exported counts each at its dataset's typical day, says so, and never 'up to'", async () => {
    const fresh = await makeTempDir('settled-fresh');
    const { code, stdout } = await runCliInProcess(['status', '--days', '3', '--project', PROJECT, '--out', fresh], { env, now: () => NOW });

    expect(code).toBe(0);
    // searches: a typical day of 500 terms, 100 a page.
    expect(stdout).toContain("3 to do, about 15 request(s) (a guess for 3 unit(s) at their dataset's typical day, nothing of it exported yet)");
    expect(stdout).not.toMatch(/up to|at least/);
  });
});
