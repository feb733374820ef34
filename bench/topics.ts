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
 * While tuning: `BENCH_TOPICS_ONLY=report` runs only the report comparison (its figures alone),
 * `BENCH_TOPICS_ONLY=day` only `gaps` over one day; `BENCH_TOPICS_LAKE=<folder>` builds the
 * distinct questions' lake there once and keeps it, a later run reusing it (the folder holds the
 * lake: not removed); `MINTLIFY_BENCH_BEFORE=<another checkout, its node_modules in it>` runs
 * that checkout's child too, alternately with this one's, over the same day (`.before` figures).
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
import { ASSISTANT_CONVERSATIONS } from '../functions/warehouse/tables.js';
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

export async function benchTopics(): Promise<BenchResult> {
  const base = existsSync('/dev/shm') ? '/dev/shm' : tmpdir();
  const kept = process.env['BENCH_TOPICS_LAKE'];
  const only = process.env['BENCH_TOPICS_ONLY'];
  const onlyReport = only === 'report';
  const beforeRoot = process.env['MINTLIFY_BENCH_BEFORE'];
  const root = kept ?? (await mkdtemp(path.join(base, 'mintlify-bench-topics-')));
  const longRoot = await mkdtemp(path.join(base, 'mintlify-bench-topics-long-'));
  try {
    // The child as the CLI runs: one bundled file (bin/bundle.js), kept under bench/out/.
    const bundle = await cliBundle({ root: REPO_ROOT, entry: 'bench/child/topics.ts', cache: path.join(REPO_ROOT, 'bench', 'out', 'child') });
    const child = (input: TopicsChildInput) => runChild(input, bundle);
    // The other checkout's child, bundled the same way under its own bench/out/.
    const beforeBundle =
      beforeRoot === undefined
        ? undefined
        : await cliBundle({ root: beforeRoot, entry: 'bench/child/topics.ts', cache: path.join(beforeRoot, 'bench', 'out', 'child') });
    if (beforeRoot !== undefined && beforeBundle === undefined) throw new Error(`topics: the child of ${beforeRoot} could not be bundled`);
    const days = [addDays(LAST_DAY, -2), addDays(LAST_DAY, -1), LAST_DAY];
    const longDays = [addDays(LAST_DAY, -1), LAST_DAY];
    progress(`topics: exporting and planting ${days.length} days of ${DISTINCT.toLocaleString('en')} distinct questions, and the single words`);
    if (kept === undefined || !existsSync(path.join(kept, ASSISTANT_CONVERSATIONS.prefix))) {
      await buildHostileQuestionsLake(
        root,
        days.map((day) => ({ day, plant: { kind: 'distinct', questions: DISTINCT } })),
      );
    }
    const report = async () => {
      const every = await findGaps({ target: parseLakeTarget(root, '--out'), days: [LAST_DAY], projects: [] });
      const top = every.gaps.find((g) => g.evidence.kind === 'unanswered_topic');
      if (top === undefined) throw new Error('topics: no topic of unanswered questions in the planted day');
      progress('topics: the report without and with a completed gap job, alternately');
      return { every, ...(await reportRuns(root, top.gapId, days, bundle)) };
    };
    if (onlyReport) {
      const { without, withJob } = await report();
      return { figures: reportFigures(without, withJob), details: { topics: { loadAverage: loadavg(), bundled: bundle !== undefined, without, withJob } } };
    }
    progress('topics: gaps over one day, then three days, of distinct questions');
    const [day, dayBefore]: [TopicsChildOutput[], TopicsChildOutput[]] = [[], []];
    for (let run = 0; run < RUNS; run += 1) {
      day.push(await child({ run: 'gaps', root, days: [LAST_DAY] }));
      if (beforeBundle !== undefined) dayBefore.push(await runChild({ run: 'gaps', root, days: [LAST_DAY] }, beforeBundle));
    }
    if (only === 'day')
      return { figures: dayFigures(day, dayBefore), details: { topics: { loadAverage: loadavg(), bundled: bundle !== undefined, day, dayBefore } } };
    const three = await child({ run: 'gaps', root, days });
    await buildHostileQuestionsLake(longRoot, [
      { day: longDays[0] as string, plant: { kind: 'long', questions: LONG_QUESTIONS, length: LONG } },
      { day: longDays[1] as string, plant: { kind: 'long', questions: LONG_QUESTIONS, length: SHORT } },
    ]);

    progress('topics: gaps over single words of 50,000 and 5,000 characters');
    const [long, short]: [TopicsChildOutput[], TopicsChildOutput[]] = [[], []];
    for (let run = 0; run < 2; run += 1) {
      long.push(await child({ run: 'gaps', root: longRoot, days: [longDays[0] as string] }));
      short.push(await child({ run: 'gaps', root: longRoot, days: [longDays[1] as string] }));
    }

    progress('topics: the CJK questions’ topics');
    const { every, without, withJob } = await report();
    const topics = every.gaps.filter((g) => g.evidence.kind === 'unanswered_topic');
    const cjk = topics.filter((g) => g.evidence.kind === 'unanswered_topic' && g.evidence.terms.some((t) => /[\p{Script=Han}\p{Script=Katakana}]/u.test(t)));
    const cjkQuestions = cjk.reduce((sum, g) => sum + (g.evidence.kind === 'unanswered_topic' ? g.evidence.questions : 0), 0);

    return {
      figures: {
        ...dayFigures(day, dayBefore),
        'topics.3days.ms': info(three.ms, 'ms', 'the same over the three days (the same 200,000 questions each day: 600,000 rows), once'),
        'topics.3days.peak_rss': info(three.maxRssKiB * 1024, 'bytes', 'its peak RSS'),
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
        'topics.cjk.topics': judged(cjk.length, 'topics', '>=', 1, 'topics keyed by a Chinese or Japanese term, of the planted day (every gap ranked)'),
        'topics.cjk.questions': info(
          cjkQuestions,
          'questions',
          `questions in those topics (${DISTINCT / 5} Chinese or Japanese planted; a question may count in two topics)`,
        ),
        ...reportFigures(without, withJob),
      },
      details: {
        topics: {
          loadAverage: loadavg(),
          bundled: bundle !== undefined,
          day,
          dayBefore,
          three,
          long,
          short,
          without,
          withJob,
          cjkTopics: cjk.map((g) => g.key),
        },
      },
    };
  } finally {
    if (kept === undefined) await rm(root, { recursive: true, force: true });
    await rm(longRoot, { recursive: true, force: true });
  }
}

