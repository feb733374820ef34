/**
 * The "Your warehouse" SQL of docs/warehouse.md: generated from functions/warehouse/tables.ts
 * (every table, every column, each type mapped per engine) and kept fresh by `npm run docs`.
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { TABLES } from '../../../functions/warehouse/tables.js';
import { BEGIN_MARKER, END_MARKER, engineType, warehouseSql, withWarehouseSql } from '../../../scripts/warehouse-sql.js';

const ENGINES = ['Snowflake', 'BigQuery', 'Databricks', 'Redshift Spectrum'] as const;

/** The SQL of one engine's section. */
function section(sql: string, engine: (typeof ENGINES)[number]): string {
  return sql.slice(sql.indexOf(`### ${engine}\n`)).split(/\n### /)[0] as string;
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
      const statements = sql.split(/\n\n|```sql\n/).filter((statement) => new RegExp(`\\b${table.name}\\b`).test(statement.split('\n')[0] as string));
      expect(statements.length, `${engine} lacks ${table.name}`).toBeGreaterThan(0);
      for (const statement of statements)
        for (const column of table.columns) {
          const name = key === 'snowflake' ? `"${column.name.toUpperCase()}"` : key === 'redshift' ? column.name : `\`${column.name}\``;
          expect(statement, `${engine}: ${table.name}.${column.name}`).toContain(`${name} ${engineType(key, column)}`);
        }
    }
  });

  it('takes dt from the path in Snowflake, lets it refresh itself, and keeps placeholders in angle brackets', () => {
    const sql = warehouseSql();

    expect(section(sql, 'Snowflake').match(/METADATA\$FILENAME, '\/dt='/g)).toHaveLength(TABLES.length);
    expect(section(sql, 'Snowflake').match(/AUTO_REFRESH = TRUE/g)).toHaveLength(TABLES.length);
    expect(section(sql, 'BigQuery').match(/hive_partition_uri_prefix = 's3:\/\/<bucket>\/<prefix>\//g)).toHaveLength(2 * TABLES.length);
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
