/**
 * Schemas of the API's 2xx bodies (valibot). Everything the jobs rely on is checked here, at
 * the edge, so the export never writes a negative count or a string where Parquet expects an
 * INT64. A failure names the field and never echoes more than a few characters of the body.
 */
import * as v from 'valibot';
import { ASSISTANT_RESPONSE_TYPES, FEEDBACK_SOURCES, FEEDBACK_STATUSES, JOB_STATUSES, RESOLUTION_STATUSES, type AgentJob } from './api-enums.js';
import { MalformedResponseError, stripControlCharacters } from './errors.js';
import { openEnum, openObject } from './open-objects.js';

/** How a caller that knows secrets (the API client) keeps them out of a parse error. */
export interface ParseOptions {
  /**
   * Applied to every piece of the body an error shows, before it is cut short, so not even a
   * fragment of a secret survives the cut. @default none
   */
  readonly redact?: (text: string) => string;
}

const COUNT_MESSAGE = 'must be an integer ≥ 0';

/** A count (visitors, views, hits, feedback, queries): a JSON number that is a non-negative safe integer (not "12", not 1.5). */
const Count = v.pipe(
  v.number(COUNT_MESSAGE),
  v.integer(COUNT_MESSAGE),
  v.minValue(0, COUNT_MESSAGE),
  v.maxValue(Number.MAX_SAFE_INTEGER, 'must fit in a safe integer'),
);

const Counts = { human: Count, ai: Count, total: Count };

/** A string that identifies something (a path, an id, a search term): never empty. */
const Identifier = v.pipe(v.string('must be a string'), v.minLength(1, 'must be a non-empty string'));

/** A string that may be null; absent reads as null. */
const OptionalText = v.optional(v.nullable(v.string('must be a string or null')), null);

/**
 * A paging cursor: a non-empty string, or null on the last page; absent reads as null. An
 * empty string is refused rather than read as "no more pages": it would end the unit early
 * without a word, and sent back it is no cursor at all.
 */
const NextCursor = v.optional(v.nullable(v.pipe(v.string('must be a string or null'), v.minLength(1, 'must be a non-empty string or null'))), null);

/**
 * `hasMore` of the cursor-paged endpoints (feedback, assistant): `true`/`false`, or null when
 * left out (or sent as null). ⚠ The docs list it, but the searches endpoint has none at all;
 * the pager then decides on `nextCursor` alone rather than failing a whole unit.
 */
const OptionalHasMore = v.optional(v.nullable(v.boolean('must be true, false or null')), null);

/**
 * `YYYY-MM-DD`, optionally followed by `THH:MM[:SS[.fraction]]` and `Z` or `±HH[:]MM`.
 * Groups: year, month, day, hour, minute, second, zone.
 */
const ISO_TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/**
 * Epoch ms of an ISO 8601 timestamp, or undefined when `text` is not one. `Date.parse` alone
 * is not enough: it accepts non-ISO forms ("Jan 15 2026") and rolls `2026-02-30` over to
 * March, and it reads a date-time without offset as the machine's local time.
 * ⚠ The docs say "ISO timestamp" without an offset rule: a date-time without one is read as
 * UTC (the service works in UTC), so the result never depends on the machine's time zone; a
 * date alone is UTC midnight.
 */
export function isoTimestampToEpochMs(text: string): number | undefined {
  const match = ISO_TIMESTAMP.exec(text);
  if (!match) return undefined;
  const [, year, month, day, hour, minute, second, zone] = match;
  const y = Number(year);
  const m = Number(month);
  const d = Number(day);
  const calendar = new Date(Date.UTC(y, m - 1, d));
  if (calendar.getUTCFullYear() !== y || calendar.getUTCMonth() !== m - 1 || calendar.getUTCDate() !== d) return undefined;
  if (hour !== undefined && (Number(hour) > 23 || Number(minute) > 59 || Number(second ?? 0) > 59)) return undefined;
  const ms = Date.parse(hour !== undefined && zone === undefined ? `${text}Z` : text);
  return Number.isSafeInteger(ms) ? ms : undefined;
}

const TIMESTAMP_MESSAGE = 'must be an ISO 8601 timestamp';

