import { describe, expect, it } from 'vitest';
import { admit, createBudgetGate, createBudgetLedger, LEDGER_KEY, limitAt, type BudgetWait, type LedgerDoc } from '../../../functions/shared/pacing/budget.js';
import { parseBudget } from '../../../functions/shared/pacing/budget-spec.js';
import { BudgetExhaustedError } from '../../../functions/shared/pacing/errors.js';
import { createMemoryStore, type SharedStore } from '../../../functions/shared/storage/shared-store.js';
import { describeSharedStoreContract } from '../../helpers/shared-store-cases.js';
import { seededRandom } from '../../helpers/random.js';
import { maxInAnyWindow } from '../../helpers/request-log.js';

const T0 = 1_700_000_000_000;
const MINUTE = 60_000;

/** A clock that only moves when the code under test sleeps (or the test moves it). */
function fakeClock(start = T0) {
  const clock = {
    t: start,
    sleeps: [] as number[],
    now: () => clock.t,
    async sleep(ms: number, signal?: AbortSignal) {
      signal?.throwIfAborted();
      clock.sleeps.push(ms);
      clock.t += ms;
    },
  };
  return clock;
}

function setup(budget = '3/1m', store: SharedStore = createMemoryStore()) {
  const clock = fakeClock();
  const spec = parseBudget(budget);
  const ledger = createBudgetLedger(store, spec, { now: clock.now });
  const waits: BudgetWait[] = [];
  const gate = createBudgetGate(ledger, { now: clock.now, sleep: clock.sleep, onWait: (wait) => waits.push(wait) });
  return { clock, spec, store, ledger, gate, waits };
}

const ledgerWith = (starts: number[], pausedUntil = 0): LedgerDoc => ({ starts, pausedUntil, rateLimited: 0, consecutive429: 0 });

describe('admit', () => {
  const spec = parseBudget('3/1m');

  it('admits a start into an empty ledger and records it', () => {
    const decision = admit(undefined, spec, T0);
    expect(decision).toEqual({ doc: ledgerWith([T0]), waitMs: 0, reason: 'free' });
  });

  it('makes the start after B wait exactly until the oldest start leaves the window', () => {
    const decision = admit(ledgerWith([T0, T0 + 1_000, T0 + 2_000]), spec, T0 + 5_000);
    expect(decision.waitMs).toBe(MINUTE - 5_000);
    expect(decision.reason).toBe('budget');
    expect(decision.doc.starts).toEqual([T0, T0 + 1_000, T0 + 2_000]);
  });

  it('admits again at the instant the oldest start is one window old, keeping it for runs with longer windows', () => {
    const decision = admit(ledgerWith([T0, T0 + 1_000, T0 + 2_000]), spec, T0 + MINUTE);
    expect(decision.waitMs).toBe(0);
    expect(decision.doc.starts).toEqual([T0, T0 + 1_000, T0 + 2_000, T0 + MINUTE]);
  });

  it('drops starts older than a day', () => {
    const decision = admit(ledgerWith([T0, T0 + 1_000]), spec, T0 + 24 * 60 * MINUTE + 500);
    expect(decision.doc.starts).toEqual([T0 + 1_000, T0 + 24 * 60 * MINUTE + 500]);
  });

  it('waits until enough starts have left when the window holds more than B (the budget was lowered)', () => {
    const decision = admit(ledgerWith([T0, T0 + 1_000, T0 + 2_000, T0 + 3_000]), spec, T0 + 10_000);
    expect(decision.waitMs).toBe(T0 + 1_000 + MINUTE - (T0 + 10_000));
  });

  it('waits for a pause that ends after the window frees, and names the pause as the reason', () => {
    const decision = admit(ledgerWith([T0, T0 + 1_000, T0 + 2_000], T0 + 63_000), spec, T0 + 5_000);
    expect(decision).toMatchObject({ waitMs: 58_000, reason: 'paused' });
  });

  it('names the budget as the reason when the window frees after the pause ends', () => {
    const decision = admit(ledgerWith([T0, T0 + 1_000, T0 + 2_000], T0 + 10_000), spec, T0 + 5_000);
    expect(decision).toMatchObject({ waitMs: MINUTE - 5_000, reason: 'budget' });
  });

  it('counts a start stamped slightly ahead of now (a fast clock elsewhere) as inside the window', () => {
    const decision = admit(ledgerWith([T0 + 50, T0 + 60]), spec, T0);
    expect(decision.doc.starts).toEqual([T0, T0 + 50, T0 + 60]);
    expect(admit(decision.doc, spec, T0 + 1).waitMs).toBe(MINUTE - 1);
  });
});

