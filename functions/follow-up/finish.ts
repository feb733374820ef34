/**
 * How a request ends, or waits before its send: the outcome record, dead-lettering, counted
 * failures, and deferrals bounded by FOLLOWUP_MAX_DEFER_MINUTES.
 */
import { describeError } from '../shared/errors.js';
import { messageGroupOf } from './message.js';
import { buildOutcome, type FollowUpOutcome, type ScopeReason, type ScopeVerdict } from './outcome.js';
import { scopeAlertOf } from '../scope/alert.js';
import { failureBackoff } from './settings.js';
import { baseOf, kindOf, type ClaimedState, type DoneState, type FollowUpState, type OutcomeStatus, type PendingState } from './state.js';
import { LOST_RACE, StorageError, deferred, firstRecord, write, type Run, type Step } from './run.js';
import type { DeferCause, FollowUpDeps, IncomingMessage } from './types.js';
import { FOLLOWUP_METRICS } from '../shared/metric-names.js';

/** Counters that change with the step that ends or defers a request. */
export interface Counts {
  readonly failures?: number;
  readonly attempts?: number;
  readonly polls?: number;
}

/**
 * Records the final status: dead-letter (uncertain/rejected) and outcome file first (both
 * idempotent), then `done` in the state, so a crash in between only repeats them. With an
 * outcomes topic, `done` says `notified: false` and the outcome is published after it (see
 * notifyOutcome): publishing never delays the outcome record, and a failed publish is retried
 * on the redelivery from the `done` record, without writing the record again.
 * `from` is the record replaced (its version guards the write), undefined when there is none.
 */
export async function finish(
  run: Run,
  from: FollowUpState | undefined,
  status: OutcomeStatus,
  extra: Counts & { readonly detail?: string; readonly prLink?: string | null; readonly deadLetter?: boolean },
): Promise<Step> {
  const { deps, message } = run;
  const scoped = status === 'completed' && extra.prLink ? await checkScope(run, extra.prLink) : undefined;
  const finishedAt = deps.now();
  const done: Omit<DoneState, 'version'> = {
    ...(from ? baseOf(from) : firstRecord(run)),
    ...(extra.failures === undefined ? {} : { failures: extra.failures }),
    ...(extra.attempts === undefined ? {} : { attempts: extra.attempts }),
    phase: 'done',
    outcome: status,
    prLink: extra.prLink ?? null,
    detail: extra.detail,
    sentAt: from?.phase === 'sent' ? from.sentAt : undefined,
    polls: extra.polls ?? (from?.phase === 'sent' ? from.polls : 0),
    finishedAt,
    ...(scoped ? { scope: scoped.scope, scopeReasons: scoped.reasons, mergedAt: scoped.mergedAt } : {}),
    ...(deps.notify ? { notified: false } : {}),
  };
  if (status === 'uncertain') {
    deps.metrics.count(FOLLOWUP_METRICS.uncertain);
    run.log.error('follow-up send is uncertain; it will not be sent again', { detail: extra.detail });
    await deadLetter(deps, run.input, message.requestId, messageGroupOf(message), `uncertain: ${extra.detail ?? ''}`);
  } else if (extra.deadLetter) {
    await deadLetter(deps, run.input, message.requestId, messageGroupOf(message), `${status}: ${extra.detail ?? ''}`);
  }
  await deps.outcomes.write(outcomeOf(done));
  deps.metrics.count(FOLLOWUP_METRICS.outcomes);
  const stored = await write(run, done, from?.version);
  if (!stored) run.log.warn('state changed while recording the outcome; the outcome file stands');
  else if (scoped?.scope === 'out_of_scope') await alertScope(run, done, scoped.reasons);
  if (stored?.notified === false) await notifyOutcome(run, stored);
  run.log.info('follow-up finished', { status, polls: done.polls, attempts: done.attempts });
  return {
    action: 'handled',
    requestId: message.requestId,
    status,
    prLink: done.prLink,
    polls: done.polls,
    ...(run.lastJob ? { job: run.lastJob } : {}),
  };
}

/** The outcome record of a `done` record: the file, and the same JSON as its notification. */
export function outcomeOf(done: Omit<DoneState, 'version'>): FollowUpOutcome {
  return buildOutcome({
    requestId: done.requestId,
    projectId: done.projectId,
    jobId: done.jobId,
    kind: kindOf(done),
    gapId: done.gapId,
    promptLength: done.promptLength,
    promptSha256: done.promptSha256,
    status: done.outcome,
    prLink: done.prLink,
    sentAt: done.sentAt,
    finishedAt: done.finishedAt,
    polls: done.polls,
    attempts: done.attempts,
    detail: done.detail,
    scope: done.scope,
    scopeReasons: done.scopeReasons,
    mergedAt: done.mergedAt,
  });
}

/**
 * The scope check of a completed job's pull request (functions/scope/check.ts). A failure of
 * the check itself is `unknown`, never in scope, and never holds the outcome back.
 */
async function checkScope(run: Run, prLink: string): Promise<{ scope: ScopeVerdict; reasons: readonly ScopeReason[]; mergedAt: number | null } | undefined> {
  const check = run.deps.scope?.check;
  if (check === undefined) return undefined;
  try {
    const result = await check(prLink);
    run.log.info('pull request checked against the scope rules', { scope: result.scope, files: result.files, changedLines: result.changedLines });
    return { scope: result.scope, reasons: result.reasons, mergedAt: result.mergedAt };
  } catch (error) {
    run.log.warn('the scope check failed; the pull request is unknown', { error: describeError(error) });
    return { scope: 'unknown', reasons: [{ rule: 'api_error', files: [describeError(error).slice(0, 200)] }], mergedAt: null };
  }
}

