/**
 * Role: the stand-in lake of planted fix effects (issues 45 and 51). One project's feedback and
 * page views written by hand with DuckDB (the columns the warehouse reads) around a day jobs
 * completed (`DONE`, 29 days before `NOW`: 28 whole days a side), the whole site's traffic 50 %
 * higher from the day after it, and the outcome records of completed jobs made for gaps:
 * - `/docs/fixed`: 280 thumbs down before, its thumbs down per view falls 60 % after its job (0.025 → 0.010);
 * - `/docs/no-change`: 280 thumbs down before, its rate unchanged while its views and thumbs down rise 50 %;
 * - `/docs/rare`: a true 30 % fall with 30 thumbs down before: its job completed 10 whole days
 *   before NOW (`SMALL`), 3 thumbs down a day in 150 views before it, 21 in 1,500 views after;
 * - `/docs/recent`: a job completed three whole days before NOW;
 * - `/docs/control-1` … `-6`: no job, their rate unchanged (0.02), the controls;
 * - an unanswered topic ("How do I retry webhooks?") whose share of questions unanswered falls
 *   from 0.3 to 0.1 after its job while questions asked rise 50 %, against four other topics
 *   without a job (0.2 both sides);
 * plus a job that did not complete (`failed`), which gets no verdict. Every figure is planted here:
 * `TRUTH` says what each side must hold. Keys are spelt here, independently of tables.ts.
 */
import { DuckDBInstance } from '@duckdb/node-api';
import path from 'node:path';
import { buildOutcome, createOutcomeSink } from '../../functions/follow-up/outcome.js';
import { gapIdOf } from '../../functions/gaps/gaps.js';
import { groupTopics, topicKeyOf } from '../../functions/gaps/topics.js';
import { addDays } from '../../functions/shared/dates.js';
import { openDestination } from '../../functions/shared/storage/destinations.js';
import { makeTempDir } from './files.js';

export const EFFECTS_PROJECT = 'proj_small';
/** The day the jobs completed (14:00–15:00 UTC). */
export const DONE = '2026-03-20';
/** 06:00 UTC, 29 days after DONE: 28 whole days since it, so N = 28. */
export const NOW = Date.parse(`${addDays(DONE, 29)}T06:00:00Z`);
/** The recent job's day: three whole days before NOW. */
export const RECENT = addDays(DONE, 25);
/** The small fall's job day: ten whole days before NOW. */
export const SMALL = addDays(DONE, 18);
/** Days written: from 40 days before DONE to the day before NOW. */
const FIRST = addDays(DONE, -40);
const LAST = addDays(DONE, 28);

interface PagePlan {
  readonly path: string;
  /** Human views a day before DONE's next day, and from it on (the site's +50 %). */
  readonly views: readonly [number, number];
  /** Thumbs down a day, likewise; a function of the day's index (and the day) for controls that wobble. */
  readonly thumbs: readonly [number, number] | ((i: number, after: boolean, day: string) => number);
  /** The job made for it: the day it completed and its status. */
  readonly job?: { readonly day: string; readonly status: 'completed' | 'failed' };
}

export const PAGES: readonly PagePlan[] = [
  { path: '/docs/fixed', views: [400, 600], thumbs: [10, 6], job: { day: DONE, status: 'completed' } },
  { path: '/docs/no-change', views: [500, 750], thumbs: [10, 15], job: { day: DONE, status: 'completed' } },
  // 0.02 per view until its job; then 0.014 (21 in 1,500 views over the 10 days since): a true 30 % fall.
  {
    path: '/docs/rare',
    views: [100, 150],
    thumbs: (_i: number, after: boolean, day: string) => (!after ? 2 : day <= SMALL ? 3 : day === addDays(SMALL, 1) ? 3 : 2),
    job: { day: SMALL, status: 'completed' },
  },
  { path: '/docs/recent', views: [200, 300], thumbs: [4, 6], job: { day: RECENT, status: 'completed' } },
  { path: '/docs/unfinished', views: [200, 300], thumbs: [4, 6], job: { day: DONE, status: 'failed' } },
  // Controls: 4 a day on average before (3, 4, 5 in turn), 6 after (5, 6, 7): 0.02 per view both sides.
  ...[1, 2, 3, 4, 5, 6].map((k) => ({
    path: `/docs/control-${k}`,
    views: [200, 300] as const,
    thumbs: (i: number, after: boolean) => (after ? 5 : 3) + ((i + k) % 3),
  })),
];

