/**
 * Gaps by topic (issue 41), over the sandbox's 30 days as a new user exports them: the real
 * `gaps --prompts` process writes one prompt per topic of unanswered questions, and each names
 * one topic and quotes at most five distinct questions that all hold the topic's words; no
 * prompt repeats a line of its evidence; a thumbs-down prompt quotes no praise.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Gap } from '../../../functions/gaps/gaps.js';
import { READERS_MARKER, type GapPrompt } from '../../../functions/gaps/prompts.js';
import { inTopic, termsOfKey, TOPIC_EXAMPLES } from '../../../functions/gaps/topics.js';
import { termsOf } from '../../../functions/gaps/terms.js';
import { readerText } from '../../../functions/shared/reader-text.js';
import { DEFAULT_PROJECTS, startSandbox } from '../../../sandbox/index.js';
import { PRAISE_COMMENTS } from '../../../sandbox/generators/text.js';
import { runCliAt, runSpawnedCli } from '../../helpers/cli.js';
import { removeTempDirs } from '../../helpers/files.js';
import { cachedLake } from '../../helpers/lake-cache.js';

const FROM = '2026-09-01';
const TO = '2026-10-01';
const NOW = Date.parse('2026-10-02T06:00:00Z');

let root: string;
let gaps: Gap[];
let prompts: GapPrompt[];

beforeAll(async () => {
  // The export, made once per content of the tree (test/helpers/lake-cache.ts); each run reads its own copy.
  ({ root } = await cachedLake('gaps-topics', async (folder) => {
    const sandbox = await startSandbox();
    try {
      // The small and medium projects: the large one's 30 days cost a minute and add nothing here.
      const projects = DEFAULT_PROJECTS.filter((project) => project.id !== 'proj_large').flatMap((project) => ['--project', project.id]);
      const exported = await runCliAt(
        sandbox,
        ['export', '--from', FROM, '--to', TO, '--out', folder, '--dataset', 'assistant', '--dataset', 'feedback', ...projects],
        { now: NOW },
      );
      expect(exported.code, exported.stderr).toBe(0);
    } finally {
      await sandbox.close();
    }
  }));
  const file = join(root, 'prompts.jsonl');
  const run = await runSpawnedCli(['gaps', '--out', root, '--from', FROM, '--to', TO, '--top', '10000', '--json', '--prompts', file], { HOME: root });
  expect(run.code, run.stderr).toBe(0);
  gaps = (JSON.parse(run.stdout) as { gaps: Gap[] }).gaps;
  prompts = (await readFile(file, 'utf8'))
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as GapPrompt);
}, 180_000);

afterAll(async () => {
  await removeTempDirs();
});

/** The lines of a prompt's block of readers' words. */
function blockOf(prompt: string): string[] {
  const lines = prompt.split('\n');
  const open = lines.indexOf(READERS_MARKER);
  const close = lines.indexOf(READERS_MARKER, open + 1);
  expect(close).toBeGreaterThan(open);
  return lines.slice(open + 1, close);
}

const gapOf = (prompt: GapPrompt) => {
  const gap = gaps.find((g) => g.gapId === prompt.gapId);
  if (gap === undefined) throw new Error(`no gap ${prompt.gapId}`);
  return gap;
};

describe('gaps by topic over the sandbox’s 30 days', () => {
  it('every unanswered-topic prompt names one topic and quotes at most five distinct questions holding its words', () => {
    const topical = prompts.filter((p) => gapOf(p).kind === 'unanswered_topic');

    expect(topical.length).toBeGreaterThan(10);
    expect(new Set(topical.map((p) => p.projectId)).size).toBe(2);
    for (const prompt of topical) {
      const gap = gapOf(prompt);
      if (gap.evidence.kind !== 'unanswered_topic') throw new Error(gap.kind);
      const block = blockOf(prompt.prompt);
      const topics = block.filter((line) => line.startsWith('- topic: '));
      const questions = block.filter((line) => line.startsWith('- question: ')).map((line) => line.slice('- question: '.length));

      expect(topics, prompt.prompt).toEqual([`- topic: ${readerText(gap.evidence.topic, 'category')}`]);
      expect(gap.title).toContain(`about "${readerText(gap.evidence.topic, 'category')}"`);
      expect(questions.length, prompt.prompt).toBeGreaterThan(0);
      expect(questions.length, prompt.prompt).toBeLessThanOrEqual(TOPIC_EXAMPLES);
      expect(new Set(questions.map((q) => q.toLowerCase())).size, prompt.prompt).toBe(questions.length);
      for (const question of questions) expect(inTopic(termsOf(question), termsOfKey(gap.key)), `${question} / ${gap.key}`).toBe(true);
    }
  });

  it('no prompt repeats a line of its evidence', () => {
    expect(prompts.length).toBeGreaterThan(20);
    for (const prompt of prompts) {
      const block = blockOf(prompt.prompt);
      expect(new Set(block).size, prompt.prompt).toBe(block.length);
    }
  });

  it('a thumbs-down prompt quotes no praise', () => {
    const praise = new Set(PRAISE_COMMENTS.map((comment) => readerText(comment, 'quote')));
    const thumbs = prompts.filter((p) => gapOf(p).kind === 'thumbs_down_page');

    expect(thumbs.length).toBeGreaterThan(0);
    const quoted = thumbs.flatMap((p) => blockOf(p.prompt).filter((line) => line.startsWith('- comment: ')));
    expect(quoted.length).toBeGreaterThan(0);
    for (const line of quoted) expect(praise.has(line.slice('- comment: '.length)), line).toBe(false);
  });
});
