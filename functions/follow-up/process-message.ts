/**
 * The follow-up core: one queue message in, one decision out — `handled` (delete the message)
 * or `defer` (make it visible again after `delayMs`, keeping its FIFO group blocked).
 * The Lambda handler, the `consume` loop and the `follow-up` command all call this function;
 * they differ only in how they apply the decision.
 *
 * Guarantees (DESIGN.md "Follow-ups", "Retry safety"): at most one POST per requestId (see
 * state.ts); never a POST while the job is `active`; a 429 defers, never drops; polling resumes
 * from the state record across invocations; bad messages are dead-lettered at once.
 */
import { randomUUID } from 'node:crypto';
import type { AgentJob, ApiClient } from '../shared/api-types.js';
import {
  ApiError,
  ConfigError,
  DeadlineExceededError,
  NetworkError,
  RateLimitedError,
  describeError,
} from '../shared/errors.js';
import { sameJobOnly, type AgentApi } from './agent-api.js';
import type { DeadLetter } from './dead-letter.js';
import { fingerprintPrompt, parseFollowUpMessage, type FollowUpMessage, type PromptFingerprint } from './message.js';
import { buildOutcome, type OutcomeSink } from './outcome.js';
import { DEFAULT_GRACE, DEFAULT_POLL_SCHEDULE, judgeRead, nextPollDelay, type PollSchedule, type StaleReadGrace } from './poll.js';
import { expiresAtFor, type FollowUpState, type OutcomeStatus, type StateDraft, type StateStore } from './state.js';

/** Metric names (Powertools Metrics, unit Count). */
export type FollowUpMetric = 'PromptsSent' | 'PromptsUncertain' | 'MessagesDeadLettered' | 'PromptsDeferred' | 'OutcomesRecorded';

export interface FollowUpMetrics {
  count(name: FollowUpMetric, value?: number): void;
}

/** The narrow logging surface used here (a Powertools Logger fits). */
export interface FollowUpLogger {
  debug(message: string, ...extra: Record<string, unknown>[]): void;
  info(message: string, ...extra: Record<string, unknown>[]): void;
  warn(message: string, ...extra: Record<string, unknown>[]): void;
  error(message: string, ...extra: Record<string, unknown>[]): void;
}

export interface FollowUpDeps {
  readonly api: Pick<ApiClient, 'getJob' | 'sendMessage'>;
  readonly store: StateStore;
  readonly outcomes: OutcomeSink;
  readonly deadLetter: DeadLetter;
  readonly logger: FollowUpLogger;
  readonly metrics: FollowUpMetrics;
  readonly now: () => number;
  readonly sleep: (ms: number) => Promise<void>;
  readonly random?: () => number;
  /** Identifies this process/invocation in leases (each call adds a unique suffix). */
  readonly owner?: string;
  /** Called with every job record read after the send (the CLI prints status changes). */
  readonly onJob?: (job: AgentJob, info: { readonly requestId: string; readonly polls: number }) => void;
}

export interface FollowUpSettings {
  /** MINTLIFY_PROJECT_IDS: a message may omit projectId only when there is exactly one. */
  readonly projectIds: readonly string[];
  /** FOLLOWUP_MAX_WAIT_HOURS in ms: after this since the send, the outcome is `timed_out`. @default 24 h */
  readonly maxWaitMs?: number;
  /** How long one call may poll before deferring (ms). @default 60_000 */
  readonly pollBudgetMs?: number;
  readonly schedule?: PollSchedule;
  readonly grace?: StaleReadGrace;
  /** Claim lease (ms): longer than a POST can take. An expired claim means a crash: `uncertain`. @default 120_000 */
  readonly leaseMs?: number;
  /**
   * Consumer failures (not deferrals) before the message is dead-lettered. With the doubling
   * backoff (10 s … 15 min) the default rides out an API or DynamoDB outage of about 50 min.
   * @default 10
   */
  readonly maxFailures?: number;
  /** Delay while the job is active before the send (ms). @default 15_000 */
  readonly activeDeferMs?: number;
  /** Delay after a 429 without Retry-After (ms). @default 60_000 */
  readonly rateLimitDeferMs?: number;
  /** Backoff base after a failure (ms), doubled per failure, capped at 15 min. @default 10_000 */
  readonly failureBackoffMs?: number;
}

