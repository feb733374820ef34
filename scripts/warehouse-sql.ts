/**
 * The "Your warehouse" SQL of docs/warehouse.md — Snowflake, BigQuery, Databricks and Redshift
 * Spectrum — generated from the table definitions (`functions/warehouse/tables.ts`): every
 * table, every column, each type mapped per engine, so the SQL cannot drift from the files.
 * `npm run docs` writes it between the markers; a test fails when the file holds another text.
 * Placeholders are in angle brackets (`<bucket>`, `<prefix>`: the export's destination).
 */
import type { ColumnDef, ColumnType, ScalarColumnType, TableDef } from '../functions/warehouse/tables.js';
import { TABLES } from '../functions/warehouse/tables.js';

export const BEGIN_MARKER = '<!-- your-warehouse:begin (generated from functions/warehouse/tables.ts by `npm run docs`; do not edit) -->';
export const END_MARKER = '<!-- your-warehouse:end -->';

/** Where the export writes: `s3://<bucket>/<prefix>/<table prefix>/dt=YYYY-MM-DD/…`. */
const ROOT = 's3://<bucket>/<prefix>';
const location = (table: TableDef) => `${ROOT}/${table.prefix}/`;

export type Engine = 'snowflake' | 'bigquery' | 'databricks' | 'redshift';

const SCALAR: Record<Engine, Record<ScalarColumnType, string>> = {
  // Timestamps are UTC instants: TIMESTAMP_NTZ in Snowflake (no zone), TIMESTAMP (UTC) elsewhere.
  snowflake: { string: 'VARCHAR', date: 'DATE', int64: 'NUMBER(19,0)', double: 'DOUBLE', timestamp_ms: 'TIMESTAMP_NTZ(3)', boolean: 'BOOLEAN' },
  bigquery: { string: 'STRING', date: 'DATE', int64: 'INT64', double: 'FLOAT64', timestamp_ms: 'TIMESTAMP', boolean: 'BOOL' },
  databricks: { string: 'STRING', date: 'DATE', int64: 'BIGINT', double: 'DOUBLE', timestamp_ms: 'TIMESTAMP', boolean: 'BOOLEAN' },
  redshift: { string: 'VARCHAR(65535)', date: 'DATE', int64: 'BIGINT', double: 'DOUBLE PRECISION', timestamp_ms: 'TIMESTAMP', boolean: 'BOOLEAN' },
};

/** A column's type in an engine's SQL (`record_list`: an array of structs, Snowflake's ARRAY). */
export function engineType(engine: Engine, column: Pick<ColumnDef, 'type' | 'fields'>): string {
  const type: ColumnType = column.type;
  if (type !== 'record_list') return SCALAR[engine][type];
  const fields = column.fields ?? [];
  switch (engine) {
    case 'snowflake':
      return 'ARRAY';
    case 'bigquery':
      return `ARRAY<STRUCT<${fields.map((field) => `${field.name} ${SCALAR.bigquery[field.type]}`).join(', ')}>>`;
    case 'databricks':
      return `ARRAY<STRUCT<${fields.map((field) => `${field.name}: ${SCALAR.databricks[field.type]}`).join(', ')}>>`;
    case 'redshift':
      return `ARRAY<STRUCT<${fields.map((field) => `${field.name}:${SCALAR.redshift[field.type]}`).join(', ')}>>`;
  }
}

/**
 * Quotes a column name for an engine (some, such as `date`, `comment` or `trigger`, are reserved
 * words). Snowflake's are quoted in capitals, which is what an unquoted name resolves to, so
 * `SELECT date …` still finds them.
 */
function quote(engine: Engine, name: string): string {
  return engine === 'snowflake' ? `"${name.toUpperCase()}"` : `\`${name}\``;
}

const columnLines = (lines: readonly string[]) => lines.map((line, index) => `  ${line}${index < lines.length - 1 ? ',' : ''}`).join('\n');

