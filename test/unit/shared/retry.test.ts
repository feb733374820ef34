import { describe, expect, it } from 'vitest';
import { ApiError, DeadlineExceededError, MalformedResponseError, NetworkError, RateLimitedError } from '../../../functions/shared/errors.js';
import { isRetryableRead, isRetryableSend } from '../../../functions/shared/pacing/retry-policy.js';
import { backoffDelay, parseRetryAfter, retry } from '../../../functions/shared/pacing/retry.js';

/** A clock that only moves when the code under test sleeps. */
function fakeClock(start = 1_000_000) {
  let time = start;
  const waits: number[] = [];
  return {
    now: () => time,
    sleep: async (ms: number) => {
      waits.push(ms);
      time += ms;
    },
    waits,
    elapsed: () => time - start,
  };
}

/** A function that fails with the given errors in turn, then succeeds with 'ok'. */
function failingThen(errors: unknown[]) {
  let calls = 0;
  const fn = async () => {
    const error = errors[calls];
    calls += 1;
    if (error !== undefined) throw error;
    return 'ok';
  };
  return { fn, calls: () => calls };
}

describe('parseRetryAfter', () => {
  const now = Date.UTC(2026, 0, 15, 12, 0, 0);

  it('reads delta-seconds as milliseconds', () => {
    expect(parseRetryAfter('120', now)).toBe(120_000);
  });

  it('reads fractional seconds, rounding up', () => {
    expect(parseRetryAfter('1.5', now)).toBe(1_500);
  });

  it('reads an HTTP date relative to now', () => {
    expect(parseRetryAfter('Thu, 15 Jan 2026 12:00:30 GMT', now)).toBe(30_000);
  });

  it('treats 0 as "use the backoff"', () => {
    expect(parseRetryAfter('0', now)).toBeUndefined();
  });

  it('treats a negative number as "use the backoff"', () => {
    expect(parseRetryAfter('-5', now)).toBeUndefined();
  });

  it('treats garbage as "use the backoff"', () => {
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter('12abc', now)).toBeUndefined();
  });

  it('treats a date in the past as "use the backoff"', () => {
    expect(parseRetryAfter('Thu, 15 Jan 2026 11:59:00 GMT', now)).toBeUndefined();
  });

  it('treats an absent or blank header as "use the backoff"', () => {
    expect(parseRetryAfter(null, now)).toBeUndefined();
    expect(parseRetryAfter('  ', now)).toBeUndefined();
  });
});

describe('backoffDelay', () => {
  it('starts at half the base delay with the lowest random draw', () => {
    expect(backoffDelay(1, { minMs: 500, random: () => 0 })).toBe(250);
  });

  it('reaches the full exponential value with the highest random draw', () => {
    expect(backoffDelay(3, { minMs: 500, factor: 2, random: () => 1 })).toBe(2_000);
  });

  it('never exceeds the cap however many retries have passed', () => {
    expect(backoffDelay(40, { minMs: 500, maxMs: 30_000, random: () => 1 })).toBe(30_000);
  });

  it('keeps every jittered delay within [cap/2, cap]', () => {
    for (let attempt = 1; attempt <= 10; attempt += 1) {
      const cap = Math.min(30_000, 500 * 2 ** (attempt - 1));
      for (const r of [0, 0.13, 0.5, 0.87, 0.999]) {
        const ms = backoffDelay(attempt, { random: () => r });
        expect(ms).toBeGreaterThanOrEqual(Math.floor(cap / 2));
        expect(ms).toBeLessThanOrEqual(cap);
      }
    }
  });

  it('spreads delays with different random draws (jitter)', () => {
    const low = backoffDelay(4, { random: () => 0.1 });
    const high = backoffDelay(4, { random: () => 0.9 });
    expect(high).toBeGreaterThan(low);
  });
});

