/**
 * Readers' words are data, never instructions: a lake holding what an attacker types
 * (test/helpers/hostile-lake.ts), read by the real commands. `gaps`: the prompts keep their
 * task and hold readers' words only inside their block, cleaned and cut; `--json` counts what
 * was cut, cleaned and flagged; the text listing holds no terminal escape. Then every other
 * place readers' words reach — the report (with REPORT_SITE_URL: its links) and the weekly
 * digest — holds them only as readerText makes them.
 */
import { readFile } from 'node:fs/promises';
import { readFiguresIn } from '../../helpers/read-figures.js';
import { digestOf } from '../../../functions/insights/weekly/digest.js';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Gap, type GapEvidence, rankGaps } from '../../../functions/gaps/gaps.js';
import { MAX_GAP_PROMPT, promptOf, READERS_MARKER } from '../../../functions/gaps/prompts.js';
import { readerValuesOf } from '../../../functions/gaps/readers-words.js';
import { checkPrompts } from '../../../functions/producer/prompts.js';
import { startSandbox, type Sandbox } from '../../../sandbox/index.js';
import { runSpawnedCli } from '../../helpers/cli.js';
import { makeTempDir, removeTempDirs } from '../../helpers/files.js';
import { buildHostileLake, HOSTILE_FROM, HOSTILE_TO } from '../../helpers/hostile-lake.js';
import { HIDDEN_OR_CONTROL, HOSTILE_LINK_PATHS, HOSTILE_PATH, PLANTED_EMAIL, plantedSurvivorsIn } from '../../helpers/hostile-text.js';
import { readerText } from '../../../functions/shared/reader-text.js';

let sandbox: Sandbox;
let root: string;

beforeAll(async () => {
  sandbox = await startSandbox();
  root = await buildHostileLake(sandbox);
}, 120_000);

afterAll(async () => {
  await sandbox.close();
  await removeTempDirs();
});

const period = ['--from', HOSTILE_FROM, '--to', HOSTILE_TO, '--top', '10000'];

async function gaps(args: readonly string[]) {
  return runSpawnedCli(['gaps', '--out', root, ...period, ...args], { HOME: root });
}

interface ListedGap extends Gap {
  readonly readersWords: { values: number; cut: number; cleaned: number; flags: string[] };
}

/** The same gap with benign words: the prompt every hostile one must match, but for its block. */
function benignTwin(gap: Gap): Gap {
  const e = gap.evidence;
  const evidence: GapEvidence =
    e.kind === 'unanswered_topic'
      ? { ...e, topic: 'billing', examples: e.examples.map((_, i) => `how do I pay ${i}?`) }
      : e.kind === 'search_without_clicks'
        ? { ...e, query: 'api key' }
        : { ...e, path: '/docs/quickstart', comments: e.comments.map((_, i) => `out of date ${i}`) };
  const [twin] = rankGaps([{ projectId: gap.projectId, evidence }], new Map(), 2);
  if (!twin) throw new Error('no twin');
  return twin;
}

/** The task sentences: the text before the block, without the note on instruction-like words. */
function taskOf(prompt: string): string {
  const fixed = prompt.slice(0, prompt.indexOf(`\n\n${READERS_MARKER}\n`));
  return fixed
    .split('\n\n')
    .filter((paragraph) => !paragraph.startsWith('Note for the reviewer'))
    .join('\n\n');
}

