import { describe, expect, it } from 'vitest';
import { DEFAULT_GRACE, DEFAULT_POLL_SCHEDULE, judgeRead, nextPollDelay } from '../../../functions/follow-up/poll.js';
import { formatDuration } from '../../../functions/shared/durations.js';
import { seededRandom } from '../../helpers/random.js';

/** The follow-up's long waits (FOLLOWUP_MAX_WAIT_HOURS in a timed_out detail). */
const formatWait = (ms: number) => formatDuration(ms, 'coarse');

/** Simulates polling a job that ends `durationMs` after the send; returns GETs and the lag of the outcome. */
function simulate(durationMs: number, random: () => number) {
  let t = 0;
  let gets = 0;
  for (;;) {
    t += nextPollDelay(t, DEFAULT_POLL_SCHEDULE, random);
    gets++;
    if (t >= durationMs) return { gets, lagMs: t - durationMs };
  }
}

const jitters: [string, () => number][] = [
  ['no jitter', () => 0],
  ['full jitter', () => 0.999],
  ['random jitter', seededRandom(7)],
];

describe('nextPollDelay', () => {
  it('never waits less than 5 s nor more than 2 h', () => {
    expect(nextPollDelay(0)).toBe(5_000);
    expect(nextPollDelay(1_000_000_000)).toBe(2 * 3_600_000);
  });

  it('waits about 10 % of the time since the send once that exceeds 5 s', () => {
    expect(nextPollDelay(600_000, DEFAULT_POLL_SCHEDULE, () => 0)).toBe(60_000);
    expect(nextPollDelay(600_000, DEFAULT_POLL_SCHEDULE, () => 1)).toBe(57_000);
  });

  it.each(jitters)('needs at most 7 GETs for a 30 s job (%s)', (_n, random) => {
    expect(simulate(30_000, random).gets).toBeLessThanOrEqual(7);
  });

  it.each(jitters)('needs at most 40 GETs for a 10 min job (%s)', (_n, random) => {
    expect(simulate(600_000, random).gets).toBeLessThanOrEqual(40);
  });

  it.each(jitters)('needs at most 69 GETs for a 2 h job, leaving one for the pre-send read (%s)', (_n, random) => {
    expect(simulate(7_200_000, random).gets).toBeLessThanOrEqual(69);
  });

  it('records the outcome at most max(5 s, 10 % of the duration) after the job ends', () => {
    const random = seededRandom(3);
    for (const duration of [1_000, 30_000, 61_000, 600_000, 3_599_000, 7_200_000, 20 * 3_600_000]) {
      expect(simulate(duration, random).lagMs).toBeLessThanOrEqual(Math.max(5_000, 0.1 * duration));
    }
  });
});

describe('judgeRead (stale reads)', () => {
  const before = { status: 'completed' as const, prLink: 'https://github.com/o/r/pull/1' };
  const fresh = { sawActive: false, terminalReads: 0 };

  it('does not take the previous run’s terminal status for this run’s end', () => {
    const judged = judgeRead(fresh, before, { before, sinceSendMs: 5_000, grace: DEFAULT_GRACE });
    expect(judged.finished).toBe(false);
  });

  it('takes a terminal status after the job was seen active', () => {
    const active = judgeRead(fresh, { status: 'active', prLink: null }, { before, sinceSendMs: 5_000, grace: DEFAULT_GRACE });
    const done = judgeRead(active.evidence, before, { before, sinceSendMs: 10_000, grace: DEFAULT_GRACE });
    expect(done.finished).toBe(true);
  });

  it('takes a terminal status with a new prLink even when active was never seen', () => {
    const judged = judgeRead(fresh, { status: 'completed', prLink: 'https://github.com/o/r/pull/2' }, { before, sinceSendMs: 5_000, grace: DEFAULT_GRACE });
    expect(judged.finished).toBe(true);
  });

  it('takes an unchanged terminal status only after the grace period and enough reads', () => {
    let evidence = fresh;
    let judged = judgeRead(evidence, before, { before, sinceSendMs: 70_000, grace: DEFAULT_GRACE });
    expect(judged.finished).toBe(false);
    evidence = judged.evidence;
    judged = judgeRead(evidence, before, { before, sinceSendMs: 75_000, grace: DEFAULT_GRACE });
    expect(judged.finished).toBe(false);
    judged = judgeRead(judged.evidence, before, { before, sinceSendMs: 80_000, grace: DEFAULT_GRACE });
    expect(judged.finished).toBe(true);
  });
});

describe('formatWait', () => {
  it('writes a short FOLLOWUP_MAX_WAIT_HOURS in minutes, never as "0 h"', () => {
    expect(formatWait(0.05 * 3_600_000)).toBe('3 min');
    expect(formatWait(1_000)).toBe('1 min');
    expect(formatWait(1.5 * 3_600_000)).toBe('1.5 h');
    expect(formatWait(24 * 3_600_000)).toBe('24 h');
  });
});
