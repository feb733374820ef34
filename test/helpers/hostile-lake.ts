/**
 * Role: a lake holding readers' words as an attacker types them (hostile-text.ts). proj_small's
 * searches, feedback and assistant conversations exported by the real CLI from the sandbox over
 * two days, then rewritten with DuckDB as a visitor could have made the service record them:
 * - every unanswered question in the category `HOSTILE_CATEGORY`, asking one of the hostile
 *   questions (`HOSTILE_QUESTION`, `HOSTILE_COMMENT`, `HOSTILE_SEARCH`);
 * - every search term nobody clicked written `HOSTILE_SEARCH`;
 * - every thumbs up or down made a thumbs down on `HOSTILE_PATH` (120,000 characters) or one of `HOSTILE_LINK_PATHS`
 *   (paths a URL parser sends to another origin), with a hostile comment;
 * - and, beside those, one more thumbs down on each of `HOSTILE_PERSONAL_PATHS` (an address or key in a segment,
 *   escaped twice or glued to a broken escape), stored raw as a lake written with `keep` holds it.
 */
import { readdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { Sandbox } from '../../sandbox/index.js';
import { runCliAt } from './cli.js';
import { makeTempDir } from './files.js';
import {
  HOSTILE_CATEGORY,
  HOSTILE_COMMENT,
  HOSTILE_LINK_PATHS,
  HOSTILE_PATH,
  HOSTILE_PERSONAL_PATHS,
  HOSTILE_QUESTION,
  HOSTILE_SEARCH,
} from './hostile-text.js';
import { queryDuckDb } from './read-back.js';

export const HOSTILE_PROJECT = 'proj_small';
export const HOSTILE_FROM = '2026-02-02';
/** The day after the last one. */
export const HOSTILE_TO = '2026-02-04';
/** When the lake's days are due. */
export const HOSTILE_NOW = Date.UTC(2026, 1, 10);

const literal = (text: string) => `'${text.replaceAll("'", "''")}'`;
const pick = (texts: readonly string[], key: string) => `[${texts.map(literal).join(', ')}][1 + (hash(${key}) % ${texts.length})::INTEGER]`;

/** The tables rewritten, each with the columns given hostile values. */
const REWRITES: Readonly<Record<string, string>> = {
  assistant_conversations: `* REPLACE (
    CASE WHEN resolution_status = 'unanswered' THEN ${literal(HOSTILE_CATEGORY)} ELSE query_category END AS query_category,
    CASE WHEN resolution_status = 'unanswered' THEN ${pick([HOSTILE_QUESTION, HOSTILE_COMMENT, HOSTILE_SEARCH], 'conversation_id')} ELSE query END AS query)`,
  searches: `* REPLACE (CASE WHEN top_clicked_page IS NULL THEN ${literal(HOSTILE_SEARCH)} ELSE search_query END AS search_query)`,
  feedback: `* REPLACE (
    CASE WHEN helpful IS NOT NULL THEN false ELSE helpful END AS helpful,
    CASE WHEN helpful IS NOT NULL THEN ${pick([HOSTILE_PATH, ...HOSTILE_LINK_PATHS], 'feedback_id')} ELSE path END AS path,
    CASE WHEN helpful IS NOT NULL THEN ${pick([HOSTILE_COMMENT, HOSTILE_QUESTION], 'created_at')} ELSE comment END AS comment)`,
};

/** Rows added to a table's file after its rewrite: the query of the rows to add, reading `rewritten` (the table's rewritten rows). */
const ADDITIONS: Readonly<Record<string, (rewritten: string) => string>> = {
  feedback: (rewritten) =>
    HOSTILE_PERSONAL_PATHS.map(
      (path, i) =>
        `SELECT * REPLACE (feedback_id || '-personal-${i}' AS feedback_id, ${literal(path)} AS path) FROM (SELECT * FROM ${rewritten} WHERE helpful IS NOT NULL ORDER BY feedback_id LIMIT 1)`,
    ).join(' UNION ALL '),
};

/** Exports the days with `sandbox`, plants the hostile values, and returns the lake's folder. */
export async function buildHostileLake(sandbox: Sandbox): Promise<string> {
  const root = await makeTempDir('hostile-lake');
  const args = ['export', '--from', HOSTILE_FROM, '--to', HOSTILE_TO, '--project', HOSTILE_PROJECT, '--out', root];
  const { code, stderr } = await runCliAt(sandbox, [...args, '--dataset', 'searches', '--dataset', 'feedback', '--dataset', 'assistant'], { now: HOSTILE_NOW });
  expect(code, stderr).toBe(0);
  for (const [table, select] of Object.entries(REWRITES)) {
    for (const day of await readdir(join(root, table))) {
      const file = join(root, table, day, `${HOSTILE_PROJECT}.parquet`);
      await queryDuckDb(`COPY (SELECT ${select} FROM read_parquet(${literal(file)})) TO ${literal(`${file}.new`)} (FORMAT parquet)`);
      const added = ADDITIONS[table];
      if (added !== undefined) {
        const rewritten = `read_parquet(${literal(`${file}.new`)})`;
        await queryDuckDb(`COPY (SELECT * FROM ${rewritten} UNION ALL ${added(rewritten)}) TO ${literal(`${file}.more`)} (FORMAT parquet)`);
        await rm(`${file}.new`);
        await rename(`${file}.more`, `${file}.new`);
      }
      await queryDuckDb(`COPY (SELECT * FROM read_parquet(${literal(`${file}.new`)})) TO ${literal(file)} (FORMAT parquet)`);
      await rm(`${file}.new`);
    }
  }
  return root;
}
