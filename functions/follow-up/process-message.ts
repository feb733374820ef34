/**
 * The follow-up core: one queue message in, one decision out — `handled` (delete the message)
 * or `defer` (make it visible again after `delayMs`, keeping its FIFO group blocked).
 * The Lambda handler, the `consume` loop and the `follow-up` command all call this function;
 * they differ only in how they apply the decision.
 *
 * Guarantees (docs/design.md §3.4): at most one POST per requestId (see
 * state.ts); never a POST while the job is `active`; a 429 defers, never drops; polling resumes
 * from the state record across invocations; bad messages are dead-lettered at once; a failure
 * of our own storage defers the message with backoff, it never escapes as an error.
 *
 * A message without `jobId` creates a job instead, with the same discipline (send.ts `tryCreate`).
 *
 * The steps live beside this file: send.ts (read, claim, POST; or claim, create),
 * poll-job.ts (polling), finish.ts (outcomes, failures, deferrals before the send).
 */
import { REJECTED_REASONS } from './dead-letter.js';
import { deadLetter, finish, notifyOutcome } from './finish.js';
import { messageGroupOf, parseFollowUpMessage } from './message.js';
import { pollJob } from './poll-job.js';
import { LOST_RACE, StorageError, deferred, isOwnerGone, startRun, type Run, type Step } from './run.js';
import { tryCreate, trySend } from './send.js';
import { failureBackoff, resolveSettings, type FollowUpSettings, type ResolvedSettings } from './settings.js';
import { kindOf, type FollowUpState } from './state.js';
import type { FollowUpDeps, IncomingMessage, ProcessOptions, ProcessResult } from './types.js';

/** Time a message needs at least (GET job, claim, POST, record), else it waits for the next call. */
export const MIN_MESSAGE_TIME_MS = 2_000;

/** Processes one message. `settings` may be resolved already (resolveSettings) or not. */
export async function processMessage(
  input: IncomingMessage,
  deps: FollowUpDeps,
  settings: FollowUpSettings,
  options: ProcessOptions = {},
): Promise<ProcessResult> {
  const resolved = resolveSettings(settings);
  const parsed = parseFollowUpMessage(input.body, { messageId: input.messageId, projectIds: resolved.projectIds });
  if (!parsed.ok) {
    // No outcome record: ids may be missing or invalid; the dead-lettered message carries the reason.
    try {
      await deadLetter(deps, input, parsed.requestId, parsed.jobId, `${REJECTED_REASONS.malformed}${parsed.reason}`);
    } catch (error) {
      return storageDeferral(input, parsed.requestId, new StorageError('sending to the dead-letter queue failed', { cause: error }), deps, resolved, false);
    }
    return { action: 'handled', requestId: parsed.requestId, status: 'rejected' };
  }
  if (options.deadline !== undefined && deps.now() > options.deadline - MIN_MESSAGE_TIME_MS) {
    // Too little time left to read the job, claim and send: hand the message back untouched
    // rather than count an attempt the invocation's clock made fail.
    return { action: 'defer', requestId: parsed.message.requestId, delayMs: 0, reason: 'no time left in this invocation', cause: 'no-time', sent: false };
  }
  const run = startRun(input, parsed.message, deps, resolved, options);
  try {
    for (let round = 0; round < 3; round++) {
      const step = await dispatch(run, await run.deps.store.get(run.message.requestId));
      if (step !== LOST_RACE) return step;
    }
    return deferred(run, 1_000, 'state changed concurrently', 'contention');
  } catch (error) {
    if (!(error instanceof StorageError)) throw error;
    return storageDeferral(input, run.message.requestId, error, deps, resolved, run.sent);
  }
}

async function dispatch(run: Run, state: FollowUpState | undefined): Promise<Step> {
  const { message } = run;
  if (state && !sameRequest(run, state)) {
    // Never overwrite another request's record: the caller reused an idempotency key.
    await deadLetter(run.deps, run.input, message.requestId, messageGroupOf(message), REJECTED_REASONS.reusedRequest);
    return { action: 'handled', requestId: message.requestId, status: 'rejected' };
  }
  const now = run.deps.now();
  switch (state?.phase) {
    case undefined:
    case 'pending':
      return message.kind === 'create' ? tryCreate(run, state) : trySend(run, state, message.jobId);
    case 'claimed':
      // A claimant whose process is gone (killed during the POST) will never record the send.
      if (state.leaseExpiresAt > now && !isOwnerGone(run, state.owner)) {
        run.log.info('request is being sent by another consumer; deferring');
        return deferred(run, state.leaseExpiresAt - now + 1_000, 'claimed by another consumer', 'held');
      }
      return finish(run, state, 'uncertain', {
        detail: 'a previous attempt stopped between claiming and recording the send; the POST may or may not have been accepted',
      });
    case 'sent':
      return pollJob(run, state, false);
    case 'done':
      if (state.notified === false && run.deps.notify) {
        // Finished earlier, but its outcome was not published (the topic failed): publish now.
        await notifyOutcome(run, state);
        run.log.info('published the outcome of a request finished earlier', { status: state.outcome });
        return { action: 'handled', requestId: state.requestId, status: state.outcome, prLink: state.prLink, polls: state.polls };
      }
      run.log.info('request already handled; dropping duplicate delivery', { status: state.outcome });
      return { action: 'handled', requestId: state.requestId, status: 'duplicate', prLink: state.prLink, polls: state.polls };
  }
}

/**
 * Whether `state` is this message's record: same project, prompt and kind, and for a
 * follow-up the same job (a new job's record holds the job it created, which the message
 * cannot name).
 */
function sameRequest(run: Run, state: FollowUpState): boolean {
  const { message, fingerprint } = run;
  if (state.projectId !== message.projectId || state.promptSha256 !== fingerprint.sha256 || kindOf(state) !== message.kind) return false;
  return message.kind === 'create' || state.jobId === message.jobId;
}

/**
 * Our storage failed: try again later, with the failure backoff by the message's deliveries.
 * Not counted toward maxFailures — the counter lives in the state store, which may be the
 * part that fails; the queue's own redrive (maxReceiveCount) is the last bound.
 */
function storageDeferral(
  input: IncomingMessage,
  requestId: string,
  error: StorageError,
  deps: FollowUpDeps,
  settings: ResolvedSettings,
  sent: boolean,
): ProcessResult {
  const delayMs = failureBackoff(input.deliveries ?? 1, settings);
  deps.logger.error('storage failed; the message will be retried', { correlationId: requestId, error: error.message, delayMs });
  return { action: 'defer', requestId, delayMs, reason: error.message, cause: 'storage', sent };
}
