/**
 * The outcome record of one request: `followup_outcomes/dt=YYYY-MM-DD/<requestId>.json`, one
 * JSON object whose keys are exactly the FOLLOWUP_OUTCOMES columns (so Athena/Glue read it
 * with the generated table). Re-writing the same request replaces the file: idempotent.
 * It never holds the prompt (only its length and SHA-256) nor the key.
 */
import * as v from 'valibot';
import type { AppLogger } from '../shared/logger.js';
import type { Destination } from '../shared/storage/destination.js';
import { createPartitionRegistrar, type GlueSend } from '../warehouse/partitions.js';
import { FOLLOWUP_OUTCOME, type OutcomeRecord } from '../warehouse/records.js';
import { FOLLOWUP_OUTCOMES, partitionKey } from '../warehouse/tables.js';
import type { RequestKind } from './message.js';
import type { OutcomeStatus } from './state.js';

/** A followup_outcomes record (warehouse/records.ts `FOLLOWUP_OUTCOME`). */
export type FollowUpOutcome = OutcomeRecord;

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
  /** The pull request against the scope rules (round seven); absent when not checked. */
  readonly scope?: ScopeVerdict | null | undefined;
  /** Each rule broken, as `{rule, files}`, or why the scope is unknown. */
  readonly scopeReasons?: readonly ScopeReason[] | null | undefined;
  /** When the pull request was merged (epoch ms); absent when not merged or not read. */
  readonly mergedAt?: number | null | undefined;
}

/** What the scope check found of a job's pull request (followup_outcomes.scope). */
export type ScopeVerdict = 'in_scope' | 'out_of_scope' | 'unknown';

/** One scope rule a pull request broke, with the files that broke it (or, for `unknown`, why). */
export interface ScopeReason {
  readonly rule: string;
  readonly files: readonly string[];
}

/** Builds the record through its schema: its keys in column order, and only those keys. */
export function buildOutcome(input: OutcomeInput): FollowUpOutcome {
  return v.parse(FOLLOWUP_OUTCOME, {
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
    scope: input.scope ?? null,
    scope_reasons: input.scopeReasons == null ? null : JSON.stringify(input.scopeReasons),
    merged_at: input.mergedAt == null ? null : new Date(input.mergedAt).toISOString(),
  });
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

/** Where {@link registeringOutcomes} registers each outcome's day. */
export interface OutcomeRegistration {
  /** The Glue client, built on the first outcome (a warm function shares one). */
  readonly glue: () => GlueSend;
  /** The stack's Glue database (`EXPORT_GLUE_DATABASE`). */
  readonly database: string;
  readonly now: () => number;
  readonly logger?: Pick<AppLogger, 'warn' | 'error'> | undefined;
  /** The organisation whose lake the outcomes go to (a deployment of many: the table's `org` partition). */
  readonly org?: string | undefined;
}

/**
 * The sink with each outcome's day registered in Glue once written (`followup_outcomes`, its
 * `dt`, with `org` for an organisation's): once per day in a warm function, by the registrar the
 * export uses (warehouse/partitions.ts). A failed registration is logged and counted, never the
 * outcome's failure; the day's next outcome (or `register-partitions`) tries again.
 */
export function registeringOutcomes(sink: OutcomeSink, registration: OutcomeRegistration): OutcomeSink {
  let registrar: ReturnType<typeof createPartitionRegistrar> | undefined;
  return {
    async write(outcome) {
      await sink.write(outcome);
      const { glue, database, now, logger, org } = registration;
      registrar ??= createPartitionRegistrar({ glue: glue(), database, now, logger, org });
      await registrar.wrote(FOLLOWUP_OUTCOMES.name, outcome.finished_at.slice(0, 10));
    },
  };
}
