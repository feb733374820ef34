/**
 * Checking follow-up prompts before they are enqueued, with the consumer's own code
 * (functions/follow-up/message.ts): the same id pattern, the same 1–100,000-character prompt,
 * the same `projectId` default. A prompt that passes here is one the consumer accepts; a bad
 * one is refused before anything is sent, instead of turning up later in the dead-letter queue.
 */
import { createHash, randomUUID } from 'node:crypto';
import { messageGroupOf, parseFollowUpMessage } from '../follow-up/message.js';
import { ConfigError } from '../shared/errors.js';
import { organisationOf, type OrganisationProjects } from '../organisations/follow-ups.js';

/** One prompt as a producer gives it: the queue message's fields. */
export interface FollowUpPrompt {
  /** May be left out when `projectIds` (the deployment's MINTLIFY_PROJECT_IDS) has exactly one. */
  readonly projectId?: string | undefined;
  /** The job to follow up; absent: the consumer creates a new job with the prompt. */
  readonly jobId?: string | undefined;
  /** 1 to 100,000 characters. */
  readonly prompt: string;
  /** The idempotency key; made when absent (see `makeRequestId`). */
  readonly requestId?: string | undefined;
  /** The gap the prompt was written for (`gaps --prompts`), carried into the outcome. */
  readonly gapId?: string | undefined;
}

/** A prompt that passed, with its defaults applied: what is sent. */
export interface CheckedPrompt {
  readonly requestId: string;
  readonly projectId: string;
  /** Absent for a new job. */
  readonly jobId?: string | undefined;
  readonly gapId?: string | undefined;
  /** The FIFO MessageGroupId (the job, or the request for a new job: messageGroupOf). */
  readonly groupId: string;
  readonly prompt: string;
  /** Whether `requestId` was made here (print it: it is the handle on the request). */
  readonly requestIdMade: boolean;
  /** Position in the input, from 1 (the line number for a file). */
  readonly line: number;
  /** The SQS body: the queue message's JSON, every field explicit. */
  readonly body: string;
}

export interface CheckOptions {
  /** The deployment's MINTLIFY_PROJECT_IDS: `projectId` may be left out only when it has exactly one. @default [] */
  readonly projectIds?: readonly string[] | undefined;
  /** Makes the request id of a prompt without one. @default a random UUID */
  readonly makeRequestId?: ((line: number) => string) | undefined;
  /**
   * MINTLIFY_ORGS_FILE's organisations: each prompt's organisation (`org`, or its project's) goes
   * into its message; a project of no organisation is refused. @default none (`org` is refused)
   */
  readonly organisations?: readonly OrganisationProjects[] | undefined;
}

/** The fields of a queue message: anything else is most likely a misspelt one. */
const FIELDS = ['projectId', 'jobId', 'prompt', 'requestId', 'gapId', 'org'] as const;

/** Bad prompts shown in one error, at most. */
const MAX_PROBLEMS_SHOWN = 3;

/** A refused input: every problem with its line, none of them sent. Exit code 2 in the CLI. */
export class InvalidPromptsError extends ConfigError {
  constructor(
    readonly problems: readonly { readonly line: number; readonly reason: string }[],
    what: string,
  ) {
    const shown = problems.slice(0, MAX_PROBLEMS_SHOWN).map((p) => `line ${p.line}: ${p.reason}`);
    const more = problems.length > MAX_PROBLEMS_SHOWN ? ` (and ${problems.length - MAX_PROBLEMS_SHOWN} more)` : '';
    super(`${what} refused, nothing was sent: ${shown.join('; ')}${more}`);
  }
}

/** Checks one prompt (a queue message's JSON text or its fields) at position `line`. */
export function checkPrompt(
  input: string | FollowUpPrompt,
  line: number,
  options: CheckOptions = {},
): { readonly ok: true; readonly prompt: CheckedPrompt } | { readonly ok: false; readonly reason: string } {
  const text = typeof input === 'string' ? input : JSON.stringify(input);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  if (json !== null && typeof json === 'object' && !Array.isArray(json)) {
    const unknown = Object.keys(json).find((key) => !(FIELDS as readonly string[]).includes(key));
    if (unknown !== undefined) {
      return { ok: false, reason: `unknown field ${JSON.stringify(unknown.slice(0, 40))} (the fields are ${FIELDS.join(', ')})` };
    }
  }
  const given = (json as { requestId?: unknown } | undefined)?.requestId;
  const made = given === undefined ? (options.makeRequestId ?? (() => randomUUID()))(line) : undefined;
  // The consumer's parser; a made id stands where the consumer would use the SQS message id.
  const parsed = parseFollowUpMessage(text, { messageId: made ?? 'unused', projectIds: options.projectIds ?? [] });
  if (!parsed.ok) return { ok: false, reason: parsed.reason };
  const { requestId, projectId, jobId, prompt, gapId } = parsed.message;
  const named = (json as { org?: unknown } | undefined)?.org;
  let org: string | undefined;
  if (options.organisations !== undefined) {
    const found = organisationOf(options.organisations, { projectId, ...(named === undefined ? {} : { org: String(named) }) });
    if (!found.ok) return { ok: false, reason: found.reason };
    org = found.org.id;
  } else if (named !== undefined) return { ok: false, reason: 'org names an organisation, but MINTLIFY_ORGS_FILE is not set: set it, or leave org out' };
  const ids = { requestId, projectId, ...(jobId === undefined ? {} : { jobId }), ...(gapId === undefined ? {} : { gapId }) };
  const body = queueJson({
    ...(org === undefined ? {} : { org }),
    projectId,
    ...(jobId === undefined ? {} : { jobId }),
    prompt,
    requestId,
    ...(gapId === undefined ? {} : { gapId }),
  });
  return {
    ok: true,
    prompt: {
      ...ids,
      groupId: messageGroupOf(parsed.message),
      prompt,
      requestIdMade: made !== undefined,
      line,
      body,
    },
  };
}