/** What each judged job's sides hold (N = 28; the small fall's N = 10, the recent one's N = 3). */
export const TRUTH = {
  fixed: {
    before: { days: 28, signals: 280, exposure: 11200, rate: 0.025 },
    after: { days: 28, signals: 168, exposure: 16800, rate: 0.01 },
  },
  noChange: {
    before: { days: 28, signals: 280, exposure: 14000, rate: 0.02 },
    after: { days: 28, signals: 420, exposure: 21000, rate: 0.02 },
  },
  rare: {
    before: { days: 10, signals: 30, exposure: 1500, rate: 0.02 },
    after: { days: 10, signals: 21, exposure: 1500, rate: 0.014 },
  },
  recent: {
    before: { days: 3, signals: 18, exposure: 900, rate: 0.02 },
    after: { days: 3, signals: 18, exposure: 900, rate: 0.02 },
  },
} as const;

/** Assistant questions a day (asked, and unanswered of them), before DONE's next day and from it on. */
export const QUESTIONS: readonly { readonly text: string; readonly asked: readonly [number, number]; readonly unanswered: readonly [number, number] }[] = [
  { text: 'How do I retry webhooks?', asked: [20, 30], unanswered: [6, 3] },
  { text: 'Where are invoices exported?', asked: [20, 30], unanswered: [4, 6] },
  { text: 'Can I rotate tokens?', asked: [20, 30], unanswered: [4, 6] },
  { text: 'Does search support filters?', asked: [20, 30], unanswered: [4, 6] },
  { text: 'Which regions host servers?', asked: [20, 30], unanswered: [4, 6] },
];

/** The fixed topic's sides: 168 of 560 unanswered before, 84 of 840 after. */
export const TOPIC_TRUTH = {
  before: { days: 28, signals: 168, exposure: 560, rate: 0.3 },
  after: { days: 28, signals: 84, exposure: 840, rate: 0.1 },
} as const;

/** The fixed topic's key, as gaps groups its question (functions/gaps/topics.ts). */
export function fixedTopicKey(): string {
  const [topic] = groupTopics([{ text: QUESTIONS[0]?.text ?? '', unanswered: 1 }]).topics;
  return topicKeyOf(topic?.terms ?? []);
}

export const PR_LINK = 'https://github.com/acme/docs/pull/45';

export interface EffectsLake {
  readonly root: string;
  gapIdOf(pagePath: string): string;
  /** The fixed unanswered topic's gap id. */
  readonly topicGapId: string;
}

const gapOf = (pagePath: string) => gapIdOf('thumbs_down_page', EFFECTS_PROJECT, pagePath);