export interface IncomingMessage {
  readonly messageId: string;
  readonly body: string;
}

export type ProcessResult =
  | {
      readonly action: 'handled';
      readonly requestId: string;
      /** The request's final status, or `duplicate` (already done earlier). */
      readonly status: OutcomeStatus | 'duplicate';
      readonly prLink?: string | null;
      readonly polls?: number;
      readonly job?: AgentJob;
    }
  | {
      readonly action: 'defer';
      readonly requestId: string;
      readonly delayMs: number;
      readonly reason: string;
      /** Sent and still polling (the CLI's `--no-wait` stops here). */
      readonly sent: boolean;
      readonly polls?: number;
      readonly job?: AgentJob;
    };

/** Epoch ms by which this call must have returned (e.g. Lambda deadline minus a margin). */
export interface ProcessOptions {
  readonly deadline?: number;
  /** When aborted (SIGTERM, shutdown), polling stops at the next wait and the message is deferred. */
  readonly stopSignal?: AbortSignal;
}

const LOST_RACE = Symbol('lost-race');
type Step = ProcessResult | typeof LOST_RACE;

export async function processMessage(
  input: IncomingMessage,
  deps: FollowUpDeps,
  settings: FollowUpSettings,
  options: ProcessOptions = {},
): Promise<ProcessResult> {
  const parsed = parseFollowUpMessage(input.body, { messageId: input.messageId, projectIds: settings.projectIds });
  if (!parsed.ok) {
    // No outcome record: ids may be missing or invalid; the DLQ message carries the reason.
    await deadLetter(deps, input, parsed.requestId, parsed.jobId, `malformed message: ${parsed.reason}`);
    return { action: 'handled', requestId: parsed.requestId, status: 'rejected' };
  }
  if (options.deadline !== undefined && deps.now() > options.deadline - MIN_MESSAGE_TIME_MS) {
    // Too little time left to read the job, claim and send: hand the message back untouched
    // rather than count an attempt the invocation's clock made fail.
    return { action: 'defer', requestId: parsed.message.requestId, delayMs: 0, reason: 'no time left in this invocation', sent: false };
  }
  const run = new Run(input, parsed.message, deps, settings, options);
  return run.execute();
}

/** Time a message needs at least (GET job, claim, POST, record), else it waits for the next call. */
export const MIN_MESSAGE_TIME_MS = 2_000;

class Run {
  private readonly fingerprint: PromptFingerprint;
  private readonly owner: string;
  private readonly log: FollowUpLogger;
  private readonly maxWaitMs: number;
  private readonly pollBudgetMs: number;
  private readonly schedule: PollSchedule;
  private readonly grace: StaleReadGrace;
  private readonly random: () => number;
  private readonly api: AgentApi;
  private lastJob: AgentJob | undefined;

  constructor(
    private readonly input: IncomingMessage,
    private readonly message: FollowUpMessage,
    private readonly deps: FollowUpDeps,
    private readonly settings: FollowUpSettings,
    private readonly options: ProcessOptions,
  ) {
    this.fingerprint = fingerprintPrompt(message.prompt);
    this.owner = `${deps.owner ?? 'consumer'}:${randomUUID().slice(0, 8)}`;
    this.log = withKeys(deps.logger, {
      correlationId: message.requestId,
      projectId: message.projectId,
      jobId: message.jobId,
      promptLength: this.fingerprint.length,
      promptSha256: this.fingerprint.sha256,
    });
    this.maxWaitMs = settings.maxWaitMs ?? 24 * 3_600_000;
    this.pollBudgetMs = settings.pollBudgetMs ?? 60_000;
    this.schedule = settings.schedule ?? DEFAULT_POLL_SCHEDULE;
    this.grace = settings.grace ?? DEFAULT_GRACE;
    this.random = deps.random ?? Math.random;
    this.api = sameJobOnly(deps.api);
  }