/**
 * JSON text whose characters SQS takes: `JSON.stringify` leaves U+FFFE, U+FFFF and characters
 * beyond U+FFFF (an emoji a reader typed) as they are, and SQS refuses the first two (emulators,
 * and code counting UTF-16 units, refuse the others too); as `\uXXXX` escapes they are the
 * same JSON, read back unchanged.
 */
export function queueJson(value: unknown): string {
  return JSON.stringify(value).replace(/[\u{FFFE}\u{FFFF}\u{10000}-\u{10FFFF}]/gu, (char) =>
    // split('') yields UTF-16 code units: a pair of escapes for a character beyond U+FFFF.
    char
      .split('')
      .map((unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`)
      .join(''),
  );
}

/**
 * Checks every prompt; throws InvalidPromptsError naming the bad ones (and a request id used
 * twice, which the consumer would drop as a duplicate or refuse) — all or nothing.
 */
export function checkPrompts(
  inputs: readonly { readonly line: number; readonly input: string | FollowUpPrompt }[],
  options: CheckOptions & { readonly what?: string } = {},
): CheckedPrompt[] {
  const what = options.what ?? 'prompts';
  if (inputs.length === 0) throw new ConfigError(`${what} has no prompt: give one JSON message per line`);
  const problems: { line: number; reason: string }[] = [];
  const checked: CheckedPrompt[] = [];
  const firstLineOf = new Map<string, number>();
  for (const { line, input } of inputs) {
    const result = checkPrompt(input, line, options);
    if (!result.ok) {
      problems.push({ line, reason: result.reason });
      continue;
    }
    const earlier = firstLineOf.get(result.prompt.requestId);
    if (earlier !== undefined) {
      problems.push({ line, reason: `requestId ${JSON.stringify(result.prompt.requestId)} is also used on line ${earlier}: each prompt needs its own` });
      continue;
    }
    firstLineOf.set(result.prompt.requestId, line);
    checked.push(result.prompt);
  }
  if (problems.length > 0) throw new InvalidPromptsError(problems, what);
  return checked;
}

/** A UTF-8 byte order mark: editors on Windows start a file with it. */
const BOM = [0xef, 0xbb, 0xbf];

/**
 * A prompt file's bytes as text: UTF-8, a leading byte order mark accepted (and left out).
 * Invalid UTF-8 is refused with the line it is on — never replaced by U+FFFD, which would send
 * a prompt other than the one written. Throws `InvalidPromptsError`.
 */
export function decodePromptFile(bytes: Uint8Array, what: string): string {
  const start = BOM.every((byte, i) => bytes[i] === byte) ? BOM.length : 0;
  const body = bytes.subarray(start);
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  try {
    return decoder.decode(body);
  } catch {
    // Decode line by line to name the first line that is not UTF-8.
    let line = 1;
    for (let from = 0; from <= body.length; line++) {
      const end = body.indexOf(0x0a, from);
      const to = end === -1 ? body.length : end;
      try {
        decoder.decode(body.subarray(from, to));
      } catch {
        throw new InvalidPromptsError([{ line, reason: 'is not valid UTF-8: save the file as UTF-8' }], what);
      }
      from = to + 1;
    }
    throw new InvalidPromptsError([{ line: 1, reason: 'is not valid UTF-8: save the file as UTF-8' }], what);
  }
}

/**
 * The lines of a JSONL text as inputs (blank lines skipped, numbered as an editor shows them).
 * Prompts without a requestId get `<hash of the text>-<line>`: enqueueing the same text again
 * adds nothing (same deduplication ids, same requests), while an edited file is a new batch.
 */
export function promptLines(text: string): {
  readonly inputs: { readonly line: number; readonly input: string }[];
  readonly makeRequestId: (line: number) => string;
} {
  const digest = createHash('sha256').update(text, 'utf8').digest('hex').slice(0, 20);
  const inputs = text
    .split(/\r?\n/)
    .map((input, index) => ({ line: index + 1, input }))
    .filter(({ input }) => input.trim() !== '');
  return { inputs, makeRequestId: (line) => `f${digest}-${line}` };
}
