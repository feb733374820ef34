/**
 * Role: the lake of a fixed gap. proj_small's feedback exported by the real CLI from the sandbox
 * over 21 days around the day a job for the gap completed (`DONE`, 15:00 UTC); the days after
 * it rewritten without the gap page's thumbs down (as if the fix worked); the outcome record of
 * that completed job (kind `create`, its `gap_id`, a pull request), and one of a job for
 * another page that completed three days before `NOW` (too early to tell). Built once for every
 * test file that reads it (test/helpers/lake-cache.ts): each gets its own copy.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'vitest';
import { buildOutcome, createOutcomeSink } from '../../functions/follow-up/outcome.js';
import { gapIdOf } from '../../functions/gaps/gaps.js';
import { addDays } from '../../functions/shared/dates.js';
import { openDestination } from '../../functions/shared/storage/destinations.js';
import { startSandbox } from '../../sandbox/index.js';
import { runCliAt } from './cli.js';
import { cachedLake } from './lake-cache.js';
import { queryDuckDb } from './read-back.js';

export const FIX_PROJECT = 'proj_small';
/** The fixed gap's job completed on this day. */
export const DONE = '2026-03-11';
/** The other job completed on this day: three whole days before NOW. */
export const RECENT = '2026-03-18';
/** 06:00 on DONE + 11: ten whole days since DONE (DONE+1 … DONE+10). */
export const NOW = Date.parse(`${addDays(DONE, 11)}T06:00:00Z`);
export const PR_LINK = 'https://github.com/sandbox-docs/small-docs/pull/7';

export interface FixLake {
  readonly root: string;
  /** The fixed page (the most thumbs down before DONE). */
  readonly page: string;
  readonly gapId: string;
  /** The page of the recent job (the second most thumbs down). */
  readonly recentPage: string;
  /** The fixed page's thumbs down in [from, last], counted from the files (not through gaps). */
  thumbsDown(page: string, from: string, last: string): Promise<number>;
}

type FixLakeFacts = Pick<FixLake, 'page' | 'gapId' | 'recentPage'>;

const quoted = (text: string) => `'${text.replaceAll("'", "''")}'`;
const feedbackFiles = (root: string) => join(root, 'feedback', '*', '*.parquet').replaceAll("'", "''");

/** The lake, built once per content of the tree (test/helpers/lake-cache.ts) and copied for the calling test file. */
export async function buildFixLake(): Promise<FixLake> {
  const { root, meta } = await cachedLake('fix', exportFixLake);
  return {
    root,
    ...meta,
    async thumbsDown(path, from, last) {
      const [row] = await queryDuckDb(
        `SELECT count(*) AS n FROM read_parquet('${feedbackFiles(root)}') WHERE path = ${quoted(path)} AND helpful = false AND date BETWEEN DATE '${from}' AND DATE '${last}'`,
      );
      return Number(row?.['n']);
    },
  };
}

/** Exports proj_small's feedback into `root`, removes the fixed page's thumbs down after DONE and writes the two outcome records. */
async function exportFixLake(root: string): Promise<FixLakeFacts> {
  const sandbox = await startSandbox();
  try {
    const args = ['export', '--from', addDays(DONE, -10), '--to', addDays(DONE, 11), '--project', FIX_PROJECT, '--dataset', 'feedback', '--out', root];
    const { code, stderr } = await runCliAt(sandbox, args, { now: NOW });
    expect(code, stderr).toBe(0);
  } finally {
    await sandbox.close();
  }
  const files = feedbackFiles(root);
  const ranked = await queryDuckDb(
    `SELECT path, count(*) AS n FROM read_parquet('${files}') WHERE helpful = false AND date < DATE '${DONE}' GROUP BY path ORDER BY n DESC, path LIMIT 2`,
  );
  const page = String(ranked[0]?.['path']);
  const recentPage = String(ranked[1]?.['path']);
  for (const day of await readdir(join(root, 'feedback'))) {
    if (day <= `dt=${DONE}`) continue;
    const file = join(root, 'feedback', day, `${FIX_PROJECT}.parquet`);
    await queryDuckDb(
      `COPY (SELECT * FROM read_parquet('${file}') WHERE NOT (path = ${quoted(page)} AND helpful IS NOT DISTINCT FROM false)) TO '${file}.new' (FORMAT parquet)`,
    );
    await queryDuckDb(`COPY (SELECT * FROM read_parquet('${file}.new')) TO '${file}' (FORMAT parquet)`);
  }
  const gapId = gapIdOf('thumbs_down_page', FIX_PROJECT, page);
  const sink = createOutcomeSink(openDestination(root));
  const completed = (id: string, day: string, prLink: string) =>
    buildOutcome({
      requestId: `${id}-r1`,
      projectId: FIX_PROJECT,
      jobId: `job_for_${id}`,
      kind: 'create',
      gapId: id,
      promptLength: 100,
      promptSha256: 'ab'.repeat(32),
      status: 'completed',
      prLink,
      sentAt: Date.parse(`${day}T14:00:00Z`),
      finishedAt: Date.parse(`${day}T15:00:00Z`),
      polls: 5,
      attempts: 1,
    });
  await sink.write(completed(gapId, DONE, PR_LINK));
  await sink.write(completed(gapIdOf('thumbs_down_page', FIX_PROJECT, recentPage), RECENT, 'https://github.com/sandbox-docs/small-docs/pull/8'));
  return { page, gapId, recentPage };
}