describe('budget ledger', () => {
  it('never lets more than B starts into any window over a long run of random arrivals and pauses', async () => {
    const random = seededRandom(20_250_115);
    const { clock, ledger, spec } = setup('10/1m');
    const nextTry = Array.from({ length: 6 }, () => T0 + random() * MINUTE);
    const admitted: number[] = [];
    const startsDuringPauses: number[] = [];
    let pausedUntil = 0;
    while (admitted.length < 1_000) {
      const client = nextTry.indexOf(Math.min(...nextTry));
      clock.t = nextTry[client] ?? clock.t;
      if (random() < 0.005) {
        const until = clock.t + random() * MINUTE;
        pausedUntil = Math.max(pausedUntil, until);
        await ledger.pause(until);
      }
      const { waitMs } = await ledger.tryStart();
      if (waitMs === 0) admitted.push(clock.t);
      if (waitMs === 0 && clock.t < pausedUntil) startsDuringPauses.push(clock.t);
      nextTry[client] = clock.t + (waitMs > 0 ? waitMs : random() * 20_000);
    }
    expect(maxInAnyWindow(admitted, spec.windowMs)).toBe(10);
    expect(startsDuringPauses).toEqual([]);
  });

  it('never shortens a longer pause recorded before', async () => {
    const { ledger } = setup('3/1h');
    await ledger.pause(T0 + 10 * MINUTE);
    await ledger.pause(T0 + MINUTE);
    expect((await ledger.snapshot()).pausedUntil).toBe(T0 + 10 * MINUTE);
    expect(await ledger.tryStart()).toEqual({ waitMs: 10 * MINUTE, reason: 'paused' });
  });

  it('counts every 429 and resets the consecutive count at the next admitted start', async () => {
    const { ledger, store, clock } = setup();
    await ledger.pause(T0 + 1_000);
    await ledger.pause(T0 + 1_000);
    expect(await store.get<LedgerDoc>(LEDGER_KEY)).toMatchObject({ rateLimited: 2, consecutive429: 2 });
    clock.t = T0 + 1_000;
    await ledger.tryStart();
    expect(await store.get<LedgerDoc>(LEDGER_KEY)).toMatchObject({ rateLimited: 2, consecutive429: 0, starts: [T0 + 1_000] });
  });

  it('leaves the ledger document as it was when it refuses a start', async () => {
    const { ledger, store, clock } = setup('1/1m');
    await ledger.tryStart();
    const before = await store.get(LEDGER_KEY);
    clock.t += 5_000;
    expect((await ledger.tryStart()).waitMs).toBe(55_000);
    expect(await store.get(LEDGER_KEY)).toEqual(before);
  });

  it('reports the starts used and the next start time in a snapshot without reserving a start', async () => {
    const { ledger, clock, spec } = setup();
    await ledger.tryStart();
    clock.t += 1_000;
    await ledger.tryStart();
    await ledger.tryStart();
    clock.t += 1_000;
    expect(await ledger.snapshot()).toEqual({ spec, used: 3, nextStartAt: T0 + MINUTE, pausedUntil: 0, rateLimited: 0, limit: spec.requests });
    expect((await ledger.snapshot()).used).toBe(3);
  });

  it('says a start may happen now in the snapshot of an empty ledger', async () => {
    const { ledger } = setup();
    expect(await ledger.snapshot()).toMatchObject({ used: 0, nextStartAt: T0, pausedUntil: 0 });
  });
});