/** An ISO 8601 timestamp string, converted to epoch ms (UTC): read once, an issue when it does not read. */
const Timestamp = v.pipe(
  v.string(TIMESTAMP_MESSAGE),
  v.rawTransform(({ dataset, addIssue, NEVER }) => {
    const ms = isoTimestampToEpochMs(dataset.value);
    if (ms !== undefined) return ms;
    addIssue({ message: TIMESTAMP_MESSAGE });
    return NEVER;
  }),
);

/** A timestamp that may be null; absent reads as null. */
const OptionalTimestamp = v.optional(v.nullable(Timestamp), null);

/** The site totals of visitors and views (`totals`). */
export const TotalsSchema = openObject(Counts, 'must be an object');

/** One page's counts (visitors, views). */
export const PathCountsRowSchema = openObject({ path: Identifier, ...Counts }, 'must be an object');

/**
 * `GET /v1/analytics/{projectId}/visitors`. `total` is not checked against `human + ai`: the
 * service deduplicates it across both, so any relation between them is legitimate.
 */
export const VisitorsPageSchema = openObject(
  {
    totals: TotalsSchema,
    visitors: v.array(PathCountsRowSchema, 'must be an array'),
    hasMore: v.boolean('must be true or false'),
  },
  'must be a JSON object',
);

/**
 * `GET /v1/analytics/{projectId}/views`: the visitors shape with `views` for `visitors`.
 * ⚠ Row order is undocumented: nothing here relies on it.
 */
export const ViewsPageSchema = openObject(
  {
    totals: TotalsSchema,
    views: v.array(PathCountsRowSchema, 'must be an array'),
    hasMore: v.boolean('must be true or false'),
  },
  'must be a JSON object',
);

/**
 * `GET /v1/analytics/{projectId}/searches`.
 * - ⚠ `ctr`'s scale (0–1 or 0–100) is undocumented: any finite number ≥ 0 is kept exactly as
 *   sent (no rescaling, no upper bound), so a reader can tell the scale from the data.
 * - `topClickedPage` and `lastSearchedAt` may be null or absent (both read as null).
 * - There is no `hasMore`: `nextCursor` null (or absent) marks the last page.
 */
export const SearchRowSchema = openObject(
  {
    searchQuery: Identifier,
    hits: Count,
    ctr: v.pipe(v.number('must be a number ≥ 0'), v.finite('must be a finite number ≥ 0'), v.minValue(0, 'must be a number ≥ 0')),
    topClickedPage: OptionalText,
    lastSearchedAt: OptionalTimestamp,
  },
  'must be an object',
);

export const SearchesPageSchema = openObject(
  {
    searches: v.array(SearchRowSchema, 'must be an array'),
    totalSearches: Count,
    nextCursor: NextCursor,
  },
  'must be a JSON object',
);

/**
 * One feedback item. `comment` and `createdAt` are documented as always present (string or
 * null); absent is read as null too, since nothing downstream distinguishes the two. The
 * source-specific fields (`helpful`, `contact`, `code`, `filename`, `lang`) may be absent,
 * null or of their type, whatever the `source`: they are not cross-checked against it.
 * `source` and `status` are open (`openEnum`).
 */
export const FeedbackRowSchema = openObject(
  {
    id: Identifier,
    path: Identifier,
    comment: OptionalText,
    createdAt: OptionalTimestamp,
    source: openEnum(FEEDBACK_SOURCES),
    status: openEnum(FEEDBACK_STATUSES),
    helpful: v.optional(v.nullable(v.boolean('must be true, false or null')), null),
    contact: OptionalText,
    code: OptionalText,
    filename: OptionalText,
    lang: OptionalText,
  },
  'must be an object',
);

/** `GET /v1/analytics/{projectId}/feedback` (cursor paging; `hasMore` may be absent). */
export const FeedbackPageSchema = openObject(
  {
    feedback: v.array(FeedbackRowSchema, 'must be an array'),
    nextCursor: NextCursor,
    hasMore: OptionalHasMore,
  },
  'must be a JSON object',
);

/** One page's feedback counts. */
export const FeedbackByPageRowSchema = openObject({ path: Identifier, thumbsUp: Count, thumbsDown: Count, code: Count, total: Count }, 'must be an object');

/**
 * `GET /v1/analytics/{projectId}/feedback/by-page`: one request, no paging. `hasMore` is
 * required: it is the only sign that rows were left out, and guessing `false` would hide a
 * truncation. `total` is not checked against the other counts.
 */
