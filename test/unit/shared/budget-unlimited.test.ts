/**
 * The embedded sandbox's ledger (createUnlimitedLedger): no limit, but a 429 still pauses
 * everyone, the window still counts, and a refund gives the start back.
 */
import { describe, expect, it } from 'vitest';
import { createBudgetGate, createUnlimitedLedger } from '../../../functions/shared/pacing/budget.js';

const SPEC = { requests: 1_000_000, windowMs: 60_000, text: 'unlimited (embedded sandbox)' };

describe('a ledger without a limit', () => {
  it('admits every start at once and counts the ones of the window', async () => {
    let now = 1_000_000;
    const ledger = createUnlimitedLedger(SPEC, { now: () => now });
    for (let i = 0; i < 5_000; i++) expect((await ledger.tryStart()).waitMs).toBe(0);
    expect((await ledger.snapshot()).used).toBe(5_000);
    now += 30_000;
    await ledger.tryStart();
    now += 30_000;
    // The first 5,000 left the window; the one 30 s ago is still in it.
    expect(await ledger.snapshot()).toMatchObject({ used: 1, nextStartAt: now, pausedUntil: 0, rateLimited: 0, limit: 1_000_000 });
  });

  it('pauses every start after a 429 until its time, never beyond one window', async () => {
    let now = 0;
    const ledger = createUnlimitedLedger(SPEC, { now: () => now });
    await ledger.pause(now + 5_000);
    expect(await ledger.tryStart()).toEqual({ waitMs: 5_000, reason: 'paused' });
    await ledger.pause(now + 10 * SPEC.windowMs);
    expect((await ledger.snapshot()).pausedUntil).toBe(SPEC.windowMs);
    now = SPEC.windowMs;
    expect(await ledger.tryStart()).toEqual({ waitMs: 0, reason: 'free', at: now });
    expect((await ledger.snapshot()).rateLimited).toBe(2);
  });

  it('gives back a refunded start, and the gate sleeps through a pause', async () => {
    let now = 0;
    const ledger = createUnlimitedLedger(SPEC, { now: () => now });
    const slept: number[] = [];
    const gate = createBudgetGate(ledger, {
      now: () => now,
      sleep: async (ms) => {
        slept.push(ms);
        now += ms;
      },
    });
    await gate.take();
    await gate.refund();
    expect((await ledger.snapshot()).used).toBe(0);
    await gate.rateLimited(2_000);
    await gate.take();
    expect(slept).toEqual([2_000]);
    expect(gate.stats).toMatchObject({ admitted: 1, rateLimited: 1, waits: 1 });
  });
});
