/**
 * `mintlify-exporter gaps` in this process (the text listing as a real process) over a sandbox export: the gaps and their numbers
 * against independent DuckDB queries of the exported Parquet, ids stable across runs and
 * periods, `--json` one document, `--prompts` lines the producer accepts as they are, gaps
 * with a job in flight or done left out of the prompts, and the exit codes.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOutcome, createOutcomeSink } from '../../../functions/follow-up/outcome.js';
import { createStateStore } from '../../../functions/follow-up/state.js';
import type { Gap } from '../../../functions/gaps/gaps.js';
import { FAILURES_RULE, gapIdOf, SCORE_RULE } from '../../../functions/gaps/gaps.js';
import { checkPrompts } from '../../../functions/producer/prompts.js';
import { openDestination } from '../../../functions/shared/storage/destinations.js';
import { createLocalStore } from '../../../functions/shared/storage/shared-store-local.js';
import { startSandbox } from '../../../sandbox/index.js';
import { cachedLake } from '../../helpers/lake-cache.js';
import { runCliAt, runCliInProcess, runSpawnedCli } from '../../helpers/cli.js';
import { makeTempDir, removeTempDirs } from '../../helpers/files.js';
import { queryDuckDb } from '../../helpers/read-back.js';
import { readerText } from '../../../functions/shared/reader-text.js';
import { inTopic, termsOfKey } from '../../../functions/gaps/topics.js';
import { termsOf } from '../../../functions/gaps/terms.js';

const PROJECTS = ['proj_small', 'proj_medium'];
const FROM = '2026-01-10';
const TO = '2026-01-13';

let root: string;

// The sandbox's export, made once per content of the tree (test/helpers/lake-cache.ts); each run reads its own copy.
beforeAll(async () => {
  ({ root } = await cachedLake('cli-gaps', async (folder) => {
    const sandbox = await startSandbox();
    try {
      const args = ['export', '--from', FROM, '--to', TO, '--out', folder, '--dataset', 'searches', '--dataset', 'feedback', '--dataset', 'assistant'];
      const { code, stderr } = await runCliAt(sandbox, [...args, ...PROJECTS.flatMap((p) => ['--project', p])], { now: Date.UTC(2026, 0, 20) });
      expect(code, stderr).toBe(0);
    } finally {
      await sandbox.close();
    }
  }));
}, 120_000);

afterAll(async () => {
  await removeTempDirs();
});

/** `gaps` over `dir` in this process with the real clock; with `spawned`, the bin in a child process. */
async function gaps(args: readonly string[], dir = root, options: { readonly spawned?: boolean } = {}) {
  const argv = ['gaps', '--out', dir, ...args];
  if (options.spawned) return runSpawnedCli(argv, { HOME: dir });
  return runCliInProcess(argv, { env: { HOME: dir }, now: () => Date.now() });
}

async function gapsJson(args: readonly string[]): Promise<{ gaps: Gap[]; projects: string[]; scoring: unknown }> {
  const { code, stdout, stderr } = await gaps([...args, '--json']);
  expect(code, stderr).toBe(0);
  expect(stdout.trimEnd().split('\n')).toHaveLength(1);
  return JSON.parse(stdout);
}

/**
 * The gaps' figures computed apart from queries/: `kind|project|key` → figure. A topic's: its
 * unanswered questions read straight from Parquet, those holding every key term of the topics
 * listed (`topics`); the topics themselves come from the run.
 */
async function independentFigures(topics: readonly Gap[]): Promise<Map<string, number>> {
  const files = (table: string) => `'${join(root, table, '*', '*.parquet').replace(/'/g, "''")}'`;
  const inPeriod = `date >= DATE '${FROM}' AND date < DATE '${TO}'`;
  const questions = await unansweredQuestions();
  const unanswered = topics.map((gap) => ({
    project_id: gap.projectId,
    k: gap.key,
    n: questions.filter((q) => q.projectId === gap.projectId && inTopic(termsOf(q.query), termsOfKey(gap.key))).reduce((sum, q) => sum + q.n, 0),
  }));
  const searches = await queryDuckDb(
    `SELECT project_id, lower(search_query) AS k, sum(hits) AS n FROM read_parquet(${files('searches')})
     WHERE ${inPeriod} GROUP BY 1, 2 HAVING bool_and(top_clicked_page IS NULL)`,
  );
  const thumbs = await queryDuckDb(
    `SELECT project_id, path AS k, count(*) AS n FROM read_parquet(${files('feedback')})
     WHERE ${inPeriod} AND helpful IS FALSE GROUP BY 1, 2`,
  );
  const figures = new Map<string, number>();
  for (const [kind, rows] of [
    ['unanswered_topic', unanswered],
    ['search_without_clicks', searches],
    ['thumbs_down_page', thumbs],
  ] as const) {
    for (const row of rows) figures.set(`${kind}|${row['project_id']}|${row['k']}`, Number(row['n']));
  }
  return figures;
}

