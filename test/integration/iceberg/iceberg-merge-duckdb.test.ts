/**
 * The export's MERGE (functions/export/iceberg/statements.ts), rendered for DuckDB and run on the
 * lake `npm start` leaves (test/helpers/sandbox-lake.ts), into one DuckDB table per dataset table
 * standing in for its Iceberg table: merged twice it holds the same rows, each file row once;
 * after one day of one project is exported again (its file rewritten: a row gone, a row changed,
 * a row new, a later exported_at), merging that day gives that day the file's rows and leaves
 * every other day as it was — nothing doubled. Athena runs the same text but for the relation the
 * days are read from (the Glue table, not read_parquet).
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { icebergTableName, ICEBERG_SOURCE_TABLES, rowKey } from '../../../functions/export/iceberg/layout.js';
import { icebergColumns, mergeStatement, quoted, type StatementTarget } from '../../../functions/export/iceberg/statements.js';
import { openDuckDb, type DuckDbSession } from '../../../functions/warehouse/duckdb.js';
import { sqlString } from '../../../functions/warehouse/sql.js';
import type { TableDef } from '../../../functions/warehouse/table-def.js';
import { removeTempDirs } from '../../helpers/files.js';
import { buildSandboxLake, SANDBOX_FROM, SANDBOX_TO } from '../../helpers/sandbox-lake.js';
import { addDays } from '../../../functions/shared/dates.js';

const DUCKDB_TYPES = { string: 'VARCHAR', date: 'DATE', bigint: 'BIGINT', double: 'DOUBLE', timestamp: 'TIMESTAMP', boolean: 'BOOLEAN' } as const;

let lake: string;
let db: DuckDbSession;
let target: StatementTarget;
const days: string[] = [];
for (let day = SANDBOX_FROM; day < SANDBOX_TO; day = addDays(day, 1)) days.push(day);

beforeAll(async () => {
  lake = await buildSandboxLake();
  target = { engine: 'duckdb', lake };
  db = await openDuckDb();
  await db.run("SET TimeZone = 'UTC'");
  for (const table of ICEBERG_SOURCE_TABLES) {
    const columns = icebergColumns(table, false).map((column) => `${quoted(column.name)} ${DUCKDB_TYPES[column.type]}`);
    await db.run(`CREATE TABLE ${quoted(icebergTableName(table.name))} (${columns.join(', ')})`);
  }
}, 600_000);

afterAll(async () => {
  db?.close();
  await removeTempDirs();
});

/** Rows of `a` not in `b` and of `b` not in `a`, as multisets (0: the same rows, as often). */
async function differences(a: string, b: string): Promise<number> {
  const [row] = await db.query(`SELECT count(*) AS n FROM ((${a} EXCEPT ALL ${b}) UNION ALL (${b} EXCEPT ALL ${a}))`);
  return Number(row?.['n']);
}

async function count(sql: string): Promise<number> {
  const [row] = await db.query(`SELECT count(*) AS n FROM (${sql})`);
  return Number(row?.['n']);
}

const filesOf = (table: TableDef, where = 'true') =>
  `SELECT ${table.columns.map((c) => quoted(c.name)).join(', ')}, CAST(dt AS DATE) AS dt FROM read_parquet(${sqlString(
    `${lake}/${table.prefix}/dt=*/*.parquet`,
  )}, hive_partitioning = true, hive_types = {'dt': VARCHAR}, union_by_name = true) WHERE ${where}`;
const icebergOf = (table: TableDef, where = 'true') =>
  `SELECT ${[...table.columns.map((c) => quoted(c.name)), 'dt'].join(', ')} FROM ${quoted(icebergTableName(table.name))} WHERE ${where}`;

describe('the MERGE into the Iceberg tables, on DuckDB over the sandbox lake', () => {
  it('finds every row key one of a kind in the files (a MERGE source needs it)', async () => {
    for (const table of ICEBERG_SOURCE_TABLES) {
      const key = [...rowKey(table), 'dt'].map(quoted).join(', ');
      const [counts] = await db.query(`SELECT count(*) AS n, count(DISTINCT (${key})) AS keys FROM (${filesOf(table)})`);
      expect(counts?.['n'], table.name).toBeGreaterThan(0);
      expect(counts?.['keys'], table.name).toBe(counts?.['n']);
    }
  });

  it('holds the files rows once, and the same rows after the same MERGE again', async () => {
    for (const table of ICEBERG_SOURCE_TABLES) await db.run(mergeStatement(table, days, target));
    for (const table of ICEBERG_SOURCE_TABLES) {
      await db.run(`CREATE TEMP TABLE ${quoted(`first_${table.name}`)} AS ${icebergOf(table)}`);
      expect(await differences(icebergOf(table), filesOf(table)), table.name).toBe(0);
    }

    for (const table of ICEBERG_SOURCE_TABLES) {
      const [changed] = await db.query(mergeStatement(table, days, target));
      expect(Number(Object.values(changed ?? {})[0]), `${table.name}: rows the replay changed`).toBe(0);
    }
    for (const table of ICEBERG_SOURCE_TABLES) {
      expect(await differences(icebergOf(table), `SELECT * FROM ${quoted(`first_${table.name}`)}`), table.name).toBe(0);
    }
  }, 600_000);

  it("gives a re-exported day the new file's rows, and leaves the other days as they were", async () => {
    const table = ICEBERG_SOURCE_TABLES.find((t) => t.name === 'visitors_pages') as TableDef;
    const day = days[Math.floor(days.length / 2)] as string;
    const [file] = await db.query(`SELECT file FROM glob(${sqlString(`${lake}/${table.prefix}/dt=${day}/*.parquet`)}) ORDER BY file LIMIT 1`);
    const key = String(file?.['file']);
    const project = path.basename(key, '.parquet');
    const theUnit = `dt = DATE ${sqlString(day)} AND project_id = ${sqlString(project)}`;
    await db.run(`CREATE TEMP TABLE others AS ${icebergOf(table, `NOT (${theUnit})`)}`);
    const before = await count(icebergOf(table, theUnit));
    // The re-export: one path gone, one changed, one new, all exported a day later.
    await db.run(`CREATE TEMP TABLE again AS SELECT * FROM read_parquet(${sqlString(key)}, hive_partitioning = false)`);
    await db.run(`DELETE FROM again WHERE path = (SELECT min(path) FROM again)`);
    await db.run(`UPDATE again SET human = human + 1000, total = total + 1000 WHERE path = (SELECT max(path) FROM again)`);
    await db.run(`INSERT INTO again SELECT project_id, "date", '/new-page', 1, 0, 1, exported_at, unknown_fields FROM again LIMIT 1`);
    await db.run(`UPDATE again SET exported_at = exported_at + INTERVAL 1 DAY`);
    await db.run(`COPY again TO ${sqlString(key)} (FORMAT PARQUET)`);

    const [changed] = await db.query(mergeStatement(table, [day], target));

    // Every row of the day is rewritten (its exported_at moved), one deleted, one inserted.
    expect(Number(Object.values(changed ?? {})[0])).toBe(before + 1);
    expect(await differences(icebergOf(table, theUnit), filesOf(table, `dt = ${sqlString(day)} AND project_id = ${sqlString(project)}`))).toBe(0);
    expect(await count(icebergOf(table, `${theUnit} AND path = '/new-page'`))).toBe(1);
    expect(await count(icebergOf(table, theUnit))).toBe(before);
    expect(await differences(icebergOf(table, `NOT (${theUnit})`), 'SELECT * FROM others')).toBe(0);
    expect(await differences(icebergOf(table), filesOf(table))).toBe(0);
  }, 300_000);
});
