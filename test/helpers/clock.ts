/**
 * Role: fake clocks. Time moves only when the code under test sleeps on the clock (the budget
 * gate, the client's backoff) or when a test moves it, so hours of waiting take milliseconds.
 */
import type { Sleep } from '../../functions/shared/time.js';

export const HOUR_MS = 3_600_000;

/** Every sleep is recorded and moves `now`; a sleep honours its abort signal like the real one. */
export interface FakeClock {
  readonly now: () => number;
  readonly sleep: Sleep;
  /** Every wait asked for, in order, ms. */
  readonly sleeps: number[];
  /** Moves the time forward by `ms`. */
  advance(ms: number): void;
  /** Sets the time to `epochMs`. */
  set(epochMs: number): void;
}

export function fakeClock(start: number): FakeClock {
  let time = start;
  const sleeps: number[] = [];
  return {
    now: () => time,
    sleeps,
    sleep: async (ms, signal) => {
      signal?.throwIfAborted();
      sleeps.push(ms);
      time += ms;
    },
    advance(ms) {
      time += ms;
    },
    set(epochMs) {
      time = epochMs;
    },
  };
}
