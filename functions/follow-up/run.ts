/**
 * One call of the core for one message: what every step (send.ts, poll-job.ts, finish.ts)
 * needs, and the small helpers they share.
 */
import { randomUUID } from 'node:crypto';
import type { CallOptions } from '../shared/api-types.js';
import type { AgentJob } from '../shared/api-enums.js';
import { ExporterError, describeError } from '../shared/errors.js';
import { isLocalProcessGone } from '../shared/pacing/leases.js';
import { sameJobOnly, type AgentApi } from './agent-api.js';
import { fingerprintPrompt, type FollowUpMessage, type PromptFingerprint } from './message.js';
import type { ResolvedSettings } from './settings.js';
import { expiresAtFor, type StateDraft, type StateStore } from './state.js';
import type { DeferCause, FollowUpDeps, FollowUpLogger, IncomingMessage, ProcessOptions, ProcessResult } from './types.js';

/** A conditional write lost to another writer: the caller re-reads the record and starts over. */
export const LOST_RACE = Symbol('lost-race');
export type Step = ProcessResult | typeof LOST_RACE;

/**
 * Our own storage (state store, outcome destination, dead-letter queue) failed. Not the
 * prompt's fault nor the API's: the message is deferred without counting a failure.
 */
export class StorageError extends ExporterError {}

export interface Run {
  readonly input: IncomingMessage;
  readonly message: FollowUpMessage;
  readonly fingerprint: PromptFingerprint;
  /** The dependencies, with storage failures turned into StorageError. */
  readonly deps: FollowUpDeps;
  /** The agent calls, refusing answers about another job. */
  readonly api: AgentApi;
  readonly settings: ResolvedSettings;
  readonly options: ProcessOptions;
  /** This call's name in claims and leases. */
  readonly owner: string;
  readonly log: FollowUpLogger;
  readonly random: () => number;
  /** The last job record seen (the CLI prints it). */
  lastJob: AgentJob | undefined;
  /** Whether the prompt is known to be sent (a record said so, or this call's POST was accepted). */
  sent: boolean;
}

export function startRun(input: IncomingMessage, message: FollowUpMessage, deps: FollowUpDeps, settings: ResolvedSettings, options: ProcessOptions): Run {
  const fingerprint = fingerprintPrompt(message.prompt);
  return {
    input,
    message,
    fingerprint,
    deps: guardStorage(deps),
    api: sameJobOnly(deps.api),
    settings,
    options,
    owner: `${deps.owner ?? 'consumer'}:${randomUUID().slice(0, 8)}`,
    log: withKeys(deps.logger, {
      correlationId: message.requestId,
      projectId: message.projectId,
      ...(message.jobId === undefined ? {} : { jobId: message.jobId }),
      kind: message.kind,
      ...(message.gapId === undefined ? {} : { gapId: message.gapId }),
      promptLength: fingerprint.length,
      promptSha256: fingerprint.sha256,
    }),
    random: deps.random ?? Math.random,
    lastJob: undefined,
    sent: false,
  };
}

/** Whether the lease holder `owner` is known to be gone (FollowUpDeps.isOwnerGone). */
export function isOwnerGone(run: Run, owner: string): boolean {
  return (run.deps.isOwnerGone ?? isLocalProcessGone)(owner);
}

/** A `defer` result (with the last job seen, for the CLI). */
export function deferred(run: Run, delayMs: number, reason: string, cause: DeferCause, polls?: number): ProcessResult {
  return {
    action: 'defer',
    requestId: run.message.requestId,
    delayMs: Math.max(0, Math.round(delayMs)),
    reason,
    cause,
    sent: run.sent,
    ...(polls === undefined ? {} : { polls }),
    ...(run.lastJob ? { job: run.lastJob } : {}),
  };
}

/**
 * Writes `draft` if the record is still at `expectedVersion`; returns it with its new
 * version (typed as the phase written), or undefined when another writer won.
 */
export async function write<D extends StateDraft>(
  run: Run,
  draft: D,
  expectedVersion: number | undefined,
): Promise<(D & { readonly version: number }) | undefined> {
  const stored = await run.deps.store.put(draft, expectedVersion);
  return stored && { ...draft, version: stored.version };
}

/** The fields of a request's first record. */
export function firstRecord(run: Run) {
  return {
    requestId: run.message.requestId,
    projectId: run.message.projectId,
    ...(run.message.jobId === undefined ? {} : { jobId: run.message.jobId }),
    kind: run.message.kind,
    ...(run.message.gapId === undefined ? {} : { gapId: run.message.gapId }),
    promptLength: run.fingerprint.length,
    promptSha256: run.fingerprint.sha256,
    failures: 0,
    attempts: 0,
    expiresAt: expiresAtFor(run.deps.now(), run.settings.maxWaitMs),
  };
}

/** Options for a job read: the call's deadline (or an earlier one) and its stop signal. */
export function readOptions(run: Run, deadline?: number): CallOptions {
  const end = Math.min(run.options.deadline ?? Infinity, deadline ?? Infinity);
  return {
    ...(Number.isFinite(end) ? { deadline: end } : {}),
    ...(run.options.stopSignal ? { signal: run.options.stopSignal } : {}),
  };
}

export function stopping(run: Run): boolean {
  return run.options.stopSignal?.aborted === true;
}

function guardStorage(deps: FollowUpDeps): FollowUpDeps {
  const guard =
    <A extends unknown[], R>(what: string, fn: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      try {
        return await fn(...args);
      } catch (error) {
        throw new StorageError(`${what} failed: ${describeError(error)}`, { cause: error });
      }
    };
  const store: StateStore = {
    get: guard('reading the state store', (id: string) => deps.store.get(id)),
    put: guard('writing the state store', (draft: StateDraft, expected: number | undefined) => deps.store.put(draft, expected)),
  };
  return {
    ...deps,
    store,
    outcomes: { write: guard('writing the outcome record', (outcome) => deps.outcomes.write(outcome)) },
    deadLetter: guard('sending to the dead-letter queue', (entry) => deps.deadLetter(entry)),
  };
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
