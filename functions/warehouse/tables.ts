/**
 * The warehouse tables, defined once (what a table is: table-def.ts). The Parquet writer, the
 * follow-up outcome records and the Glue tables (infra) are all generated from these
 * definitions, so they cannot drift.
 */

import { ASSISTANT_RESPONSE_TYPES, FEEDBACK_SOURCES, FEEDBACK_STATUSES, RESOLUTION_STATUSES } from '../shared/api-enums.js';
import { dayKey, LAYOUT } from './lake/layout.js';
import { typedTable, type ColumnDef, type TableDef } from './table-def.js';

/**
 * The column every analytics table ends with: what the API sent that this version does not
 * know, so a new field is kept rather than dropped. Columns are only ever appended (never
 * renamed, retyped or removed): a file written before a column existed reads it as null.
 */
export const UNKNOWN_FIELDS = {
  name: 'unknown_fields',
  type: 'string',
  optional: true,
  comment: 'Fields the API sent that this version does not know, as a JSON object (values as sent, text masked); null when none',
  policy: 'mask',
} as const satisfies ColumnDef;

export const VISITORS_TOTALS = typedTable({
  name: 'visitors_totals',
  prefix: 'visitors_totals',
  format: 'parquet',
  partitionKey: 'dt',
  comment: 'Site-wide unique visitors per project per UTC day, as reported by the API.',
  columns: [
    { name: 'project_id', type: 'string', comment: 'Mintlify project id' },
    { name: 'date', type: 'date', comment: 'UTC day the counts cover ([date, date+1))' },
    { name: 'human', type: 'int64', comment: 'Unique human visitors' },
    { name: 'ai', type: 'int64', comment: 'Unique AI visitors' },
    { name: 'total', type: 'int64', comment: 'Unique visitors, deduplicated across human and AI (not human+ai)' },
    { name: 'pages', type: 'int64', comment: 'Per-page rows written for that day' },
    { name: 'exported_at', type: 'timestamp_ms', comment: 'When the export ran (UTC)' },
    UNKNOWN_FIELDS,
  ],
});

export const VISITORS_PAGES = typedTable({
  name: 'visitors_pages',
  prefix: 'visitors_pages',
  format: 'parquet',
  partitionKey: 'dt',
  comment: 'Unique visitors per page per project per UTC day.',
  columns: [
    { name: 'project_id', type: 'string', comment: 'Mintlify project id' },
    { name: 'date', type: 'date', comment: 'UTC day the counts cover ([date, date+1))' },
    { name: 'path', type: 'string', comment: 'Page path', policy: 'path' },
    { name: 'human', type: 'int64', comment: 'Unique human visitors of the page' },
    { name: 'ai', type: 'int64', comment: 'Unique AI visitors of the page' },
    { name: 'total', type: 'int64', comment: 'Unique visitors of the page, deduplicated across human and AI' },
    { name: 'exported_at', type: 'timestamp_ms', comment: 'When the export ran (UTC)' },
    UNKNOWN_FIELDS,
  ],
});

/** One JSON object per follow-up request (newline-free), keys exactly the column names. */
export const FOLLOWUP_OUTCOMES: TableDef = {
  name: 'followup_outcomes',
  prefix: LAYOUT.outcomes.folder,
  format: 'json',
  partitionKey: 'dt',
  comment: 'Outcome of each prompt sent to an agent: a follow-up to a job, or a new job.',
  columns: [
    { name: 'request_id', type: 'string', comment: 'Idempotency key (caller requestId or SQS message id)' },
    { name: 'project_id', type: 'string', comment: 'Mintlify project id' },
    { name: 'job_id', type: 'string', optional: true, comment: 'Agent job id (null for a new job whose creation never named it)' },
    { name: 'prompt_length', type: 'int64', comment: 'Prompt length in characters (the text is never stored)' },
    { name: 'prompt_sha256', type: 'string', comment: 'SHA-256 of the prompt, hex' },
    { name: 'status', type: 'string', comment: 'completed | archived | failed | timed_out | uncertain | rejected' },
    { name: 'pr_link', type: 'string', optional: true, comment: 'Pull request URL, when the agent opened one' },
    { name: 'sent_at', type: 'timestamp_ms', optional: true, comment: 'When the prompt was accepted by the API' },
    { name: 'finished_at', type: 'timestamp_ms', comment: 'When the outcome was recorded' },
    { name: 'polls', type: 'int64', comment: 'GET job requests made for this prompt' },
    { name: 'attempts', type: 'int64', comment: 'POST attempts made (at most one accepted)' },
    { name: 'detail', type: 'string', optional: true, comment: 'Why the request ended this way, when not completed' },
    // Appended (round four): older files lack them, and readers take a missing value as null.
    { name: 'kind', type: 'string', optional: true, comment: 'create (a new job) | follow_up (a prompt to an existing job); null in outcomes written before' },
    { name: 'gap_id', type: 'string', optional: true, comment: 'The gap the prompt was written for (gaps --prompts), when it has one' },
    // Appended (round seven): the job's pull request checked against the scope rules, and its merge.
    {
      name: 'scope',
      type: 'string',
      optional: true,
      comment: 'in_scope | out_of_scope | unknown: the pull request against the scope rules; null when not checked',
    },
    {
      name: 'scope_reasons',
      type: 'string',
      optional: true,
      comment: 'JSON array of {rule, files}: each scope rule the pull request broke, or why its scope is unknown',
    },
    {
      name: 'merged_at',
      type: 'timestamp_ms',
      optional: true,
      comment: "When the pull request was merged (GitHub's merged_at); null when not merged or not read",
    },
  ],
};