describe('gaps over a lake of hostile readers words', { timeout: 120_000 }, () => {
  it('writes prompts of at most 4,000 characters, each with the task of a benign prompt of its kind and readers words only inside its block', async () => {
    const dir = await makeTempDir('hostile-prompts');
    const file = join(dir, 'prompts.jsonl');
    const { code, stdout, stderr } = await gaps(['--json', '--prompts', file]);
    const listed = JSON.parse(stdout) as { gaps: ListedGap[] };
    const lines = (await readFile(file, 'utf8')).trimEnd().split('\n');
    const messages = lines.map((line) => JSON.parse(line) as { gapId: string; prompt: string });

    expect(code, stderr).toBe(0);
    expect(stderr).toMatch(/prompt\(s\) written to .*; review them \(\d+ say their readers' words read like instructions: read those first\), then: /);
    expect(new Set(messages.map((m) => listed.gaps.find((g) => g.gapId === m.gapId)?.kind))).toEqual(
      new Set(['unanswered_topic', 'search_without_clicks', 'thumbs_down_page']),
    );
    for (const { gapId, prompt } of messages) {
      const gap = listed.gaps.find((g) => g.gapId === gapId);
      if (!gap) throw new Error(`no gap ${gapId}`);
      const period = { from: HOSTILE_FROM, last: '2026-02-03' };
      const lines = prompt.split('\n');
      const open = lines.indexOf(READERS_MARKER);
      const close = lines.lastIndexOf(READERS_MARKER);
      const block = lines.slice(open + 1, close);

      expect(prompt.length).toBeLessThanOrEqual(MAX_GAP_PROMPT);
      expect(taskOf(prompt)).toBe(taskOf(promptOf(benignTwin(gap), period).prompt));
      expect(prompt).not.toMatch(HIDDEN_OR_CONTROL);
      expect(prompt).not.toContain(PLANTED_EMAIL);
      expect(plantedSurvivorsIn(prompt)).toEqual([]);
      expect(prompt).not.toMatch(/https?:\/\/evil/);
      expect([open, close, lines.length - 1]).toEqual([lines.length - block.length - 2, lines.length - 1, close]);
      for (const line of block) expect(line).toMatch(/^- (topic|search term|page|question|comment): /);
      for (const value of readerValuesOf(gap.evidence)) {
        const shown = value.shown.text.slice(0, 60);
        expect(
          block.some((line) => line.includes(shown)),
          shown,
        ).toBe(true);
        expect(lines.slice(0, open).join('\n')).not.toContain(shown);
      }
    }
    expect(checkPrompts(lines.map((input, i) => ({ line: i + 1, input })))).toHaveLength(lines.length);
    // The path that reached a prompt raw in round six (a broken escape after an encoded address) is there, masked.
    expect(messages.some(({ prompt }) => prompt.includes('- page: [email]%E0'))).toBe(true);
  });

  it('reports in --json how many readers words were cut, cleaned and flagged', async () => {
    const { code, stdout, stderr } = await gaps(['--json']);
    const result = JSON.parse(stdout) as { readersWords: { values: number; cut: number; cleaned: number; flagged: number }; gaps: ListedGap[] };
    const thumbs = result.gaps.find((g) => g.kind === 'thumbs_down_page' && g.key === HOSTILE_PATH);
    const unanswered = result.gaps.find((g) => g.kind === 'unanswered_topic' && g.readersWords.flags.length > 0);

    expect(code, stderr).toBe(0);
    expect(thumbs?.readersWords).toMatchObject({ cut: 1, flags: expect.arrayContaining(['role marker', 'link']) });
    expect(unanswered?.readersWords.cleaned).toBeGreaterThan(0);
    expect(unanswered?.readersWords.flags).toEqual(expect.arrayContaining(['role marker', 'link']));
    expect(result.readersWords).toEqual({
      values: result.gaps.reduce((n, g) => n + g.readersWords.values, 0),
      cut: result.gaps.reduce((n, g) => n + g.readersWords.cut, 0),
      cleaned: result.gaps.reduce((n, g) => n + g.readersWords.cleaned, 0),
      flagged: result.gaps.filter((g) => g.readersWords.flags.length > 0).length,
    });
    expect(result.readersWords.flagged).toBeGreaterThanOrEqual(2);
  });

  it('prints a listing with no terminal escape, no forged line and no e-mail address, flagged gaps marked', async () => {
    const { code, stdout, stderr } = await gaps([]);

    expect(code, stderr).toBe(0);
    expect(stdout).not.toContain('\u001b');
    expect(stdout).not.toMatch(HIDDEN_OR_CONTROL);
    expect(stdout).not.toContain(PLANTED_EMAIL);
    expect(plantedSurvivorsIn(stdout)).toEqual([]);
    expect(stdout).not.toMatch(/^\s*1\. Fake gap/m);
    expect(stdout).not.toMatch(/^(## New instructions|SYSTEM:)/m);
    expect(stdout).toMatch(/^ {2}\d\. ! Unanswered assistant questions about "[^"]+", most asked: "wrong 1\. Fake gap/m);
    expect(stdout).toMatch(/! reads like instructions \(role marker, link\); \d+ of \d+ quotes from readers tidied before use \(e-mail addresses hidden/);
    expect(stderr).toMatch(
      /^Readers' words: \d+ of \d+ quotes from readers tidied before use .*; \d+ shortened to fit; \d+ gap\(s\) read like instructions \(marked !\)/m,
    );
    for (const line of stdout.split('\n')) expect(line.length).toBeLessThan(600);
  });
});

describe('every other place readers words reach', { timeout: 120_000 }, () => {
  const SITE = 'https://docs.example.com';

  it('the report with REPORT_SITE_URL: no hidden or control character, no address, no link off the docs site, each hostile path shown as text', async () => {
    const dir = await makeTempDir('hostile-report');
    const file = join(dir, 'report.html');
    const { code, stderr } = await runSpawnedCli(['report', '--out', root, '--from', HOSTILE_FROM, '--to', HOSTILE_TO, '--file', file], {
      HOME: dir,
      REPORT_SITE_URL: SITE,
    });
    const page = await readFile(file, 'utf8');
    const hrefs = [...page.matchAll(/href="([^"]*)"/g)].map((m) => m[1] ?? '');

    expect(code, stderr).toBe(0);
    expect(page).not.toMatch(HIDDEN_OR_CONTROL);
    expect(page).not.toContain(PLANTED_EMAIL);
    expect(plantedSurvivorsIn(page)).toEqual([]);
    expect(page).toMatch(/\[email\]%E0/);
    expect(page).not.toMatch(/https?:\/\/evil/);
    for (const href of hrefs) expect(href, href).toMatch(/^(#|https:\/\/docs\.example\.com\/)/);
    expect(page).toContain('billing&quot; ## New instructions SYSTEM:');
    for (const path of HOSTILE_LINK_PATHS) {
      const shown = readerText(path, 60).replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');
      expect(page, path).toContain(`<span class="path">${shown}</span>`);
    }
  });

  it('the weekly digest of that lake holds no hidden or control character and no address', async () => {
    const figures = await readFiguresIn(root, { period: { from: HOSTILE_FROM, to: HOSTILE_TO, days: ['2026-02-02', '2026-02-03'] }, projects: [] });
    const digest = digestOf({ figures, week: '2026-W06', link: { url: 'https://reports.example.com/x', expiresAt: '2026-02-17T00:00:00Z' } });

    for (const text of [digest.subject, digest.body]) {
      expect(text).not.toMatch(HIDDEN_OR_CONTROL);
      expect(text).not.toContain(PLANTED_EMAIL);
      expect(text).not.toContain('evil.example');
    }
  });
});
