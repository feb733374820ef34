/**
 * The follow-up queue message (docs/design.md §2.4): validated once, at the
 * edge, so the rest of the consumer works on a typed, trusted value. Validation never
 * throws: a bad message is a normal outcome (dead-lettered with the reason), not a crash.
 */
import { createHash } from 'node:crypto';
import * as v from 'valibot';
import { ID_PATTERN } from '../shared/validators.js';
import type { REQUEST_KINDS } from '../warehouse/records.js';

/** Longest prompt accepted, in characters (the API documents no maximum; this bounds abuse). */
export const MAX_PROMPT_LENGTH = 100_000;

const id = (field: string) =>
  v.pipe(v.string(`${field} must be a string`), v.nonEmpty(`${field} is empty`), v.regex(ID_PATTERN, `${field} must match ${ID_PATTERN.source}`));

const BodySchema = v.object({
  projectId: v.optional(id('projectId')),
  jobId: v.optional(id('jobId')),
  prompt: v.pipe(
    v.string('prompt must be a string'),
    v.check((p) => p.trim().length > 0, 'prompt is empty'),
    v.maxLength(MAX_PROMPT_LENGTH, `prompt is longer than ${MAX_PROMPT_LENGTH} characters`),
  ),
  requestId: v.optional(id('requestId')),
  gapId: v.optional(id('gapId')),
});

/**
 * What a message asks for: `follow_up` sends the prompt to the existing job `jobId`;
 * `create` (no `jobId`) creates a new job with the prompt. The `kind` column of
 * followup_outcomes and the outcome message's `kind` attribute.
 */
export type RequestKind = (typeof REQUEST_KINDS)[number];

interface MessageFields {
  readonly requestId: string;
  readonly projectId: string;
  readonly prompt: string;
  /** The gap the prompt was written for (`gaps --prompts`), carried into the outcome. */
  readonly gapId?: string | undefined;
}

/** A message that passed validation, with its defaults applied. */
export type FollowUpMessage =
  | (MessageFields & { readonly kind: 'follow_up'; readonly jobId: string })
  | (MessageFields & { readonly kind: 'create'; readonly jobId?: undefined });

/**
 * The FIFO MessageGroupId of a message: a follow-up's job (one prompt per job at a time, in
 * order: a job never gets a prompt while it runs), a new job's own request id. Not the
 * project: a create message stays in flight while its job runs (hours, deferred between
 * polls), and one group per project would make every other new job of the project wait for it.
 * The service's 100 jobs per project per hour is kept by its 429, which defers the message.
 */
export function messageGroupOf(message: { readonly jobId?: string | undefined; readonly requestId: string }): string {
  return message.jobId ?? message.requestId;
}

export type ParseResult =
  | { readonly ok: true; readonly message: FollowUpMessage }
  | {
      readonly ok: false;
      /** One line, safe to log and to put in a message attribute (never the prompt). */
      readonly reason: string;
      /** The idempotency key when it could be read, else the SQS message id. */
      readonly requestId: string;
      /** Ids that were valid, for the dead-letter group id and logs. */
      readonly projectId?: string;
      readonly jobId?: string;
    };

/**
 * Parses an SQS body. `requestId` defaults to the SQS `messageId`; `projectId` may be left
 * out only when exactly one project is configured (MINTLIFY_PROJECT_IDS).
 */
export function parseFollowUpMessage(body: string, context: { readonly messageId: string; readonly projectIds: readonly string[] }): ParseResult {
  const fallbackId = defaultRequestId(context.messageId);
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return { ok: false, reason: 'body is not JSON', requestId: fallbackId };
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    return { ok: false, reason: 'body is not a JSON object', requestId: fallbackId };
  }
  const parsed = v.safeParse(BodySchema, json);
  const raw = json as Record<string, unknown>;
  const known = {
    requestId: validId(raw.requestId) ?? fallbackId,
    ...(validId(raw.projectId) ? { projectId: raw.projectId as string } : {}),
    ...(validId(raw.jobId) ? { jobId: raw.jobId as string } : {}),
  };
  if (!parsed.success) {
    const issue = parsed.issues[0];
    const field = issue.path?.map((p) => String(p.key)).join('.');
    // valibot's default messages for a missing key do not name it: add the path.
    const reason = issue.input === undefined && field ? `${field} is missing` : issue.message;
    return { ok: false, reason, ...known };
  }
  const { jobId, prompt, gapId } = parsed.output;
  let projectId = parsed.output.projectId;
  if (projectId === undefined) {
    if (context.projectIds.length !== 1) {
      return {
        ok: false,
        reason:
          context.projectIds.length === 0
            ? 'projectId is missing and MINTLIFY_PROJECT_IDS is not set'
            : 'projectId is missing and MINTLIFY_PROJECT_IDS lists more than one project',
        ...known,
      };
    }
    projectId = context.projectIds[0] as string;
  }
  const fields = { requestId: parsed.output.requestId ?? fallbackId, projectId, prompt, ...(gapId === undefined ? {} : { gapId }) };
  return { ok: true, message: jobId === undefined ? { ...fields, kind: 'create' } : { ...fields, kind: 'follow_up', jobId } };
}

/**
 * The request of a message whose body names none: its SQS message id (a UUID), or a safe key made
 * from it. `dead-letters redrive` writes the same into such a body before sending it back, so
 * the copy, which SQS gives a new id, stays this request.
 */
export function defaultRequestId(messageId: string): string {
  return ID_PATTERN.test(messageId) ? messageId : sanitizeId(messageId);
}

/** What may be logged or stored about a prompt: its length and SHA-256, never the text. */
export interface PromptFingerprint {
  readonly length: number;
  readonly sha256: string;
}

export function fingerprintPrompt(prompt: string): PromptFingerprint {
  return { length: prompt.length, sha256: createHash('sha256').update(prompt, 'utf8').digest('hex') };
}

function validId(value: unknown): string | undefined {
  return typeof value === 'string' && ID_PATTERN.test(value) ? value : undefined;
}

/** SQS message ids are UUIDs (valid); anything else is reduced to a safe key. */
function sanitizeId(value: string): string {
  const cleaned = value.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 128);
  return cleaned.length > 0 ? cleaned : createHash('sha256').update(value).digest('hex').slice(0, 32);
}

/**
 * The non-empty string fields `keys` of a queue message's body, as far as it is readable (never
 * throws): what routes or names a message before it is parsed (the consumer's lines, the
 * organisations' routing).
 */
export function bodyStringFields<K extends string>(body: string, keys: readonly K[]): { [P in K]?: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return {};
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return {};
  const fields = parsed as Record<string, unknown>;
  const out: { [P in K]?: string } = {};
  for (const key of keys) {
    const value = fields[key];
    if (typeof value === 'string' && value !== '') out[key] = value;
  }
  return out;
}
