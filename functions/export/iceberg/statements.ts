/**
 * The SQL the export runs on the Iceberg tables, written once and rendered per engine: Athena's
 * (Trino's grammar: the Glue tables by name) and DuckDB's (the tests and `npm run bench` run the
 * same MERGE on a lake folder). The two differ only in the relation the committed days are read
 * from — the Hive table in Glue, or `read_parquet` over the lake's files — and in that Athena's
 * Hive tables of many organisations need `org` named (partition projection `injected`).
 *
 * `MERGE INTO` is one transaction on an Iceberg table: the day files the export committed are
 * its staging. Its source is the committed days' rows, one per row key (the latest `exported_at`
 * should a masked value make two rows one), and — marked `_gone` — the rows the table holds for
 * those days that the files no longer have (a re-export dropped them): matched, they are
 * deleted. A row whose `exported_at` is unchanged is not rewritten, so a replayed MERGE changes
 * no row.
 */
import { sqlString } from '../../warehouse/sql.js';
import type { ColumnDef, TableDef } from '../../warehouse/table-def.js';
import { dayFolder } from '../../warehouse/lake/layout.js';
import { DAY_COLUMN, icebergTableName, MAX_DAYS_PER_STATEMENT, ORG_COLUMN, rowKey } from './layout.js';

/** Where a statement runs: how it names the tables. */
export type StatementTarget =
  /** Athena (engine 3): the stack's Glue database; with many organisations, the one organisation a run exports. */
  | { readonly engine: 'athena'; readonly database: string; readonly org?: string }
  /** DuckDB: the Iceberg table is a table of the session; the day files are read from `lake` (a folder or glob root). */
  | { readonly engine: 'duckdb'; readonly lake: string; readonly org?: string };