/** The two columns every analytics table starts with. */
const PROJECT_ID = { name: 'project_id', type: 'string', comment: 'Mintlify project id' } as const satisfies ColumnDef;
const WINDOW_DAY = {
  name: 'date',
  type: 'date',
  comment: 'UTC day of the API window the row comes from ([date, date+1))',
} as const satisfies ColumnDef;
/** The column every analytics table ends with. */
const EXPORTED_AT = { name: 'exported_at', type: 'timestamp_ms', comment: 'When the export ran (UTC)' } as const satisfies ColumnDef;

export const VIEWS_TOTALS = typedTable({
  name: 'views_totals',
  prefix: 'views_totals',
  format: 'parquet',
  partitionKey: 'dt',
  comment: 'Site-wide content views per project per UTC day, as reported by the API.',
  columns: [
    PROJECT_ID,
    WINDOW_DAY,
    { name: 'human', type: 'int64', comment: 'Content views by humans' },
    { name: 'ai', type: 'int64', comment: 'Content views by AI agents' },
    { name: 'total', type: 'int64', comment: "Content views (view events): human + ai, as the dashboard's export defines it; stored as the API sends it" },
    { name: 'pages', type: 'int64', comment: 'Per-page rows written for that day' },
    EXPORTED_AT,
    UNKNOWN_FIELDS,
  ],
});

export const VIEWS_PAGES = typedTable({
  name: 'views_pages',
  prefix: 'views_pages',
  format: 'parquet',
  partitionKey: 'dt',
  comment: 'Content views per page per project per UTC day.',
  columns: [
    PROJECT_ID,
    WINDOW_DAY,
    { name: 'path', type: 'string', comment: 'Page path', policy: 'path' },
    { name: 'human', type: 'int64', comment: 'Content views of the page by humans' },
    { name: 'ai', type: 'int64', comment: 'Content views of the page by AI agents' },
    {
      name: 'total',
      type: 'int64',
      comment: "Content views of the page (view events): human + ai, as the dashboard's export defines it; stored as the API sends it",
    },
    EXPORTED_AT,
    UNKNOWN_FIELDS,
  ],
});

export const SEARCHES_TOTALS = typedTable({
  name: 'searches_totals',
  prefix: 'searches_totals',
  format: 'parquet',
  partitionKey: 'dt',
  comment: 'Search volume per project per UTC day: one row per project and day.',
  columns: [
    PROJECT_ID,
    WINDOW_DAY,
    { name: 'total_searches', type: 'int64', comment: 'Search events in the day (the sum of hits, not the number of terms)' },
    { name: 'terms', type: 'int64', comment: 'Distinct search terms written to the searches table for that day' },
    EXPORTED_AT,
    UNKNOWN_FIELDS,
  ],
});

export const SEARCHES = typedTable({
  name: 'searches',
  prefix: 'searches',
  format: 'parquet',
  partitionKey: 'dt',
  comment: 'One row per distinct search term (case-insensitive) per project per UTC day.',
  columns: [
    PROJECT_ID,
    WINDOW_DAY,
    { name: 'search_query', type: 'string', comment: 'The search term', policy: 'mask', personal: true },
    { name: 'hits', type: 'int64', comment: 'Times the term was searched that day' },
    { name: 'ctr', type: 'double', comment: 'Click-through rate stored as the API sends it (scale 0-1 or 0-100 undocumented)' },
    { name: 'top_clicked_page', type: 'string', optional: true, comment: 'Result page clicked most often; null when none was clicked', policy: 'path' },
    { name: 'last_searched_at', type: 'timestamp_ms', optional: true, comment: 'Last time the term was searched in the window (UTC); null when not sent' },
    EXPORTED_AT,
    UNKNOWN_FIELDS,
  ],
});