/** `gaps` over one day: its goals, and the other checkout's runs (`MINTLIFY_BENCH_BEFORE`) when there are some. */
function dayFigures(day: readonly TopicsChildOutput[], before: readonly TopicsChildOutput[]): BenchResult['figures'] {
  return {
    'topics.day200k.ms': judged(
      ms(day),
      'ms',
      '<=',
      5000,
      `gaps (findGaps, --top 20) over one day of ${DISTINCT.toLocaleString('en')} distinct unanswered questions, fresh process, median of ${RUNS}`,
    ),
    'topics.day200k.peak_rss': judged(rss(day), 'bytes', '<=', 300 * MB, 'peak RSS of that process (the bundled child, DuckDB included), the most of the runs'),
    'topics.day200k.cpu_ms': info(cpu(day), 'ms', 'CPU time of that run (every thread), median'),
    ...(before.length === 0
      ? {}
      : {
          'topics.day200k.before.ms': info(ms(before), 'ms', 'the same run of MINTLIFY_BENCH_BEFORE, alternately, median'),
          'topics.day200k.before.peak_rss': info(rss(before), 'bytes', 'its peak RSS, the most of the runs'),
          'topics.day200k.before.cpu_ms': info(cpu(before), 'ms', 'its CPU time, median'),
        }),
  };
}

const ms = (runs: readonly TopicsChildOutput[]) => median(runs.map((r) => r.ms));
const rss = (runs: readonly TopicsChildOutput[]) => Math.max(...runs.map((r) => r.maxRssKiB)) * 1024;
const cpu = (runs: readonly TopicsChildOutput[]) => median(runs.map((r) => r.cpuMs));

/** `report` over the three days without, then with, a completed job for `gapId` (planted, then taken away), REPORT_RUNS times. */
async function reportRuns(
  root: string,
  gapId: string,
  days: readonly string[],
  bundle: string | undefined,
): Promise<{ without: TopicsChildOutput[]; withJob: TopicsChildOutput[] }> {
  const now = Date.parse(`${addDays(LAST_DAY, 1)}T06:00:00Z`);
  const report: TopicsChildInput = { run: 'report', root, from: days[0] as string, to: addDays(LAST_DAY, 1), now };
  const [without, withJob]: [TopicsChildOutput[], TopicsChildOutput[]] = [[], []];
  for (let run = 0; run < REPORT_RUNS; run += 1) {
    without.push(await runChild(report, bundle));
    const record = await plantCompletedJob(root, gapId, days[1] as string);
    try {
      withJob.push(await runChild(report, bundle));
    } finally {
      await rm(path.join(root, record), { force: true });
    }
  }
  return { without, withJob };
}

/** The report's figures: with a completed job ÷ without, in time and peak RSS. */
function reportFigures(without: readonly TopicsChildOutput[], withJob: readonly TopicsChildOutput[]): BenchResult['figures'] {
  return {
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
    'topics.report.with_job.cpu_ms': info(cpu(withJob), 'ms', 'its CPU time (every thread), median'),
    'topics.report.without.cpu_ms': info(cpu(without), 'ms', 'CPU time without a gap job, median'),
  };
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
