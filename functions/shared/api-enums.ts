/**
 * The values the service's docs enumerate (feedback sources and statuses, assistant response
 * types, job statuses) and the agent job record: a leaf module, so the schemas that check an
 * answer and the types inferred from them (`api-types.ts`) read one declaration without
 * importing each other.
 */

/**
 * A field the docs give as an enum, kept open: the service adds values (feedback `source`
 * `agent` in April 2026, `responseType` in August), so a value this version does not know is
 * kept as sent, never refused. `T` names the values it knows (autocompletion, docs).
 */
export type OpenValue<T extends string> = T | (string & {});

export const FEEDBACK_SOURCES = ['code_snippet', 'contextual', 'agent', 'thumbs_only'] as const;
export type FeedbackSource = (typeof FEEDBACK_SOURCES)[number];

export const FEEDBACK_STATUSES = ['pending', 'in_progress', 'resolved', 'dismissed'] as const;
export type FeedbackStatus = (typeof FEEDBACK_STATUSES)[number];

export const ASSISTANT_RESPONSE_TYPES = ['answer', 'clarifying_question'] as const;
export type AssistantResponseType = (typeof ASSISTANT_RESPONSE_TYPES)[number];

export const RESOLUTION_STATUSES = ['answered', 'unanswered'] as const;
export type ResolutionStatus = (typeof RESOLUTION_STATUSES)[number];

/** Every job status of the spec; `active` is the only one that is not terminal. */
export const JOB_STATUSES = ['active', 'completed', 'archived', 'failed'] as const;
/**
 * A job status as read: one of the spec's, or a newer one the service added. An unknown
 * status is not terminal (`isTerminalJobStatus`): the consumer keeps polling, never sends.
 */
export type JobStatus = OpenValue<(typeof JOB_STATUSES)[number]>;

/** The statuses that end a job's run. */
export const TERMINAL_JOB_STATUSES = ['completed', 'archived', 'failed'] as const;
export type TerminalJobStatus = (typeof TERMINAL_JOB_STATUSES)[number];

/** Whether `status` ends the run: only the spec's terminal ones; `active` and any unknown status do not. */
export function isTerminalJobStatus(status: string): status is TerminalJobStatus {
  return (TERMINAL_JOB_STATUSES as readonly string[]).includes(status);
}

/** Whether this version knows `status` (an unknown one is logged once, then polled through). */
export function isKnownJobStatus(status: string): boolean {
  return (JOB_STATUSES as readonly string[]).includes(status);
}

/** An agent job record, validated. Fields the spec leaves unsure are optional. */
export interface AgentJob {
  readonly id: string;
  readonly status: JobStatus;
  readonly source?: { readonly repository?: string; readonly ref?: string };
  readonly model?: string;
  readonly prLink: string | null;
  readonly createdAt?: string;
  readonly archivedAt?: string | null;
}
