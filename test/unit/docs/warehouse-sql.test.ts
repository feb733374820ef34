/**
 * The SQL of docs/warehouse.md. The "Your warehouse" part is generated from
 * functions/warehouse/tables.ts (every table, every column, each type mapped per engine) and
 * kept fresh by `npm run docs`; and every statement of the page is parsed by a grammar of its
 * dialect — BigQuery's by sql-parser-cst, Spark's (Databricks, EMR), Trino's (Athena) and
 * Redshift's queries by dt-sql-parser's ANTLR grammars — except the few listed below, each with
 * why. DuckDB's run on the sandbox lake (test/integration/docs/warehouse-duckdb.test.ts).
 */
import { readFile } from 'node:fs/promises';
// Each dialect's own module: the package's index loads all eight grammars (20 MB that vitest
// transforms, dt-sql-parser being ESM in a CommonJS package), this page needs three.
import { PostgreSQL } from 'dt-sql-parser/dist/parser/postgresql/index.js';
import { SparkSQL } from 'dt-sql-parser/dist/parser/spark/index.js';
import { TrinoSQL } from 'dt-sql-parser/dist/parser/trino/index.js';
import { parse } from 'sql-parser-cst';
import { describe, expect, it } from 'vitest';
import { TABLES } from '../../../functions/warehouse/tables.js';
import {
  BEGIN_MARKER,
  docStatements,
  END_MARKER,
  engineType,
  splitStatements,
  warehouseSql,
  withWarehouseSql,
  type Dialect,
} from '../../../scripts/warehouse-sql.js';

const ENGINES = ['Snowflake', 'BigQuery', 'Databricks', 'Redshift Spectrum'] as const;