export const FeedbackByPageSchema = openObject(
  {
    feedback: v.array(FeedbackByPageRowSchema, 'must be an array'),
    hasMore: v.boolean('must be true or false'),
  },
  'must be a JSON object',
);

/** A source an answer cites: open like every object of the answers (a `score`, a `snippet` is kept). */
const AssistantSourceSchema = openObject({ title: v.string('must be a string'), url: v.string('must be a string') }, 'must be an object');

/**
 * One assistant turn.
 * - ⚠ `id` is the conversation's id and repeats on every turn: it is not checked for
 *   uniqueness (the row key is `id` + `timestamp`).
 * - `responseType` absent (or null) means `answer`, as documented; `responseType` and
 *   `resolutionStatus` are open (`openEnum`).
 * - ⚠ `sources` absent or null reads as `[]`: a turn that cites nothing is still a turn, and
 *   the docs do not say whether an answer without sources carries the field.
 * - `query` and `response` must be strings but may be empty (an answer can be empty).
 * - `queryCategory` and `pageUrl` may be null or absent (both read as null).
 */
export const AssistantTurnSchema = openObject(
  {
    id: Identifier,
    timestamp: Timestamp,
    query: v.string('must be a string'),
    response: v.string('must be a string'),
    responseType: v.optional(v.nullable(openEnum(ASSISTANT_RESPONSE_TYPES), 'answer'), 'answer'),
    sources: v.optional(v.nullable(v.array(AssistantSourceSchema, 'must be an array'), []), []),
    resolutionStatus: openEnum(RESOLUTION_STATUSES),
    queryCategory: OptionalText,
    pageUrl: OptionalText,
  },
  'must be an object',
);

/**
 * `GET /v1/analytics/{projectId}/assistant` (cursor paging; `hasMore` may be absent).
 * ⚠ Row order is undocumented: nothing here assumes ascending timestamps.
 */
export const AssistantPageSchema = openObject(
  {
    conversations: v.array(AssistantTurnSchema, 'must be an array'),
    nextCursor: NextCursor,
    hasMore: OptionalHasMore,
  },
  'must be a JSON object',
);

/**
 * `GET /v1/analytics/{projectId}/assistant/caller-stats`.
 * ⚠ `total` is documented as `web + api + other` but is not checked: refusing the answer would
 * fail the whole day over a counter the service may compute differently (late events, callers
 * it does not classify), and the counts as sent are more useful than no row; a reader can
 * compare the columns.
 */
export const CallerStatsSchema = openObject({ web: Count, api: Count, other: Count, total: Count }, 'must be a JSON object');

const PR_LINK_MESSAGE = 'must be an https:// URL or null';

/**
 * An https URL without credentials, spaces or control characters. A pull request link is
 * printed and stored as it is: anything else (a `javascript:` link, an escape sequence, any
 * string at all) is refused rather than passed on.
 */
function isHttpsUrl(text: string): boolean {
  if (text.length > 2_048 || /[\s\u0000-\u001f\u007f-\u009f]/.test(text)) return false;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return false;
  }
  return url.protocol === 'https:' && url.hostname !== '' && url.username === '' && url.password === '';
}

/**
 * The fields of an agent job the consumer decides on. `prLink` absent is read as `null` (the
 * spec says it is null until a PR exists, and is vague on which fields are always present);
 * a `prLink` that is not an https URL is an error.
 */
const AgentJobCoreSchema = v.object(
  {
    id: v.pipe(v.string('must be a string'), v.minLength(1, 'must be a non-empty string')),
    // Open: a status this version does not know is kept and treated as not terminal — if it
    // looks like a status (an identifier); anything else (text, an echo of the prompt) is malformed.
    status: v.pipe(openEnum(JOB_STATUSES), v.regex(/^[A-Za-z][A-Za-z0-9_.-]{0,63}$/, 'must be a job status (an identifier such as completed)')),
    prLink: v.optional(v.nullable(v.pipe(v.string(PR_LINK_MESSAGE), v.check(isHttpsUrl, PR_LINK_MESSAGE))), null),
  },
  'must be a JSON object',
);

/**
 * `received` as valibot renders it: secrets redacted, control characters removed, then cut
 * short so a large or hostile body is never echoed.
 */
