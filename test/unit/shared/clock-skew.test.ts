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
import { createBudgetGate, createBudgetLedger, LEDGER_KEY, type LedgerDoc } from '../../../functions/shared/pacing/budget.js';
import { parseBudget } from '../../../functions/shared/pacing/budget-spec.js';
import { AGREEING_ANSWERS, createSkewClock, MAX_SKEW_MS, parseImfFixdate, SKEW_TOLERANCE_MS } from '../../../functions/shared/clock-skew.js';
import { ClockSkewError } from '../../../functions/shared/errors.js';
import { parseVisitorsPage } from '../../../functions/shared/schemas.js';
import { createMemoryStore } from '../../../functions/shared/storage/shared-store.js';

const KEY = 'mint_Zq8xTopSecretAdminKey0123456789';
const QUERY = { dateFrom: '2026-01-15', dateTo: '2026-01-16', limit: 250, offset: 0 } as const;
const MINUTE = 60_000;
const SYSTEM = Date.parse('2026-11-23T12:00:00.000Z');
const header = (ms: number) => new Date(ms).toUTCString();

/** `observe` the same header `times` times (the answers in a row it takes to agree), the last result. */
function observeAgreeing(clock: ReturnType<typeof createSkewClock>, dateHeader: string, times = AGREEING_ANSWERS): number | undefined {
  let result: number | undefined;
  for (let i = 0; i < times; i++) result = clock.observe(dateHeader);
  return result;
}

describe('the skew clock', () => {
  it('leaves a clock within the tolerance alone (the header has whole seconds, the answer a round trip)', () => {
    const clock = createSkewClock(
      () => 1_000,
      () => SYSTEM,
    );
    expect(observeAgreeing(clock, header(SYSTEM + SKEW_TOLERANCE_MS - 1_000))).toBeUndefined();
    expect(clock.offsetMs).toBe(0);
    expect(clock.now()).toBe(1_000);
  });

  it(`corrects the base clock by an offset ${AGREEING_ANSWERS} answers in a row agree on, ahead or behind`, () => {
    const clock = createSkewClock(
      () => 1_000,
      () => SYSTEM,
    );
    expect(observeAgreeing(clock, header(SYSTEM + 40_000), AGREEING_ANSWERS - 1)).toBeUndefined();
    expect(clock.offsetMs).toBe(0);
    expect(clock.observe(header(SYSTEM + 40_000))).toBe(40_500);
    expect(clock.now()).toBe(1_000 + 40_500);
    expect(observeAgreeing(clock, header(SYSTEM - 30_000))).toBe(-29_500);
    expect(clock.now()).toBe(1_000 - 29_500);
  });

  it('is not moved by one answer that disagrees with the others', () => {
    const clock = createSkewClock(
      () => 0,
      () => SYSTEM,
    );
    clock.observe(header(SYSTEM));
    clock.observe(header(SYSTEM - 14 * MINUTE));
    clock.observe(header(SYSTEM));
    clock.observe(header(SYSTEM - 14 * MINUTE));
    clock.observe(header(SYSTEM));
    expect(clock.offsetMs).toBe(0);
  });

  it('does not move the correction for a second of jitter', () => {
    const clock = createSkewClock(
      () => 0,
      () => SYSTEM,
    );
    observeAgreeing(clock, header(SYSTEM + 40_000));
    expect(clock.observe(header(SYSTEM + 41_000))).toBeUndefined();
    expect(clock.offsetMs).toBe(40_500);
  });

  it.each([
    null,
    '',
    'not a date',
    '0',
    '2026',
    '1700000000',
    '2026-11-23T12:00:00Z',
    'Sunday, 06-Nov-94 08:49:37 GMT',
    'Tue, 23 Nov 2026 12:00:00 GMT',
    'Mon, 31 Feb 2026 12:00:00 GMT',
  ])('ignores a header that is not an IMF-fixdate of a real day (%j), never blaming this clock', (value) => {
    const clock = createSkewClock(
      () => 0,
      () => SYSTEM,
    );
    expect(observeAgreeing(clock, value as string)).toBeUndefined();
    expect(clock.offsetMs).toBe(0);
  });

  it('reads an IMF-fixdate exactly', () => {
    expect(parseImfFixdate('Sun, 06 Nov 1994 08:49:37 GMT')).toBe(Date.UTC(1994, 10, 6, 8, 49, 37));
    expect(parseImfFixdate('Tue, 23 Nov 2026 12:00:00 GMT')).toBeUndefined();
    expect(parseImfFixdate(header(SYSTEM))).toBe(SYSTEM);
  });

  it(`refuses a clock further off than MAX_SKEW_MS once ${AGREEING_ANSWERS} answers agree, with one line naming the fix`, () => {
    const clock = createSkewClock(
      () => 0,
      () => SYSTEM,
    );
    expect(observeAgreeing(clock, header(SYSTEM - 14 * MINUTE), AGREEING_ANSWERS - 1)).toBeUndefined();
    const refuse = () => clock.observe(header(SYSTEM - 14 * MINUTE));
    expect(refuse).toThrow(ClockSkewError);
    expect(refuse).toThrow(
      /^this machine's clock is (13 min 5\d|14 min 00) s ahead of the API's, by its Date header on 3 answers in a row .*set the clock right/,
    );
    expect(MAX_SKEW_MS).toBeLessThanOrEqual(60_000);
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

  it('40 seconds ahead, agreed by three answers: the ledger records the next start at the API time, and one line says so', async () => {
    const lines: string[] = [];
    const { clock, store, client } = wiredTo(await apiAt(40_000), lines);

    for (let page = 0; page <= AGREEING_ANSWERS; page++) await client.getAnalytics('visitors', 'proj_1', { ...QUERY, offset: 250 * page }, parseVisitorsPage);

    expect(clock.offsetMs).toBeGreaterThan(35_000);
    expect(clock.offsetMs).toBeLessThan(45_000);
    const starts = (await store.get<LedgerDoc>(LEDGER_KEY))?.starts ?? [];
    expect(starts).toHaveLength(AGREEING_ANSWERS + 1);
    // The first starts were taken before the answers agreed; the last on the API's time.
    expect((starts[AGREEING_ANSWERS - 1] as number) - Date.now()).toBeLessThan(5_000);
    expect((starts[AGREEING_ANSWERS] as number) - Date.now()).toBeGreaterThan(35_000);
    expect(lines).toEqual([
      expect.stringMatching(/^warning: this machine's clock is 4\d s behind the API's \(its Date header\): the budget ledger and leases use the API's time/),
    ]);
  });

  it('2 hours behind: the call is refused with one line, and it stops the whole run', async () => {
    const lines: string[] = [];
    const { client } = wiredTo(await apiAt(-2 * 60 * MINUTE), lines);

    for (let page = 0; page < AGREEING_ANSWERS - 1; page++)
      await client.getAnalytics('visitors', 'proj_1', { ...QUERY, offset: 250 * page }, parseVisitorsPage);
    const error = await client.getAnalytics('visitors', 'proj_1', QUERY, parseVisitorsPage).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ClockSkewError);
    expect(String((error as Error).message)).toMatch(/^this machine's clock is (1 h 59|2 h 00) min ahead of the API's/);
    expect(stopOf(error, { dataset: 'visitors', projectId: 'proj_1' })).toMatchObject({ scope: 'run', why: 'clock' });
  });
});