export const FEEDBACK = typedTable({
  name: 'feedback',
  prefix: 'feedback',
  format: 'parquet',
  partitionKey: 'dt',
  comment: 'One row per feedback item created in the UTC day. status changes later in the dashboard: recent days are re-exported (EXPORT_REFRESH_DAYS).',
  columns: [
    PROJECT_ID,
    WINDOW_DAY,
    { name: 'feedback_id', type: 'string', comment: 'Feedback item id (the API id)' },
    { name: 'path', type: 'string', comment: 'Page path or URL the feedback is about', policy: 'path' },
    {
      name: 'source',
      type: 'string',
      comment: 'code_snippet | contextual | agent | thumbs_only, or a newer value as sent',
      knownValues: FEEDBACK_SOURCES,
    },
    {
      name: 'status',
      type: 'string',
      comment: 'pending | in_progress | resolved | dismissed (or a newer value as sent), as of exported_at',
      knownValues: FEEDBACK_STATUSES,
    },
    { name: 'comment', type: 'string', optional: true, comment: 'Free-text comment; null when none', policy: 'mask', personal: true },
    { name: 'created_at', type: 'timestamp_ms', optional: true, comment: 'When the feedback was given (UTC); null when not sent' },
    { name: 'helpful', type: 'boolean', optional: true, comment: 'Thumbs up (true) or down (false), contextual feedback; null otherwise' },
    {
      name: 'contact',
      type: 'string',
      optional: true,
      comment:
        'E-mail left with contextual feedback, as a keyed hash (lowercase hex HMAC-SHA256 of the address in its one form: NFKC-folded, trimmed, lower-cased, domain in punycode); null when none',
      policy: 'hmac',
      personal: true,
    },
    { name: 'code', type: 'string', optional: true, comment: 'The code snippet, code_snippet feedback; null otherwise', policy: 'mask', personal: true },
    { name: 'filename', type: 'string', optional: true, comment: 'File name of the snippet, code_snippet feedback; null otherwise' },
    { name: 'lang', type: 'string', optional: true, comment: 'Language of the snippet, code_snippet feedback; null otherwise' },
    EXPORTED_AT,
    UNKNOWN_FIELDS,
  ],
});

export const FEEDBACK_BY_PAGE = typedTable({
  name: 'feedback_by_page',
  prefix: 'feedback_by_page',
  format: 'parquet',
  partitionKey: 'dt',
  comment:
    'Feedback counts per page per project per UTC day. At most 100 pages per day (the API cannot page): the manifest says truncated when rows were left out.',
  columns: [
    PROJECT_ID,
    WINDOW_DAY,
    { name: 'path', type: 'string', comment: 'Page path', policy: 'path' },
    { name: 'thumbs_up', type: 'int64', comment: 'Contextual feedback marked helpful' },
    { name: 'thumbs_down', type: 'int64', comment: 'Contextual feedback marked not helpful' },
    { name: 'code', type: 'int64', comment: 'Code-snippet feedback' },
    { name: 'total', type: 'int64', comment: 'All feedback on the page, as the API totals it' },
    EXPORTED_AT,
    UNKNOWN_FIELDS,
  ],
});

export const ASSISTANT_CONVERSATIONS = typedTable({
  name: 'assistant_conversations',
  prefix: 'assistant_conversations',
  format: 'parquet',
  partitionKey: 'dt',
  // A turn carries the question, the answer and its sources (kilobytes, not the tens of bytes of a
  // path row): groups of 5,000 keep the buffered group of a 200k-turn day under the memory goal.
  rowGroupSize: 5_000,
  comment: 'One row per user turn with the docs assistant, per project per UTC day. Row key: (conversation_id, asked_at).',
  columns: [
    PROJECT_ID,
    WINDOW_DAY,
    {
      name: 'conversation_id',
      type: 'string',
      comment: 'Conversation id: repeats on every turn of a conversation, so not a row key alone',
    },
    { name: 'asked_at', type: 'timestamp_ms', comment: 'When the user asked (UTC)' },
    { name: 'query', type: 'string', comment: 'What the user asked', policy: 'mask', personal: true },
    { name: 'response', type: 'string', comment: "The assistant's answer", policy: 'mask', personal: true },
    {
      name: 'response_type',
      type: 'string',
      comment: 'answer | clarifying_question, or a newer value as sent (answer when the API leaves it out)',
      knownValues: ASSISTANT_RESPONSE_TYPES,
    },
    {
      name: 'resolution_status',
      type: 'string',
      optional: true,
      comment: 'answered | unanswered, or a newer value as sent (always filled; nullable per the table contract)',
      knownValues: RESOLUTION_STATUSES,
    },
    { name: 'query_category', type: 'string', optional: true, comment: 'Category the service gave the question; null if none', policy: 'mask', personal: true },
    { name: 'page_url', type: 'string', optional: true, comment: 'Page the user asked from; null when unknown', policy: 'path' },
    { name: 'source_count', type: 'int64', comment: 'Number of sources the answer cited' },
    {
      name: 'sources_json',
      type: 'string',
      comment: 'Cited sources as a JSON array, each object as sent: {title,url} and any field the service added ([] when none), text masked',
      policy: 'mask',
    },
    EXPORTED_AT,
    UNKNOWN_FIELDS,
  ],
});

