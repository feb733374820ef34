/**
 * The "Your warehouse" SQL of docs/warehouse.md — Snowflake, BigQuery, Databricks and Redshift
 * Spectrum — generated from the table definitions (`functions/warehouse/tables.ts`): every
 * table, every column, each type mapped per engine, so the SQL cannot drift from the files.
 * `npm run docs` writes it between the markers; a test fails when the file holds another text.
 * Placeholders are in angle brackets (`<bucket>`, `<prefix>`: the export's destination).
 */
import type { ColumnDef, ColumnType, ScalarColumnType, TableDef } from '../functions/warehouse/table-def.js';
import { TABLES } from '../functions/warehouse/tables.js';

export const BEGIN_MARKER = '<!-- your-warehouse:begin (generated from functions/warehouse/tables.ts by `npm run docs`; do not edit) -->';
export const END_MARKER = '<!-- your-warehouse:end -->';

/** Where the export writes: `s3://<bucket>/<prefix>/<table prefix>/dt=YYYY-MM-DD/…`. */
const ROOT = 's3://<bucket>/<prefix>';
const location = (table: TableDef) => `${ROOT}/${table.prefix}/`;
/** BigQuery Omni's connection: its location is the AWS region of the bucket, written `aws-<region>`. */
import { dayFolderName } from '../functions/warehouse/lake/layout.js';

const OMNI_CONNECTION = '<gcp_project>.aws-us-east-1.<connection>';

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
    `dt DATE AS TO_DATE(SPLIT_PART(SPLIT_PART(METADATA$FILENAME, '/${dayFolderName('')}', 2), '/', 1))`,
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
    `WITH CONNECTION \`${OMNI_CONNECTION}\``,
    'OPTIONS (',
    `  format = '${bigQueryFormat(table)}',`,
    `  uris = ['${location(table)}*'],`,
    `  hive_partition_uri_prefix = '${location(table)}'`,
    ');',
  ].join('\n');
}

/**
 * A day copied into a native table (BigQuery's LOAD DATA reference: the column list, then
 * `OVERWRITE PARTITIONS (…)` — which takes `INTO`, not `OVERWRITE` — then `PARTITION BY`).
 * The day's partition is replaced whole, so a re-exported day is not counted twice.
 */
function bigQueryLoad(table: TableDef): string {
  return [
    `LOAD DATA INTO \`<gcp_project>.<copy_dataset>.${table.name}\` (`,
    bigQueryColumns(table),
    ')',
    "OVERWRITE PARTITIONS (dt = DATE '<YYYY-MM-DD>')",
    'PARTITION BY dt',
    'FROM FILES (',
    `  format = '${bigQueryFormat(table)}',`,
    `  uris = ['${location(table)}${dayFolderName('<YYYY-MM-DD>')}/*'],`,
    `  hive_partition_uri_prefix = '${location(table)}'`,
    ')',
    'WITH PARTITION COLUMNS (dt DATE)',
    `WITH CONNECTION \`${OMNI_CONNECTION}\`;`,
  ].join('\n');
}

/** The copy's days expire with the lake's (PERSONAL_DATA_RETENTION_DAYS): BigQuery drops a partition that many days after its date. */
function bigQueryExpiry(table: TableDef): string {
  return `ALTER TABLE \`<gcp_project>.<copy_dataset>.${table.name}\` SET OPTIONS (partition_expiration_days = <retention_days>);`;
}

function databricksTable(table: TableDef): string {
  return [
    `CREATE TABLE IF NOT EXISTS mintlify.${table.name} (`,
    columnLines([...table.columns.map((column) => `${quote('databricks', column.name)} ${engineType('databricks', column)}`), 'dt DATE']),
    ')',
    `USING ${table.format === 'parquet' ? 'PARQUET' : 'JSON'}`,
    'PARTITIONED BY (dt)',
    `LOCATION '${location(table)}';`,
    `MSCK REPAIR TABLE mintlify.${table.name};`,
  ].join('\n');
}

/**
 * What Spectrum reads of a table: its columns with their Redshift types (a comment: the Glue table
 * defines them, a column marked with a table format only in a deployment of that format).
 */