  async execute(): Promise<ProcessResult> {
    for (let round = 0; round < 3; round++) {
      const state = await this.deps.store.get(this.message.requestId);
      const step = await this.dispatch(state);
      if (step !== LOST_RACE) return step;
    }
    return this.defer(1_000, 'state changed concurrently', false);
  }

  private async dispatch(state: FollowUpState | undefined): Promise<Step> {
    if (state && (state.jobId !== this.message.jobId || state.projectId !== this.message.projectId || state.promptSha256 !== this.fingerprint.sha256)) {
      // Never overwrite another request's record: the caller reused an idempotency key.
      await deadLetter(this.deps, this.input, this.message.requestId, this.message.jobId, 'requestId already used for a different job or prompt');
      return { action: 'handled', requestId: this.message.requestId, status: 'rejected' };
    }
    const now = this.deps.now();
    switch (state?.phase) {
      case undefined:
      case 'pending':
        return this.trySend(state);
      case 'claimed':
        if ((state.leaseExpiresAt ?? 0) > now) {
          this.log.info('request is being sent by another consumer; deferring');
          return this.defer((state.leaseExpiresAt ?? now) - now + 1_000, 'claimed by another consumer', false);
        }
        return this.finish(state, 'uncertain', {
          detail: 'a previous attempt stopped between claiming and recording the send; the POST may or may not have been accepted',
        });
      case 'sent':
        return this.poll(state);
      case 'done':
        this.log.info('request already handled; dropping duplicate delivery', { status: state.outcome });
        return { action: 'handled', requestId: state.requestId, status: 'duplicate', prLink: state.prLink ?? null, polls: state.polls };
    }
  }

  /** GET (never send while active), claim, POST, record `sent`, then poll. */
  private async trySend(state: FollowUpState | undefined): Promise<Step> {
    const base = this.draftFrom(state);
    let job: AgentJob;
    try {
      job = await this.api.getJob(this.message.projectId, this.message.jobId, this.callOptions());
    } catch (error) {
      if (error instanceof ApiError && error.status === 404) {
        return this.finish(state ?? base, 'rejected', { detail: 'job not found (404)', deadLetter: true });
      }
      if (error instanceof RateLimitedError) {
        // Like a 429 on the POST: the service said "later", which is not a failure of ours.
        const delay = error.retryAfterMs ?? this.settings.rateLimitDeferMs ?? 60_000;
        this.deps.metrics.count('PromptsDeferred');
        this.log.warn('rate limited (429) reading the job; deferring the prompt', { delayMs: delay });
        return this.defer(delay, 'rate limited', false);
      }
      return this.recordFailure(state, base, error);
    }
    this.lastJob = job;
    if (job.status === 'active') {
      this.deps.metrics.count('PromptsDeferred');
      this.log.info('job is active; deferring the prompt until its run ends');
      return this.defer(this.settings.activeDeferMs ?? 15_000, 'job is active', false);
    }

    const now = this.deps.now();
    const claimed = await this.deps.store.put(
      { ...base, phase: 'claimed', owner: this.owner, leaseExpiresAt: now + (this.settings.leaseMs ?? 120_000), before: { status: job.status, prLink: job.prLink ?? null } },
      state?.version,
    );
    if (!claimed) return LOST_RACE;

    let response: AgentJob;
    try {
      response = await this.api.sendMessage(this.message.projectId, this.message.jobId, this.message.prompt, this.callOptions());
    } catch (error) {
      return this.afterSendError(claimed, error);
    }

    const sentAt = this.deps.now();
    const sent = await this.deps.store.put(
      {
        ...stripVersion(claimed),
        phase: 'sent',
        attempts: claimed.attempts + 1,
        sentAt,
        polls: 0,
        sawActive: response.status === 'active',
        terminalReads: 0,
        lastStatus: response.status,
        lastPrLink: response.prLink ?? null,
      },
      claimed.version,
    );
    this.deps.metrics.count('PromptsSent');
    this.log.info('prompt sent', { responseStatus: response.status });
    if (!sent) {
      // Only possible if our claim expired and someone recorded `uncertain`: never POST again.
      this.log.error('prompt was sent but the state record changed meanwhile; not polling');
      return LOST_RACE;
    }
    this.lastJob = response;
    this.deps.onJob?.(response, { requestId: this.message.requestId, polls: 0 });
    return this.poll(sent, true);
  }

