/**
 * Per-request state that makes each follow-up "at most once" (docs/design.md §3.4).
 *
 * One record per requestId moves through phases. Every move is a conditional write that
 * succeeds only if the record is still at the `version` the writer read (a compare-and-swap),
 * so two consumers can never both claim, or both advance, one request:
 *
 *   (absent | pending) ──claim──▶ claimed ──POST ok──▶ sent ──terminal/timeout──▶ done
 *                                   │ 429/409: release (back to pending, then defer)
 *                                   └ send unknown / claim expired ──▶ done (uncertain)
 *
 * A new job (`kind: 'create'`, a message without `jobId`) takes the same path: its POST creates
 * the job, and `sent` records the job id the service answered with before the first poll. Until
 * then the record has no `jobId`; a `sent` record always has one.
 *
 * Each phase is its own type below, so the compiler knows that `sent` has a `sentAt` and
 * `done` an `outcome`. The record never holds the prompt text, only its length and SHA-256.
 */
import type { ScopeReason, ScopeVerdict } from '../scope/rules.js';
import type { JobStatus } from '../shared/api-enums.js';
import type { SharedStore } from '../shared/storage/shared-store.js';
import type { OUTCOME_STATUSES } from '../warehouse/records.js';
import type { RequestKind } from './message.js';
import { DAY_MS } from '../shared/time.js';

/** Final statuses of a request (the `status` column of followup_outcomes). */
export type OutcomeStatus = (typeof OUTCOME_STATUSES)[number];

/** The job as it was just before the POST: a terminal status seen later only counts if it differs. */
export interface JobSnapshot {
  readonly status: JobStatus;
  readonly prLink: string | null;
}

/** Fields of every phase. */
interface RecordBase {
  /** The requestId (the DynamoDB partition key is derived from it). */
  readonly requestId: string;
  /** Incremented by every successful write; the compare-and-swap token. */
  readonly version: number;
  readonly projectId: string;
  /** The job: a follow-up's from its message; a new job's once the create POST answered (absent before). */
  readonly jobId?: string | undefined;
  /** Absent in records written before new jobs existed: those are follow-ups. */
  readonly kind?: RequestKind | undefined;
  /** The gap the prompt was written for, carried into the outcome. */
  readonly gapId?: string | undefined;
  readonly promptLength: number;
  readonly promptSha256: string;
  /** Consumer failures so far (not deferrals); dead-lettered at the limit. */
  readonly failures: number;
  /** POST attempts made (at most one of them accepted). */
  readonly attempts: number;
  /** Epoch SECONDS after which DynamoDB's time-to-live may delete the record. */
  readonly expiresAt: number;
}

/** The right to act on a request until `leaseExpiresAt` (epoch ms): a claim, or the right to poll. */
export interface Lease {
  readonly owner: string;
  readonly leaseExpiresAt: number;
}

interface NoLease {
  readonly owner?: undefined;
  readonly leaseExpiresAt?: undefined;
}

/** Not sent yet, and nobody sending: deferred (job active, rate limited) or after a failure. */
export interface PendingState extends RecordBase {
  readonly phase: 'pending';
  /** Epoch ms of the first attempt: FOLLOWUP_MAX_DEFER_MINUTES counts from here. */
  readonly pendingSince: number;
}

/** One consumer is sending: a live lease means "wait", an expired one means "it stopped: uncertain". */
export interface ClaimedState extends RecordBase, Lease {
  readonly phase: 'claimed';
  readonly pendingSince: number;
  /** The job before the POST; null for a new job (it had no earlier run). */
  readonly before: JobSnapshot | null;
}

interface SentFields extends RecordBase {
  readonly phase: 'sent';
  readonly jobId: string;
  /** Epoch ms when the POST was accepted. */
  readonly sentAt: number;
  /** The job before the POST; null for a new job: its first terminal read is its end. */
  readonly before: JobSnapshot | null;
  /** GET job requests made after the send. */
  readonly polls: number;
  /** The job was seen `active` after the send: its next terminal status is this run's. */
  readonly sawActive: boolean;
  /** Polls in the current unbroken run of terminal reads (the stale-read rule, poll.ts). */
  readonly terminalReads: number;
  /** Last status and prLink seen, for reporting changes. */
  readonly lastStatus: JobStatus;
  readonly lastPrLink: string | null;
}

