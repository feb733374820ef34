/**
 * The send protocol: read the job (never send while it is `active`), claim the request, POST
 * once, record `sent`, then poll. A new job skips the read: claim, POST the creation, record
 * `sent` with the new job's id, then poll. Whatever leaves the POST's fate unknown ends as `uncertain`,
 * never as a second POST (docs/design.md §3.4).
 */
import { isTerminalJobStatus, type AgentJob } from '../shared/api-enums.js';
import { ApiError, describeError, stripControlCharacters } from '../shared/errors.js';
import { errorAction, retryAfterOf, unreachableReason } from './error-actions.js';
import { deferUnsent, finish, recordFailure } from './finish.js';
import { noteUnknownStatus, pollJob } from './poll-job.js';
import { LOST_RACE, deferred, firstRecord, readOptions, stopping, write, type Run, type Step } from './run.js';
import { failureBackoff } from './settings.js';
import { baseOf, type ClaimedState, type JobSnapshot, type PendingState } from './state.js';
import { FOLLOWUP_METRICS } from '../shared/metric-names.js';

/** Time kept between the end of a POST call and the end of its claim (ms). */
const CLAIM_MARGIN_MS = 1_000;

/** Time given to the one read made at the defer bound, which decides between sending and giving up (ms). */
const LAST_READ_MS = 2_000;

/** Reads the job `jobId` (the message's) and, if it may be sent to now, claims and sends. */
export async function trySend(run: Run, state: PendingState | undefined, jobId: string): Promise<Step> {
  const { settings, message } = run;
  const now = run.deps.now();
  const bound = (state?.pendingSince ?? now) + settings.maxDeferMs;
  let job: AgentJob;
  try {
    // Retries of this read end at the defer bound, so the bound holds even while reads fail.
    job = await run.api.getJob(message.projectId, jobId, readOptions(run, Math.max(bound, now + LAST_READ_MS)));
  } catch (error) {
    if (stopping(run)) return deferred(run, 0, 'consumer stopping', 'stopping');
    switch (errorAction('read', error)) {
      case 'reject':
        return finish(run, state, 'rejected', { detail: 'job not found (404)', deadLetter: true });
      case 'defer-rate-limited':
        // The service said "later": not a failure of ours, like a 429 on the POST.
        run.log.warn('rate limited (429) reading the job; deferring the prompt');
        return deferUnsent(run, state, retryAfterOf(error) ?? settings.rateLimitDeferMs, 'rate limited', 'rate-limited');
      case 'defer-unreachable':
        return deferUnreachable(run, state, error);
      default:
        return recordFailure(run, state, error);
    }
  }
  run.lastJob = job;
  // A status this version does not know may be a running job: the safe path is to wait.
  if (!isTerminalJobStatus(job.status)) {
    if (job.status === 'active') run.log.info('job is active; deferring the prompt until its run ends');
    else
      run.log.warn('the job reports a status this version does not know: taken as running, the prompt waits', {
        status: stripControlCharacters(job.status).slice(0, 40),
      });
    return deferUnsent(run, state, settings.activeDeferMs, 'job is active', 'job-active');
  }
  return claimAndPost(run, state, { status: job.status, prLink: job.prLink ?? null }, (deadline) =>
    run.api.sendMessage(message.projectId, jobId, message.prompt, { deadline }),
  );
}

/**
 * A new job (a message without `jobId`): nothing to read first, so claim and POST the creation.
 * The job id the answer names is recorded with `sent` before the first poll; an answer without
 * one is uncertain (the client's SendUncertainError), never a second creation.
 */
export function tryCreate(run: Run, state: PendingState | undefined): Promise<Step> {
  const { message } = run;
  return claimAndPost(run, state, null, (deadline) => run.api.createJob(message.projectId, message.prompt, { deadline }));
}

/**
 * Claims the request, POSTs once (`post`, bounded by `deadline`), records `sent` with the job
 * the answer names, then polls. `before`: the job before the POST, null for a new job.
 */
