/** The time module: the two sleeps on a fake clock, and the one backoff formula. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { backoffDelay, DAY_MS, HOUR_MS, sleep } from '../../../functions/shared/time.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('sleep', () => {
  it('ends when the fake clock has moved by the delay, not before', async () => {
    vi.useFakeTimers();
    let done = false;
    const slept = sleep(5_000).then(() => {
      done = true;
    });

    await vi.advanceTimersByTimeAsync(4_999);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await slept;

    expect(done).toBe(true);
  });

  it('rejects with the signal reason when stopped, at once', async () => {
    vi.useFakeTimers();
    const stop = new AbortController();
    const slept = sleep(HOUR_MS, stop.signal);

    stop.abort(new Error('stopped'));

    await expect(slept).rejects.toThrow('stopped');
  });

  it('a delay longer than one timer holds is slept in chunks, not turned into 1 ms', async () => {
    vi.useFakeTimers();
    let done = false;
    const slept = sleep(30 * DAY_MS).then(() => {
      done = true;
    });

    await vi.advanceTimersByTimeAsync(25 * DAY_MS);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(5 * DAY_MS);
    await slept;

    expect(done).toBe(true);
  });
});

describe('backoffDelay', () => {
  it('doubles from the base and stops at the cap', () => {
    const delays = [1, 2, 3, 4, 5, 6].map((attempt) => backoffDelay(attempt, { baseMs: HOUR_MS, maxMs: DAY_MS }));

    expect(delays).toEqual([1, 2, 4, 8, 16, 24].map((h) => h * HOUR_MS));
  });

  it('equal jitter stays within half the delay and the delay; full jitter within zero and the delay', () => {
    expect(backoffDelay(3, { baseMs: 100, jitter: 'equal', random: () => 0 })).toBe(200);
    expect(backoffDelay(3, { baseMs: 100, jitter: 'equal', random: () => 0.999_999 })).toBe(400);
    expect(backoffDelay(3, { baseMs: 100, jitter: 'full', random: () => 0 })).toBe(0);
    expect(backoffDelay(3, { baseMs: 100, factor: 3, jitter: 'full', random: () => 0.5 })).toBe(450);
  });
});