function snowflakeTable(table: TableDef): string {
  const columns = [
    // dt comes from the file's path (…/dt=YYYY-MM-DD/…): a partition column may only use METADATA$FILENAME.
    `dt DATE AS TO_DATE(SPLIT_PART(SPLIT_PART(METADATA$FILENAME, '/dt=', 2), '/', 1))`,
    ...table.columns.map(
      (column) => `${quote('snowflake', column.name)} ${engineType('snowflake', column)} AS (VALUE:"${column.name}"::${engineType('snowflake', column)})`,
    ),
  ];
  return [
    `CREATE OR REPLACE EXTERNAL TABLE ${table.name} (`,
    columnLines(columns),
    ')',
    'PARTITION BY (dt)',
    `LOCATION = @mintlify_export/${table.prefix}/`,
    `FILE_FORMAT = (TYPE = ${table.format === 'parquet' ? 'PARQUET' : 'JSON'})`,
    'AUTO_REFRESH = TRUE;',
  ].join('\n');
}

function bigQueryColumns(table: TableDef): string {
  return columnLines(table.columns.map((column) => `${quote('bigquery', column.name)} ${engineType('bigquery', column)}`));
}

const bigQueryFormat = (table: TableDef) => (table.format === 'parquet' ? 'PARQUET' : 'NEWLINE_DELIMITED_JSON');

function bigQueryExternal(table: TableDef): string {
  return [
    `CREATE OR REPLACE EXTERNAL TABLE \`<gcp_project>.<dataset>.${table.name}\` (`,
    bigQueryColumns(table),
    ')',
    'WITH PARTITION COLUMNS (dt DATE)',
    'WITH CONNECTION `<gcp_project>.<aws_region>.<connection>`',
    'OPTIONS (',
    `  format = '${bigQueryFormat(table)}',`,
    `  uris = ['${location(table)}*'],`,
    `  hive_partition_uri_prefix = '${location(table)}'`,
    ');',
  ].join('\n');
}

function bigQueryLoad(table: TableDef): string {
  return [
    `LOAD DATA OVERWRITE \`<gcp_project>.<dataset>.${table.name}\` PARTITIONS (dt = DATE '<YYYY-MM-DD>') (`,
    bigQueryColumns(table),
    ')',
    'PARTITION BY dt',
    'FROM FILES (',
    `  format = '${bigQueryFormat(table)}',`,
    `  uris = ['${location(table)}dt=<YYYY-MM-DD>/*'],`,
    `  hive_partition_uri_prefix = '${location(table)}'`,
    ')',
    'WITH PARTITION COLUMNS (dt DATE)',
    'WITH CONNECTION `<gcp_project>.<aws_region>.<connection>`;',
  ].join('\n');
}

function databricksTable(table: TableDef): string {
  return [
    `CREATE TABLE IF NOT EXISTS mintlify.${table.name} (`,
    columnLines([...table.columns.map((column) => `${quote('databricks', column.name)} ${engineType('databricks', column)}`), 'dt DATE']),
    ')',
    `USING ${table.format === 'parquet' ? 'PARQUET' : 'JSON'}`,
    'PARTITIONED BY (dt)',
    `LOCATION '${location(table)}';`,
    `MSCK REPAIR TABLE mintlify.${table.name};  -- again after new days land`,
  ].join('\n');
}

function redshiftPartition(table: TableDef): string {
  return `ALTER TABLE mintlify.${table.name} ADD IF NOT EXISTS PARTITION (dt = '<YYYY-MM-DD>') LOCATION '${location(table)}dt=<YYYY-MM-DD>/';`;
}

function redshiftTable(table: TableDef): string {
  return [
    `-- ${table.name}: ${table.columns.map((column) => `${column.name} ${engineType('redshift', column)}`).join(', ')}, dt VARCHAR (partition)`,
    redshiftPartition(table),
  ].join('\n');
}

const sql = (statements: readonly string[]) => ['```sql', statements.join('\n\n'), '```'].join('\n');

