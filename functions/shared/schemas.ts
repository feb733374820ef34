/**
 * Schemas of the API's 2xx bodies (valibot). Everything the jobs rely on is checked here, at
 * the edge, so the export never writes a negative count or a string where Parquet expects an
 * INT64. A failure names the field and never echoes more than a few characters of the body.
 */
import * as v from 'valibot';
import { JOB_STATUSES, type AgentJob, type VisitorsPage } from './api-types.js';
import { MalformedResponseError } from './errors.js';

const COUNT_MESSAGE = 'must be an integer ≥ 0';

/** A visitor count: a JSON number that is a non-negative integer (not "12", not 1.5). */
const Count = v.pipe(
  v.number(COUNT_MESSAGE),
  v.integer(COUNT_MESSAGE),
  v.minValue(0, COUNT_MESSAGE),
  v.maxValue(Number.MAX_SAFE_INTEGER, 'must fit in a safe integer'),
);

const Counts = { human: Count, ai: Count, total: Count };

/**
 * `GET /v1/analytics/{projectId}/visitors`. `total` is not checked against `human + ai`: the
 * service deduplicates it across both, so any relation between them is legitimate.
 */
export const VisitorsPageSchema = v.object(
  {
    totals: v.object(Counts, 'must be an object'),
    visitors: v.array(
      v.object(
        {
          path: v.pipe(v.string('must be a string'), v.minLength(1, 'must be a non-empty string')),
          ...Counts,
        },
        'must be an object',
      ),
      'must be an array',
    ),
    hasMore: v.boolean('must be true or false'),
  },
  'must be a JSON object',
);

/**
 * The fields of an agent job the consumer decides on. `prLink` absent is read as `null` (the
 * spec says it is null until a PR exists, and is vague on which fields are always present);
 * a `prLink` of the wrong type is still an error.
 */
const AgentJobCoreSchema = v.object(
  {
    id: v.pipe(v.string('must be a string'), v.minLength(1, 'must be a non-empty string')),
    status: v.picklist(JOB_STATUSES, `must be one of ${JOB_STATUSES.join(', ')}`),
    prLink: v.optional(v.nullable(v.string('must be a string or null')), null),
  },
  'must be a JSON object',
);

/** `received` as valibot renders it, cut short so a large or hostile body is never echoed. */
function shortReceived(received: string): string {
  return received.length > 40 ? `${received.slice(0, 37)}...` : received;
}

/** `visitors.3.human` → `visitors[3].human`; the root is `body`. */
function fieldName(issue: v.BaseIssue<unknown>): string {
  const keys = issue.path?.map((item) => item.key) ?? [];
  if (keys.length === 0) return 'body';
  return keys
    .map((key, i) => (typeof key === 'number' ? `[${key}]` : `${i === 0 ? '' : '.'}${String(key)}`))
    .join('');
}

function describeIssue(issue: v.BaseIssue<unknown>): string {
  const field = fieldName(issue);
  if (issue.kind === 'schema' && issue.received === 'undefined') return `${field} is missing`;
  const message = issue.message.startsWith('Invalid ') ? `is invalid (expected ${issue.expected ?? '?'})` : issue.message;
  return `${field} ${message} (got ${shortReceived(issue.received)})`;
}

function parseOrThrow<S extends v.GenericSchema>(schema: S, body: unknown, what: string): v.InferOutput<S> {
  const result = v.safeParse(schema, body, { abortPipeEarly: true });
  if (result.success) return result.output;
  const [first, ...rest] = result.issues;
  const more = rest.length > 0 ? ` (and ${rest.length} more problem(s))` : '';
  throw new MalformedResponseError(
    `${what} response is malformed: ${first ? describeIssue(first) : 'invalid'}${more}; the API did not answer as documented`,
  );
}

/** Validates one visitors page; throws `MalformedResponseError` naming the first bad field. */
export function parseVisitorsPage(body: unknown): VisitorsPage {
  return parseOrThrow(VisitorsPageSchema, body, 'visitors');
}

/**
 * Validates an agent job. Unknown fields are ignored; the optional descriptive fields
 * (`source`, `model`, `createdAt`, `archivedAt`) are kept when they have the documented type
 * and dropped otherwise, because nothing decides on them and a change there must not stop
 * the consumer.
 */
export function parseAgentJob(body: unknown): AgentJob {
  const core = parseOrThrow(AgentJobCoreSchema, body, 'agent job');
  const raw = body as Record<string, unknown>;
  const job: { -readonly [K in keyof AgentJob]: AgentJob[K] } = { id: core.id, status: core.status, prLink: core.prLink };
  if (typeof raw.model === 'string') job.model = raw.model;
  if (typeof raw.createdAt === 'string') job.createdAt = raw.createdAt;
  if (typeof raw.archivedAt === 'string' || raw.archivedAt === null) job.archivedAt = raw.archivedAt;
  const source = raw.source;
  if (typeof source === 'object' && source !== null) {
    const { repository, ref } = source as Record<string, unknown>;
    job.source = {
      ...(typeof repository === 'string' ? { repository } : {}),
      ...(typeof ref === 'string' ? { ref } : {}),
    };
  }
  return job;
}
