/**
 * Polling after the send: read the job on the schedule of poll.ts until this run's end, for
 * as long as this call may (its poll budget), then save the progress and defer the message.
 * Polling resumes from the saved record in a later call, without ever POSTing again. A lease
 * keeps two consumers from polling one request at once; it is renewed before a wait could
 * outlast it.
 */
import { isKnownJobStatus, isTerminalJobStatus, type AgentJob } from '../shared/api-enums.js';
import { formatDuration } from '../shared/durations.js';
import { describeError, stripControlCharacters } from '../shared/errors.js';
import { errorAction, retryAfterOf, unreachableReason } from './error-actions.js';
import { finish } from './finish.js';
import { judgeRead, nextPollDelay } from './poll.js';
import { LOST_RACE, deferred, isOwnerGone, readOptions, stopping, write, type Run, type Step } from './run.js';
import { baseOf, type Lease, type SentState, type StateDraft } from './state.js';
import type { DeferCause } from './types.js';
import { FOLLOWUP_METRICS } from '../shared/metric-names.js';

/** Time kept between the end of a poll call and its deadline, to save the progress (ms). */
const SAVE_MARGIN_MS = 1_000;

export async function pollJob(run: Run, state: SentState, fresh: boolean): Promise<Step> {
  const { deps, settings, message } = run;
  run.sent = true;
  let now = deps.now();
  if (!fresh && state.owner !== undefined && state.leaseExpiresAt > now && !isOwnerGone(run, state.owner)) {
    return deferred(run, state.leaseExpiresAt - now + 1_000, 'another consumer is polling', 'held');
  }
  const budgetEnd = Math.min(now + settings.pollBudgetMs, (run.options.deadline ?? Infinity) - SAVE_MARGIN_MS);
  let current: SentState = state;
  const progress = {
    polls: state.polls,
    sawActive: state.sawActive,
    terminalReads: state.terminalReads,
    lastStatus: state.lastStatus,
    lastPrLink: state.lastPrLink,
  };
  /** Saves the progress, with or without a lease; false when another writer won. */
  const save = async (lease: Lease | undefined): Promise<boolean> => {
    const fields = { ...baseOf(current), jobId: current.jobId, phase: 'sent', sentAt: current.sentAt, before: current.before, ...progress } as const;
    const draft: Extract<StateDraft, { phase: 'sent' }> = lease ? { ...fields, ...lease } : fields;
    const saved = await write(run, draft, current.version);
    if (saved) current = saved;
    return saved !== undefined;
  };
  const release = async (delayMs: number, reason: string, cause: DeferCause): Promise<Step> => {
    if (!(await save(undefined))) return LOST_RACE;
    deps.metrics.count(FOLLOWUP_METRICS.deferred);
    return deferred(run, delayMs, reason, cause, progress.polls);
  };

  if (!fresh && !(await save({ owner: run.owner, leaseExpiresAt: now + settings.leaseMs }))) return LOST_RACE;
  let delay = fresh ? nextPollDelay(0, settings.schedule, run.random) : 0;
  for (;;) {
    now = deps.now();
    if (stopping(run)) return release(delay, 'consumer stopping', 'stopping');
    if (now + delay > budgetEnd) return release(delay, 'polling continues later', 'polling');
    if (current.owner === run.owner && current.leaseExpiresAt < now + delay + settings.leaseMs / 4) {
      if (!(await save({ owner: run.owner, leaseExpiresAt: now + delay + settings.leaseMs }))) return LOST_RACE;
    }
    if (delay > 0) await deps.sleep(delay);
    now = deps.now();
    if (now - current.sentAt >= settings.maxWaitMs) {
      return finish(run, current, 'timed_out', {
        detail: `the job did not finish within ${formatDuration(settings.maxWaitMs, 'coarse')} (FOLLOWUP_MAX_WAIT_HOURS)`,
        prLink: progress.lastPrLink,
        polls: progress.polls,
      });
    }
    let job: AgentJob;
    try {
      progress.polls++;
      job = await run.api.getJob(message.projectId, current.jobId, readOptions(run));
    } catch (error) {
      const action = errorAction('poll', error);
      if (action === 'fail') {
        return finish(run, current, 'failed', { detail: 'the job disappeared while polling (404)', polls: progress.polls });
      }
      if (stopping(run)) return release(0, 'consumer stopping', 'stopping');
      if (action === 'defer-rate-limited') {
        const wait = retryAfterOf(error) ?? settings.rateLimitDeferMs;
        run.log.warn('rate limited (429) reading the job; polling continues later', { delayMs: wait });
        return release(wait, 'rate limited', 'rate-limited');
      }
      if (action === 'defer-unreachable') {
        const reason = unreachableReason(error);
        run.log.error('the API could not be reached; polling continues later', { error: reason });
        return release(nextPollDelay(now - current.sentAt, settings.schedule, run.random), reason, 'unreachable');
      }
      run.log.warn('reading the job failed; polling continues later', { error: describeError(error) });
      return release(nextPollDelay(now - current.sentAt, settings.schedule, run.random), 'job read failed', 'polling');
    }
    run.lastJob = job;
    if (job.status !== progress.lastStatus || (job.prLink ?? null) !== progress.lastPrLink) {
      run.log.info('job status changed', { status: job.status, polls: progress.polls });
      // Said once: the next reads carry the same status, and `lastStatus` survives deferrals.
      if (job.status !== progress.lastStatus) noteUnknownStatus(run, job.status);
      deps.onJob?.(job, { requestId: message.requestId, polls: progress.polls });
    }
    progress.lastStatus = job.status;
    progress.lastPrLink = job.prLink ?? null;
    const judged = judgeRead(progress, job, { before: current.before, sinceSendMs: deps.now() - current.sentAt, grace: settings.grace });
    progress.sawActive = judged.evidence.sawActive;
    progress.terminalReads = judged.evidence.terminalReads;
    if (judged.finished && isTerminalJobStatus(job.status)) {
      return finish(run, current, job.status, { prLink: job.prLink ?? null, polls: progress.polls });
    }
    delay = nextPollDelay(deps.now() - current.sentAt, settings.schedule, run.random);
  }
}

/**
 * Logs a job status this version does not know (the service may add one): it is taken as not
 * finished, and polling goes on until a terminal status or FOLLOWUP_MAX_WAIT_HOURS. Called
 * when the status is first seen (the POST's answer, or a read that changed it).
 */
export function noteUnknownStatus(run: Run, status: string): void {
  if (isKnownJobStatus(status)) return;
  run.log.warn('the job reports a status this version does not know: taken as not finished, polling goes on', {
    status: stripControlCharacters(status).slice(0, 40),
    maxWaitMs: run.settings.maxWaitMs,
  });
}
