/**
 * The effect of a fix, read from a lake where a gap's figure changes after its job completed:
 * a sandbox export of proj_small's feedback over 21 days, then the days after the job's
 * completion rewritten without the page's thumbs down (as if the fix worked), and an outcome record of a completed job with the gap's id. The numbers are checked
 * against an independent DuckDB count of the files.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOutcome, createOutcomeSink } from '../../functions/follow-up/outcome.js';
import { readFixes } from '../../functions/gaps/effect.js';
import { gapIdOf } from '../../functions/gaps/gaps.js';
import { readOutcomeRequests } from '../../functions/gaps/read.js';
import { addDays } from '../../functions/shared/dates.js';
import { openDestination } from '../../functions/shared/destinations.js';
import { startSandbox, type Sandbox } from '../../sandbox/index.js';
import { runCliAt } from '../helpers/cli.js';
import { makeTempDir, removeTempDirs } from '../helpers/files.js';
import { queryDuckDb } from '../helpers/read-back.js';

const PROJECT = 'proj_small';
/** The job completed on this day, at 15:00 UTC. */
const DONE = '2026-03-11';
const FROM = addDays(DONE, -10);
const TO = addDays(DONE, 11);
/** 06:00 on DONE + 11: ten whole days since (DONE+1 … DONE+10). */
const NOW = Date.parse(`${addDays(DONE, 11)}T06:00:00Z`);

let sandbox: Sandbox;
let root: string;
let page: string;

beforeAll(async () => {
  sandbox = await startSandbox();
  root = await makeTempDir('gaps-effect');
  const { code, stderr } = await runCliAt(sandbox, ['export', '--from', FROM, '--to', TO, '--project', PROJECT, '--dataset', 'feedback', '--out', root], {
    now: NOW,
  });
  expect(code, stderr).toBe(0);
  // The page with the most thumbs down before the job: the gap.
  const [top] = await queryDuckDb(
    `SELECT path, count(*) AS n FROM read_parquet('${files()}') WHERE helpful = false AND date < DATE '${DONE}' GROUP BY path ORDER BY n DESC, path LIMIT 1`,
  );
  page = String(top?.['path']);
  // The fix worked: from the day after, the page gets no thumbs down.
  for (const day of await readdir(join(root, 'feedback'))) {
    if (day <= `dt=${DONE}`) continue;
    const file = join(root, 'feedback', day, `${PROJECT}.parquet`);
    const kept = `SELECT * FROM read_parquet('${file}') WHERE NOT (path = '${page.replaceAll("'", "''")}' AND helpful IS NOT DISTINCT FROM false)`;
    await queryDuckDb(`COPY (${kept}) TO '${file}.new' (FORMAT parquet)`);
    await queryDuckDb(`COPY (SELECT * FROM read_parquet('${file}.new')) TO '${file}' (FORMAT parquet)`);
  }
  const gapId = gapIdOf('thumbs_down_page', PROJECT, page);
  await createOutcomeSink(openDestination(root)).write(
    buildOutcome({
      requestId: `${gapId}-r1`,
      projectId: PROJECT,
      jobId: 'job_new_1',
      kind: 'create',
      gapId,
      promptLength: 100,
      promptSha256: 'ab'.repeat(32),
      status: 'completed',
      prLink: 'https://github.com/sandbox-docs/small-docs/pull/7',
      sentAt: Date.parse(`${DONE}T14:00:00Z`),
      finishedAt: Date.parse(`${DONE}T15:00:00Z`),
      polls: 5,
      attempts: 1,
    }),
  );
}, 120_000);

afterAll(async () => {
  await sandbox.close();
  await removeTempDirs();
});

function files(): string {
  return join(root, 'feedback', '*', '*.parquet').replaceAll("'", "''");
}

async function thumbsDown(from: string, last: string): Promise<number> {
  const [row] = await queryDuckDb(
    `SELECT count(*) AS n FROM read_parquet('${files()}') WHERE path = '${page.replaceAll("'", "''")}' AND helpful = false AND date BETWEEN DATE '${from}' AND DATE '${last}'`,
  );
  return Number(row?.['n']);
}

describe('the effect of a fix', () => {
  it('gives the gap’s thumbs down per day over the N days before and after the job, exactly, with its pull request', async () => {
    const requests = await readOutcomeRequests(openDestination(root));

    const fixes = await readFixes(root, requests, { days: [addDays(DONE, 1)], projects: [], now: NOW });

    const before = await thumbsDown(addDays(DONE, -10), addDays(DONE, -1));
    const after = await thumbsDown(addDays(DONE, 1), addDays(DONE, 10));
    expect(before).toBeGreaterThan(0);
    expect(after).toBe(0);
    expect(fixes.effects).toEqual([
      {
        gapId: gapIdOf('thumbs_down_page', PROJECT, page),
        projectId: PROJECT,
        gap: { kind: 'thumbs_down_page', key: page, title: `Thumbs down on ${page}` },
        requestId: `${gapIdOf('thumbs_down_page', PROJECT, page)}-r1`,
        jobId: 'job_new_1',
        prLink: 'https://github.com/sandbox-docs/small-docs/pull/7',
        completedDay: DONE,
        daysSince: 10,
        n: 10,
        tooEarly: false,
        before: { from: addDays(DONE, -10), last: addDays(DONE, -1), days: 10, total: before, perDay: before / 10 },
        after: { from: addDays(DONE, 1), last: addDays(DONE, 10), days: 10, total: after, perDay: after / 10 },
      },
    ]);
  });

  it('says too early to tell under seven whole days since the job completed', async () => {
    const requests = await readOutcomeRequests(openDestination(root));

    const fixes = await readFixes(root, requests, { days: [addDays(DONE, 1)], projects: [], now: Date.parse(`${addDays(DONE, 7)}T06:00:00Z`) });

    expect(fixes.effects[0]).toMatchObject({ daysSince: 6, n: 6, tooEarly: true, before: { days: 6 }, after: { days: 6 } });
  });

  it('lists the period’s gaps without a completed job as open, and not the fixed one', async () => {
    const requests = await readOutcomeRequests(openDestination(root));
    const days = Array.from({ length: 10 }, (_, i) => addDays(DONE, i - 10));

    const fixes = await readFixes(root, requests, { days, projects: [], now: NOW });

    expect(fixes.open.length).toBeGreaterThan(0);
    expect(fixes.open.map((g) => g.key)).not.toContain(page);
  });
});
