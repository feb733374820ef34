/**
 * The export's Iceberg statements (functions/export/iceberg/statements.ts), as Athena gets them,
 * parsed by Trino's grammar (dt-sql-parser, the docs tests' dev dependency): MERGE and DELETE of
 * every table, with and without an organisation. OPTIMIZE … REWRITE DATA USING BIN_PACK and
 * VACUUM are Athena's own statements, not Trino's (Trino writes `ALTER TABLE … EXECUTE
 * optimize`): no npm grammar has them, so their shape is checked against Athena's reference.
 * The MERGE runs on DuckDB in test/integration/iceberg/iceberg-merge-duckdb.test.ts.
 */
import { readFile } from 'node:fs/promises';
// Trino's own module: the package's index loads all eight grammars (see test/unit/docs/warehouse-sql.test.ts).
import { TrinoSQL } from 'dt-sql-parser/dist/parser/trino/index.js';
import { describe, expect, it } from 'vitest';
import { ICEBERG_SOURCE_TABLES, MAX_DAYS_PER_STATEMENT, rowKey } from '../../../functions/export/iceberg/layout.js';
import {
  dayBatches,
  expireStatement,
  forgetStatement,
  mergeStatement,
  optimizeStatement,
  vacuumStatement,
  type StatementTarget,
} from '../../../functions/export/iceberg/statements.js';
import { addDays } from '../../../functions/shared/dates.js';
import { FEEDBACK } from '../../../functions/warehouse/tables.js';

const trino = new TrinoSQL();
const errorsOf = (sql: string) => trino.validate(sql).map((e) => `${e.startLine}:${e.startColumn} ${e.message}`);
const ATHENA: StatementTarget = { engine: 'athena', database: 'mintlify_analytics' };
const ONE_ORG: StatementTarget = { engine: 'athena', database: 'mintlify_analytics', org: 'acme' };
const DAYS = ['2026-11-01', '2026-11-02', '2026-11-05'];

describe("the Iceberg statements, in Trino's grammar", () => {
  it.each(ICEBERG_SOURCE_TABLES.map((table) => [table.name, table] as const))('the MERGE of %s parses, with and without an organisation', (_name, table) => {
    expect(errorsOf(mergeStatement(table, DAYS, ATHENA))).toEqual([]);
    expect(errorsOf(mergeStatement(table, DAYS, ONE_ORG))).toEqual([]);
  });

  it('the DELETEs of forget and retention parse', () => {
    for (const target of [ATHENA, ONE_ORG]) {
      expect(errorsOf(forgetStatement(FEEDBACK, ['contact'], ['ab12', "it's"], target))).toEqual([]);
      expect(errorsOf(expireStatement(FEEDBACK, '2026-08-01', target))).toEqual([]);
    }
  });

  it('would refuse a broken statement: the grammar is really applied', () => {
    expect(errorsOf(mergeStatement(FEEDBACK, DAYS, ATHENA).replace('THEN DELETE', 'THEN DELET'))).not.toEqual([]);
  });

  it("OPTIMIZE and VACUUM have Athena's shape (no npm grammar takes them)", () => {
    expect(optimizeStatement(FEEDBACK, ATHENA)).toBe('OPTIMIZE mintlify_analytics.iceberg_feedback REWRITE DATA USING BIN_PACK');
    expect(vacuumStatement(FEEDBACK, ATHENA)).toBe('VACUUM mintlify_analytics.iceberg_feedback');
  });
});

describe('what the MERGE says', () => {
  it('joins on the row key, the organisation and the day, and names the organisation of the Hive partitions', () => {
    const sql = mergeStatement(FEEDBACK, DAYS, ONE_ORG);

    expect(rowKey(FEEDBACK)).toEqual(['project_id', 'date', 'feedback_id']);
    expect(sql).toContain(
      'ON t."project_id" = s."project_id" AND t."date" = s."date" AND t."feedback_id" = s."feedback_id" AND t."org" = s."org" AND t."dt" = s."dt"',
    );
    expect(sql).toContain("WHERE f.dt IN ('2026-11-01', '2026-11-02', '2026-11-05') AND f.org = 'acme'");
    expect(sql).toContain('FROM "mintlify_analytics"."feedback" AS f');
    expect(sql).toMatch(/^MERGE INTO "mintlify_analytics"\."iceberg_feedback" AS t\n/);
  });

  it('takes 1 to 100 days, and a year is 4 batches', () => {
    const year = Array.from({ length: 365 }, (_, i) => addDays('2026-01-01', i));

    expect(dayBatches(year).map((batch) => batch.length)).toEqual([100, 100, 100, 65]);
    expect(dayBatches([...DAYS, ...DAYS])).toEqual([DAYS]);
    expect(() => mergeStatement(FEEDBACK, [], ATHENA)).toThrow(/1 to 100 days/);
    expect(() => mergeStatement(FEEDBACK, year.slice(0, MAX_DAYS_PER_STATEMENT + 1), ATHENA)).toThrow(/not 101/);
  });
});

describe('the row keys docs/warehouse.md names', () => {
  it('are the keys the MERGE joins on, for every Iceberg table', async () => {
    const doc = await readFile(new URL('../../../docs/warehouse.md', import.meta.url), 'utf8');

    for (const table of ICEBERG_SOURCE_TABLES) {
      const line = doc.split('\n').find((l) => l.startsWith(`| \`iceberg_${table.name}\` |`));
      expect(line, table.name).toBeDefined();
      expect(line?.split('|')[2]?.trim(), table.name).toBe(
        rowKey(table)
          .map((column) => `\`${column}\``)
          .join(', '),
      );
    }
  });
});
