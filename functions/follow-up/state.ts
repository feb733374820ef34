/**
 * Per-request state that makes each follow-up "at most once" (DESIGN.md "Retry safety").
 *
 * One record per requestId moves through phases, each move a compare-and-swap on `version`:
 *
 *   (absent | pending) ──claim──▶ claimed ──POST ok──▶ sent ──terminal/timeout──▶ done
 *                                   │ 429: release (back to pending, then defer)
 *                                   └ send unknown / lease expired ──▶ done (uncertain)
 *
 * `pending` only carries the consumer's own failure counter (deferrals are not failures).
 * `claimed` carries an owner and a lease: a redelivery that finds a live lease is a
 * concurrent duplicate (defer); an expired lease means a crash between claim and result, so
 * nobody can know whether the POST went through: the request becomes `uncertain`.
 * `sent` carries the pre-send job snapshot and the poll progress, so polling resumes in a
 * later invocation without ever POSTing again. The record never holds the prompt text.
 */
import type { JobStatus } from '../shared/api-types.js';

export type Phase = 'pending' | 'claimed' | 'sent' | 'done';

/** Final statuses of a request (the `status` column of followup_outcomes). */
export type OutcomeStatus = 'completed' | 'archived' | 'failed' | 'timed_out' | 'uncertain' | 'rejected';

/** The job as it was just before the POST: a terminal status seen later only counts if it differs. */
export interface JobSnapshot {
  readonly status: JobStatus;
  readonly prLink: string | null;
}

export interface FollowUpState {
  /** The requestId (the DynamoDB partition key is derived from it). */
  readonly requestId: string;
  readonly phase: Phase;
  /** Incremented by every successful write; the compare-and-swap token. */
  readonly version: number;
  readonly projectId: string;
  readonly jobId: string;
  readonly promptLength: number;
  readonly promptSha256: string;
  /** Consumer failures so far (not deferrals); dead-lettered at the limit. */
  readonly failures: number;
  /** Who holds the claim or the poll lease, and until when (epoch ms). */
  readonly owner?: string | undefined;
  readonly leaseExpiresAt?: number | undefined;
  /** POST attempts made (at most one of them accepted). */
  readonly attempts: number;
  /** Epoch ms when the POST was accepted. */
  readonly sentAt?: number | undefined;
  readonly before?: JobSnapshot | undefined;
  /** GET job requests made after the send. */
  readonly polls: number;
  /** The job was seen `active` after the send: the next terminal status is this run's. */
  readonly sawActive?: boolean | undefined;
  /** Last status/prLink observed, for status-change reporting and the stale-read rule. */
  readonly lastStatus?: JobStatus | undefined;
  readonly lastPrLink?: string | null | undefined;
  /** Epoch ms of the first poll in the current unbroken run of terminal reads. */
  readonly terminalSince?: number | undefined;
  /** Polls in the current unbroken run of terminal reads. */
  readonly terminalReads?: number | undefined;
  readonly outcome?: OutcomeStatus | undefined;
  readonly prLink?: string | null | undefined;
  readonly detail?: string | undefined;
  readonly finishedAt?: number | undefined;
  /** Epoch SECONDS after which the store may delete the record (DynamoDB TTL). */
  readonly expiresAt: number;
}

/** What a writer supplies; the store sets `version`. */
export type StateDraft = Omit<FollowUpState, 'version'>;

/**
 * A tiny compare-and-swap store. Implementations: DynamoDB (state-dynamo.ts) for Lambda and
 * any multi-machine setup, a local directory (state-local.ts) for the single-machine CLI.
 */
export interface StateStore {
  get(requestId: string): Promise<FollowUpState | undefined>;
  /**
   * Writes `draft` if the stored record is absent (`expectedVersion` undefined) or still at
   * `expectedVersion`. Returns the stored record, or undefined when another writer won.
   */
  put(draft: StateDraft, expectedVersion: number | undefined): Promise<FollowUpState | undefined>;
  /** Deletes the record if still at `expectedVersion`; false when another writer won. */
  delete(requestId: string, expectedVersion: number): Promise<boolean>;
}

/** Keeps records past SQS's longest retention (14 days) plus the longest poll, so a late duplicate still finds `done`. */
export const STATE_RETENTION_MS = 15 * 86_400_000;

export function expiresAtFor(nowMs: number, maxWaitMs: number): number {
  return Math.ceil((nowMs + maxWaitMs + STATE_RETENTION_MS) / 1000);
}

/**
 * The store a deployment uses: DynamoDB when FOLLOWUP_STATE_TABLE is set (Lambda, or several
 * machines), else files under `localDir` (one machine, the CLI).
 */
export async function openStateStore(
  config: { readonly followUpStateTable?: string },
  options: { readonly dynamo?: import('@aws-sdk/client-dynamodb').DynamoDBClient; readonly localDir: string },
): Promise<StateStore> {
  if (config.followUpStateTable) {
    const { createDynamoStateStore } = await import('./state-dynamo.js');
    const { DynamoDBClient } = await import('@aws-sdk/client-dynamodb');
    return createDynamoStateStore({ tableName: config.followUpStateTable, client: options.dynamo ?? new DynamoDBClient({}) });
  }
  const { createLocalStateStore } = await import('./state-local.js');
  return createLocalStateStore(options.localDir);
}