function redshiftTable(table: TableDef): string {
  const columns = table.columns.map(
    (column) => `${column.name} ${engineType('redshift', column)}${column.tableFormat ? ` (with tableFormat=${column.tableFormat} only)` : ''}`,
  );
  return `-- ${table.name}: ${columns.join(', ')}, dt VARCHAR (partition)`;
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
    'Through BigQuery Omni, which reads the files in place: **the recipe is a BigLake external',
    'table per table, with hive partitioning**, so a new day is there as soon as its files land and',
    '`forget` and retention reach BigQuery with no step (it reads the lake, never a copy). Omni runs',
    'in a few AWS regions only — at the time of writing `aws-us-east-1` (N. Virginia), `aws-us-west-2`',
    '(Oregon), `aws-ap-northeast-2` (Seoul), `aws-ap-southeast-2` (Sydney), `aws-eu-west-1` (Ireland)',
    "and `aws-eu-central-1` (Frankfurt); check BigQuery's locations page — and the bucket must be in",
    "one of them. Its location is the AWS region written with `aws-` before it: the dataset's",
    "location and the connection's (a BigQuery AWS connection whose IAM role may read the bucket) are",
    "both `aws-us-east-1` for a bucket in us-east-1 — replace it below with your bucket's.",
    '',
    sql([`CREATE SCHEMA \`<gcp_project>.<dataset>\` OPTIONS (location = 'aws-us-east-1');`, ...TABLES.map(bigQueryExternal)]),
    '',
    '**A copy (only if you need one).** Queries on Omni run in AWS and their results stay there',
    'unless copied; to query from a BigQuery region instead, load days into native tables (a dataset',
    '`<copy_dataset>` in a BigQuery region, the same connection). Load each day once its manifest',
    'exists; `OVERWRITE PARTITIONS` replaces the day, so a re-exported day is not counted twice:',
    '',
    sql(TABLES.map(bigQueryLoad)),
    '',
    '**The copy escapes `forget` and retention**: they change the lake, not the copy. After',
    `\`forget\`, load again every day it rewrote (it names each file: \`${dayFolderName('')}\` is in the path) — the`,
    'copy of that day is replaced by the erased one. For retention, let BigQuery drop a partition',
    '`PERSONAL_DATA_RETENTION_DAYS` after its day (`<retention_days>`):',
    '',
    sql(TABLES.map(bigQueryExpiry)),
    '',
    '### Databricks, EMR and Trino on Glue',
    '',
    'With the Glue Data Catalog as the metastore (Databricks: `spark.databricks.hive.metastore.glueCatalog.enabled',
    'true` and an instance profile; EMR: the Glue catalog setting of Spark, Hive or Trino), the tables',
    'of the Glue database (the stack output `GlueDatabase`, `mintlify_analytics` unless the stack',
    'names another) are there, and **each new day is too, with no step**: the export registers every',
    'committed day as a partition of its tables (Spark and Trino read registered partitions, not',
    "Athena's projection). The cluster's role needs `glue:GetDatabase`, `glue:GetTable(s)` and",
    '`glue:GetPartition(s)` on the database and its tables, and read access to the bucket. Days',
    'exported before this version are registered once by `mintlify-exporter register-partitions`',
    '(docs/deploy.md). The run log (`export_runs`) is registered by the run that writes it; the',
    'follow-up outcomes (`followup_outcomes`) by the follow-up function of a deployment for many',
    'organisations (docs/organisations.md). The outcomes of a single-organisation deployment and',
    '`fix_effects` are written outside the export: `register-partitions` registers their days — run it',
    'again when you query those from Glue.',
    '',
    sql(['SELECT dt, project_id, count(*) AS paths FROM mintlify_analytics.visitors_pages GROUP BY dt, project_id ORDER BY dt;']),
    '',
    'Without Glue (a Unity Catalog or Hive metastore of its own), define the tables over the files',
    '(the cluster or external location must be allowed to read the bucket). The export cannot',
    'register days in that metastore: run `MSCK REPAIR TABLE` after new days land (a scheduled job',
    'an hour after the export, for instance):',
    '',
    sql(['CREATE SCHEMA IF NOT EXISTS mintlify;', ...TABLES.map(databricksTable)]),
    '',
    '### Redshift Spectrum',
    '',
    'An external schema over the Glue database (the stack output `GlueDatabase`). Spectrum reads the',
    'Glue tables and their registered partitions (not the projection, which is Athena only): the',
    'export registers each committed day, so **a new day is there with no step**. The role named in',
    '`IAM_ROLE` needs `s3:GetObject` on `<prefix>/*` and `s3:ListBucket` on the bucket, and on the',
    'catalog, the database and its tables `glue:GetDatabase`, `glue:GetDatabases`, `glue:GetTable`,',
    '`glue:GetTables`, `glue:GetPartition`, `glue:GetPartitions` and `glue:BatchGetPartition`; add',
    '`glue:BatchCreatePartition` and `glue:CreatePartition` only to run `ALTER TABLE … ADD PARTITION`',
    'from Redshift yourself (never needed with the export registering days; `register-partitions`',
    'does the past ones). The columns as Spectrum types them:',
    '',
    sql([
      ['CREATE EXTERNAL SCHEMA IF NOT EXISTS mintlify', "FROM DATA CATALOG DATABASE 'mintlify_analytics'", "IAM_ROLE '<redshift_role_arn>';"].join('\n'),
      ...TABLES.map(redshiftTable),
      'SELECT dt, project_id, count(*) AS paths FROM mintlify.visitors_pages GROUP BY dt, project_id ORDER BY dt;',
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

/** The SQL dialects of docs/warehouse.md, each checked by its own grammar (test/unit/docs/warehouse-sql.test.ts). */
export type Dialect = 'duckdb' | 'trino' | 'snowflake' | 'bigquery' | 'spark' | 'redshift';

/** Which dialect a ```sql block is in: by the heading it stands under (the nearest one that names an engine). */
const DIALECT_OF_HEADING: readonly (readonly [RegExp, Dialect])[] = [
  [/^#+ DuckDB\b/, 'duckdb'],
  [/^#+ Manifests, completeness/, 'duckdb'],
  [/^#+ Athena\b/, 'trino'],
  [/^#+ Trino\b/, 'trino'],
  [/^#+ Snowflake\b/, 'snowflake'],
  [/^#+ BigQuery\b/, 'bigquery'],
  [/^#+ Databricks\b/, 'spark'],
  [/^#+ Redshift Spectrum\b/, 'redshift'],
];

/** One SQL statement of a document: its dialect, the heading it stands under, and its text (comments kept, the `;` removed). */
export interface DocStatement {
  readonly dialect: Dialect | undefined;
  readonly heading: string;
  readonly sql: string;
}

/** Every statement of every ```sql block of `doc`, in order; a block under no engine's heading has dialect `undefined`. */
export function docStatements(doc: string): DocStatement[] {
  const statements: DocStatement[] = [];
  let heading = '';
  let dialect: Dialect | undefined;
  const lines = doc.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    if (/^#+ /.test(line)) {
      heading = line;
      const found = DIALECT_OF_HEADING.find(([pattern]) => pattern.test(line));
      // A heading of no engine inside an engine's section (none today) keeps that engine.
      if (found) dialect = found[1];
      else if (/^#{1,2} /.test(line)) dialect = undefined;
      continue;
    }
    if (line.trim() !== '```sql') continue;
    const block: string[] = [];
    for (i++; i < lines.length && lines[i]?.trim() !== '```'; i++) block.push(lines[i] as string);
    for (const sql of splitStatements(block.join('\n'))) statements.push({ dialect, heading, sql });
  }
  return statements;
}

/**
 * Statements split at each `;` outside quotes ('…', "…", `…`) and comments (`-- …`); a piece
 * that holds only comments and blanks is not a statement (it stays with the next one).
 */
export function splitStatements(text: string): string[] {
  const statements: string[] = [];
  let current = '';
  let quote: string | undefined;
  let comment = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    current += c;
    if (comment) {
      if (c === '\n') comment = false;
    } else if (quote !== undefined) {
      if (c === quote) quote = undefined;
    } else if (c === "'" || c === '"' || c === '`') {
      quote = c;
    } else if (c === '-' && text[i + 1] === '-') {
      comment = true;
    } else if (c === ';') {
      statements.push(current.slice(0, -1));
      current = '';
    }
  }
  statements.push(current);
  const code = (sql: string) => sql.replace(/--[^\n]*/g, '').trim();
  const kept: string[] = [];
  let pending = '';
  for (const statement of statements) {
    if (code(statement) === '') pending += statement;
    else {
      kept.push((pending + statement).trim());
      pending = '';
    }
  }
  return kept;
}
