/**
 * `topics` (issue 57): topics of hostile questions in linear time and bounded memory.
 *
 * Two lakes of proj_small made by bench/lib/hostile-questions.ts (every dataset exported for
 * real, then the questions planted): three days of 200,000 distinct unanswered questions each
 * (one in five Japanese or Chinese), and two days of 400 single-word questions, of 50,000 and of
 * 5,000 characters. Each run is a fresh Node process (bench/child/topics.ts, bundled by esbuild
 * as bin/bundle.js bundles the CLI, so no TypeScript loader is in its memory; tsx when the bundle
 * cannot be built): its time after module loading, and its peak RSS.
 * - `gaps` over one day of 200,000 distinct questions, and over the three days;
 * - `gaps` over the single words: 50,000 characters against 5,000;
 * - the CJK questions' topics (in process: every gap ranked);
 * - `report` over the three days without and with one completed gap job (an outcome record
 *   for the top topic, planted between the runs and taken away again), alternately.
 *
 * `BENCH_TOPICS_PARTS=day,report` (any of day, three, long, cjk, report) runs only those parts
 * and gives only their figures, while tuning one (the report runs take minutes).
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cliBundle } from '../bin/bundle.js';
import { buildOutcome, createOutcomeSink, outcomeKey } from '../functions/follow-up/outcome.js';
import { findGaps } from '../functions/gaps/find.js';
import { addDays } from '../functions/shared/dates.js';
import { openDestination } from '../functions/shared/storage/destinations.js';
import { parseLakeTarget } from '../functions/warehouse/lake/target.js';
import type { TopicsChildInput, TopicsChildOutput } from './child/topics.js';
import { buildHostileQuestionsLake, HOSTILE_QUESTIONS_PROJECT } from './lib/hostile-questions.js';
import { info, judged, median, progress, type BenchResult } from './lib/figures.js';

const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));
/** The last day of the distinct questions: a fixed day, so runs compare. */
const LAST_DAY = '2026-09-30';
const DISTINCT = 200_000;
const LONG_QUESTIONS = 400;
const [LONG, SHORT] = [50_000, 5_000];
const RUNS = 3;
const REPORT_RUNS = 2;
const MB = 1024 * 1024;
const PARTS = ['day', 'three', 'long', 'cjk', 'report'] as const;

/** The parts to run: `BENCH_TOPICS_PARTS`, else every one. */
function partsToRun(): Set<string> {
  const asked = (process.env['BENCH_TOPICS_PARTS'] ?? '').split(',').filter((part) => part !== '');
  const unknown = asked.filter((part) => !(PARTS as readonly string[]).includes(part));
  if (unknown.length > 0) throw new Error(`BENCH_TOPICS_PARTS: no part ${unknown.join(', ')} (choose from ${PARTS.join(', ')})`);
  return new Set(asked.length === 0 ? PARTS : asked);
}