  private async afterSendError(claimed: FollowUpState, error: unknown): Promise<Step> {
    const attempts = claimed.attempts + 1;
    if (error instanceof RateLimitedError || (error instanceof ApiError && error.status === 409)) {
      // The service refused the POST: safe to send later. Release the claim (CAS on our version).
      const released = await this.deps.store.put({ ...releaseDraft(claimed), attempts }, claimed.version);
      if (!released) return LOST_RACE;
      this.deps.metrics.count('PromptsDeferred');
      const delay =
        error instanceof RateLimitedError
          ? (error.retryAfterMs ?? this.settings.rateLimitDeferMs ?? 60_000)
          : (this.settings.activeDeferMs ?? 15_000);
      this.log.warn(error instanceof RateLimitedError ? 'rate limited (429); deferring the prompt' : 'job busy (409); deferring the prompt', { delayMs: delay });
      return this.defer(delay, error instanceof RateLimitedError ? 'rate limited' : 'job is active', false);
    }
    if (error instanceof ApiError && (error.status === 400 || error.status === 404)) {
      return this.finish({ ...claimed, attempts }, 'rejected', { detail: `the API refused the prompt (${error.status}): ${error.message}`, deadLetter: true });
    }
    if (provablyNotSent(error)) {
      const released = await this.deps.store.put({ ...releaseDraft(claimed), attempts }, claimed.version);
      if (!released) return LOST_RACE;
      return this.recordFailure(released, stripVersion(released), error);
    }
    return this.finish({ ...claimed, attempts }, 'uncertain', { detail: `the send may or may not have been accepted: ${describeError(error)}` });
  }

  /** Polls briefly in this call, then defers with the next interval (state persisted). */
  private async poll(state: FollowUpState, fresh = false): Promise<Step> {
    let now = this.deps.now();
    if (!fresh && state.owner && (state.leaseExpiresAt ?? 0) > now) {
      return this.defer((state.leaseExpiresAt ?? now) - now + 1_000, 'another consumer is polling', true);
    }
    const budgetEnd = Math.min(now + this.pollBudgetMs, (this.options.deadline ?? Infinity) - 1_000);
    let current = state;
    if (!fresh) {
      const leased = await this.deps.store.put({ ...stripVersion(state), owner: this.owner, leaseExpiresAt: Math.max(budgetEnd, now) + 60_000 }, state.version);
      if (!leased) return LOST_RACE;
      current = leased;
    }
    const sentAt = current.sentAt ?? now;
    const before = current.before ?? { status: 'completed', prLink: null };
    let polls = current.polls;
    let evidence = { sawActive: current.sawActive ?? false, terminalReads: current.terminalReads ?? 0 };
    let lastStatus = current.lastStatus;
    let lastPrLink = current.lastPrLink ?? null;
    let delay = fresh ? nextPollDelay(0, this.schedule, this.random) : 0;

    const persistAndDefer = async (wait: number, reason: string): Promise<Step> => {
      const saved = await this.deps.store.put(
        { ...stripVersion(current), owner: undefined, leaseExpiresAt: undefined, polls, sawActive: evidence.sawActive, terminalReads: evidence.terminalReads, lastStatus, lastPrLink },
        current.version,
      );
      if (!saved) return LOST_RACE;
      this.deps.metrics.count('PromptsDeferred');
      return this.defer(wait, reason, true, polls);
    };

    for (;;) {
      now = this.deps.now();
      if (this.options.stopSignal?.aborted) return persistAndDefer(delay, 'consumer stopping');
      if (now + delay > budgetEnd) return persistAndDefer(Math.max(0, now + delay - this.deps.now()), 'polling continues later');
      if (delay > 0) await this.deps.sleep(delay);
      now = this.deps.now();
      if (now - sentAt >= this.maxWaitMs) {
        return this.finish({ ...current, polls }, 'timed_out', {
          detail: `the job did not finish within ${Math.round(this.maxWaitMs / 3_600_000)} h (FOLLOWUP_MAX_WAIT_HOURS)`,
          prLink: lastPrLink,
        });
      }
      let job: AgentJob;
      try {
        polls++;
        job = await this.api.getJob(this.message.projectId, this.message.jobId, this.callOptions());
      } catch (error) {
        if (error instanceof ApiError && error.status === 404) {
          return this.finish({ ...current, polls }, 'failed', { detail: 'the job disappeared while polling (404)' });
        }
        if (error instanceof RateLimitedError) {
          const wait = error.retryAfterMs ?? this.settings.rateLimitDeferMs ?? 60_000;
          this.log.warn('rate limited (429) reading the job; polling continues later', { delayMs: wait });
          return persistAndDefer(wait, 'rate limited');
        }
        this.log.warn('reading the job failed; polling continues later', { error: describeError(error) });
        return persistAndDefer(nextPollDelay(now - sentAt, this.schedule, this.random), 'job read failed');
      }
      this.lastJob = job;
      if (job.status !== lastStatus || (job.prLink ?? null) !== lastPrLink) {
        this.log.info('job status changed', { status: job.status, polls });
        this.deps.onJob?.(job, { requestId: this.message.requestId, polls });
      }
      lastStatus = job.status;
      lastPrLink = job.prLink ?? null;
      const judged = judgeRead(evidence, job, { before, sinceSendMs: this.deps.now() - sentAt, grace: this.grace });
      evidence = judged.evidence;
      if (judged.finished && job.status !== 'active') {
        return this.finish({ ...current, polls }, job.status, { prLink: job.prLink ?? null });
      }
      delay = nextPollDelay(this.deps.now() - sentAt, this.schedule, this.random);
    }
  }