/** Sent; polling, by the lease holder if there is one, else by whoever reads it next. */
export type SentState = (SentFields & Lease) | (SentFields & NoLease);

/** Finished: a redelivery is dropped as a duplicate. */
export interface DoneState extends RecordBase {
  readonly phase: 'done';
  readonly outcome: OutcomeStatus;
  readonly prLink: string | null;
  readonly detail?: string | undefined;
  readonly sentAt?: number | undefined;
  readonly polls: number;
  readonly finishedAt: number;
  /** The pull request against the scope rules (a completed job's, when the check is configured). */
  readonly scope?: ScopeVerdict | undefined;
  readonly scopeReasons?: readonly ScopeReason[] | undefined;
  /** Epoch ms of the pull request's merge; null when not merged or not read. */
  readonly mergedAt?: number | null | undefined;
  /**
   * Only when outcomes are published (an outcomes topic): false from the `done` write until
   * the outcome was published, then true, so a redelivery publishes what is missing and
   * nothing twice. Absent: nothing to publish.
   */
  readonly notified?: boolean | undefined;
}

export type FollowUpState = PendingState | ClaimedState | SentState | DoneState;
export type Phase = FollowUpState['phase'];

/** A record without its `version`, per phase: what a writer supplies; the store sets `version`. */
export type StateDraft = FollowUpState extends infer S ? (S extends FollowUpState ? Omit<S, 'version'> : never) : never;

/** The fields a draft of any phase keeps from the record it replaces. */
export function baseOf(state: FollowUpState): Omit<RecordBase, 'version'> {
  const { requestId, projectId, jobId, kind, gapId, promptLength, promptSha256, failures, attempts, expiresAt } = state;
  return {
    requestId,
    projectId,
    ...(jobId === undefined ? {} : { jobId }),
    ...(kind === undefined ? {} : { kind }),
    ...(gapId === undefined ? {} : { gapId }),
    promptLength,
    promptSha256,
    failures,
    attempts,
    expiresAt,
  };
}

/** The kind of a record (records written before new jobs existed are follow-ups). */
export function kindOf(state: Pick<FollowUpState, 'kind'>): RequestKind {
  return state.kind ?? 'follow_up';
}

/**
 * The follow-up records' compare-and-swap, typed: a layer over the shared store
 * (`createStateStore`), so the follow-ups and the export share one lock, one DynamoDB adapter
 * and one contract suite.
 */
export interface StateStore {
  get(requestId: string): Promise<FollowUpState | undefined>;
  /**
   * Writes `draft` if the stored record is absent (`expectedVersion` undefined) or still at
   * `expectedVersion`. Returns the stored record, or undefined when another writer won.
   */
  put(draft: StateDraft, expectedVersion: number | undefined): Promise<FollowUpState | undefined>;
}

/**
 * Follow-up records on `shared`, one document per request id (the key). `version` counts the
 * record's writes; a put compares it inside the store's atomic update, so of two writers that
 * read one version exactly one writes. In DynamoDB the store is the deployment's table with
 * `keyPrefix: 'followup#'` and the `attributes` layout (open-state-store.ts).
 */
export function createStateStore(shared: SharedStore): StateStore {
  return {
    get: (requestId) => shared.get<FollowUpState>(requestId),
    put: (draft, expectedVersion) =>
      shared.update<FollowUpState, FollowUpState | undefined>(draft.requestId, (current) => {
        if (current?.version !== expectedVersion) return { value: current, result: undefined };
        const state = { ...draft, version: (expectedVersion ?? 0) + 1 } as FollowUpState;
        return { value: state, result: state };
      }),
  };
}

/** Keeps records past SQS's longest retention (14 days) plus the longest poll, so a late duplicate still finds `done`. */
export const STATE_RETENTION_MS = 15 * DAY_MS;

export function expiresAtFor(nowMs: number, maxWaitMs: number): number {
  return Math.ceil((nowMs + maxWaitMs + STATE_RETENTION_MS) / 1000);
}