/** Writes the lake into a new temp folder. */
export async function buildEffectsLake(): Promise<EffectsLake> {
  const root = await makeTempDir('effects-lake');
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  try {
    for (let i = 0, day = FIRST; day <= LAST; i++, day = addDays(day, 1)) {
      const after = day > DONE;
      const feedback: string[] = [];
      const views: string[] = [];
      for (const page of PAGES) {
        const thumbs = typeof page.thumbs === 'function' ? page.thumbs(i, after, day) : page.thumbs[after ? 1 : 0];
        const seen = page.views[after ? 1 : 0];
        views.push(`('${page.path}', ${seen})`);
        // Thumbs down, and as many thumbs up (never counted by the rate).
        feedback.push(`('${page.path}', ${thumbs}, false)`, `('${page.path}', ${thumbs}, true)`);
      }
      await copy(
        connection,
        `SELECT '${EFFECTS_PROJECT}' AS project_id, DATE '${day}' AS date, f.path, 'fb_' || f.path || '_' || f.helpful || '_' || i AS feedback_id,
          'contextual' AS source, 'pending' AS status, NULL::VARCHAR AS comment, (DATE '${day}' + INTERVAL (i) MINUTE)::TIMESTAMP AS created_at, f.helpful
         FROM (VALUES ${feedback.join(', ')}) AS f(path, n, helpful), range(f.n) AS t(i)`,
        path.join(root, 'feedback', `dt=${day}`, `${EFFECTS_PROJECT}.parquet`),
      );
      const asked = QUESTIONS.map((q, n) => `(${n}, '${q.text.replaceAll("'", "''")}', ${q.asked[after ? 1 : 0]}, ${q.unanswered[after ? 1 : 0]})`);
      await copy(
        connection,
        `SELECT '${EFFECTS_PROJECT}' AS project_id, DATE '${day}' AS date, 'c_' || q.n || '_' || i AS conversation_id,
          (DATE '${day}' + INTERVAL (i) MINUTE)::TIMESTAMP AS asked_at, q.text AS query, 'answer' AS response, 'answer' AS response_type,
          CASE WHEN i < q.unanswered THEN 'unanswered' ELSE 'answered' END AS resolution_status, NULL::VARCHAR AS query_category,
          0::BIGINT AS source_count, '[]' AS sources_json
         FROM (VALUES ${asked.join(', ')}) AS q(n, text, asked, unanswered), range(q.asked) AS t(i)`,
        path.join(root, 'assistant_conversations', `dt=${day}`, `${EFFECTS_PROJECT}.parquet`),
      );
      await copy(
        connection,
        `SELECT '${EFFECTS_PROJECT}' AS project_id, DATE '${day}' AS date, v.path, v.human::BIGINT AS human, 0::BIGINT AS ai, v.human::BIGINT AS total
         FROM (VALUES ${views.join(', ')}) AS v(path, human)`,
        path.join(root, 'views_pages', `dt=${day}`, `${EFFECTS_PROJECT}.parquet`),
      );
    }
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
  const sink = createOutcomeSink(openDestination(root));
  for (const page of PAGES) {
    if (page.job === undefined) continue;
    const id = gapOf(page.path);
    await sink.write(
      buildOutcome({
        requestId: `${id}-r1`,
        projectId: EFFECTS_PROJECT,
        jobId: `job_${page.path.slice('/docs/'.length)}`,
        kind: 'create',
        gapId: id,
        promptLength: 100,
        promptSha256: 'ab'.repeat(32),
        status: page.job.status,
        ...(page.job.status === 'completed' ? { prLink: PR_LINK } : { detail: 'the job failed' }),
        sentAt: Date.parse(`${page.job.day}T14:00:00Z`),
        finishedAt: Date.parse(`${page.job.day}T15:00:00Z`),
        polls: 5,
        attempts: 1,
      }),
    );
  }
  const topicGap = gapIdOf('unanswered_topic', EFFECTS_PROJECT, fixedTopicKey());
  await sink.write(
    buildOutcome({
      requestId: `${topicGap}-r1`,
      projectId: EFFECTS_PROJECT,
      jobId: 'job_topic',
      kind: 'create',
      gapId: topicGap,
      promptLength: 100,
      promptSha256: 'cd'.repeat(32),
      status: 'completed',
      prLink: PR_LINK,
      sentAt: Date.parse(`${DONE}T13:00:00Z`),
      finishedAt: Date.parse(`${DONE}T14:00:00Z`),
      polls: 5,
      attempts: 1,
    }),
  );
  return { root, gapIdOf: gapOf, topicGapId: topicGap };
}

async function copy(connection: { run(sql: string): Promise<unknown> }, select: string, file: string): Promise<void> {
  const { mkdir } = await import('node:fs/promises');
  await mkdir(path.dirname(file), { recursive: true });
  await connection.run(`COPY (${select}) TO '${file.replaceAll("'", "''")}' (FORMAT parquet)`);
}