describe('retry', () => {
  it('returns the first success after retryable failures', async () => {
    const clock = fakeClock();
    const { fn, calls } = failingThen([new ApiError('x', 503), new NetworkError('reset', false)]);
    await expect(retry(fn, { shouldRetry: isRetryableRead, ...clock, random: () => 0 })).resolves.toBe('ok');
    expect(calls()).toBe(3);
    expect(clock.waits).toEqual([250, 500]);
  });

  it('stops at once on a failure that is not retryable', async () => {
    const clock = fakeClock();
    const error = new ApiError('gone', 404);
    const { fn, calls } = failingThen([error]);
    await expect(retry(fn, { shouldRetry: isRetryableRead, ...clock })).rejects.toBe(error);
    expect(calls()).toBe(1);
    expect(clock.waits).toEqual([]);
  });

  it('waits exactly the Retry-After the server asked for instead of the backoff', async () => {
    const clock = fakeClock();
    const { fn } = failingThen([new RateLimitedError('slow', { retryAfterMs: 7_000 })]);
    await retry(fn, { shouldRetry: isRetryableRead, ...clock, random: () => 0 });
    expect(clock.waits).toEqual([7_000]);
  });

  it('throws the last error once the retries are spent', async () => {
    const clock = fakeClock();
    const errors = [1, 2, 3, 4].map((n) => new ApiError(`fail ${n}`, 500));
    const { fn, calls } = failingThen(errors);
    await expect(retry(fn, { retries: 2, shouldRetry: isRetryableRead, ...clock })).rejects.toBe(errors[2]);
    expect(calls()).toBe(3);
  });

  it('never lets the total simulated wait pass the deadline', async () => {
    const clock = fakeClock();
    const deadline = clock.now() + 10_000;
    const errors = Array.from({ length: 20 }, () => new ApiError('down', 503));
    const { fn } = failingThen(errors);
    const failure = retry(fn, { retries: 20, shouldRetry: isRetryableRead, ...clock, deadline, random: () => 1 });
    await expect(failure).rejects.toBeInstanceOf(DeadlineExceededError);
    expect(clock.now()).toBeLessThanOrEqual(deadline);
    // 500 + 1000 + 2000 + 4000 = 7500; the next 8000 would end past the deadline.
    expect(clock.waits).toEqual([500, 1_000, 2_000, 4_000]);
  });

  it('keeps the last error as the cause of the deadline error', async () => {
    const clock = fakeClock();
    const last = new ApiError('down', 503);
    const { fn } = failingThen([last]);
    const error = await retry(fn, { shouldRetry: isRetryableRead, ...clock, deadline: clock.now() + 100 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DeadlineExceededError);
    expect((error as Error).cause).toBe(last);
  });

  it('rethrows a 429 as is when its Retry-After would pass the deadline, so the caller can defer', async () => {
    const clock = fakeClock();
    const limited = new RateLimitedError('slow', { retryAfterMs: 60_000 });
    const { fn, calls } = failingThen([limited]);
    await expect(retry(fn, { shouldRetry: isRetryableSend, ...clock, deadline: clock.now() + 30_000 })).rejects.toBe(limited);
    expect(calls()).toBe(1);
    expect(clock.waits).toEqual([]);
  });

  it('does not sleep through a Retry-After longer than maxRetryAfterMs', async () => {
    const clock = fakeClock();
    const limited = new RateLimitedError('slow', { retryAfterMs: 3_600_000 });
    const { fn } = failingThen([limited]);
    await expect(retry(fn, { shouldRetry: isRetryableRead, ...clock, maxRetryAfterMs: 60_000 })).rejects.toBe(limited);
    expect(clock.waits).toEqual([]);
  });

  it('starts no attempt when the deadline has already passed', async () => {
    const clock = fakeClock();
    const { fn, calls } = failingThen([]);
    await expect(retry(fn, { shouldRetry: isRetryableRead, ...clock, deadline: clock.now() - 1 })).rejects.toBeInstanceOf(DeadlineExceededError);
    expect(calls()).toBe(0);
  });

  it('asks shouldRetry with the failures of the earlier attempts', async () => {
    const clock = fakeClock();
    const first = new ApiError('x', 503);
    const second = new MalformedResponseError('bad');
    const { fn } = failingThen([first, second]);
    const asked: unknown[][] = [];
    await retry(fn, {
      ...clock,
      shouldRetry: (_error, earlier) => {
        asked.push([...earlier]);
        return true;
      },
    });
    expect(asked).toEqual([[], [first]]);
  });

  it('treats a pause as no retry: onPause runs, no backoff is slept, and the retries stay for failures', async () => {
    const clock = fakeClock();
    const slow = () => new RateLimitedError('slow');
    const { fn, calls } = failingThen([slow(), new ApiError('x', 503), slow(), slow(), new ApiError('x', 503)]);
    const paused: unknown[] = [];
    const decide = (error: unknown) => (error instanceof RateLimitedError ? ('pause' as const) : isRetryableRead(error));

    await expect(
      retry(fn, {
        ...clock,
        retries: 1,
        shouldRetry: decide,
        onPause: async (error) => {
          paused.push(error);
        },
      }),
    ).rejects.toMatchObject({ status: 503 });

    expect(calls()).toBe(5);
    expect(paused).toHaveLength(3);
    expect(clock.waits).toHaveLength(1);
  });

  it('reports each retry with its delay before waiting', async () => {
    const clock = fakeClock();
    const events: { attempt: number; delayMs: number; fromRetryAfter: boolean }[] = [];
    const { fn } = failingThen([new ApiError('x', 500), new RateLimitedError('slow', { retryAfterMs: 2_000 })]);
    await retry(fn, {
      shouldRetry: isRetryableRead,
      ...clock,
      random: () => 0,
      onRetry: ({ attempt, delayMs, fromRetryAfter }) => events.push({ attempt, delayMs, fromRetryAfter }),
    });
    expect(events).toEqual([
      { attempt: 1, delayMs: 250, fromRetryAfter: false },
      { attempt: 2, delayMs: 2_000, fromRetryAfter: true },
    ]);
  });

  it('stops when the caller aborts during a wait', async () => {
    const controller = new AbortController();
    let time = 0;
    const { fn, calls } = failingThen([new ApiError('x', 500), new ApiError('x', 500)]);
    const failure = retry(fn, {
      shouldRetry: isRetryableRead,
      now: () => time,
      sleep: async (ms, signal) => {
        time += ms;
        controller.abort(new Error('cancelled'));
        signal?.throwIfAborted();
      },
      signal: controller.signal,
    });
    await expect(failure).rejects.toThrow('cancelled');
    expect(calls()).toBe(1);
  });
});