describe('budget gate', () => {
  it('admits at once while the budget has room, without waiting', async () => {
    const { gate, clock } = setup();
    await gate.take();
    await gate.take();
    expect(gate.stats).toEqual({ admitted: 2, waits: 0, waitedMs: 0, rateLimited: 0, waitsCut: 0 });
    expect(clock.sleeps).toEqual([]);
  });

  it('sleeps until the oldest start leaves the window, telling onWait when and why', async () => {
    const { gate, clock, waits } = setup();
    for (let i = 0; i < 3; i++) {
      await gate.take();
      clock.t += 1_000;
    }
    await gate.take();
    expect(clock.sleeps).toEqual([MINUTE - 3_000]);
    expect(waits).toEqual([{ waitMs: MINUTE - 3_000, until: T0 + MINUTE, reason: 'budget' }]);
    expect(clock.t).toBe(T0 + MINUTE);
  });

  it('asks the ledger again after a wait, since another run may have taken the freed start', async () => {
    const { gate, clock, store, spec } = setup('1/1m');
    const other = createBudgetLedger(store, spec, { now: clock.now });
    await gate.take();
    const sleep = async (ms: number) => {
      clock.t += ms;
      if (clock.sleeps.push(ms) === 1) await other.tryStart(); // the other run wins the freed start
    };
    const racing = createBudgetGate(createBudgetLedger(store, spec, { now: clock.now }), { now: clock.now, sleep });
    await racing.take();
    expect(clock.sleeps).toEqual([MINUTE, MINUTE]);
    expect(racing.stats).toMatchObject({ admitted: 1, waits: 2, waitedMs: 2 * MINUTE });
  });

  it('throws BudgetExhaustedError with the next start time, without sleeping or reserving, when the wait passes the deadline', async () => {
    const { gate, clock, ledger, waits } = setup('1/1m');
    await gate.take();
    const taking = gate.take({ deadline: T0 + 30_000 });
    await expect(taking).rejects.toBeInstanceOf(BudgetExhaustedError);
    await expect(taking).rejects.toMatchObject({ nextStartAt: T0 + MINUTE });
    expect(clock.sleeps).toEqual([]);
    expect(waits).toEqual([]);
    expect((await ledger.snapshot()).used).toBe(1);
  });

  it('waits when the wait ends exactly at the deadline', async () => {
    const { gate, clock } = setup('1/1m');
    await gate.take();
    await gate.take({ deadline: T0 + MINUTE });
    expect(clock.t).toBe(T0 + MINUTE);
  });

  it('rejects with the signal reason when aborted during a wait, and counts the time waited', async () => {
    const { ledger, clock } = setup('1/1m');
    const sleep = (_ms: number, signal?: AbortSignal) =>
      new Promise<void>((_resolve, reject) => {
        signal?.addEventListener('abort', () => {
          clock.t += 5_000;
          reject(new Error('sleep interrupted'));
        });
      });
    const gate = createBudgetGate(ledger, { now: clock.now, sleep });
    await gate.take();
    const controller = new AbortController();
    const taking = gate.take({ signal: controller.signal });
    await new Promise((resolve) => setImmediate(resolve));
    const reason = new Error('run cancelled');
    controller.abort(reason);
    await expect(taking).rejects.toBe(reason);
    expect(gate.stats).toMatchObject({ admitted: 1, waits: 1, waitedMs: 5_000 });
  });

  it('rejects at once when the signal is already aborted, reserving nothing', async () => {
    const { gate, ledger } = setup();
    const reason = new Error('stopped');
    await expect(gate.take({ signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
    expect((await ledger.snapshot()).used).toBe(0);
  });

  it('pauses the whole deployment for the Retry-After the server gave', async () => {
    const { gate, store, spec, clock } = setup();
    await gate.rateLimited(45_000);
    const otherRun = createBudgetLedger(store, spec, { now: clock.now });
    expect(await otherRun.tryStart()).toEqual({ waitMs: 45_000, reason: 'paused' });
    expect(gate.stats.rateLimited).toBe(1);
    expect((await otherRun.snapshot()).rateLimited).toBe(1);
  });

  it('backs off 30 s, 60 s, 120 s… capped at the window after consecutive 429s without Retry-After', async () => {
    const { gate, ledger, clock } = setup('50/5m');
    const pauses: number[] = [];
    for (let i = 0; i < 5; i++) {
      await gate.rateLimited(i % 2 === 0 ? undefined : 0);
      pauses.push((await ledger.snapshot()).pausedUntil - clock.t);
      await gate.take();
    }
    expect(pauses).toEqual([30_000, 60_000, 120_000, 240_000, 300_000]);
  });

  it('starts the backoff again at 30 s after a request that was not rate limited', async () => {
    const { gate, ledger, clock } = setup('50/5m');
    await gate.take();
    await gate.rateLimited(undefined);
    await gate.take();
    await gate.rateLimited(undefined);
    await gate.take(); // this request succeeded
    await gate.take();
    await gate.rateLimited(undefined);
    expect((await ledger.snapshot()).pausedUntil - clock.t).toBe(30_000);
  });

  it('counts a 429 that carried Retry-After as one of a series', async () => {
    const { gate, ledger, clock } = setup('50/5m');
    await gate.rateLimited(10_000);
    await gate.take();
    await gate.rateLimited(undefined);
    expect((await ledger.snapshot()).pausedUntil - clock.t).toBe(60_000);
  });

  it('keeps live stats of admitted starts, waits, time waited and 429s', async () => {
    const { gate } = setup('2/1m');
    await gate.take();
    await gate.take();
    await gate.take();
    await gate.rateLimited(20_000);
    await gate.take();
    // The 429 also taught the ledger that one of ours fits a minute beside the other tool
    // (half the budget): the fourth start waits for the third to leave, past the 20 s pause.
    expect(gate.stats).toEqual({ admitted: 4, waits: 2, waitedMs: MINUTE + MINUTE, rateLimited: 1, waitsCut: 0 });
  });
});

describeSharedStoreContract('memory', () => createMemoryStore());

describe('what a 429 teaches the ledger', () => {
  const spec = parseBudget('10/1h');
  const HOUR = 3_600_000;

  it('allows per window only what got through before the 429, so a steady competitor causes no 429 in the next windows', () => {
    let doc: LedgerDoc | undefined;
    for (let i = 0; i < 6; i++) doc = admit(doc, spec, T0 + i).doc;
    // The sixth start was refused by the API: five of ours fit beside the other tool's share.
    const learnt = { ...(doc as LedgerDoc), learnt: { limit: 5, at: T0 + 5 } };

    expect(limitAt(learnt, spec, T0 + HOUR)).toBe(5);
    const fifthInNextHour = [0, 1, 2, 3, 4].reduce<LedgerDoc>((d, i) => admit(d, spec, T0 + HOUR + 10 + i).doc, learnt);
    expect(admit(fifthInNextHour, spec, T0 + HOUR + 20).waitMs).toBeGreaterThan(0);
  });

  it('probes upwards by a tenth of the budget after four clean windows, then two and four tenths', () => {
    const doc: LedgerDoc = { starts: [], pausedUntil: 0, rateLimited: 1, consecutive429: 0, learnt: { limit: 5, at: T0 } };
    const at = (windows: number) => limitAt(doc, spec, T0 + windows * HOUR);

    expect([at(0), at(3.9), at(4), at(8), at(12)]).toEqual([5, 5, 6, 8, 10]);
  });

  it('uses the whole budget again once the learnt limit has grown back to it', () => {
    const doc: LedgerDoc = { starts: [], pausedUntil: 0, rateLimited: 1, consecutive429: 0, learnt: { limit: 5, at: T0 } };
    expect(limitAt(doc, spec, T0 + 400 * HOUR)).toBe(10);
    expect(limitAt({ ...doc, learnt: undefined } as never, spec, T0)).toBe(10);
  });

  it('records the limit when the gate reports a 429: the starts in the window but the refused one', async () => {
    const { gate, ledger } = setup('10/1h');
    for (let i = 0; i < 9; i++) await gate.take();

    await gate.rateLimited(1_000);

    expect((await ledger.snapshot()).limit).toBe(8);
  });

  it('never learns a limit below half the budget: a 429 after few of ours is a burst, which the pause handles', async () => {
    const { gate, ledger } = setup('10/1h');
    await gate.take();

    await gate.rateLimited(1_000);

    expect((await ledger.snapshot()).limit).toBe(5);
  });
});