export const ASSISTANT_CALLER_STATS = typedTable({
  name: 'assistant_caller_stats',
  prefix: 'assistant_caller_stats',
  format: 'parquet',
  partitionKey: 'dt',
  comment: 'Assistant queries per caller per project per UTC day: one row per project and day.',
  columns: [
    PROJECT_ID,
    WINDOW_DAY,
    { name: 'web', type: 'int64', comment: 'Assistant queries from the docs site' },
    { name: 'api', type: 'int64', comment: 'Assistant queries from direct API calls' },
    { name: 'other', type: 'int64', comment: 'Assistant queries from other integrations' },
    { name: 'total', type: 'int64', comment: 'All assistant queries, as the API sends it (documented as web+api+other; not checked)' },
    EXPORTED_AT,
    UNKNOWN_FIELDS,
  ],
});

/** Every table of the warehouse; the Glue tables are generated from this list. */
/**
 * One JSON object per export run (Lambda or CLI), written when the run ends or fails: the
 * history of the pipeline, queryable next to the data (what dlt's load table is for dlt).
 */
export const EXPORT_RUNS: TableDef = {
  name: 'export_runs',
  prefix: LAYOUT.runs.folder,
  format: 'json',
  partitionKey: 'dt',
  comment: 'One record per export run (hourly Lambda, manual invoke or CLI), written when the run ends.',
  columns: [
    { name: 'run_id', type: 'string', comment: 'Unique id of the run' },
    { name: 'trigger', type: 'string', comment: 'schedule | manual | cli' },
    { name: 'started_at', type: 'timestamp_ms', comment: 'When the run started (UTC)' },
    { name: 'finished_at', type: 'timestamp_ms', comment: 'When the run ended (UTC)' },
    { name: 'units_done', type: 'int64', comment: 'Units completed (manifest written)' },
    { name: 'units_partial', type: 'int64', comment: 'Units left with a checkpoint (budget, time or a stop): resumed later, not failed' },
    { name: 'units_failed', type: 'int64', comment: 'Units that failed (see failures)' },
    {
      name: 'units_skipped',
      type: 'int64',
      comment: 'Units planned but not worked on: leased by another run, or not reached before the budget or time ran out',
    },
    { name: 'requests', type: 'int64', comment: 'Analytics requests started (every attempt)' },
    { name: 'retries', type: 'int64', comment: 'Attempts retried (429s included)' },
    { name: 'rate_limited', type: 'int64', comment: '429s received (someone else spent the budget)' },
    { name: 'budget_wait_ms', type: 'int64', comment: 'Time spent waiting for the request budget, ms' },
    { name: 'backlog_requests', type: 'int64', comment: 'Requests the units left to do are expected to need' },
    {
      name: 'failures',
      type: 'record_list',
      comment: 'Why units failed (or the run itself, with null dataset): errors scrubbed like every message',
      fields: [
        { name: 'dataset', type: 'string' },
        { name: 'project_id', type: 'string' },
        { name: 'date', type: 'string' },
        { name: 'error', type: 'string' },
      ],
    },
    {
      name: 'units_drift',
      type: 'int64',
      comment: 'Units completed whose answers had fields or values this version does not know (kept, see the manifests)',
    },
    { name: 'failed_requests', type: 'int64', comment: 'Of requests: those spent on units that failed (a unit that keeps failing shows here)' },
    {
      name: 'iceberg_statements',
      type: 'record_list',
      optional: true,
      tableFormat: 'iceberg',
      comment:
        'Statements run on the Iceberg tables (tableFormat=iceberg): kind (merge, expire, optimize, vacuum), Hive table, days merged, Athena query id, state, rows changed, bytes scanned, error; null without Iceberg or in older records',
      fields: [
        { name: 'kind', type: 'string' },
        { name: 'table_name', type: 'string' },
        { name: 'first_day', type: 'string' },
        { name: 'last_day', type: 'string' },
        { name: 'days', type: 'int64' },
        { name: 'query_id', type: 'string' },
        { name: 'state', type: 'string' },
        { name: 'changed_rows', type: 'int64' },
        { name: 'bytes_scanned', type: 'int64' },
        { name: 'error', type: 'string' },
      ],
    },
  ],
};

