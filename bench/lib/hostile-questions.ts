/**
 * A lake of hostile assistant questions for the `topics` benchmark (issue 57), the same on every
 * run: the days of proj_small exported for real by the engine against the sandbox (every
 * dataset: the report reads them all), then each day's assistant_conversations file replaced by
 * DuckDB with rows made from its first row:
 * - `distinctDay`: N distinct unanswered questions (200,000 a day in the benchmark), each of a
 *   few words of a small vocabulary and one reference of its own (`ref4fzyo`), one in ten in
 *   Japanese and one in ten in Chinese (words of small lists, no space between them);
 * - `longWords`: single-word questions of L characters each, half letters (`abab…`), half a
 *   run of dots inside a word (`a……b`, what made `sameQuestion`'s regex quadratic).
 *
 * The questions' monthly roll-ups are removed after planting (they hold the rows exported):
 * every reader then reads the planted day files.
 */
import { DuckDBInstance } from '@duckdb/node-api';
import { readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { unitsOf } from '../../functions/export/units.js';
import { DATASET_NAMES } from '../../functions/warehouse/catalog.js';
import { createLocalDestination } from '../../functions/shared/storage/destination-local.js';
import { ASSISTANT_CONVERSATIONS, partitionKey } from '../../functions/warehouse/tables.js';
import { dayFolderName, monthOfDay, rollupFolder } from '../../functions/warehouse/lake/layout.js';
import { startSandbox } from '../../sandbox/index.js';
import { createEngine } from './engine.js';

export const HOSTILE_QUESTIONS_PROJECT = 'proj_small';

const ENGLISH = [
  'webhook',
  'signature',
  'custom domain',
  'ssl certificate',
  'api key',
  'rate limit',
  'sidebar',
  'navigation',
  'openapi spec',
  'playground',
  'analytics',
  'search index',
  'preview deployment',
  'redirect',
  'dark mode',
  'billing plan',
  'team invite',
  'sso login',
  'mdx component',
  'snippet',
];
const JAPANESE = ['APIキー', 'ウェブフック', '署名', 'カスタムドメイン', '証明書', 'サイドバー', '検索', '請求', 'ログイン', 'テーマ'];
const CHINESE = ['密钥', '签名', '域名', '证书', '侧边栏', '搜索', '账单', '登录', '主题', '部署'];

const literal = (text: string) => `'${text.replaceAll("'", "''")}'`;
const list = (words: readonly string[]) => `[${words.map(literal).join(', ')}]`;
/** The `k`-th word of `words` for row `i`, the same on every run. */
const pick = (words: readonly string[], k: number) => `${list(words)}[1 + (hash(i * 7 + ${k}) % ${words.length})::INTEGER]`;

/** The text of row `i` of a day of distinct questions (SQL over `i`). */
const DISTINCT_QUESTION = `CASE
  WHEN i % 10 = 0 THEN ${pick(JAPANESE, 1)} || 'の' || ${pick(JAPANESE, 2)} || 'を設定する方法は？（' || i::VARCHAR || '）'
  WHEN i % 10 = 5 THEN '如何' || ${pick(CHINESE, 1)} || ${pick(CHINESE, 2)} || '？编号' || i::VARCHAR
  ELSE 'How do I ' || ${pick(ENGLISH, 1)} || ' with ' || ${pick(ENGLISH, 2)} || ' and ' || ${pick(ENGLISH, 3)} || '? ref' || to_base(i, 36)
END`;

/** The text of row `i` of a day of single words of `length` characters. */
const longWord = (length: number) => `CASE
  WHEN i % 2 = 0 THEN repeat('ab', ${Math.floor((length - 12) / 2)}) || lpad(to_base(i, 36), 12, 'z')
  ELSE 'a' || repeat('.', ${length - 14}) || 'b' || lpad(to_base(i, 36), 12, 'z')
END`;

export type HostileDay =
  | { readonly kind: 'distinct'; readonly questions: number }
  | { readonly kind: 'long'; readonly questions: number; readonly length: number };

/** Exports `days` of proj_small for real into `root` (every dataset), then plants each day's questions. */
export async function buildHostileQuestionsLake(root: string, days: readonly { readonly day: string; readonly plant: HostileDay }[]): Promise<void> {
  const sandbox = await startSandbox();
  try {
    const engine = createEngine({ apiUrl: sandbox.url, apiKey: sandbox.apiKey, destination: createLocalDestination(root) });
    const summary = await engine.run(
      unitsOf(
        days.map((d) => d.day),
        [HOSTILE_QUESTIONS_PROJECT],
        DATASET_NAMES,
      ),
    );
    if (summary.completed !== days.length * DATASET_NAMES.length) throw new Error(`hostile questions lake: ${summary.completed} unit(s) complete`);
  } finally {
    await sandbox.close();
  }
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  try {
    for (const { day, plant } of days) {
      const file = path.join(root, partitionKey(ASSISTANT_CONVERSATIONS, day, `${HOSTILE_QUESTIONS_PROJECT}.parquet`));
      const text = plant.kind === 'distinct' ? DISTINCT_QUESTION : longWord(plant.length);
      await connection.run(
        `COPY (SELECT s.* REPLACE ('conv_' || i::VARCHAR AS conversation_id, s.asked_at + to_milliseconds(i % 80000000) AS asked_at,
           ${text} AS query, 'unanswered' AS resolution_status)
         FROM (SELECT * FROM read_parquet(${literal(file)}) LIMIT 1) AS s CROSS JOIN range(${plant.questions}) AS t(i))
         TO ${literal(`${file}.planted`)} (FORMAT parquet, ROW_GROUP_SIZE 5000)`,
      );
      await connection.run(`COPY (SELECT * FROM read_parquet(${literal(`${file}.planted`)})) TO ${literal(file)} (FORMAT parquet, ROW_GROUP_SIZE 5000)`);
    }
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
  // The planted copies are not the lake's files; the questions' roll-ups (the export rolls up a
  // past month) hold the rows exported, not the planted ones, and their records still match the
  // manifests: readers would read them instead of the planted days. Without them each day is read.
  for (const { day } of days) {
    const folder = path.join(root, ASSISTANT_CONVERSATIONS.prefix, dayFolderName(day));
    for (const name of await readdir(folder)) if (name.endsWith('.planted')) await rm(path.join(folder, name));
    await rm(path.join(root, rollupFolder(ASSISTANT_CONVERSATIONS.prefix, monthOfDay(day))), { recursive: true, force: true });
  }
}
