/**
 * Two runs on one shared ledger whose answers carry different `Date` headers (issue 28 defect 4):
 * one API node (or a proxy) says it is 14 minutes earlier. Correcting that run's clock by one
 * answer would write its ledger starts 14 minutes in the past, where the other run counts them
 * expired and spends the budget again. Over real HTTP on 127.0.0.1, on one fake clock both
 * servers and both runs read: however they interleave, no window of the budget ever holds more
 * starts than the budget, and the run whose answers disagree with its clock is refused with one
 * line instead of being corrected.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createApiClient } from '../../../functions/shared/api/index.js';
import { createBudgetGate, createBudgetLedger } from '../../../functions/shared/pacing/budget.js';
import { parseBudget } from '../../../functions/shared/pacing/budget-spec.js';
import { AGREEING_ANSWERS, createSkewClock } from '../../../functions/shared/clock-skew.js';
import { ClockSkewError } from '../../../functions/shared/errors.js';
import { parseVisitorsPage } from '../../../functions/shared/schemas.js';
import { createMemoryStore, type SharedStore } from '../../../functions/shared/storage/shared-store.js';
import { fakeClock, type FakeClock } from '../../helpers/clock.js';
import { maxInAnyWindow } from '../../helpers/request-log.js';

const KEY = 'mint_TwoClocksTestKey0123456789abcdef';
const MINUTE = 60_000;
const BUDGET = '5/2m';
const WINDOW_MS = 2 * MINUTE;
const REQUESTS_PER_RUN = 10;
const START = Date.parse('2026-11-24T12:00:00.000Z');

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

/** An API whose Date header is the fake clock plus `offsetMs`. */
async function apiAt(clock: FakeClock, offsetMs: number): Promise<string> {
  const server = createServer((_request, response) => {
    response.setHeader('Date', new Date(clock.now() + offsetMs).toUTCString());
    response.setHeader('Content-Type', 'application/json');
    response.end(JSON.stringify({ totals: { human: 1, ai: 0, total: 1 }, visitors: [], hasMore: false }));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/**
 * One run: its own skew clock over the shared fake clock, the shared ledger, its requests one
 * after another. The true (fake-clock) instant of each start the ledger admits is pushed to
 * `starts`: the ledger decides at the time its `now` returns, whatever time it writes.
 */
async function run(baseUrl: string, clock: FakeClock, store: SharedStore, starts: number[]): Promise<{ sent: number; error?: unknown }> {
  const skew = createSkewClock(clock.now, clock.now);
  let decidedAt = 0;
  const shared = createBudgetLedger(store, parseBudget(BUDGET), {
    now: () => {
      decidedAt = clock.now();
      return skew.now();
    },
  });
  const ledger = {
    ...shared,
    tryStart: async () => {
      const answer = await shared.tryStart();
      if (answer.waitMs === 0) starts.push(decidedAt);
      return answer;
    },
  };
  const gate = createBudgetGate(ledger, { now: skew.now, sleep: clock.sleep });
  const client = createApiClient({ baseUrl, apiKey: KEY, budget: gate, clock: skew, now: skew.now, sleep: clock.sleep, maxRetries: 0 });
  let sent = 0;
  try {
    for (; sent < REQUESTS_PER_RUN; sent++) {
      await client.getAnalytics('visitors', 'proj_1', { dateFrom: '2026-11-20', dateTo: '2026-11-21', limit: 250, offset: sent * 250 }, parseVisitorsPage);
    }
    return { sent };
  } catch (error) {
    return { sent, error };
  }
}

describe('two runs on one ledger whose answers disagree on the time', () => {
  it('never start more than the budget in any window; the run told 14 min behind is refused', async () => {
    const clock = fakeClock(START);
    const store = createMemoryStore();
    const starts: number[] = [];
    const [behind, right] = await Promise.all([apiAt(clock, -14 * MINUTE), apiAt(clock, 0)]);

    const [skewed, correct] = await Promise.all([run(behind, clock, store, starts), run(right, clock, store, starts)]);

    expect(maxInAnyWindow(starts, WINDOW_MS)).toBeLessThanOrEqual(5);
    expect(correct).toEqual({ sent: REQUESTS_PER_RUN });
    expect(skewed.error).toBeInstanceOf(ClockSkewError);
    expect(skewed.sent).toBe(AGREEING_ANSWERS - 1);
  });

  it('the same with the runs one after the other, the skewed one first', async () => {
    const clock = fakeClock(START);
    const store = createMemoryStore();
    const starts: number[] = [];
    const [behind, right] = await Promise.all([apiAt(clock, -14 * MINUTE), apiAt(clock, 0)]);

    await run(behind, clock, store, starts);
    const correct = await run(right, clock, store, starts);

    expect(correct.sent).toBe(REQUESTS_PER_RUN);
    expect(maxInAnyWindow(starts, WINDOW_MS)).toBeLessThanOrEqual(5);
  });
});
