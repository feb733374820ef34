/**
 * The warehouse tables, defined once. The Parquet writer, the follow-up outcome records and
 * the Glue tables (infra) are all generated from these definitions, so they cannot drift.
 */

import type { DatasetName } from './dataset-names.js';

/** Logical column types, mapped to Parquet logical types and to Glue/Hive types. */
export type ColumnType = 'string' | 'date' | 'int64' | 'timestamp_ms' | 'boolean';

export interface ColumnDef {
  readonly name: string;
  readonly type: ColumnType;
  /** Whether the value may be absent (null). */
  readonly optional?: boolean;
  readonly comment: string;
}

export interface TableDef {
  readonly name: string;
  /** Folder under the destination: `<dest>/<prefix>/dt=YYYY-MM-DD/…`. */
  readonly prefix: string;
  readonly format: 'parquet' | 'json';
  readonly columns: readonly ColumnDef[];
  /** Hive partition key, a `YYYY-MM-DD` string (projected as a date in Athena). */
  readonly partitionKey: 'dt';
  readonly comment: string;
}

export const VISITORS_TOTALS: TableDef = {
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
  ],
};

export const VISITORS_PAGES: TableDef = {
  name: 'visitors_pages',
  prefix: 'visitors_pages',
  format: 'parquet',
  partitionKey: 'dt',
  comment: 'Unique visitors per page per project per UTC day.',
  columns: [
    { name: 'project_id', type: 'string', comment: 'Mintlify project id' },
    { name: 'date', type: 'date', comment: 'UTC day the counts cover ([date, date+1))' },
    { name: 'path', type: 'string', comment: 'Page path' },
    { name: 'human', type: 'int64', comment: 'Unique human visitors of the page' },
    { name: 'ai', type: 'int64', comment: 'Unique AI visitors of the page' },
    { name: 'total', type: 'int64', comment: 'Unique visitors of the page, deduplicated across human and AI' },
    { name: 'exported_at', type: 'timestamp_ms', comment: 'When the export ran (UTC)' },
  ],
};

/** One JSON object per follow-up request (newline-free), keys exactly the column names. */
export const FOLLOWUP_OUTCOMES: TableDef = {
  name: 'followup_outcomes',
  prefix: 'followup_outcomes',
  format: 'json',
  partitionKey: 'dt',
  comment: 'Outcome of each follow-up prompt sent to an agent job.',
  columns: [
    { name: 'request_id', type: 'string', comment: 'Idempotency key (caller requestId or SQS message id)' },
    { name: 'project_id', type: 'string', comment: 'Mintlify project id' },
    { name: 'job_id', type: 'string', comment: 'Agent job id' },
    { name: 'prompt_length', type: 'int64', comment: 'Prompt length in characters (the text is never stored)' },
    { name: 'prompt_sha256', type: 'string', comment: 'SHA-256 of the prompt, hex' },
    { name: 'status', type: 'string', comment: 'completed | archived | failed | timed_out | uncertain | rejected' },
    { name: 'pr_link', type: 'string', optional: true, comment: 'Pull request URL, when the agent opened one' },
    { name: 'sent_at', type: 'timestamp_ms', optional: true, comment: 'When the prompt was accepted by the API' },
    { name: 'finished_at', type: 'timestamp_ms', comment: 'When the outcome was recorded' },
    { name: 'polls', type: 'int64', comment: 'GET job requests made for this prompt' },
    { name: 'attempts', type: 'int64', comment: 'POST attempts made (at most one accepted)' },
    { name: 'detail', type: 'string', optional: true, comment: 'Why the request ended this way, when not completed' },
  ],
};

export const TABLES = [VISITORS_TOTALS, VISITORS_PAGES, FOLLOWUP_OUTCOMES] as const;

/** `<prefix>/dt=YYYY-MM-DD/<name>` — the Hive-style key of one file. */
export function partitionKey(table: TableDef, day: string, fileName: string): string {
  return `${table.prefix}/dt=${day}/${fileName}`;
}

/** Folder of the commit markers: `<dest>/_manifests/<dataset>/dt=YYYY-MM-DD/<projectId>.json`. */
export const MANIFESTS_PREFIX = '_manifests';

/** Where the commit marker of one unit lives; written after every table file of the unit. */
export function manifestKey(dataset: DatasetName, day: string, projectId: string): string {
  return `${MANIFESTS_PREFIX}/${dataset}/dt=${day}/${projectId}.json`;
}