  /** Counts a consumer failure; dead-letters at the limit, else defers with backoff. */
  private async recordFailure(state: FollowUpState | undefined, base: StateDraft, error: unknown): Promise<Step> {
    const failures = (state?.failures ?? 0) + 1;
    const maxFailures = this.settings.maxFailures ?? 10;
    const description = describeError(error);
    if (failures >= maxFailures) {
      // No record yet (the first failure with maxFailures 1): finish creates one, as `done`.
      return this.finish(state ? { ...state, failures } : { ...base, failures }, 'rejected', {
        detail: `gave up after ${failures} failed attempts: ${description}`,
        deadLetter: true,
      });
    }
    const saved = await this.deps.store.put({ ...base, phase: 'pending', failures }, state?.version);
    if (!saved) return LOST_RACE;
    const delay = Math.min(15 * 60_000, (this.settings.failureBackoffMs ?? 10_000) * 2 ** (failures - 1));
    this.log.warn('processing failed; will retry', { error: description, failures, delayMs: delay });
    return this.defer(delay, `failure ${failures}/${maxFailures}: ${description}`, false);
  }

  /**
   * Records the final status: outcome file first (idempotent), then `done` in the state
   * (so a crash in between only repeats the outcome write), plus DLQ for uncertain/rejected.
   */
  private async finish(
    state: FollowUpState | StateDraft,
    status: OutcomeStatus,
    extra: { detail?: string; prLink?: string | null; deadLetter?: boolean },
  ): Promise<Step> {
    const finishedAt = this.deps.now();
    const expectedVersion = 'version' in state ? state.version : undefined;
    const base = 'version' in state ? stripVersion(state) : state;
    const outcome = buildOutcome({
      requestId: this.message.requestId,
      projectId: this.message.projectId,
      jobId: this.message.jobId,
      promptLength: this.fingerprint.length,
      promptSha256: this.fingerprint.sha256,
      status,
      prLink: extra.prLink,
      sentAt: base.sentAt,
      finishedAt,
      polls: base.polls,
      attempts: base.attempts,
      detail: extra.detail,
    });
    if (status === 'uncertain') {
      this.deps.metrics.count('PromptsUncertain');
      this.log.error('follow-up send is uncertain; it will not be sent again', { detail: extra.detail });
      await deadLetter(this.deps, this.input, this.message.requestId, this.message.jobId, `uncertain: ${extra.detail ?? ''}`);
    } else if (extra.deadLetter) {
      await deadLetter(this.deps, this.input, this.message.requestId, this.message.jobId, `${status}: ${extra.detail ?? ''}`);
    }
    await this.deps.outcomes.write(outcome);
    this.deps.metrics.count('OutcomesRecorded');
    const done = await this.deps.store.put(
      { ...base, phase: 'done', owner: undefined, leaseExpiresAt: undefined, outcome: status, prLink: extra.prLink ?? null, detail: extra.detail, finishedAt },
      expectedVersion,
    );
    if (!done) this.log.warn('state changed while recording the outcome; the outcome file stands');
    this.log.info('follow-up finished', { status, polls: base.polls, attempts: base.attempts });
    return {
      action: 'handled',
      requestId: this.message.requestId,
      status,
      prLink: extra.prLink ?? null,
      polls: base.polls,
      ...(this.lastJob ? { job: this.lastJob } : {}),
    };
  }