/** The period's unanswered questions read straight from Parquet: project, text, times. */
async function unansweredQuestions(): Promise<{ projectId: string; query: string; n: number }[]> {
  const files = `'${join(root, 'assistant_conversations', '*', '*.parquet').replace(/'/g, "''")}'`;
  const rows = await queryDuckDb(
    `SELECT project_id, query, count(*) AS n FROM read_parquet(${files})
     WHERE date >= DATE '${FROM}' AND date < DATE '${TO}' AND resolution_status = 'unanswered' GROUP BY 1, 2`,
  );
  return rows.map((r) => ({ projectId: String(r['project_id']), query: String(r['query']), n: Number(r['n']) }));
}

describe('mintlify-exporter gaps (a real process over a sandbox export)', () => {
  it('lists every gap with the figure an independent query gives (failures), ranked by score, in one JSON document that says how the score is made', async () => {
    const result = await gapsJson(['--from', FROM, '--to', TO, '--top', '10000']);
    const expected = await independentFigures(result.gaps.filter((g) => g.kind === 'unanswered_topic'));

    expect(result.projects).toEqual([...PROJECTS].sort());
    expect(result.scoring).toEqual({ score: SCORE_RULE, failures: FAILURES_RULE });
    expect(result.gaps).toHaveLength(expected.size);
    expect(new Map(result.gaps.map((g) => [`${g.kind}|${g.projectId}|${g.key}`, g.failures]))).toEqual(expected);
    // The score: a page's thumbs down, a term's searches, the times a topic's three most asked questions went unanswered.
    for (const gap of result.gaps) {
      const named = gap.evidence.kind === 'unanswered_topic' ? (gap.evidence.asked ?? []).slice(0, 3).reduce((sum, n) => sum + n, 0) : gap.failures;
      expect(gap.score, gap.title).toBe(named);
    }
    expect(result.gaps.map((g) => g.score)).toEqual(result.gaps.map((g) => g.score).sort((a, b) => b - a));
    for (const gap of result.gaps) expect(gap.gapId).toBe(gapIdOf(gap.kind, gap.projectId, gap.key));
    expect(new Set(result.gaps.map((g) => g.kind))).toEqual(new Set(['unanswered_topic', 'search_without_clicks', 'thumbs_down_page']));
  });

  it('puts every unanswered question of the period in a topic whose key terms it holds', async () => {
    const listed = await gapsJson(['--from', FROM, '--to', TO, '--top', '10000', '--kind', 'unanswered_topic']);
    const topics = listed.gaps;
    const questions = await unansweredQuestions();
    expect((listed as unknown as { unplacedQuestions: unknown }).unplacedQuestions).toEqual({ questions: 0, unanswered: 0 });

    expect(questions.length).toBeGreaterThan(0);
    const homeless = questions.filter((q) => !topics.some((g) => g.projectId === q.projectId && inTopic(termsOf(q.query), termsOfKey(g.key))));
    expect(homeless.map((q) => q.query)).toEqual([]);
  });

  it('--kind thumbs_down_page --json lists only that kind; --kind repeats; another word exits 2 naming the kinds', async () => {
    const thumbs = await gapsJson(['--from', FROM, '--to', TO, '--top', '10000', '--kind', 'thumbs_down_page']);
    const two = await gapsJson(['--from', FROM, '--to', TO, '--top', '10000', '--kind', 'thumbs_down_page', '--kind', 'search_without_clicks']);
    const wrong = await gaps(['--from', FROM, '--to', TO, '--kind', 'pages']);

    expect(thumbs.gaps.length).toBeGreaterThan(0);
    expect(new Set(thumbs.gaps.map((g) => g.kind))).toEqual(new Set(['thumbs_down_page']));
    expect(new Set(two.gaps.map((g) => g.kind))).toEqual(new Set(['thumbs_down_page', 'search_without_clicks']));
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/--kind.*thumbs_down_page/);
  });

  it('an unanswered-questions gap names its topic and its most asked question, as an independent query counts the same question', async () => {
    const { gaps: found } = await gapsJson(['--from', FROM, '--to', TO, '--top', '10000', '--kind', 'unanswered_topic']);
    const files = `'${join(root, 'assistant_conversations', '*', '*.parquet').replace(/'/g, "''")}'`;
    const asked = await queryDuckDb(
      `SELECT project_id, trim(regexp_replace(lower(query), '\\s+', ' ', 'g'), ' ?!.') AS question, count(*) AS n
       FROM read_parquet(${files}) WHERE date >= DATE '${FROM}' AND date < DATE '${TO}' AND resolution_status = 'unanswered'
       GROUP BY 1, 2`,
    );
    expect(found.length).toBeGreaterThan(0);
    for (const gap of found) {
      if (gap.evidence.kind !== 'unanswered_topic') throw new Error(gap.kind);
      const key = termsOfKey(gap.key);
      const counts = asked.filter((r) => r['project_id'] === gap.projectId && inTopic(termsOf(String(r['question'])), key)).map((r) => Number(r['n']));
      expect(gap.evidence.asked?.[0], gap.title).toBe(Math.max(...counts));
      // A title shows readers' words through the one cleaning (shared/reader-text.ts).
      expect(gap.title).toContain(`about "${readerText(gap.evidence.topic, 'category')}"`);
      expect(gap.title).toContain(`most asked: "${readerText(gap.evidence.examples[0] ?? '', 'quote')}"`);
    }
  });

  it('says how many days of the period had data', async () => {
    const result = (await gapsJson(['--from', FROM, '--to', '2026-01-20', '--top', '3'])) as unknown as { days: number; daysWithData: number };
    const { stdout } = await gaps(['--from', FROM, '--to', '2026-01-20', '--top', '3']);

    expect(result).toMatchObject({ days: 10, daysWithData: 3 });
    expect(stdout).toContain('data on 3 of 10 day(s)');
  });

  it('gives a gap the same id on every run and in another period', async () => {
    const first = await gapsJson(['--from', FROM, '--to', TO, '--top', '10000']);
    const again = await gapsJson(['--from', FROM, '--to', TO, '--top', '10000']);
    const shorter = await gapsJson(['--from', FROM, '--to', '2026-01-11', '--top', '10000', '--project', 'proj_small']);

    expect(again.gaps).toEqual(first.gaps);
    const idOf = new Map(first.gaps.map((g) => [`${g.kind}|${g.projectId}|${g.key}`, g.gapId]));
    const shared = shorter.gaps.filter((g) => idOf.has(`${g.kind}|${g.projectId}|${g.key}`));
    expect(shared.length).toBeGreaterThan(0);
    for (const gap of shared) expect(gap.gapId).toBe(idOf.get(`${gap.kind}|${gap.projectId}|${gap.key}`));
  });

  it('prints the ranked gaps with their evidence as text', async () => {
    const { code, stdout } = await gaps(['--from', FROM, '--to', TO, '--top', '3'], root, { spawned: true });
    const { gaps: top } = await gapsJson(['--from', FROM, '--to', TO, '--top', '3']);

    expect(code).toBe(0);
    expect(stdout).toMatch(
      new RegExp(`^The 3 most severe gap\\(s\\) in .+, ${FROM} to 2026-01-12 \\(2 project\\(s\\); data on 3 of 3 day\\(s\\)\\); open gaps first\\n`),
    );
    expect(stdout.split('\n')[1]).toMatch(/^Score: readers failed by what the gap names: .+\("of N": N is the gap's whole count: .+\)$/);
    for (const [i, gap] of top.entries()) {
      const of = gap.failures === gap.score ? '' : ` of ${gap.failures}`;
      expect(stdout).toContain(`${i + 1}. ${gap.title} — ${gap.projectId}, score ${gap.score}${of} [${gap.kind} ${gap.gapId}]`);
      expect(stdout).toContain(`     ${gap.because}\n`);
    }
  });

  it('writes prompts the producer accepts as they are, new jobs with their gap, and leaves out gaps with a job in flight or done', async () => {
    const dir = await makeTempDir('gaps-prompts');
    const file = join(dir, 'prompts.jsonl');
    const { gaps: top } = await gapsJson(['--from', FROM, '--to', TO, '--top', '5']);
    const [done, inFlight, failed] = top as [Gap, Gap, Gap];
    // A finished job for the first gap, a request in flight for the second, a failed one for the third.
    const sink = createOutcomeSink(openDestination(root));
    const outcome = (gap: Gap, status: 'completed' | 'failed') =>
      buildOutcome({
        requestId: `${gap.gapId}-r1`,
        projectId: gap.projectId,
        jobId: `job_for_${gap.gapId}`,
        kind: 'create',
        gapId: gap.gapId,
        promptLength: 10,
        promptSha256: 'ab'.repeat(32),
        status,
        prLink: status === 'completed' ? 'https://github.com/o/r/pull/9' : null,
        sentAt: Date.UTC(2026, 0, 14),
        finishedAt: Date.UTC(2026, 0, 15),
        polls: 2,
        attempts: 1,
      });
    await sink.write(outcome(done, 'completed'));
    await sink.write(outcome(failed, 'failed'));
    const state = createStateStore(createLocalStore(join(root, '.followup-state')));
    await state.put(
      {
        requestId: `${inFlight.gapId}-r1`,
        projectId: inFlight.projectId,
        kind: 'create',
        gapId: inFlight.gapId,
        promptLength: 10,
        promptSha256: 'cd'.repeat(32),
        failures: 0,
        attempts: 0,
        expiresAt: 2_000_000_000,
        phase: 'pending',
        pendingSince: Date.UTC(2026, 0, 16),
      },
      undefined,
    );

    const { code, stderr } = await gaps(['--from', FROM, '--to', TO, '--top', '5', '--prompts', file]);
    const text = await readFile(file, 'utf8');
    const lines = text.trimEnd().split('\n');
    const messages = lines.map((line) => JSON.parse(line) as Record<string, string>);
    const { gaps: marked } = await gapsJson(['--from', FROM, '--to', TO, '--top', '5']);

    expect(code, stderr).toBe(0);
    // --top lists open gaps first: the finished and the in-flight gap make room for the next open ones.
    expect(stderr).toContain(`5 prompt(s) written to ${file}`);
    expect(messages.map((m) => m['gapId']).slice(0, 3)).toEqual([failed, ...top.slice(3)].map((g) => g.gapId));
    expect(messages.map((m) => m['gapId'])).toHaveLength(5);
    expect(messages.map((m) => m['gapId'])).not.toContain(done.gapId);
    expect(messages.map((m) => m['gapId'])).not.toContain(inFlight.gapId);
    expect(messages.find((m) => m['gapId'] === failed.gapId)?.['requestId']).toBe(`${failed.gapId}-r2`);
    for (const message of messages) {
      expect(Object.keys(message).sort()).toEqual(['gapId', 'projectId', 'prompt', 'requestId']);
      expect(message['prompt']).toMatch(new RegExp(`between ${FROM} and 2026-01-12`));
    }
    expect(checkPrompts(lines.map((input, i) => ({ line: i + 1, input }))).map((p) => p.jobId)).toEqual(messages.map(() => undefined));
    expect(marked.map((g) => g.gapId)).toEqual(messages.map((m) => m['gapId']));
    expect(marked.map((g) => g.requests[0]?.state ?? null)).toEqual(['done', null, null, null, null]);
    expect(marked.map((g) => g.promptable)).toEqual([true, true, true, true, true]);
  }, 120_000);

  it('exits 1 with one line when nothing was exported for the days asked', async () => {
    const { code, stdout, stderr } = await gaps(['--from', '2025-03-01', '--to', '2025-03-05']);

    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr.trimEnd().split('\n')).toEqual([
      expect.stringMatching(/^No gaps: nothing exported in .+ from 2025-03-01 to 2025-03-04: run "mintlify-exporter export" first/),
    ]);
  });

  it('exits 1 when the project asked for has nothing exported', async () => {
    const { code, stderr } = await gaps(['--from', FROM, '--to', TO, '--project', 'proj_large']);

    expect(code).toBe(1);
    expect(stderr).toMatch(/^No gaps: nothing exported .* for proj_large/);
  });

  it.each([
    [['--top', '0'], /--top/],
    [['--days', 'x'], /--days/],
    [['--days', '3', '--from', FROM], /--days.*--from|--from.*--days/],
    [['--frm', FROM], /unknown option '--frm'/],
  ])('exits 2 for the bad flag %j', async (args, message) => {
    const { code, stderr } = await gaps(args);

    expect(code).toBe(2);
    expect(stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(stderr).toMatch(message);
  });

  it('exits 2 before any work when --prompts names a folder or a file in a missing folder', async () => {
    const dir = await makeTempDir('gaps-bad-prompts');
    await mkdir(join(dir, 'sub'));
    await writeFile(join(dir, 'keep.txt'), 'x');

    const folder = await gaps(['--from', FROM, '--to', TO, '--prompts', join(dir, 'sub')]);
    const missing = await gaps(['--from', FROM, '--to', TO, '--prompts', join(dir, 'nope', 'p.jsonl')]);

    expect(folder.code).toBe(2);
    expect(folder.stderr).toMatch(/--prompts .+ is a folder/);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/--prompts .+ cannot be written/);
    expect(folder.stdout + missing.stdout).toBe('');
  });
});
