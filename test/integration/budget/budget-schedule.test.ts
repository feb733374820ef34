/**
 * The request budget is a schedule, not an error (docs/design.md): a backlog larger than one
 * window's budget completes by waiting, not by failing — on a fake clock that the sandbox, the
 * budget gate and the API client share, so hours of schedule take milliseconds. The sandbox
 * runs in budget mode (it answers 429 beyond its budget, as the service does) and its request
 * log is the witness: when each request started, which page it asked for, what it was told.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { runExport } from '../../../functions/export/run.js';
import { createLocalDestination } from '../../../functions/shared/storage/destination-local.js';
import { addDays } from '../../../functions/shared/dates.js';
import { startSandbox, type Sandbox } from '../../../sandbox/index.js';
import { fakeClock, HOUR_MS, type FakeClock } from '../../helpers/clock.js';
import { expectedTables } from '../../helpers/expected-rows.js';
import { makeTempDir, removeTempDirs } from '../../helpers/files.js';
import { readLocalDays } from '../../helpers/read-back.js';
import { analyticsRequests, mostStartsInAnyWindow, pagesServed, rateLimited, repeatedPages } from '../../helpers/request-log.js';
import { exportDeps, statuses, testSettings } from '../../helpers/run-deps.js';
import { runCliInProcess } from '../../helpers/cli.js';

/** 600 visitor paths a day: three pages of 250 each. */
const PROJECT = 'proj_synth_600';
const PAGES_PER_DAY = 3;
const BUDGET_10_PER_HOUR = { requests: 10, windowMs: HOUR_MS, text: '10/1h' };

const sandboxes: Sandbox[] = [];

afterEach(async () => {
  await Promise.all(sandboxes.splice(0).map((sandbox) => sandbox.close()));
  await removeTempDirs();
});

/** A sandbox on `clock` that allows `requests` analytics requests per hour, then answers 429. */
async function budgetSandbox(
  clock: FakeClock,
  window: 'fixed' | 'rolling',
  options: { readonly requests?: number; readonly retryAfter?: boolean } = {},
): Promise<Sandbox> {
  const sandbox = await startSandbox({
    now: clock.now,
    budget: { requests: options.requests ?? 10, windowMs: HOUR_MS, window, ...(options.retryAfter === undefined ? {} : { retryAfter: options.retryAfter }) },
  });
  sandboxes.push(sandbox);
  return sandbox;
}

function daysFrom(first: string, count: number): string[] {
  return Array.from({ length: count }, (_, i) => addDays(first, i));
}

/** Asserts that every day under `out` reads back equal to the sandbox's data, value for value. */
async function expectDaysMatch(out: string, sandbox: Sandbox, days: readonly string[]): Promise<void> {
  const exported = await readLocalDays(out, 'visitors', PROJECT);
  expect([...exported.keys()]).toEqual(days);
  for (const day of days) {
    expect(exported.get(day), day).toEqual(expectedTables(sandbox.data, { dataset: 'visitors', projectId: PROJECT, day }));
  }
}

describe('a backlog larger than one window of budget', () => {
  // 30 days × 3 pages = 90 requests against 10 an hour: nine windows of budget.
  const days = daysFrom('2026-09-01', 30);

  it.each(['rolling', 'fixed'] as const)(
    'completes 30 days with a budget of 10/1h against a %s-window sandbox: no 429, never over 10 starts an hour, every page once',
    async (window) => {
      // Not on a clock hour, so a fixed window and a sliding one disagree about where hours start.
      const clock = fakeClock(Date.parse('2026-10-01T00:37:00.000Z'));
      const sandbox = await budgetSandbox(clock, window);
      const out = await makeTempDir('schedule');
      const deps = exportDeps({ sandbox, destination: createLocalDestination(out), clock, budget: BUDGET_10_PER_HOUR });

      const result = await runExport({ kind: 'days', days, projects: [PROJECT], datasets: ['visitors'] }, testSettings(), {}, deps);

      expect(statuses(result)).toEqual(days.map((day) => `visitors ${PROJECT} ${day} complete`));
      expect(rateLimited(sandbox.requests)).toEqual([]);
      expect(mostStartsInAnyWindow(sandbox.requests, HOUR_MS)).toBe(10);
      expect(pagesServed(sandbox.requests)).toHaveLength(days.length * PAGES_PER_DAY);
      expect(repeatedPages(sandbox.requests)).toEqual([]);
      // Nine windows of ten: the schedule took eight hours of waiting, not a failure.
      expect(clock.now() - Date.parse('2026-10-01T00:37:00.000Z')).toBe(8 * HOUR_MS);
      await expectDaysMatch(out, sandbox, days);
    },
  );
});

