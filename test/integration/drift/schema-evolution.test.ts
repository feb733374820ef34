/**
 * Columns are only ever appended (docs/design.md §2.3): a partition written before
 * `unknown_fields` existed and one written with it are read together — DuckDB with
 * `union_by_name = true`, as every query the project shows — the old rows reading null, and
 * the runbook's query over `unknown_fields` runs on the mix.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openTableWriter } from '../../../functions/export/parquet.js';
import { createLocalDestination } from '../../../functions/shared/storage/destination-local.js';
import { FEEDBACK, partitionKey } from '../../../functions/warehouse/tables.js';
import type { TableDef } from '../../../functions/warehouse/table-def.js';
import { queryDuckDb } from '../../helpers/read-back.js';

/** `feedback` as the previous version wrote it: every column but the appended `unknown_fields`. */
const FEEDBACK_BEFORE: TableDef = { ...FEEDBACK, columns: FEEDBACK.columns.filter((column) => column.name !== 'unknown_fields') };

const EXPORTED_AT = new Date('2026-03-02T04:00:00.000Z');
const row = (day: string, id: string, source: string) => ({
  project_id: 'proj_a',
  date: day,
  feedback_id: id,
  path: '/quickstart',
  source,
  status: 'pending',
  comment: null,
  created_at: null,
  helpful: true,
  contact: null,
  code: null,
  filename: null,
  lang: null,
  exported_at: EXPORTED_AT,
});

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'schema-evolution-'));
  const destination = createLocalDestination(dir);
  const old = await openTableWriter(FEEDBACK_BEFORE, await destination.openWrite(partitionKey(FEEDBACK, '2026-02-28', 'proj_a.parquet')));
  await old.append(row('2026-02-28', 'fb_old', 'contextual'));
  await old.close();
  const fresh = await openTableWriter(FEEDBACK, await destination.openWrite(partitionKey(FEEDBACK, '2026-03-01', 'proj_a.parquet')));
  await fresh.append({ ...row('2026-03-01', 'fb_new', 'widget'), unknown_fields: JSON.stringify({ sentiment: 'negative', tags: ['a', { b: 1 }] }) });
  await fresh.append({ ...row('2026-03-01', 'fb_plain', 'contextual'), unknown_fields: null });
  await fresh.close();
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const glob = () => `'${path.join(dir, 'feedback', '*', '*.parquet').replaceAll("'", "''")}'`;

describe('a partition written before unknown_fields, read with one written after', () => {
  it('reads every row, the old ones with unknown_fields null, with union_by_name = true', async () => {
    const rows = await queryDuckDb(
      `SELECT feedback_id, source, unknown_fields FROM read_parquet(${glob()}, hive_partitioning = true, union_by_name = true) ORDER BY dt, feedback_id`,
    );

    expect(rows).toEqual([
      { feedback_id: 'fb_old', source: 'contextual', unknown_fields: null },
      { feedback_id: 'fb_new', source: 'widget', unknown_fields: '{"sentiment":"negative","tags":["a",{"b":1}]}' },
      { feedback_id: 'fb_plain', source: 'contextual', unknown_fields: null },
    ]);
  });

  it("runs the runbook's query over unknown_fields on the mix", async () => {
    const rows = await queryDuckDb(
      `SELECT feedback_id, json_extract_string(unknown_fields, '$.sentiment') AS sentiment
       FROM read_parquet(${glob()}, hive_partitioning = true, union_by_name = true)
       WHERE unknown_fields IS NOT NULL`,
    );

    expect(rows).toEqual([{ feedback_id: 'fb_new', sentiment: 'negative' }]);
  });

  it('cannot be read by position alone (why every query the project shows says union_by_name)', async () => {
    await expect(queryDuckDb(`SELECT unknown_fields FROM read_parquet(${glob()}, hive_partitioning = true)`)).rejects.toThrow();
  });
});
