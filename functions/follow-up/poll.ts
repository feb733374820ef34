/**
 * When to read the job again, and whether a terminal read belongs to our prompt's run.
 *
 * Schedule: the interval grows with the time since the send, `max(min, fraction × elapsed)`,
 * jittered only DOWNWARD (so the bound holds) and capped. When the job really ends at T after
 * the send, the last poll before it was at t < T, the next one at t + interval(t), so the
 * outcome lands at most `max(5 s, 10 % × T)` after the end; a 2 h job costs about 65 GETs.
 * Long waits are not slept in a Lambda: the consumer defers the message with that interval.
 */
import { isTerminalJobStatus, type AgentJob } from '../shared/api-enums.js';
import type { JobSnapshot } from './state.js';
import { HOUR_MS } from '../shared/time.js';

/** Every field is required; DEFAULT_POLL_SCHEDULE holds the values used unless a setting replaces them. */
export interface PollSchedule {
  /** Shortest interval (ms). */
  readonly minIntervalMs: number;
  /** Interval as a share of the time since the send. */
  readonly fraction: number;
  /** Longest interval (ms); SQS visibility allows 12 h. */
  readonly maxIntervalMs: number;
  /** Downward jitter share, spreads many consumers' polls. */
  readonly jitter: number;
}

export const DEFAULT_POLL_SCHEDULE: PollSchedule = {
  minIntervalMs: 5_000,
  fraction: 0.1,
  maxIntervalMs: 2 * HOUR_MS,
  jitter: 0.05,
};

/** Delay (ms) before the next GET, given the time elapsed since the send. */
export function nextPollDelay(elapsedMs: number, schedule: PollSchedule = DEFAULT_POLL_SCHEDULE, random: () => number = Math.random): number {
  const proportional = schedule.fraction * Math.max(0, elapsedMs) * (1 - schedule.jitter * random());
  return Math.min(schedule.maxIntervalMs, Math.max(schedule.minIntervalMs, proportional));
}

/**
 * The stale-read rule. Right after a send the service may still report the PREVIOUS run's
 * terminal status. A terminal read counts as this run's end when:
 * 1. the job was seen `active` since the send (the POST response included), or
 * 2. status or prLink differ from the pre-send snapshot (e.g. a new pull request), or
 * 3. the job was created by the POST (`before` is null): there is no previous run, or
 * 4. (fallback, for a run too short to be seen active that changed nothing) the job has read
 *    terminal-and-unchanged for at least `graceMs` since the send AND `graceReads` times in a row.
 * Rule 4 delays such outcomes by up to `graceMs`; it is the price of never taking a stale read
 * for completion while stale reads last shorter than that.
 * A status this version does not know (the service may add one) is not terminal: it counts as
 * `active` does, so the job is polled on until a terminal status or FOLLOWUP_MAX_WAIT_HOURS.
 */
/** Values used unless a setting replaces them: DEFAULT_GRACE. */
export interface StaleReadGrace {
  /** Least time since the send (ms). */
  readonly ms: number;
  /** Least terminal-and-unchanged reads in a row. */
  readonly reads: number;
}

export const DEFAULT_GRACE: StaleReadGrace = { ms: 60_000, reads: 3 };

export interface RunEvidence {
  readonly sawActive: boolean;
  readonly terminalReads: number;
}

export function judgeRead(
  evidence: RunEvidence,
  job: Pick<AgentJob, 'status' | 'prLink'>,
  context: { readonly before: JobSnapshot | null; readonly sinceSendMs: number; readonly grace: StaleReadGrace },
): { readonly evidence: RunEvidence; readonly finished: boolean } {
  if (!isTerminalJobStatus(job.status)) return { evidence: { sawActive: true, terminalReads: 0 }, finished: false };
  // A job created by our POST has no earlier run whose status could be read stale.
  if (evidence.sawActive || context.before === null) return { evidence, finished: true };
  const changed = job.status !== context.before.status || (job.prLink ?? null) !== (context.before.prLink ?? null);
  if (changed) return { evidence, finished: true };
  const terminalReads = evidence.terminalReads + 1;
  const finished = context.sinceSendMs >= context.grace.ms && terminalReads >= context.grace.reads;
  return { evidence: { sawActive: false, terminalReads }, finished };
}