/** The alert of a pull request out of scope on the insights topic; a failure is logged, the outcome stands. */
async function alertScope(run: Run, done: Omit<DoneState, 'version'>, reasons: readonly ScopeReason[]): Promise<void> {
  const alert = run.deps.scope?.alert;
  if (alert === undefined || done.prLink === null) return;
  try {
    await alert(scopeAlertOf({ projectId: done.projectId, jobId: done.jobId, gapId: done.gapId, prLink: done.prLink, reasons }));
  } catch (error) {
    run.log.warn('the alert of a pull request out of scope could not be published', { error: describeError(error) });
  }
}

/**
 * Publishes a `done` record's outcome, then marks the record `notified: true`. A failed
 * publish is counted and thrown as a StorageError: the message is deferred like any failure
 * of our own storage, and its redelivery (dispatch, `done` with `notified: false`) publishes
 * again. The mark is written only after the topic took the message, and a failure to write it
 * is not retried (that would publish twice): only a crash between the two can repeat a publish.
 */
export async function notifyOutcome(run: Run, done: DoneState): Promise<void> {
  const { deps } = run;
  if (!deps.notify) return;
  try {
    await deps.notify(outcomeOf(done));
  } catch (error) {
    deps.metrics.count(FOLLOWUP_METRICS.notifyFailures);
    throw new StorageError(`publishing the outcome to the outcomes topic failed: ${describeError(error)}`, { cause: error });
  }
  deps.metrics.count(FOLLOWUP_METRICS.notified);
  const { version, ...published } = done;
  try {
    if (!(await write(run, { ...published, notified: true }, version))) run.log.warn('state changed while marking the outcome published');
  } catch (error) {
    run.log.warn('the outcome was published but could not be marked so; a later duplicate delivery may publish it again', { error: describeError(error) });
  }
}

/** Counts a consumer failure before the send: rejected at `maxFailures`, else deferred with backoff. */
export async function recordFailure(
  run: Run,
  from: PendingState | ClaimedState | undefined,
  error: unknown,
  counts: Pick<Counts, 'attempts'> = {},
): Promise<Step> {
  const failures = (from?.failures ?? 0) + 1;
  const { maxFailures } = run.settings;
  const description = describeError(error);
  if (failures >= maxFailures) {
    return finish(run, from, 'rejected', { ...counts, failures, detail: `gave up after ${failures} failed attempts: ${description}`, deadLetter: true });
  }
  const delay = failureBackoff(failures, run.settings);
  run.log.warn('processing failed; will retry', { error: description, failures, delayMs: delay });
  return deferUnsent(run, from, delay, `failure ${failures}/${maxFailures}: ${description}`, 'failure', { ...counts, failures });
}

/**
 * Defers a prompt that is not sent yet. Its record (pending, or released from a claim)
 * remembers since when it waits; once FOLLOWUP_MAX_DEFER_MINUTES have passed, the prompt is
 * rejected with the last reason instead of waiting on. The delay never passes that bound, so
 * the last attempt happens at it.
 */
export async function deferUnsent(
  run: Run,
  from: PendingState | ClaimedState | undefined,
  delayMs: number,
  reason: string,
  cause: DeferCause,
  counts: Pick<Counts, 'failures' | 'attempts'> = {},
): Promise<Step> {
  const now = run.deps.now();
  const pendingSince = from?.pendingSince ?? now;
  const bound = pendingSince + run.settings.maxDeferMs;
  if (now >= bound) {
    const within = duration(run.settings.maxDeferMs);
    return finish(run, from, 'rejected', { ...counts, detail: `not sent within ${within} (FOLLOWUP_MAX_DEFER_MINUTES): ${reason}`, deadLetter: true });
  }
  if (from?.phase !== 'pending' || counts.failures !== undefined || counts.attempts !== undefined) {
    const pending = { ...(from ? baseOf(from) : firstRecord(run)), ...counts, phase: 'pending', pendingSince } as const;
    if (!(await write(run, pending, from?.version))) return LOST_RACE;
  }
  if (cause !== 'failure') run.deps.metrics.count(FOLLOWUP_METRICS.deferred);
  return deferred(run, Math.min(delayMs, bound - now), reason, cause);
}

/** `groupId`: the dead-letter queue's FIFO group (the message's own group, messageGroupOf). */
export async function deadLetter(deps: FollowUpDeps, input: IncomingMessage, requestId: string, groupId: string | undefined, reason: string): Promise<void> {
  await deps.deadLetter({ body: input.body, reason, requestId, messageId: input.messageId, groupId });
  deps.metrics.count(FOLLOWUP_METRICS.deadLettered);
  deps.logger.warn('message dead-lettered', { correlationId: requestId, reason, messageId: input.messageId });
}

/** `90 min`, `45 s`, `300 ms`: the unit the setting was likely given in. */
function duration(ms: number): string {
  if (ms >= 60_000) return `${Math.round(ms / 60_000)} min`;
  return ms >= 1_000 ? `${Math.round(ms / 1_000)} s` : `${ms} ms`;
}
