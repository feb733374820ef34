/**
 * Every question of queries/ (the Athena saved queries and `npm start`'s summary) run by DuckDB
 * against a sandbox export of yesterday — every dataset, the CLI's run record, a follow-up
 * outcome — reading the files as the docs show (`union_by_name = true`). The Athena dialect is
 * checked in test/infra/warehouse.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOutcome, createOutcomeSink } from '../../functions/follow-up/outcome.js';
import { previousDay } from '../../functions/shared/dates.js';
import { openDestination } from '../../functions/shared/destinations.js';
import { QUESTIONS, questionSql, tablesOf } from '../../queries/questions.js';
import { startSandbox, type Sandbox } from '../../sandbox/index.js';
import { runCliAt } from '../helpers/cli.js';
import { makeTempDir, removeTempDirs } from '../helpers/files.js';
import { queryDuckDb } from '../helpers/read-back.js';

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
    for (const question of QUESTIONS) expect(tablesOf(question).length, question.file).toBeGreaterThan(0);
  });

  it.each(QUESTIONS.map((q) => [q.name, q] as const))('answers "%s" from the export', async (_name, question) => {
    const rows = await queryDuckDb(questionSql(question, 'duckdb', { root }));

    expect(rows.length).toBeGreaterThan(0);
  });
});
