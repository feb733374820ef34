/**
 * Every question of queries/ (the Athena saved queries and `npm start`'s summary) run by DuckDB
 * against a sandbox export of yesterday — every dataset, the CLI's run record, a follow-up
 * outcome — reading the files as the docs show (`union_by_name = true`). The Athena dialect is
 * checked in test/infra/warehouse.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOutcome, createOutcomeSink } from '../../../functions/follow-up/outcome.js';
import { previousDay } from '../../../functions/shared/dates.js';
import { openDestination } from '../../../functions/shared/storage/destinations.js';
import { QUESTION_IDS, QUESTIONS, questionById, questionSql, tablesOf } from '../../../queries/questions.js';
import { duckDbType, openDuckDb } from '../../../functions/warehouse/duckdb.js';
import { TABLES } from '../../../functions/warehouse/tables.js';
import { startSandbox, type Sandbox } from '../../../sandbox/index.js';
import { runCliAt } from '../../helpers/cli.js';
import { makeTempDir, removeTempDirs } from '../../helpers/files.js';
import { queryDuckDb } from '../../helpers/read-back.js';

const PROJECT = 'proj_medium';

let sandbox: Sandbox;
let root: string;

beforeAll(async () => {
  sandbox = await startSandbox();
  root = await makeTempDir('questions');
  const now = Date.now();
  const { code, stderr } = await runCliAt(sandbox, ['export', '--date', previousDay(now), '--project', PROJECT, '--out', root], { now });
  expect(code, stderr).toBe(0);
  await createOutcomeSink(openDestination(root)).write(
    buildOutcome({
      requestId: 'req-1',
      projectId: PROJECT,
      jobId: 'job_1',
      kind: 'follow_up',
      promptLength: 5,
      promptSha256: 'ab'.repeat(32),
      status: 'completed',
      prLink: 'https://github.com/o/r/pull/1',
      sentAt: now - 60_000,
      finishedAt: now,
      polls: 3,
      attempts: 1,
    }),
  );
}, 120_000);

afterAll(async () => {
  await sandbox?.close();
  await removeTempDirs();
});

describe('the warehouse questions in DuckDB', () => {
  it('cover the saved Athena queries and the npm start summary, each with the tables it reads', () => {
    expect(QUESTIONS.filter((q) => q.saved).length).toBe(7);
    expect(QUESTIONS.filter((q) => q.summary).length).toBeGreaterThanOrEqual(7);
    expect(new Set(QUESTIONS.map((q) => q.file)).size).toBe(QUESTIONS.length);
    for (const question of QUESTIONS) expect(tablesOf(question).length, question.file).toBeGreaterThan(0);
  });

  it.each(QUESTIONS.filter((q) => !q.duckdbOnly).map((q) => [q.name, q] as const))('answers "%s" from the export', async (_name, question) => {
    const rows = await queryDuckDb(questionSql(question, 'duckdb', { root }));

    expect(rows.length).toBeGreaterThan(0);
  });
});

describe('the questions asked for a range and projects (the report, gaps, the weekly report)', () => {
  const ranged = QUESTIONS.filter((q) => !q.duckdbOnly && questionSql(q, 'athena').includes("interval '-1' day"));

  it("cover the report's shared definitions", () => {
    expect(ranged.map((q) => q.id)).toEqual(expect.arrayContaining(Object.values(QUESTION_IDS).filter((id) => !questionById(id).duckdbOnly)));
  });

  it.each(ranged.map((q) => [q.name, q] as const))(
    '"%s" answers for the exported day and project, and nothing for another project or day',
    async (_name, question) => {
      const day = previousDay(Date.now());
      const to = new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
      const asked = await queryDuckDb(questionSql(question, 'duckdb', { root }, { from: day, to, projects: [PROJECT] }));
      const other = await queryDuckDb(questionSql(question, 'duckdb', { root }, { from: day, to, projects: ['proj_other'] }));
      const before = await queryDuckDb(questionSql(question, 'duckdb', { root }, { from: '2020-01-01', to: day, projects: [PROJECT] }));
      const limited = await queryDuckDb(questionSql(question, 'duckdb', { root }, { from: day, to, limit: 1 }));
      expect(asked.length).toBeGreaterThan(0);
      expect(other).toEqual([]);
      expect(before).toEqual([]);
      expect(limited.length).toBe(question.id === QUESTION_IDS.dailyTotals ? asked.length : 1);
    },
  );
});

describe('the DuckDB-only questions', () => {
  it('gaps-figure-by-day is a registered question, never saved in Athena nor summed up, refused in its dialect', () => {
    const question = questionById(QUESTION_IDS.gapFigureByDay);

    expect(question).toMatchObject({ file: 'gaps-figure-by-day.sql', duckdbOnly: true, saved: false, summary: false });
    expect(
      tablesOf(question)
        .map((t) => t.name)
        .sort(),
    ).toEqual(['assistant_conversations', 'feedback', 'searches']);
    expect(() => questionSql(question, 'athena')).toThrow(/gaps-figure-by-day\.sql runs in DuckDB only/);
  });

  it("gaps-figure-by-day gives a wanted gap's figure per day: a page's thumbs down, as the thumbs-down question counts them", async () => {
    const [page] = await queryDuckDb(questionSql(questionById(QUESTION_IDS.thumbsDownPages), 'duckdb', { root }, { limit: 1 }));
    const session = await openDuckDb();
    try {
      const wanted = `('gap-1', 'thumbs_down_page', '${String(page?.['project_id'])}', '${String(page?.['path']).replaceAll("'", "''")}')`;
      await session.run(`CREATE TEMP TABLE wanted_gaps AS SELECT * FROM (VALUES ${wanted}) AS w(gap_id, kind, project_id, key)`);

      const rows = await session.query(questionSql(questionById(QUESTION_IDS.gapFigureByDay), 'duckdb', { root }));

      expect(rows).toEqual([{ gap_id: 'gap-1', day: previousDay(Date.now()), figure: page?.['thumbs_down'] }]);
    } finally {
      session.close();
    }
  });
});

describe('the one DuckDB type map', () => {
  // Not written by the export: followup_outcomes by the consumer, fix_effects by `effects --save` (read back in cli-effects.test.ts).
  it.each(TABLES.filter((t) => t.name !== 'followup_outcomes' && t.name !== 'fix_effects').map((t) => [t.name, t] as const))(
    'is how DuckDB reads %s back from the export',
    async (_name, table) => {
      const reader = table.format === 'json' ? 'read_json' : 'read_parquet';
      const files = `'${root}/${table.prefix}/*/*.${table.format === 'json' ? 'json' : 'parquet'}'`;
      const rows = await queryDuckDb(`DESCRIBE SELECT * FROM ${reader}(${files}, union_by_name = true)`);
      const read = new Map(rows.map((r) => [String(r['column_name']), String(r['column_type'])]));
      for (const column of table.columns) {
        // A list that is empty in every record is guessed JSON[], and one null in every record (iceberg_statements without
        // Iceberg) JSON: nothing to read its fields from.
        const accepted = column.type === 'record_list' ? [duckDbType(column), 'JSON[]', 'JSON'] : [duckDbType(column)];
        if (read.has(column.name)) expect(accepted, `${table.name}.${column.name}`).toContain(read.get(column.name));
      }
      expect(table.columns.filter((c) => read.has(c.name)).length, table.name).toBeGreaterThan(1);
    },
  );
});