async function claimAndPost(
  run: Run,
  state: PendingState | undefined,
  before: JobSnapshot | null,
  post: (deadline: number) => Promise<AgentJob>,
): Promise<Step> {
  const { deps, message, settings } = run;
  const now = deps.now();
  const claimed = await write(
    run,
    {
      ...(state ? baseOf(state) : firstRecord(run)),
      phase: 'claimed',
      pendingSince: state?.pendingSince ?? now,
      owner: run.owner,
      leaseExpiresAt: now + settings.leaseMs,
      before,
    },
    state?.version,
  );
  if (!claimed) return LOST_RACE;

  let response: AgentJob;
  try {
    // No stop signal: aborting a POST in flight would make a send that probably went through
    // uncertain. The claim bounds the call instead, so it ends (a 429 wait included) before
    // anyone could take the claim for a crash.
    const deadline = Math.min(run.options.deadline ?? Infinity, claimed.leaseExpiresAt - CLAIM_MARGIN_MS);
    response = await post(deadline);
  } catch (error) {
    return afterSendError(run, claimed, error);
  }

  run.sent = true;
  run.lastJob = response;
  deps.metrics.count(FOLLOWUP_METRICS.sent);
  run.log.info(message.kind === 'create' ? 'job created' : 'prompt sent', { responseStatus: response.status, jobId: response.id });
  noteUnknownStatus(run, response.status);
  const sent = await write(
    run,
    {
      ...baseOf(claimed),
      // A follow-up's job (the client checked the answer is about it), or the job just created.
      jobId: response.id,
      attempts: claimed.attempts + 1,
      phase: 'sent',
      // The claim's lease carries over: it covers the first polls of this call.
      owner: claimed.owner,
      leaseExpiresAt: claimed.leaseExpiresAt,
      sentAt: deps.now(),
      before: claimed.before,
      polls: 0,
      sawActive: !isTerminalJobStatus(response.status),
      terminalReads: 0,
      lastStatus: response.status,
      lastPrLink: response.prLink ?? null,
    },
    claimed.version,
  );
  if (!sent) {
    // Only possible if our claim expired and someone recorded `uncertain`: never POST again.
    run.log.error('prompt was sent but the state record changed meanwhile; not polling');
    return LOST_RACE;
  }
  deps.onJob?.(response, { requestId: message.requestId, polls: 0 });
  return pollJob(run, sent, true);
}

async function afterSendError(run: Run, claimed: ClaimedState, error: unknown): Promise<Step> {
  const attempts = claimed.attempts + 1;
  switch (errorAction('send', error)) {
    case 'defer-rate-limited':
      // The service refused the POST: safe to send later. The deferral releases the claim.
      run.log.warn('rate limited (429); deferring the prompt');
      return deferUnsent(run, claimed, retryAfterOf(error) ?? run.settings.rateLimitDeferMs, 'rate limited', 'rate-limited', { attempts });
    case 'defer-unreachable':
      // Nothing reached the service: the claim is released, the prompt can be sent later.
      return deferUnreachable(run, claimed, error, { attempts });
    case 'defer-job-active':
      run.log.warn('job busy (409); deferring the prompt');
      return deferUnsent(run, claimed, run.settings.activeDeferMs, 'job is active', 'job-active', { attempts });
    case 'reject':
      return finish(run, claimed, 'rejected', { attempts, detail: `the API refused the prompt ${refusal(error)}`, deadLetter: true });
    case 'reject-out-of-credits': {
      // Credits do not come back within the hour: retrying would only be refused again. Final,
      // like any rejection: a redelivery is a duplicate, so it is never sent twice.
      run.log.error('the organisation is out of agent credits; the prompt is rejected');
      const detail =
        error instanceof ApiError && error.status !== 402
          ? `out of agent credits ${refusal(error)}`
          : error instanceof ApiError
            ? error.message
            : describeError(error);
      return finish(run, claimed, 'rejected', { attempts, detail, deadLetter: true });
    }
    case 'retry-later':
      return recordFailure(run, claimed, error, { attempts });
    default:
      return finish(run, claimed, 'uncertain', { attempts, detail: `the send may or may not have been accepted: ${describeError(error)}` });
  }
}

/**
 * The API was never reached before the send: the prompt waits (its record pending, a claim
 * released), with the failure backoff by deliveries but no failure counted — the commands stop
 * on it at once, and the Lambda waits until FOLLOWUP_MAX_DEFER_MINUTES like for a 429.
 */
function deferUnreachable(run: Run, from: PendingState | ClaimedState | undefined, error: unknown, counts: { readonly attempts?: number } = {}): Promise<Step> {
  const reason = unreachableReason(error);
  run.log.error('the API could not be reached; the prompt was not sent and waits', { error: reason });
  return deferUnsent(run, from, failureBackoff(run.input.deliveries ?? 1, run.settings), reason, 'unreachable', counts);
}

/** `(404): <message>` for an API refusal. */
function refusal(error: unknown): string {
  return error instanceof ApiError ? `(${error.status}): ${error.message}` : `: ${describeError(error)}`;
}
