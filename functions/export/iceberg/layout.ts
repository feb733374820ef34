/**
 * Where the Iceberg tables live and what identifies their rows — in one place, so the lake's
 * layout module can take the prefixes over: the tables' data and metadata under `iceberg/<table>/`,
 * Athena's query results under `_athena/` (both under the app's prefix), a table per dataset
 * table named `iceberg_<table>` in the stack's Glue database.
 *
 * The row key of each table (docs/warehouse.md, "Iceberg tables") is derived from tables.ts: the
 * project and the window's day (`date`), then what makes a row of that day one of a kind — the
 * page `path` of the per-page tables, the `search_query` (distinct per day, case-insensitive)
 * of `searches`, the API's `feedback_id`, and `(conversation_id, asked_at)` of the assistant's
 * turns (tables.ts names it). The one-row-a-day tables need no more than the project and day.
 * With many organisations the key starts with `org`.
 */
import { DATASET_TABLES } from '../../warehouse/catalog.js';
import type { TableDef } from '../../warehouse/table-def.js';

/** Folder of the Iceberg tables (data and metadata), under the app's prefix. */
export const ICEBERG_PREFIX = 'iceberg/';

/** Folder of the Iceberg workgroup's query results, under the app's prefix (a lifecycle rule expires them). */
export const ATHENA_RESULTS_PREFIX = '_athena/';

/** The day column of every Iceberg table (the Hive `dt` folder, as a date): its partition, by day. */
export const DAY_COLUMN = 'dt';

/** The organisation column of an Iceberg table of a deployment for many organisations (partitioned by it too). */
export const ORG_COLUMN = 'org';

/** At most this many days a statement: a one-year backfill of the ten tables is 4 × 10 statements. */
export const MAX_DAYS_PER_STATEMENT = 100;

/** The Iceberg table beside the Hive table `table`. */
export function icebergTableName(table: string): string {
  return `iceberg_${table}`;
}

/** The folder of the Iceberg table of `table`, under the app's prefix. */
export function icebergFolder(table: string): string {
  return `${ICEBERG_PREFIX}${table}/`;
}

/** Columns after the project and the day that make a row one of a kind, per dataset table (the rest need none). */
const KEY_AFTER_DAY: Readonly<Record<string, readonly string[]>> = {
  visitors_pages: ['path'],
  views_pages: ['path'],
  feedback_by_page: ['path'],
  searches: ['search_query'],
  feedback: ['feedback_id'],
  assistant_conversations: ['conversation_id', 'asked_at'],
};

/** Every dataset table, once, in the catalog's order: what has an Iceberg table. */
export const ICEBERG_SOURCE_TABLES: readonly TableDef[] = [...new Set(Object.values(DATASET_TABLES).flat())];

/** The row key of the Iceberg table of `table` (without `org`): `project_id`, `date`, then its own columns. */
export function rowKey(table: TableDef): readonly string[] {
  return ['project_id', 'date', ...(KEY_AFTER_DAY[table.name] ?? [])];
}