function shortReceived(received: string, options: ParseOptions): string {
  const shown = stripControlCharacters(options.redact ? options.redact(received) : received);
  return shown.length > 40 ? `${shown.slice(0, 37)}...` : shown;
}

/** `visitors.3.human` → `visitors[3].human`; the root is `body`. */
function fieldName(issue: v.BaseIssue<unknown>): string {
  const keys = issue.path?.map((item) => item.key) ?? [];
  if (keys.length === 0) return 'body';
  return keys.map((key, i) => (typeof key === 'number' ? `[${key}]` : `${i === 0 ? '' : '.'}${String(key)}`)).join('');
}

function describeIssue(issue: v.BaseIssue<unknown>, options: ParseOptions): string {
  const field = fieldName(issue);
  if (issue.kind === 'schema' && issue.received === 'undefined') return `${field} is missing`;
  const message = issue.message.startsWith('Invalid ') ? `is invalid (expected ${issue.expected ?? '?'})` : issue.message;
  // A length check reports the length as `received`: show the string itself ("got \"\"", not "got 0").
  const received = issue.type === 'min_length' && typeof issue.input === 'string' ? JSON.stringify(issue.input) : issue.received;
  return `${field} ${message} (got ${shortReceived(received, options)})`;
}

function parseOrThrow<S extends v.GenericSchema>(schema: S, body: unknown, what: string, options: ParseOptions = {}): v.InferOutput<S> {
  const result = v.safeParse(schema, body, { abortPipeEarly: true });
  if (result.success) return result.output;
  const [first, ...rest] = result.issues;
  const more = rest.length > 0 ? ` (and ${rest.length} more problem(s))` : '';
  throw new MalformedResponseError(
    `${what} response is malformed: ${first ? describeIssue(first, options) : 'invalid'}${more}; the API did not answer as documented`,
  );
}

/** Validates one visitors page; throws `MalformedResponseError` naming the first bad field. */
export function parseVisitorsPage(body: unknown, options: ParseOptions = {}): v.InferOutput<typeof VisitorsPageSchema> {
  return parseOrThrow(VisitorsPageSchema, body, 'visitors', options);
}

/** Validates one views page; throws `MalformedResponseError` naming the first bad field. */
export function parseViewsPage(body: unknown, options: ParseOptions = {}): v.InferOutput<typeof ViewsPageSchema> {
  return parseOrThrow(ViewsPageSchema, body, 'views', options);
}

/** Validates one searches page (timestamps to epoch ms, absent fields to null). */
export function parseSearchesPage(body: unknown, options: ParseOptions = {}): v.InferOutput<typeof SearchesPageSchema> {
  return parseOrThrow(SearchesPageSchema, body, 'searches', options);
}

/** Validates one feedback page (timestamps to epoch ms, absent fields to null). */
export function parseFeedbackPage(body: unknown, options: ParseOptions = {}): v.InferOutput<typeof FeedbackPageSchema> {
  return parseOrThrow(FeedbackPageSchema, body, 'feedback', options);
}

/** Validates the feedback-by-page answer. */
export function parseFeedbackByPage(body: unknown, options: ParseOptions = {}): v.InferOutput<typeof FeedbackByPageSchema> {
  return parseOrThrow(FeedbackByPageSchema, body, 'feedback by page', options);
}

/** Validates one assistant conversations page (timestamps to epoch ms, defaults filled in). */
export function parseAssistantPage(body: unknown, options: ParseOptions = {}): v.InferOutput<typeof AssistantPageSchema> {
  return parseOrThrow(AssistantPageSchema, body, 'assistant', options);
}

/** Validates the assistant caller stats. */
export function parseCallerStats(body: unknown, options: ParseOptions = {}): v.InferOutput<typeof CallerStatsSchema> {
  return parseOrThrow(CallerStatsSchema, body, 'assistant caller stats', options);
}

/**
 * Validates an agent job. Unknown fields are ignored; the optional descriptive fields
 * (`source`, `model`, `createdAt`, `archivedAt`) are kept when they have the documented type
 * and dropped otherwise, because nothing decides on them and a change there must not stop
 * the consumer.
 */
export function parseAgentJob(body: unknown, options: ParseOptions = {}): AgentJob {
  const core = parseOrThrow(AgentJobCoreSchema, body, 'agent job', options);
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