describe('a competing client of the same organisation', () => {
  const days = daysFrom('2026-09-01', 5);

  /**
   * A fetch that lets another tool of the organisation spend `count` of the sandbox's budget
   * just before our requests number `at` (1-based, every attempt counted).
   */
  function competingFetch(sandbox: Sandbox, spends: ReadonlyMap<number, number>): typeof fetch {
    let sent = 0;
    return (input, init) => {
      sent += 1;
      const count = spends.get(sent);
      if (count !== undefined) expect(sandbox.spendBudget(count)).toBe(count);
      return fetch(input, init);
    };
  }

  it('absorbs the 429s it causes with one pause each: every unit completes, every page fetched once and equal to the data', async () => {
    const clock = fakeClock(Date.parse('2026-10-01T00:37:00.000Z'));
    const sandbox = await budgetSandbox(clock, 'rolling');
    const out = await makeTempDir('schedule');
    const deps = exportDeps({
      sandbox,
      destination: createLocalDestination(out),
      clock,
      budget: BUDGET_10_PER_HOUR,
      // Before our 3rd request the other tool spends 4: our 7th is one too many for the hour.
      // Then again before our 11th (the first of the next hour, counting the retried 7th).
      client: {
        fetch: competingFetch(
          sandbox,
          new Map([
            [3, 4],
            [11, 4],
          ]),
        ),
      },
    });

    const result = await runExport({ kind: 'days', days, projects: [PROJECT], datasets: ['visitors'] }, testSettings(), {}, deps);

    expect(result.ok).toBe(true);
    expect(result.failed).toBe(0);
    // One 429, for the first burst: the gate paused until the hour had room, the request that
    // got the 429 went through on its next attempt, and the ledger learnt that the other tool
    // takes part of the budget, so the second burst found room instead of a second 429.
    expect(rateLimited(sandbox.requests)).toHaveLength(1);
    expect(result.rateLimited).toBe(1);
    expect(pagesServed(sandbox.requests)).toHaveLength(days.length * PAGES_PER_DAY);
    expect(repeatedPages(sandbox.requests)).toEqual([]);
    await expectDaysMatch(out, sandbox, days);
  });

  it('pauses after a 429 until its Retry-After: the request after it starts when the window has room', async () => {
    const start = Date.parse('2026-10-01T00:37:00.000Z');
    const clock = fakeClock(start);
    const sandbox = await budgetSandbox(clock, 'fixed');
    const out = await makeTempDir('schedule');
    // The other tool spent 8 of this clock hour before we started: 2 are left until 01:00.
    expect(sandbox.spendBudget(8)).toBe(8);
    const deps = exportDeps({ sandbox, destination: createLocalDestination(out), clock, budget: BUDGET_10_PER_HOUR });

    const result = await runExport({ kind: 'days', days: days.slice(0, 1), projects: [PROJECT], datasets: ['visitors'] }, testSettings(), {}, deps);

    expect(result.ok).toBe(true);
    const ours = analyticsRequests(sandbox.requests);
    expect(ours.map((entry) => [entry.status, new Date(entry.startedAt).toISOString()])).toEqual([
      [200, '2026-10-01T00:37:00.000Z'],
      [200, '2026-10-01T00:37:00.000Z'],
      [429, '2026-10-01T00:37:00.000Z'],
      // Retry-After: 23 min until the fixed window ends; not one request before it.
      [200, '2026-10-01T01:00:00.000Z'],
    ]);
    await expectDaysMatch(out, sandbox, days.slice(0, 1));
  });

  it('without Retry-After backs off 30 s, 60 s, 120 s …, then waits for room in the window, never failing for it (429s are not retries)', async () => {
    const start = Date.parse('2026-10-01T00:37:00.000Z');
    const clock = fakeClock(start);
    const sandbox = await budgetSandbox(clock, 'rolling', { retryAfter: false });
    const out = await makeTempDir('schedule');
    // Another tool spent the whole hour a moment ago: nothing frees before 01:37.
    expect(sandbox.spendBudget(10)).toBe(10);
    // The client gives up after 4 retries of a failure; a 429 must not count as one.
    const deps = exportDeps({ sandbox, destination: createLocalDestination(out), clock, budget: BUDGET_10_PER_HOUR, client: { maxRetries: 4 } });

    const result = await runExport({ kind: 'days', days: days.slice(0, 1), projects: [PROJECT], datasets: ['visitors'] }, testSettings(), {}, deps);

    expect(result.ok).toBe(true);
    const refused = rateLimited(sandbox.requests);
    const gaps = refused.slice(1).map((entry, i) => (entry.startedAt - (refused[i] as (typeof refused)[number]).startedAt) / 1000);
    // Then the window holds as many of ours (the refused probes count: every attempt does) as
    // the ledger now allows beside the other tool, so it waits for room instead of probing.
    expect(gaps).toEqual([30, 60, 120, 240]);
    // The first request after the backoff series is admitted, at or after 01:37.
    const firstServed = analyticsRequests(sandbox.requests).find((entry) => entry.status === 200);
    expect(firstServed?.startedAt).toBeGreaterThanOrEqual(start + HOUR_MS);
    expect(repeatedPages(sandbox.requests)).toEqual([]);
    await expectDaysMatch(out, sandbox, days.slice(0, 1));
  });
});