/**
 * One JSON object per line, one file per project and day the verdicts were made (`effects --save`
 * and the weekly report function write it; a second run of the day replaces the file): each
 * completed job made for a gap, its rate before and after, its controls and its verdict
 * (functions/gaps/verdict.ts). A verdict changes as days accumulate: the latest `dt` holds the
 * latest word on each job.
 */
export const FIX_EFFECTS: TableDef = {
  name: 'fix_effects',
  prefix: LAYOUT.fixEffects.folder,
  format: 'json',
  partitionKey: 'dt',
  comment:
    'Did the fix work: one record per completed agent job made for a gap, with its verdict against similar gaps without a job (written by effects --save and the weekly report).',
  columns: [
    { name: 'gap_id', type: 'string', comment: 'The gap the job was made for (gaps --prompts; followup_outcomes.gap_id)' },
    { name: 'project_id', type: 'string', comment: 'Mintlify project id' },
    {
      name: 'kind',
      type: 'string',
      optional: true,
      comment: 'unanswered_topic | search_without_clicks | thumbs_down_page; null when the gap was not found again',
    },
    {
      name: 'key',
      type: 'string',
      optional: true,
      comment:
        "The topic's key terms, the lower-cased search term or the page path, as the lake holds it (masked there); null when the gap was not found again",
    },
    { name: 'job_id', type: 'string', optional: true, comment: 'Agent job id' },
    { name: 'pr_link', type: 'string', optional: true, comment: 'Pull request URL, when the agent opened one' },
    { name: 'completed_day', type: 'date', comment: 'UTC day the job completed (written YYYY-MM-DD): on neither side of the comparison' },
    { name: 'verdict', type: 'string', comment: 'fixed | worse | no_change | too_little_data' },
    { name: 'reason', type: 'string', comment: 'The verdict in words' },
    { name: 'before_days', type: 'int64', comment: 'Days compared before the job (N = min(28, whole days since))' },
    { name: 'before_signals', type: 'int64', comment: 'Thumbs down, unclicked searches or unanswered questions in those days' },
    { name: 'before_exposure', type: 'int64', comment: 'Human views of the page, searches of the term or questions asked in the topic in those days' },
    { name: 'before_rate', type: 'double', comment: 'before_signals ÷ before_exposure (0 without exposure)' },
    { name: 'after_days', type: 'int64', comment: 'Days compared after the job' },
    { name: 'after_signals', type: 'int64', comment: 'Signals in those days' },
    { name: 'after_exposure', type: 'int64', comment: 'Exposure in those days' },
    { name: 'after_rate', type: 'double', comment: 'after_signals ÷ after_exposure (0 without exposure)' },
    { name: 'control_gaps', type: 'int64', comment: 'Gaps of the same project and kind without a job, with a similar rate before, pooled as the control' },
    { name: 'control_ratio', type: 'double', optional: true, comment: "The controls' after ÷ before rate ratio; null without a control" },
    {
      name: 'effect_ratio',
      type: 'double',
      optional: true,
      comment: "The gap's after ÷ before rate ratio over the controls' (below 1: the rate fell beyond them); null when too little data",
    },
    { name: 'effect_low', type: 'double', optional: true, comment: '95 % interval, low end (quasi-Poisson)' },
    { name: 'effect_high', type: 'double', optional: true, comment: '95 % interval, high end (quasi-Poisson)' },
    { name: 'judged_at', type: 'timestamp_ms', comment: 'When the verdict was made (UTC)' },
  ],
};

export const TABLES = [
  VISITORS_TOTALS,
  VISITORS_PAGES,
  FOLLOWUP_OUTCOMES,
  EXPORT_RUNS,
  VIEWS_TOTALS,
  VIEWS_PAGES,
  SEARCHES_TOTALS,
  SEARCHES,
  FEEDBACK,
  FEEDBACK_BY_PAGE,
  ASSISTANT_CONVERSATIONS,
  ASSISTANT_CALLER_STATS,
  FIX_EFFECTS,
] as const;

/** `<prefix>/dt=YYYY-MM-DD/<name>` — the Hive-style key of one file (lake/layout.ts). */
export function partitionKey(table: TableDef, day: string, fileName: string): string {
  return dayKey(table.prefix, day, fileName);
}
