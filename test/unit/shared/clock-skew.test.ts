/**
 * Clock skew (issue 14 item 6): the API's `Date` header corrects the clock the budget ledger and
 * the leases read, and a clock far off is refused with one line. Over real HTTP on 127.0.0.1: a
 * server whose `Date` header says another time than this machine's clock.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { stopOf } from '../../../functions/export/run-stops.js';
import { retryLinePrinter } from '../../../functions/cli/retry-lines.js';
import { createApiClient } from '../../../functions/shared/api/index.js';
import { createBudgetGate, createBudgetLedger, LEDGER_KEY, type LedgerDoc } from '../../../functions/shared/budget.js';
import { parseBudget } from '../../../functions/shared/budget-spec.js';
import { createSkewClock, MAX_SKEW_MS, SKEW_TOLERANCE_MS } from '../../../functions/shared/clock-skew.js';
import { ClockSkewError } from '../../../functions/shared/errors.js';
import { parseVisitorsPage } from '../../../functions/shared/schemas.js';
import { createMemoryStore } from '../../../functions/shared/shared-store.js';

const KEY = 'mint_Zq8xTopSecretAdminKey0123456789';
const QUERY = { dateFrom: '2026-01-15', dateTo: '2026-01-16', limit: 250, offset: 0 } as const;
const MINUTE = 60_000;
const SYSTEM = Date.parse('2026-11-23T12:00:00.000Z');
const header = (ms: number) => new Date(ms).toUTCString();

describe('the skew clock', () => {
  it('leaves a clock within the tolerance alone (the header has whole seconds, the answer a round trip)', () => {
    const clock = createSkewClock(
      () => 1_000,
      () => SYSTEM,
    );
    expect(clock.observe(header(SYSTEM + SKEW_TOLERANCE_MS - 1_000))).toBeUndefined();
    expect(clock.offsetMs).toBe(0);
    expect(clock.now()).toBe(1_000);
  });

  it('corrects the base clock by a measured offset, minutes ahead or behind', () => {
    const clock = createSkewClock(
      () => 1_000,
      () => SYSTEM,
    );
    expect(clock.observe(header(SYSTEM + 10 * MINUTE))).toBe(10 * MINUTE + 500);
    expect(clock.now()).toBe(1_000 + 10 * MINUTE + 500);
    expect(clock.observe(header(SYSTEM - 3 * MINUTE))).toBe(-3 * MINUTE + 500);
    expect(clock.now()).toBe(1_000 - 3 * MINUTE + 500);
  });

  it('does not move the correction for a second of jitter', () => {
    const clock = createSkewClock(
      () => 0,
      () => SYSTEM,
    );
    clock.observe(header(SYSTEM + 10 * MINUTE));
    expect(clock.observe(header(SYSTEM + 10 * MINUTE + 1_000))).toBeUndefined();
    expect(clock.offsetMs).toBe(10 * MINUTE + 500);
  });

  it('ignores an absent or unparseable header', () => {
    const clock = createSkewClock(
      () => 0,
      () => SYSTEM,
    );
    expect(clock.observe(null)).toBeUndefined();
    expect(clock.observe('not a date')).toBeUndefined();
    expect(clock.offsetMs).toBe(0);
  });

  it('refuses a clock further off than MAX_SKEW_MS with one line naming the fix', () => {
    const clock = createSkewClock(
      () => 0,
      () => SYSTEM,
    );
    const refuse = () => clock.observe(header(SYSTEM - MAX_SKEW_MS - 5_000));
    expect(refuse).toThrow(ClockSkewError);
    expect(refuse).toThrow(/^this machine's clock is 15 min 0[45] s ahead of the API's \(its Date header\): .*set the clock right/);
  });
});

describe('an API whose Date header says another time than this machine', () => {
  let server: Server | undefined;
  afterEach(async () => {
    await new Promise((resolve) => server?.close(resolve));
    server = undefined;
  });

  async function apiAt(offsetMs: number): Promise<string> {
    server = createServer((_request, response) => {
      response.setHeader('Date', header(Date.now() + offsetMs));
      response.setHeader('Content-Type', 'application/json');
      response.end(JSON.stringify({ totals: { human: 1, ai: 0, total: 1 }, visitors: [], hasMore: false }));
    });
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  function wiredTo(baseUrl: string, lines: string[]) {
    const clock = createSkewClock();
    const store = createMemoryStore();
    const ledger = createBudgetLedger(store, parseBudget('90/1h'), { now: clock.now });
    const gate = createBudgetGate(ledger, { now: clock.now, sleep: async () => {} });
    const client = createApiClient({ baseUrl, apiKey: KEY, budget: gate, clock, events: retryLinePrinter((line) => lines.push(line)) });
    return { clock, store, client };
  }

  it('10 minutes ahead: the ledger records the next start at the API time, and one line says so', async () => {
    const lines: string[] = [];
    const { clock, store, client } = wiredTo(await apiAt(10 * MINUTE), lines);

    await client.getAnalytics('visitors', 'proj_1', QUERY, parseVisitorsPage);
    await client.getAnalytics('visitors', 'proj_1', { ...QUERY, offset: 250 }, parseVisitorsPage);

    expect(clock.offsetMs).toBeGreaterThan(9 * MINUTE);
    expect(clock.offsetMs).toBeLessThan(11 * MINUTE);
    const starts = (await store.get<LedgerDoc>(LEDGER_KEY))?.starts ?? [];
    expect(starts).toHaveLength(2);
    // The first start was taken before any answer came; the second on the API's time.
    expect((starts[1] as number) - Date.now()).toBeGreaterThan(9 * MINUTE);
    expect(lines).toEqual([
      expect.stringMatching(
        /^warning: this machine's clock is 10 min 0\d s behind the API's \(its Date header\): the budget ledger and leases use the API's time/,
      ),
    ]);
  });

  it('2 hours behind: the call is refused with one line, and it stops the whole run', async () => {
    const lines: string[] = [];
    const { client } = wiredTo(await apiAt(-2 * 60 * MINUTE), lines);

    const error = await client.getAnalytics('visitors', 'proj_1', QUERY, parseVisitorsPage).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ClockSkewError);
    expect(String((error as Error).message)).toMatch(/^this machine's clock is (1 h 59|2 h 00) min ahead of the API's/);
    expect(stopOf(error, { dataset: 'visitors', projectId: 'proj_1' })).toMatchObject({ scope: 'run', why: 'clock' });
  });
});