describe('mintlify-exporter export: a 7-day backfill against an API that allows 10 requests an hour', () => {
  it('finishes all 7 days in one run, pausing at each 429 until Retry-After, and fetches each page once', async () => {
    const start = Date.parse('2026-10-09T06:20:00.000Z');
    const clock = fakeClock(start);
    const sandbox = await budgetSandbox(clock, 'fixed');
    const out = await makeTempDir('schedule');
    const state = await makeTempDir('schedule-state');
    const days = daysFrom('2026-10-01', 7);

    // The exporter's own budget is the default 90/1h: only the API's 429s tell it about 10/1h.
    const { code, stdout, stderr } = await runCliInProcess(
      ['export', '--from', '2026-10-01', '--to', '2026-10-08', '--project', PROJECT, '--dataset', 'visitors', '--out', out],
      {
        env: { MINTLIFY_API_URL: sandbox.url, MINTLIFY_API_KEY: sandbox.apiKey, EXPORT_STATE_DIR: state, API_TIMEOUT_MS: '5000' },
        now: clock.now,
        sleep: clock.sleep,
      },
    );

    expect({ code, stderr: stderr.split('\n').filter((line) => /error|FAILED/i.test(line)) }).toEqual({ code: 0, stderr: [] });
    expect(stdout).toContain(`7 of 7 unit(s) exported to ${out} with 23 API request(s); 2 rate-limited (429)`);
    // 21 pages: 10 in the 06:00 hour, 10 in the 07:00 hour, 1 at 08:00; each 429 paused us
    // until the next clock hour, exactly.
    expect(rateLimited(sandbox.requests).map((entry) => new Date(entry.startedAt).toISOString())).toEqual([
      '2026-10-09T06:20:00.000Z',
      '2026-10-09T07:00:00.000Z',
    ]);
    expect(pagesServed(sandbox.requests)).toHaveLength(7 * PAGES_PER_DAY);
    expect(repeatedPages(sandbox.requests)).toEqual([]);
    expect(clock.now()).toBe(Date.parse('2026-10-09T08:00:00.000Z'));
    await expectDaysMatch(out, sandbox, days);
  });
});