export async function benchTopics(): Promise<BenchResult> {
  const parts = partsToRun();
  const base = existsSync('/dev/shm') ? '/dev/shm' : tmpdir();
  const [root, longRoot] = [await mkdtemp(path.join(base, 'mintlify-bench-topics-')), await mkdtemp(path.join(base, 'mintlify-bench-topics-long-'))];
  try {
    // The child as the CLI runs: one bundled file (bin/bundle.js), kept under bench/out/.
    const bundle = await cliBundle({ root: REPO_ROOT, entry: 'bench/child/topics.ts', cache: path.join(REPO_ROOT, 'bench', 'out', 'child') });
    const child = (input: TopicsChildInput) => runChild(input, bundle);
    const days = [addDays(LAST_DAY, -2), addDays(LAST_DAY, -1), LAST_DAY];
    const longDays = [addDays(LAST_DAY, -1), LAST_DAY];
    progress(`topics: exporting and planting ${days.length} days of ${DISTINCT.toLocaleString('en')} distinct questions, and the single words`);
    await buildHostileQuestionsLake(
      root,
      days.map((day) => ({ day, plant: { kind: 'distinct', questions: DISTINCT } })),
    );
    await buildHostileQuestionsLake(longRoot, [
      { day: longDays[0] as string, plant: { kind: 'long', questions: LONG_QUESTIONS, length: LONG } },
      { day: longDays[1] as string, plant: { kind: 'long', questions: LONG_QUESTIONS, length: SHORT } },
    ]);

    const day: TopicsChildOutput[] = [];
    if (parts.has('day')) {
      progress('topics: gaps over one day of distinct questions');
      for (let run = 0; run < RUNS; run += 1) day.push(await child({ run: 'gaps', root, days: [LAST_DAY] }));
    }
    const three: TopicsChildOutput[] = [];
    if (parts.has('three')) {
      progress('topics: gaps over the three days of distinct questions');
      three.push(await child({ run: 'gaps', root, days }));
    }

    const [long, short]: [TopicsChildOutput[], TopicsChildOutput[]] = [[], []];
    if (parts.has('long')) {
      progress('topics: gaps over single words of 50,000 and 5,000 characters');
      for (let run = 0; run < 2; run += 1) {
        long.push(await child({ run: 'gaps', root: longRoot, days: [longDays[0] as string] }));
        short.push(await child({ run: 'gaps', root: longRoot, days: [longDays[1] as string] }));
      }
    }

    if (parts.has('cjk')) progress('topics: the CJK questions’ topics');
    const every =
      parts.has('cjk') || parts.has('report') ? await findGaps({ target: parseLakeTarget(root, '--out'), days: [LAST_DAY], projects: [] }) : undefined;
    const topics = (every?.gaps ?? []).filter((g) => g.evidence.kind === 'unanswered_topic');
    const cjk = topics.filter((g) => g.evidence.kind === 'unanswered_topic' && g.evidence.terms.some((t) => /[\p{Script=Han}\p{Script=Katakana}]/u.test(t)));
    const cjkQuestions = cjk.reduce((sum, g) => sum + (g.evidence.kind === 'unanswered_topic' ? g.evidence.questions : 0), 0);
    const top = topics[0];
    if (every !== undefined && top === undefined) throw new Error('topics: no topic of unanswered questions in the planted day');

    const [without, withJob]: [TopicsChildOutput[], TopicsChildOutput[]] = [[], []];
    if (parts.has('report') && top !== undefined) {
      progress('topics: the report without and with a completed gap job, alternately');
      const now = Date.parse(`${addDays(LAST_DAY, 1)}T06:00:00Z`);
      const report: TopicsChildInput = { run: 'report', root, from: days[0] as string, to: addDays(LAST_DAY, 1), now };
      for (let run = 0; run < REPORT_RUNS; run += 1) {
        without.push(await child(report));
        const record = await plantCompletedJob(root, top.gapId, days[1] as string);
        withJob.push(await child(report));
        await rm(path.join(root, record), { force: true });
      }
    }

    const ms = (runs: readonly TopicsChildOutput[]) => median(runs.map((r) => r.ms));
    const rss = (runs: readonly TopicsChildOutput[]) => Math.max(...runs.map((r) => r.maxRssKiB)) * 1024;
    const cpu = (runs: readonly TopicsChildOutput[]) => median(runs.map((r) => r.cpuMs));
    return {
      figures: {
        ...(day.length === 0
          ? {}
          : {
              'topics.day200k.ms': judged(
                ms(day),
                'ms',
                '<=',
                5000,
                `gaps (findGaps, --top 20) over one day of ${DISTINCT.toLocaleString('en')} distinct unanswered questions, fresh process, median of ${RUNS}`,
              ),
              'topics.day200k.peak_rss': judged(
                rss(day),
                'bytes',
                '<=',
                300 * MB,
                'peak RSS of that process (the bundled child, DuckDB included), the most of the runs',
              ),
              'topics.day200k.cpu_ms': info(cpu(day), 'ms', 'CPU time of that run (every thread), median'),
            }),
        ...(three.length === 0
          ? {}
          : {
              'topics.3days.ms': info(ms(three), 'ms', 'the same over the three days (600,000 distinct questions), once'),
              'topics.3days.peak_rss': info(rss(three), 'bytes', 'its peak RSS'),
            }),
        ...(long.length === 0
          ? {}
          : {
              'topics.long_words.ms': judged(
                ms(long),
                'ms',
                '<=',
                5000,
                `gaps over ${LONG_QUESTIONS} single-word questions of ${LONG.toLocaleString('en')} characters, median of 2`,
              ),
              'topics.long_words.per_char_ratio': judged(
                ms(long) / ms(short) / (LONG / SHORT),
                'ratio',
                '<=',
                1.5,
                `(time at ${LONG.toLocaleString('en')} characters ÷ time at ${SHORT.toLocaleString('en')}) ÷ ${LONG / SHORT}: ≤ 1 linear (fixed costs), above: superlinear`,
              ),
            }),
        ...(!parts.has('cjk')
          ? {}
          : {
              'topics.cjk.topics': judged(cjk.length, 'topics', '>=', 1, 'topics keyed by a Chinese or Japanese term, of the planted day (every gap ranked)'),
              'topics.cjk.questions': info(
                cjkQuestions,
                'questions',
                `questions in those topics (${DISTINCT / 5} Chinese or Japanese planted; a question may count in two topics)`,
              ),
            }),
        ...(without.length === 0
          ? {}
          : {
              'topics.report.with_job_vs_without.time': judged(
                ms(withJob) / ms(without),
                'ratio',
                '<=',
                1.2,
                `report over the three days with one completed gap job ÷ without, medians of ${REPORT_RUNS}, alternately`,
              ),
              'topics.report.with_job_vs_without.rss': judged(rss(withJob) / rss(without), 'ratio', '<=', 1.2, 'peak RSS with ÷ without, the most of the runs'),
              'topics.report.without.ms': info(ms(without), 'ms', 'report without a gap job, median'),
              'topics.report.with_job.ms': info(ms(withJob), 'ms', 'report with one completed gap job, median'),
              'topics.report.with_job.peak_rss': info(rss(withJob), 'bytes', 'its peak RSS (the weekly report function has 1 GB)'),
            }),
      },
      details: {
        topics: { loadAverage: loadavg(), bundled: bundle !== undefined, day, three, long, short, without, withJob, cjkTopics: cjk.map((g) => g.key) },
      },
    };
  } finally {
    await rm(root, { recursive: true, force: true });
    await rm(longRoot, { recursive: true, force: true });
  }
}