/** The generated sections: one per engine, each with every table of `TABLES`. */
export function warehouseSql(): string {
  return [
    '### Snowflake',
    '',
    'One setup step outside Snowflake: an IAM role Snowflake assumes to read the bucket, and the',
    "bucket's event notifications for auto-refresh. Create the integration, give the role's trust",
    'policy the `STORAGE_AWS_IAM_USER_ARN` and `STORAGE_AWS_EXTERNAL_ID` that `DESC INTEGRATION`',
    "shows, then the stage and the tables (`dt` is taken from each file's path):",
    '',
    sql([
      [
        'CREATE STORAGE INTEGRATION mintlify_export_s3',
        '  TYPE = EXTERNAL_STAGE',
        "  STORAGE_PROVIDER = 'S3'",
        '  ENABLED = TRUE',
        "  STORAGE_AWS_ROLE_ARN = '<snowflake_role_arn>'",
        `  STORAGE_ALLOWED_LOCATIONS = ('${ROOT}/');`,
      ].join('\n'),
      'DESC INTEGRATION mintlify_export_s3;',
      `CREATE STAGE mintlify_export URL = '${ROOT}/' STORAGE_INTEGRATION = mintlify_export_s3;`,
      ...TABLES.map(snowflakeTable),
    ]),
    '',
    '**Auto-refresh.** `SHOW EXTERNAL TABLES` gives each table a `notification_channel` (an SQS',
    'ARN, the same for every table of the account). Add an event notification to the bucket (the',
    'stack sets none, so a deploy does not undo it) for',
    '`s3:ObjectCreated:*` and `s3:ObjectRemoved:*` under `<prefix>/` sending to that ARN: days',
    'are rewritten when re-exported, so removals matter too. Until then, `ALTER EXTERNAL TABLE',
    '<table> REFRESH;` registers new files by hand.',
    '',
    '### BigQuery',
    '',
    'Through BigQuery Omni: a BigLake external table reads the Hive-partitioned files in place',
    '(the dataset lives in the AWS region, e.g. `aws-us-east-1`, and the connection is a BigQuery',
    'AWS connection whose IAM role can read the bucket):',
    '',
    sql(TABLES.map(bigQueryExternal)),
    '',
    'Or copy a day into native BigQuery tables with a load job (run per day; `OVERWRITE … PARTITIONS`',
    'replaces the day, so a re-exported day is not counted twice):',
    '',
    sql(TABLES.map(bigQueryLoad)),
    '',
    '### Databricks',
    '',
    'With the Glue catalog as the metastore, the tables of the Glue database (the stack output',
    '`GlueDatabase`, `mintlify_analytics` unless the stack names another) are there already, but Spark does not use partition projection: register the days as in',
    'Redshift Spectrum below. Otherwise, define the tables over the files (the cluster or external',
    'location must be allowed to read the bucket):',
    '',
    sql(['CREATE SCHEMA IF NOT EXISTS mintlify;', ...TABLES.map(databricksTable)]),
    '',
    '### Redshift Spectrum',
    '',
    'An external schema over the Glue database (the stack output `GlueDatabase`; the role needs',
    'read access to the bucket and Glue). Spectrum reads the Glue tables as they are, but not',
    'their partition projection (that is Athena only): register each day once its files land (the export writes every table of a',
    'day, then its manifest).',
    '',
    sql([
      ['CREATE EXTERNAL SCHEMA IF NOT EXISTS mintlify', "FROM DATA CATALOG DATABASE 'mintlify_analytics'", "IAM_ROLE '<redshift_role_arn>';"].join('\n'),
      ...TABLES.map(redshiftTable),
    ]),
  ].join('\n');
}

/** `doc` with the text between the markers replaced by the current SQL; throws without both markers. */
export function withWarehouseSql(doc: string): string {
  const begin = doc.indexOf(BEGIN_MARKER);
  const end = doc.indexOf(END_MARKER);
  if (begin < 0 || end < begin) throw new Error(`the document has no ${BEGIN_MARKER} … ${END_MARKER} block`);
  return `${doc.slice(0, begin + BEGIN_MARKER.length)}\n\n${warehouseSql()}\n\n${doc.slice(end)}`;
}
