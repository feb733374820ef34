/**
 * No answer of the API and no clock can hold the deployment back for longer than one budget
 * window: 429 waits are cut to the window, the ledger cuts times further ahead than that (and
 * stores the cut), and a window that cannot be honoured is refused at start.
 */
import { describe, expect, it } from 'vitest';
import { createBudgetGate, createBudgetLedger, LEDGER_KEY, type LedgerDoc } from '../../../functions/shared/pacing/budget.js';
import { parseBudget } from '../../../functions/shared/pacing/budget-spec.js';
import { ConfigError } from '../../../functions/shared/errors.js';
import { MAX_TIMER_MS, sleep as realSleep } from '../../../functions/shared/time.js';
import { createMemoryStore } from '../../../functions/shared/storage/shared-store.js';

const T0 = 1_700_000_000_000;
const HOUR = 3_600_000;
const YEARS_3 = 99_999_999_000;

function setup(budget = '90/1h') {
  const clock = { t: T0, sleeps: [] as number[] };
  const now = () => clock.t;
  const sleep = async (ms: number) => {
    clock.sleeps.push(ms);
    clock.t += ms;
  };
  const store = createMemoryStore();
  const spec = parseBudget(budget);
  const ledger = createBudgetLedger(store, spec, { now });
  const gate = createBudgetGate(ledger, { now, sleep });
  return { clock, store, spec, ledger, gate };
}

describe('a 429 asking to wait for years', () => {
  it('pauses the deployment for one budget window at most and says what it was asked', async () => {
    const { gate, ledger, clock } = setup();
    const pause = await gate.rateLimited(YEARS_3);
    expect(pause).toEqual({ pausedMs: HOUR, askedMs: YEARS_3 });
    expect((await ledger.snapshot()).pausedUntil).toBe(T0 + HOUR);
    expect(gate.stats.waitsCut).toBe(1);
    await gate.take();
    expect(clock.sleeps).toEqual([HOUR]);
  });

  it('keeps a wait within the window as the API asked', async () => {
    const { gate } = setup();
    expect(await gate.rateLimited(120_000)).toEqual({ pausedMs: 120_000 });
    expect(gate.stats.waitsCut).toBe(0);
  });
});

describe('times in the ledger from elsewhere', () => {
  it('cuts a stored pause years ahead to one window, stores the cut, and is free again after it', async () => {
    const { store, ledger, clock } = setup();
    await store.update<LedgerDoc, void>(LEDGER_KEY, () => ({
      value: { starts: [], pausedUntil: T0 + YEARS_3, rateLimited: 1, consecutive429: 1 },
      result: undefined,
    }));
    const first = await ledger.tryStart();
    expect(first).toMatchObject({ waitMs: HOUR, reason: 'paused' });
    expect((await store.get<LedgerDoc>(LEDGER_KEY))?.pausedUntil).toBe(T0 + HOUR);
    clock.t = T0 + HOUR;
    expect(await ledger.tryStart()).toMatchObject({ waitMs: 0, reason: 'free' });
  });

  it('shows a stored pause longer than the window as a problem in the snapshot', async () => {
    const { store, ledger } = setup();
    await store.update<LedgerDoc, void>(LEDGER_KEY, () => ({
      value: { starts: [], pausedUntil: T0 + YEARS_3, rateLimited: 1, consecutive429: 1 },
      result: undefined,
    }));
    const snapshot = await ledger.snapshot();
    expect(snapshot.pauseBeyondWindow).toBe(T0 + YEARS_3);
    expect(snapshot.nextStartAt).toBe(T0 + HOUR);
  });

  it('counts a start stamped far ahead (a clock hours fast) as no later than one window ahead', async () => {
    const { store, ledger, clock } = setup('1/1h');
    await store.update<LedgerDoc, void>(LEDGER_KEY, () => ({
      value: { starts: [T0 + 10 * HOUR], pausedUntil: 0, rateLimited: 0, consecutive429: 0 },
      result: undefined,
    }));
    expect((await ledger.tryStart()).waitMs).toBe(2 * HOUR);
    clock.t = T0 + 2 * HOUR;
    expect((await ledger.tryStart()).waitMs).toBe(0);
  });
});

describe('one ledger for runs with different budgets', () => {
  it('keeps what a run with a shorter window spent for a run with a longer one', async () => {
    const store = createMemoryStore();
    const clock = { t: T0 };
    const short = createBudgetLedger(store, parseBudget('12/30s'), { now: () => clock.t });
    let spent = 0;
    while (spent < 67) {
      const { waitMs } = await short.tryStart();
      if (waitMs === 0) spent += 1;
      else clock.t += waitMs;
    }
    const long = createBudgetLedger(store, parseBudget('90/1h'), { now: () => clock.t });
    expect((await long.snapshot()).used).toBe(67);
    for (let i = 0; i < 23; i++) expect((await long.tryStart()).waitMs).toBe(0);
    expect((await long.tryStart()).waitMs).toBeGreaterThan(0);
  });
});

describe('ANALYTICS_BUDGET that cannot be honoured', () => {
  it.each(['1/30d', '10/2d', '100/25h'])('refuses %s with one line naming the variable', (text) => {
    expect(() => parseBudget(text)).toThrow(ConfigError);
    expect(() => parseBudget(text)).toThrow(/^ANALYTICS_BUDGET ".*" cannot be honoured: .*24h/);
  });

  it('accepts a day-long window', () => {
    expect(parseBudget('2000/1d').windowMs).toBe(24 * HOUR);
  });
});

describe('sleeping longer than a Node timer holds', () => {
  it('does not overflow into a busy loop, and still ends on its signal', async () => {
    const controller = new AbortController();
    let ended = false;
    const sleeping = realSleep(MAX_TIMER_MS + 10 * HOUR, controller.signal).then(
      () => (ended = true),
      () => 'aborted',
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(ended).toBe(false);
    controller.abort();
    await expect(sleeping).resolves.toBe('aborted');
  });
});
