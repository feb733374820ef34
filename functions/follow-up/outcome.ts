/**
 * The outcome record of one request: `followup_outcomes/dt=YYYY-MM-DD/<requestId>.json`, one
 * JSON object whose keys are exactly the FOLLOWUP_OUTCOMES columns (so Athena/Glue read it
 * with the generated table). Re-writing the same request replaces the file: idempotent.
 * It never holds the prompt (only its length and SHA-256) nor the key.
 */
import type { Destination } from '../shared/storage/destination.js';
import { FOLLOWUP_OUTCOMES, partitionKey } from '../warehouse/tables.js';
import type { RequestKind } from './message.js';
import type { OutcomeStatus } from './state.js';

export interface FollowUpOutcome {
  readonly request_id: string;
  readonly project_id: string;
  /** Null only for a new job whose creation never named it (`uncertain`, `rejected`). */
  readonly job_id: string | null;
  readonly prompt_length: number;
  readonly prompt_sha256: string;
  readonly status: OutcomeStatus;
  readonly pr_link: string | null;
  /** ISO 8601 UTC. */
  readonly sent_at: string | null;
  /** ISO 8601 UTC. */
  readonly finished_at: string;
  readonly polls: number;
  readonly attempts: number;
  readonly detail: string | null;
  readonly kind: RequestKind;
  readonly gap_id: string | null;
}

export interface OutcomeInput {
  readonly requestId: string;
  readonly projectId: string;
  readonly jobId?: string | undefined;
  readonly kind: RequestKind;
  readonly gapId?: string | undefined;
  readonly promptLength: number;
  readonly promptSha256: string;
  readonly status: OutcomeStatus;
  readonly prLink?: string | null | undefined;
  readonly sentAt?: number | undefined;
  readonly finishedAt: number;
  readonly polls: number;
  readonly attempts: number;
  readonly detail?: string | undefined;
}

/** Builds the record with its keys in column order (and only those keys). */
export function buildOutcome(input: OutcomeInput): FollowUpOutcome {
  const values: FollowUpOutcome = {
    request_id: input.requestId,
    project_id: input.projectId,
    job_id: input.jobId ?? null,
    prompt_length: input.promptLength,
    prompt_sha256: input.promptSha256,
    status: input.status,
    pr_link: input.prLink ?? null,
    sent_at: input.sentAt === undefined ? null : new Date(input.sentAt).toISOString(),
    finished_at: new Date(input.finishedAt).toISOString(),
    polls: input.polls,
    attempts: input.attempts,
    detail: input.detail ?? null,
    kind: input.kind,
    gap_id: input.gapId ?? null,
  };
  const ordered: Record<string, unknown> = {};
  for (const column of FOLLOWUP_OUTCOMES.columns) ordered[column.name] = values[column.name as keyof FollowUpOutcome];
  return ordered as unknown as FollowUpOutcome;
}

/** `followup_outcomes/dt=<day of finished_at>/<requestId>.json` */
export function outcomeKey(outcome: FollowUpOutcome): string {
  return partitionKey(FOLLOWUP_OUTCOMES, outcome.finished_at.slice(0, 10), `${outcome.request_id}.json`);
}

export interface OutcomeSink {
  write(outcome: FollowUpOutcome): Promise<void>;
}

export function createOutcomeSink(destination: Pick<Destination, 'put'>): OutcomeSink {
  return {
    write: (outcome) => destination.put(outcomeKey(outcome), `${JSON.stringify(outcome)}\n`, { contentType: 'application/json' }),
  };
}