/** Writes the outcome record of a job completed for `gapId` on `day` (15:00 UTC); returns its key. */
async function plantCompletedJob(root: string, gapId: string, day: string): Promise<string> {
  const destination = openDestination(root);
  const sink = createOutcomeSink(destination);
  const outcome = buildOutcome({
    requestId: 'bench-topics-r1',
    projectId: HOSTILE_QUESTIONS_PROJECT,
    jobId: 'job_bench_topics',
    kind: 'create',
    gapId,
    promptLength: 100,
    promptSha256: 'ab'.repeat(32),
    status: 'completed',
    prLink: 'https://github.com/sandbox-docs/small-docs/pull/1',
    sentAt: Date.parse(`${day}T14:00:00Z`),
    finishedAt: Date.parse(`${day}T15:00:00Z`),
    polls: 1,
    attempts: 1,
  });
  await sink.write(outcome);
  return outcomeKey(outcome);
}

/** Runs bench/child/topics.ts (its bundle, else under tsx) in a fresh process and returns what it printed. */
function runChild(input: TopicsChildInput, bundle: string | undefined): Promise<TopicsChildOutput> {
  return new Promise((resolve, reject) => {
    const entry = bundle === undefined ? ['--import', 'tsx', 'bench/child/topics.ts'] : [bundle];
    const proc = spawn(process.execPath, [...entry, JSON.stringify(input)], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let [stdout, stderr] = ['', ''];
    proc.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    proc.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    proc.once('error', reject);
    proc.once('close', (code) => {
      if (code !== 0) reject(new Error(`topics child (${input.run}) exited ${code}: ${stderr.trim()}`));
      else resolve(JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as TopicsChildOutput);
    });
  });
}