  private defer(delayMs: number, reason: string, sent: boolean, polls?: number): ProcessResult {
    return {
      action: 'defer',
      requestId: this.message.requestId,
      delayMs: Math.max(0, Math.round(delayMs)),
      reason,
      sent,
      ...(polls === undefined ? {} : { polls }),
      ...(this.lastJob ? { job: this.lastJob } : {}),
    };
  }

  private draftFrom(state: FollowUpState | undefined): StateDraft {
    return {
      requestId: this.message.requestId,
      phase: 'pending',
      projectId: this.message.projectId,
      jobId: this.message.jobId,
      promptLength: this.fingerprint.length,
      promptSha256: this.fingerprint.sha256,
      failures: state?.failures ?? 0,
      attempts: state?.attempts ?? 0,
      polls: 0,
      expiresAt: expiresAtFor(this.deps.now(), this.maxWaitMs),
    };
  }

  private callOptions(): { deadline?: number } {
    return this.options.deadline === undefined ? {} : { deadline: this.options.deadline };
  }
}

async function deadLetter(deps: FollowUpDeps, input: IncomingMessage, requestId: string, jobId: string | undefined, reason: string): Promise<void> {
  await deps.deadLetter({ body: input.body, reason, requestId, messageId: input.messageId, groupId: jobId });
  deps.metrics.count('MessagesDeadLettered');
  deps.logger.warn('message dead-lettered', { correlationId: requestId, reason, messageId: input.messageId });
}

/** True when the service provably did not act on the POST, so a later send is still "at most once". */
function provablyNotSent(error: unknown): boolean {
  if (error instanceof NetworkError) return error.beforeSend;
  if (error instanceof ConfigError) return true;
  if (error instanceof ApiError) return error.status >= 400 && error.status < 500;
  if (error instanceof DeadlineExceededError) return provablyNotSent(error.cause) || error.cause === undefined;
  return false;
}

function stripVersion(state: FollowUpState): StateDraft {
  const { version: _version, ...draft } = state;
  return draft;
}

function releaseDraft(claimed: FollowUpState): StateDraft {
  return { ...stripVersion(claimed), phase: 'pending', owner: undefined, leaseExpiresAt: undefined };
}

/** Adds fixed keys (correlation id, prompt fingerprint) to every log line of one request. */
function withKeys(logger: FollowUpLogger, keys: Record<string, unknown>): FollowUpLogger {
  return {
    debug: (m, ...e) => logger.debug(m, keys, ...e),
    info: (m, ...e) => logger.info(m, keys, ...e),
    warn: (m, ...e) => logger.warn(m, keys, ...e),
    error: (m, ...e) => logger.error(m, keys, ...e),
  };
}

/** Settings from the validated configuration (FOLLOWUP_MAX_WAIT_HOURS, MINTLIFY_PROJECT_IDS). */
export function settingsFromConfig(config: { readonly projectIds: readonly string[]; readonly followUpMaxWaitHours: number }): FollowUpSettings {
  return { projectIds: config.projectIds, maxWaitMs: config.followUpMaxWaitHours * 3_600_000 };
}