/** An identifier quoted for both engines: `date` → `"date"`. */
export function quoted(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** The Iceberg table of `table` as `target` names it. */
export function icebergRelation(table: TableDef, target: StatementTarget): string {
  const name = quoted(icebergTableName(table.name));
  return target.engine === 'athena' ? `${quoted(target.database)}.${name}` : name;
}

/** The committed day files of `table`, as a relation with a string `dt` column. */
function dayFiles(table: TableDef, target: StatementTarget): string {
  if (target.engine === 'athena') return `${quoted(target.database)}.${quoted(table.name)}`;
  const glob = `${dayFolder(`${target.lake.replace(/\/+$/, '')}/${table.prefix}`, '*')}/*.parquet`;
  return `read_parquet(${sqlString(glob)}, hive_partitioning = true, hive_types = {'dt': VARCHAR}, union_by_name = true)`;
}

/** The Iceberg type of a column (Athena's DDL names; DuckDB's CREATE TABLE takes the same ones but `string`). */
export const ICEBERG_TYPES = {
  string: 'string',
  date: 'date',
  int64: 'bigint',
  double: 'double',
  timestamp_ms: 'timestamp',
  boolean: 'boolean',
} as const;

/** One column of an Iceberg table: the Hive table's columns, then `org` (many organisations), then `dt`. */
export interface IcebergColumn {
  readonly name: string;
  readonly type: (typeof ICEBERG_TYPES)[keyof typeof ICEBERG_TYPES];
  readonly required: boolean;
  readonly comment: string;
}

/** The columns of the Iceberg table of `table`; `byOrg` adds `org`. Refuses a column no Iceberg type holds. */
export function icebergColumns(table: TableDef, byOrg: boolean): IcebergColumn[] {
  const own = table.columns.map((column: ColumnDef): IcebergColumn => {
    if (column.type === 'record_list') throw new Error(`${table.name}.${column.name}: a list of records has no Iceberg table here`);
    return { name: column.name, type: ICEBERG_TYPES[column.type], required: column.optional !== true, comment: column.comment };
  });
  return [
    ...own,
    ...(byOrg ? [{ name: ORG_COLUMN, type: 'string' as const, required: true, comment: 'organisation id' }] : []),
    { name: DAY_COLUMN, type: 'date' as const, required: true, comment: 'UTC day of the export unit (the Hive dt folder): the partition' },
  ];
}

/** `days` in batches of at most {@link MAX_DAYS_PER_STATEMENT}, each sorted, without repeats. */
export function dayBatches(days: Iterable<string>, size = MAX_DAYS_PER_STATEMENT): string[][] {
  const sorted = [...new Set(days)].sort();
  const batches: string[][] = [];
  for (let start = 0; start < sorted.length; start += size) batches.push(sorted.slice(start, start + size));
  return batches;
}

/**
 * The MERGE of `days` (at most {@link MAX_DAYS_PER_STATEMENT}) of `table` into its Iceberg table:
 * see the module's header.
 */
export function mergeStatement(table: TableDef, days: readonly string[], target: StatementTarget): string {
  if (days.length === 0 || days.length > MAX_DAYS_PER_STATEMENT) throw new Error(`a MERGE takes 1 to ${MAX_DAYS_PER_STATEMENT} days, not ${days.length}`);
  const org = target.org;
  const key = [...rowKey(table), ...(org !== undefined ? [ORG_COLUMN] : []), DAY_COLUMN];
  const fileKey = rowKey(table);
  const columns = icebergColumns(table, org !== undefined).map((column) => column.name);
  const own = table.columns.map((column) => column.name);
  const iceberg = icebergRelation(table, target);
  const files = dayFiles(table, target);
  const dayStrings = days.map(sqlString).join(', ');
  const dayDates = days.map((day) => `DATE ${sqlString(day)}`).join(', ');
  // Athena's Hive tables of many organisations: the partition `org` is projected from the query.
  const orgOfFiles = (alias: string) => (org !== undefined && target.engine === 'athena' ? ` AND ${alias}.${ORG_COLUMN} = ${sqlString(org)}` : '');
  const orgValue = org !== undefined ? [`${sqlString(org)} AS ${ORG_COLUMN}`] : [];
  const orgOfTable = org !== undefined ? ` AND o.${ORG_COLUMN} = ${sqlString(org)}` : '';
  const q = (alias: string, names: readonly string[]) => names.map((name) => `${alias}.${quoted(name)}`).join(', ');
  const newRows = [
    `  SELECT ${q('h', own)}, ${[...orgValue, `CAST(h.${DAY_COLUMN} AS date) AS ${DAY_COLUMN}`].join(', ')}, false AS _gone`,
    `  FROM (`,
    `    SELECT f.*, row_number() OVER (PARTITION BY ${q('f', fileKey)} ORDER BY f.exported_at DESC) AS _n`,
    `    FROM ${files} AS f`,
    `    WHERE f.${DAY_COLUMN} IN (${dayStrings})${orgOfFiles('f')}`,
    `  ) AS h`,
    `  WHERE h._n = 1`,
  ];
  const goneRows = [
    `  SELECT ${q('o', columns)}, true AS _gone`,
    `  FROM ${iceberg} AS o`,
    `  WHERE o.${DAY_COLUMN} IN (${dayDates})${orgOfTable}`,
    `    AND NOT EXISTS (`,
    `      SELECT 1 FROM ${files} AS n`,
    `      WHERE n.${DAY_COLUMN} IN (${dayStrings})${orgOfFiles('n')} AND ${fileKey.map((name) => `n.${quoted(name)} = o.${quoted(name)}`).join(' AND ')}`,
    `    )`,
  ];
  const updated = columns.filter((name) => !key.includes(name));
  return [
    `MERGE INTO ${iceberg} AS t`,
    `USING (`,
    ...newRows,
    `  UNION ALL`,
    ...goneRows,
    `) AS s`,
    `ON ${key.map((name) => `t.${quoted(name)} = s.${quoted(name)}`).join(' AND ')}`,
    `WHEN MATCHED AND s._gone THEN DELETE`,
    `WHEN MATCHED AND t.exported_at IS DISTINCT FROM s.exported_at THEN UPDATE SET ${updated.map((name) => `${quoted(name)} = s.${quoted(name)}`).join(', ')}`,
    `WHEN NOT MATCHED AND NOT s._gone THEN INSERT (${columns.map(quoted).join(', ')}) VALUES (${q('s', columns)})`,
  ].join('\n');
}

/** `forget`: the rows of `table` whose `hmac` columns hold one of `hmacs`. */
export function forgetStatement(table: TableDef, columns: readonly string[], hmacs: readonly string[], target: StatementTarget): string {
  if (columns.length === 0 || hmacs.length === 0) throw new Error('forget needs a column and an HMAC');
  const list = hmacs.map(sqlString).join(', ');
  const where = columns.map((column) => `${quoted(column)} IN (${list})`).join(' OR ');
  const org = target.org !== undefined ? ` AND ${ORG_COLUMN} = ${sqlString(target.org)}` : '';
  return `DELETE FROM ${icebergRelation(table, target)} WHERE (${where})${org}`;
}

/** Retention: the days of `table` before `cutoff` (YYYY-MM-DD, the first day kept). */
export function expireStatement(table: TableDef, cutoff: string, target: StatementTarget): string {
  const org = target.org !== undefined ? ` AND ${ORG_COLUMN} = ${sqlString(target.org)}` : '';
  return `DELETE FROM ${icebergRelation(table, target)} WHERE ${DAY_COLUMN} < DATE ${sqlString(cutoff)}${org}`;
}

/** The weekly compaction (Athena's own statement: small files rewritten into fewer, deleted rows dropped from the data files). */
export function optimizeStatement(table: TableDef, target: Extract<StatementTarget, { engine: 'athena' }>): string {
  return `OPTIMIZE ${plainName(table, target)} REWRITE DATA USING BIN_PACK`;
}

/** The weekly clean-up (Athena's own): snapshots older than the table's `vacuum_max_snapshot_age_seconds` and their files go. */
export function vacuumStatement(table: TableDef, target: Extract<StatementTarget, { engine: 'athena' }>): string {
  return `VACUUM ${plainName(table, target)}`;
}

/** `<database>.<table>` unquoted, as Athena's OPTIMIZE and VACUUM reference writes it (the stack's names are plain words). */
function plainName(table: TableDef, target: Extract<StatementTarget, { engine: 'athena' }>): string {
  if (!/^[a-z_][a-z0-9_]*$/.test(target.database)) return icebergRelation(table, target);
  return `${target.database}.${icebergTableName(table.name)}`;
}