/** The SQL of one engine's section. */
function section(sql: string, engine: (typeof ENGINES)[number]): string {
  return sql.slice(sql.indexOf(`### ${engine}`)).split(/\n### /)[0] as string;
}

describe('the "Your warehouse" SQL of docs/warehouse.md', () => {
  it('is the one generated from tables.ts (run `npm run docs` after changing a table)', async () => {
    const doc = await readFile(new URL('../../../docs/warehouse.md', import.meta.url), 'utf8');

    expect(doc.includes(BEGIN_MARKER) && doc.includes(END_MARKER), 'docs/warehouse.md keeps its markers').toBe(true);
    expect(withWarehouseSql(doc) === doc, 'docs/warehouse.md is stale: run `npm run docs`').toBe(true);
  });

  it.each(ENGINES)('%s names every table and every column of it, with its type', (engine) => {
    const sql = section(warehouseSql(), engine);
    const key = ({ Snowflake: 'snowflake', BigQuery: 'bigquery', Databricks: 'databricks', 'Redshift Spectrum': 'redshift' } as const)[engine];

    for (const table of TABLES) {
      // The statements about this table: their first line names it as a whole word (not `searches_totals` for `searches`).
      // Statements that only name it (an expiry, a query, a repair) define no column.
      const statements = sql
        .split(/\n\n|```sql\n/)
        .filter((statement) => new RegExp(`\\b${table.name}\\b`).test(statement.split('\n')[0] as string))
        .filter((statement) => !/^(ALTER TABLE|SELECT|MSCK)\b/.test(statement));
      expect(statements.length, `${engine} lacks ${table.name}`).toBeGreaterThan(0);
      for (const statement of statements)
        for (const column of table.columns) {
          const name = key === 'snowflake' ? `"${column.name.toUpperCase()}"` : key === 'redshift' ? column.name : `\`${column.name}\``;
          expect(statement, `${engine}: ${table.name}.${column.name}`).toContain(`${name} ${engineType(key, column)}`);
        }
    }
  });

  it('registers no day by hand: no ADD PARTITION in Spectrum, MSCK REPAIR only for tables defined without Glue', () => {
    const sql = warehouseSql();

    expect(section(sql, 'Redshift Spectrum')).not.toMatch(/ADD (IF NOT EXISTS )?PARTITION \(/);
    expect(section(sql, 'Databricks')).toContain('each new day is too, with no step');
    expect(section(sql, 'Databricks').indexOf('MSCK REPAIR')).toBeGreaterThan(section(sql, 'Databricks').indexOf('Without Glue'));
  });

  it('takes dt from the path in Snowflake, lets it refresh itself, and keeps placeholders in angle brackets', () => {
    const sql = warehouseSql();

    expect(section(sql, 'Snowflake').match(/METADATA\$FILENAME, '\/dt='/g)).toHaveLength(TABLES.length);
    expect(section(sql, 'Snowflake').match(/AUTO_REFRESH = TRUE/g)).toHaveLength(TABLES.length);
    expect(section(sql, 'BigQuery').match(/hive_partition_uri_prefix = 's3:\/\/<bucket>\/<prefix>\//g)).toHaveLength(2 * TABLES.length);
    expect(section(sql, 'BigQuery').match(/WITH CONNECTION `<gcp_project>\.aws-us-east-1\.<connection>`/g)).toHaveLength(2 * TABLES.length);
    expect(sql).toContain("FROM DATA CATALOG DATABASE 'mintlify_analytics'");
    expect(sql).not.toMatch(/s3:\/\/(?!<bucket>)/);
  });

  it('maps the list of records to an array of structs (export_runs.failures)', () => {
    const failures = TABLES.flatMap((table) => table.columns).find((column) => column.type === 'record_list');

    expect(failures).toBeDefined();
    expect(engineType('bigquery', failures as never)).toBe('ARRAY<STRUCT<dataset STRING, project_id STRING, date STRING, error STRING>>');
    expect(engineType('databricks', failures as never)).toMatch(/^ARRAY<STRUCT<dataset: STRING, /);
  });

  it('is replaced, not appended to, when regenerated', () => {
    const fresh = withWarehouseSql(`intro\n${BEGIN_MARKER}\nold text\n${END_MARKER}\noutro\n`);

    expect(fresh).not.toContain('old text');
    expect(withWarehouseSql(fresh)).toBe(fresh);
  });
});

/** Placeholders a grammar cannot take where they stand (a number, a date literal's text), replaced by sample values. */
function withSamples(sql: string): string {
  return sql.replaceAll('<YYYY-MM-DD>', '2026-11-01').replaceAll('<retention_days>', '400');
}

/** Errors of `sql` in `dialect`'s grammar (none: it parses). */
const GRAMMARS: Partial<Record<Dialect, (sql: string) => string[]>> = {
  bigquery: (sql) => {
    try {
      parse(sql, { dialect: 'bigquery', includeSpaces: false });
      return [];
    } catch (error) {
      return [
        String((error as Error).message)
          .split('\n')
          .slice(0, 3)
          .join(' '),
      ];
    }
  },
  spark: (sql) => new SparkSQL().validate(sql).map((e) => `${e.startLine}:${e.startColumn} ${e.message}`),
  trino: (sql) => new TrinoSQL().validate(sql).map((e) => `${e.startLine}:${e.startColumn} ${e.message}`),
  // Spectrum's queries are Redshift's SQL, PostgreSQL's grammar for what the page uses (SELECT).
  redshift: (sql) => new PostgreSQL().validate(sql).map((e) => `${e.startLine}:${e.startColumn} ${e.message}`),
};

/** BigQuery's LOAD DATA reference: `LOAD DATA INTO <table> (<columns>) OVERWRITE PARTITIONS (<col> = <value>) PARTITION BY …`. */
const OVERWRITE_PARTITIONS = /^(LOAD DATA INTO `[^`]+` \((?:[^()]|\([^()]*\)|<[^>]*>)*\)\n)OVERWRITE PARTITIONS \(dt = DATE '[0-9-]+'\)\n(PARTITION BY dt\n)/;

/**
 * Statements no npm grammar takes, each with why. A listed kind that no longer occurs fails the
 * test, so the list stays as short as the page.
 */
const NO_GRAMMAR: readonly { readonly dialect: Dialect; readonly head: RegExp; readonly reason: string }[] = [
  ...[
    /^CREATE STORAGE INTEGRATION /,
    /^DESC INTEGRATION /,
    /^CREATE STAGE /,
    /^CREATE OR REPLACE EXTERNAL TABLE /,
    /^CREATE CATALOG INTEGRATION /,
    /^CREATE ICEBERG TABLE /,
  ].map((head) => ({
    dialect: 'snowflake' as const,
    head,
    reason: "Snowflake's DDL: no npm grammar has it (node-sql-parser 5.4's snowflake mode takes queries only)",
  })),
  {
    dialect: 'redshift',
    head: /^CREATE EXTERNAL SCHEMA /,
    reason: "Redshift's own DDL (FROM DATA CATALOG): PostgreSQL's grammar and node-sql-parser's redshift mode refuse it",
  },
];

/**
 * BigQuery's LOAD DATA with `OVERWRITE PARTITIONS`: sql-parser-cst 0.42 parses LOAD DATA but not
 * that clause, so the statement is parsed without it and the clause is checked to stand where the
 * reference puts it (after the column list, before PARTITION BY, with INTO).
 */
function checkLoadData(sql: string): string[] {
  if (!/^LOAD DATA /.test(sql)) return [];
  const match = OVERWRITE_PARTITIONS.exec(sql);
  if (!match) return ["not LOAD DATA INTO <table> (<columns>) OVERWRITE PARTITIONS (dt = DATE …) PARTITION BY dt …, as BigQuery's reference has it"];
  return GRAMMARS.bigquery?.(sql.replace(OVERWRITE_PARTITIONS, '$1$2')) ?? [];
}

/** What the grammars say of one statement: `[]` when it parses (or is listed, with a reason). */
function grammarErrors(statement: { dialect: Dialect | undefined; sql: string }): string[] {
  const { dialect } = statement;
  const sql = withSamples(statement.sql.replace(/--[^\n]*\n/g, '').trim());
  if (dialect === undefined) return ["a SQL block under no engine's heading: give it one"];
  if (NO_GRAMMAR.some((entry) => entry.dialect === dialect && entry.head.test(sql))) return [];
  if (dialect === 'bigquery' && /^LOAD DATA /.test(sql)) return checkLoadData(sql);
  const grammar = GRAMMARS[dialect];
  return grammar ? grammar(sql) : [];
}

describe('every SQL statement of docs/warehouse.md, by the grammar of its dialect', async () => {
  const doc = await readFile(new URL('../../../docs/warehouse.md', import.meta.url), 'utf8');
  const statements = docStatements(doc);
  const checked = statements.filter((s) => s.dialect !== 'duckdb');

  it('finds the statements of each engine', () => {
    // The Iceberg recipes (docs/warehouse.md "Iceberg tables") are counted by their own test (iceberg-statements.test.ts).
    const count = (dialect: Dialect) => statements.filter((s) => s.dialect === dialect && !s.heading.includes('(Iceberg)')).length;

    expect(statements.every((s) => s.dialect !== undefined)).toBe(true);
    // Snowflake: integration, its description, the stage, a table each; BigQuery: the dataset, and per table an external table, a load and an expiry.
    expect(count('snowflake')).toBe(3 + TABLES.length);
    expect(count('bigquery')).toBe(1 + 3 * TABLES.length);
    expect(count('trino')).toBeGreaterThanOrEqual(5);
    expect(count('spark')).toBe(2 + 2 * TABLES.length);
    expect(count('redshift')).toBe(2);
    expect(count('duckdb')).toBeGreaterThanOrEqual(10);
  });

  it.each(
    checked.map(
      (s, i) =>
        [
          `${s.dialect} #${i + 1}: ${s.sql
            .replace(/--[^\n]*\n/g, '')
            .trim()
            .split('\n')[0]
            ?.slice(0, 70)}`,
          s,
        ] as const,
    ),
  )('%s parses', (_name, statement) => {
    expect(grammarErrors(statement), statement.sql).toEqual([]);
  });

  it('lists no statement kind the page no longer has', () => {
    for (const entry of NO_GRAMMAR) {
      expect(
        checked.some((s) => s.dialect === entry.dialect && entry.head.test(s.sql.replace(/--[^\n]*\n/g, '').trim())),
        `${entry.dialect} ${entry.head}`,
      ).toBe(true);
    }
  });

  it('keeps no LOAD DATA OVERWRITE … PARTITIONS (BigQuery refuses PARTITIONS without INTO)', () => {
    expect(doc).not.toMatch(/LOAD DATA OVERWRITE[^;]*PARTITIONS/);
  });

  it("would refuse the statements the page had before: BigQuery's and Spark's grammars are really applied", () => {
    const before = [
      "LOAD DATA OVERWRITE `p.d.t` PARTITIONS (dt = DATE '2026-11-01') (\n  `project_id` STRING\n)\nPARTITION BY dt\nFROM FILES (format = 'PARQUET', uris = ['s3://b/p/t/*'])",
      "LOAD DATA INTO `p.d.t` (\n  `project_id` STRING\n)\nPARTITION BY dt\nOVERWRITE PARTITIONS (dt = DATE '2026-11-01')\nFROM FILES (format = 'PARQUET', uris = ['s3://b/p/t/*'])",
      "CREATE OR REPLACE EXTERNAL TABLE `p.d.t` (`a` STRING) WITH PARTITION COLUMN (dt DATE) OPTIONS (format = 'PARQUET')",
    ];
    for (const sql of before) expect(grammarErrors({ dialect: 'bigquery', sql }), sql).not.toEqual([]);
    expect(grammarErrors({ dialect: 'spark', sql: "CREATE TABLE t (a STRING) PARTITIONED BY (dt) USING PARQUET LOCATIO 's3://b/'" })).not.toEqual([]);
    expect(grammarErrors({ dialect: 'trino', sql: "SELECT * FROM t WHERE dt = date_format(current_date - interval '1' day, '%Y-%m-%d'" })).not.toEqual([]);
  });

  it('splits at semicolons outside quotes and comments', () => {
    expect(splitStatements("SELECT ';' AS a; -- it's\nSELECT 2;\n-- trailing note\n")).toEqual(["SELECT ';' AS a", "-- it's\nSELECT 2"]);
  });
});
