/**
 * A unit that cannot succeed costs a few requests, not days of budget: an endless cursor fails
 * it after three empty pages in a row, and a failed unit is left alone by the scheduled runs
 * for 1 h, 2 h, 4 h … so it never starves the others; status says how often it failed, what it
 * cost and when it is tried again.
 */
import { describe, expect, it } from 'vitest';
import type { Sandbox } from '../../../../sandbox/index.js';
import { planScheduled } from '../../../../functions/export/plan.js';
import { unitStaging } from '../../../../functions/export/staging.js';
import type { Unit } from '../../../../functions/export/unit-id.js';
import { createLocalDestination } from '../../../../functions/shared/storage/destination-local.js';
import { makeTempDir } from '../../../helpers/files.js';
import { analyticsRequests } from '../../../helpers/request-log.js';
import { runCliInProcess } from '../../../helpers/cli.js';
import { cliEnv } from '../../../helpers/env.js';
import { useSandbox } from '../../../helpers/emulators.js';

const PROJECT = 'proj_synth_600';
const NOW = Date.parse('2026-10-09T06:00:00.000Z');
const HOUR = 3_600_000;
let sandbox: Sandbox;

useSandbox({}, (started) => (sandbox = started));

describe('an endless cursor', () => {
  it('fails its unit after three empty pages in a row, and status says what it cost', async () => {
    sandbox.addFault({ route: 'searches', kind: 'endless-cursor', times: Infinity });
    const out = await makeTempDir('endless');
    const env = await cliEnv(sandbox);
    const args = ['--project', PROJECT, '--dataset', 'searches', '--out', out];

    const result = await runCliInProcess(['export', '--date', '2026-10-08', ...args], { env, now: () => NOW, sleep: async () => undefined });

    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^FAILED {3}searches proj_synth_600 2026-10-08: PaginationError: .*3 empty pages in a row still carry a new cursor/m);
    const requests = analyticsRequests(sandbox.requests).length;
    expect(requests).toBeLessThan(12);
    const status = await runCliInProcess(['status', '--json', '--days', '1', ...args], { env, now: () => NOW });
    expect((JSON.parse(status.stdout) as { units: unknown[] }).units).toEqual([
      expect.objectContaining({ state: 'failed', attempts: 1, requests, retryAfter: new Date(NOW + HOUR - 15 * 60_000).toISOString() }),
    ]);
    const text = await runCliInProcess(['status', '--days', '1', ...args], { env, now: () => NOW });
    expect(text.stdout).toMatch(new RegExp(`\\[failed 1× in a row, ${requests} request\\(s\\) spent; next try after 2026-10-09 06:45Z\\]`));
  });
});

describe('a unit that keeps failing', () => {
  const DAY = '2026-10-08';
  const failing: Unit = { dataset: 'visitors', projectId: PROJECT, day: DAY };
  const input = (now: number) => ({
    now,
    settleHours: 2,
    healDays: 7,
    refreshDays: 0,
    projects: [PROJECT],
    datasets: ['visitors', 'views'] as const,
    backlog: [],
  });
  const planned = async (dir: string, now: number) =>
    (await planScheduled({ ...input(now), datasets: [...input(now).datasets] }, createLocalDestination(dir))).units
      .filter((u) => u.day === DAY)
      .map((u) => u.dataset);

  it('is left alone for an hour after its first failure, two after its second, four after its third', async () => {
    const dir = await makeTempDir('backoff');
    const staging = unitStaging(createLocalDestination(dir), failing);
    const failedAt = NOW;
    for (const [attempts, hours] of [
      [1, 1],
      [2, 2],
      [3, 4],
    ] as const) {
      await staging.writeFailure({ error: 'PaginationError: endless', at: new Date(failedAt).toISOString(), attempts, requests: 4 * attempts });
      expect(await planned(dir, failedAt + hours * HOUR - 20 * 60_000)).toEqual(['views']);
      expect(await planned(dir, failedAt + hours * HOUR - 5 * 60_000)).toEqual(['visitors', 'views']);
    }
  });

  it('never waits more than a day', async () => {
    const dir = await makeTempDir('backoff-cap');
    await unitStaging(createLocalDestination(dir), failing).writeFailure({ error: 'x', at: new Date(NOW).toISOString(), attempts: 20 });
    expect(await planned(dir, NOW + 24 * HOUR)).toEqual(['visitors', 'views']);
  });
});
