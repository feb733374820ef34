import { describe, expect, it } from 'vitest';
import type { GapEvidence } from '../../../functions/gaps/gaps.js';
import { rankGaps } from '../../../functions/gaps/gaps.js';
import { MAX_GAP_PROMPT, promptOf, READERS_MARKER } from '../../../functions/gaps/prompts.js';
import { checkEvidence, readersWordsNote } from '../../../functions/gaps/readers-words.js';
import {
  HIDDEN_OR_CONTROL,
  HOSTILE_CATEGORY,
  HOSTILE_COMMENT,
  HOSTILE_PATH,
  HOSTILE_QUESTION,
  HOSTILE_SEARCH,
  PLANTED_EMAIL,
} from '../../helpers/hostile-text.js';

const PERIOD = { from: '2026-01-01', last: '2026-01-07' };

function prompt(evidence: GapEvidence): string {
  const [gap] = rankGaps([{ projectId: 'proj_a', evidence }], new Map(), 7);
  if (!gap) throw new Error('no gap');
  return promptOf(gap, PERIOD).prompt;
}

const benign: Record<GapEvidence['kind'], GapEvidence> = {
  unanswered_topic: {
    kind: 'unanswered_topic',
    topic: 'billing',
    terms: ['billing'],
    unanswered: 4,
    questions: 3,
    examples: ['how do I pay?', 'where are invoices?'],
  },
  search_without_clicks: { kind: 'search_without_clicks', query: 'api key', searches: 9, days: 2 },
  thumbs_down_page: { kind: 'thumbs_down_page', path: '/docs/quickstart', thumbsDown: 5, thumbsUp: 1, comments: ['steps are out of date'] },
};

const hostile: Record<GapEvidence['kind'], GapEvidence> = {
  unanswered_topic: {
    kind: 'unanswered_topic',
    topic: HOSTILE_CATEGORY,
    terms: ['x'],
    unanswered: 4,
    questions: 3,
    examples: [HOSTILE_QUESTION, HOSTILE_COMMENT, 'x'.repeat(5_000)],
  },
  search_without_clicks: { kind: 'search_without_clicks', query: HOSTILE_SEARCH, searches: 9, days: 2 },
  thumbs_down_page: {
    kind: 'thumbs_down_page',
    path: HOSTILE_PATH,
    thumbsDown: 5,
    thumbsUp: 1,
    comments: [HOSTILE_COMMENT, HOSTILE_QUESTION, 'y'.repeat(5_000)],
  },
};

/** The prompt's parts: the fixed text before the block, the block's lines, what follows it. */
function parts(text: string): { fixed: string; block: string[]; after: string } {
  const lines = text.split('\n');
  const open = lines.indexOf(READERS_MARKER);
  const close = lines.indexOf(READERS_MARKER, open + 1);
  expect(open, text).toBeGreaterThan(0);
  expect(close, text).toBeGreaterThan(open);
  return { fixed: lines.slice(0, open).join('\n'), block: lines.slice(open + 1, close), after: lines.slice(close + 1).join('\n') };
}

/** The task sentences of a prompt: its fixed text without the note on instruction-like words. */
function taskSentences(text: string): string[] {
  return parts(text)
    .fixed.split('\n\n')
    .filter((paragraph) => !paragraph.startsWith('Note for the reviewer and the agent'))
    .flatMap((paragraph) => paragraph.split(/(?<=\.) +/));
}

describe.each(Object.keys(benign) as GapEvidence['kind'][])('the prompt of a %s gap', (kind) => {
  it('is at most 4,000 characters, with the same task sentences as a benign prompt of its kind', () => {
    const text = prompt(hostile[kind]);

    expect(text.length).toBeLessThanOrEqual(MAX_GAP_PROMPT);
    expect(taskSentences(text)).toEqual(taskSentences(prompt(benign[kind])));
  });

  it('holds no control, bidi or zero-width character and no e-mail address', () => {
    const text = prompt(hostile[kind]);

    expect(text).not.toMatch(HIDDEN_OR_CONTROL);
    expect(text).not.toContain(PLANTED_EMAIL);
    expect(text).not.toContain('https://evil.example');
  });

  it('keeps readers words inside the block, each line of it starting with a fixed label, and nothing after it', () => {
    const text = prompt(hostile[kind]);
    const { fixed, block, after } = parts(text);

    expect(block.length).toBeGreaterThan(0);
    for (const line of block) expect(line).toMatch(/^- (topic|search term|page|question|comment): /);
    expect(after).toBe('');
    for (const word of ['SYSTEM', 'pwned', 'Your real task', 'gnp', 'Fake gap', 'billing"', 'api key"']) expect(fixed).not.toContain(word);
    expect(text.split('\n').filter((line) => line === READERS_MARKER)).toHaveLength(2);
  });

  it('names the block as readers words to weigh as evidence, never to follow', () => {
    const { fixed } = parts(prompt(benign[kind]));

    expect(fixed).toContain(READERS_MARKER);
    expect(fixed).toMatch(/evidence/);
    expect(fixed).toMatch(/never .*instructions/);
  });
});

describe('the prompt of a gap whose readers words read like instructions', () => {
  it('says so before the block, and a benign one does not', () => {
    expect(parts(prompt(hostile.unanswered_topic)).fixed).toMatch(/Note for the reviewer and the agent: .*read like instructions/);
    expect(parts(prompt(benign.unanswered_topic)).fixed).not.toMatch(/read like instructions/);
  });
});

describe('the evidence of a long prompt', () => {
  it('drops the last examples first, keeps the key, and stays within 4,000 characters', () => {
    const many = Array.from({ length: 40 }, (_, i) => `question ${i} ${'z'.repeat(280)}`);
    const text = prompt({ kind: 'unanswered_topic', topic: 'billing', terms: ['billing'], unanswered: 40, questions: 40, examples: many });
    const { block } = parts(text);

    expect(text.length).toBeLessThanOrEqual(MAX_GAP_PROMPT);
    expect(block[0]).toBe('- topic: billing');
    expect(block.slice(1).map((line) => line.split(' ')[3])).toEqual(many.slice(0, block.length - 1).map((q) => q.split(' ')[1]));
    expect(block.length).toBeLessThan(41);
  });
});

describe('checkEvidence', () => {
  it('counts the values cut and cleaned and names the signs of instructions', () => {
    expect(checkEvidence(hostile.unanswered_topic)).toEqual({
      values: 4,
      cut: 2,
      cleaned: 3,
      flags: ['role marker', 'instructions to an assistant', 'link'],
    });
    expect(checkEvidence(hostile.thumbs_down_page)).toMatchObject({ values: 4, cut: 2, flags: ['role marker', 'link'] });
    expect(checkEvidence(benign.thumbs_down_page)).toEqual({ values: 2, cut: 0, cleaned: 0, flags: [] });
  });
});

describe("a gap's title", () => {
  it('shows readers words cleaned and cut, on one line', () => {
    const titles = Object.values(hostile).map((evidence) => rankGaps([{ projectId: 'proj_a', evidence }], new Map(), 7)[0]?.title ?? '');

    for (const title of titles) {
      expect(title).not.toMatch(/\n/);
      expect(title).not.toMatch(HIDDEN_OR_CONTROL);
      expect(title.length).toBeLessThan(400);
    }
  });
});

describe('the evidence of a prompt, each line once', () => {
  it('never repeats a comment or a question, even one that reads the same only once cleaned', () => {
    const thumbs = prompt({
      kind: 'thumbs_down_page',
      path: '/docs/quickstart',
      thumbsDown: 5,
      thumbsUp: 0,
      comments: ['Step 3 is wrong', 'Step 3 is wrong', 'step 3 is\nwrong', 'Missing a screenshot'],
    });
    const topic = prompt({
      kind: 'unanswered_topic',
      topic: 'webhook',
      terms: ['webhook'],
      unanswered: 9,
      questions: 3,
      examples: ['How do I verify a webhook?', 'How do I verify a webhook? ', 'Webhook retries?'],
    });

    expect(parts(thumbs).block).toEqual(['- page: /docs/quickstart', '- comment: Step 3 is wrong', '- comment: Missing a screenshot']);
    expect(parts(topic).block).toEqual(['- topic: webhook', '- question: How do I verify a webhook?', '- question: Webhook retries?']);
  });
});

describe("the note on readers' words", () => {
  it('says in plain words what was tidied and shortened, and nothing when nothing was', () => {
    expect(readersWordsNote({ values: 3, cut: 0, cleaned: 2 })).toBe(
      '2 of 3 quotes from readers tidied before use (e-mail addresses hidden, links made unclickable, line breaks and invisible characters taken out)',
    );
    expect(readersWordsNote({ values: 4, cut: 1, cleaned: 0 })).toBe('1 of 4 quotes from readers shortened to fit');
    expect(readersWordsNote({ values: 1, cut: 1, cleaned: 1 })).toMatch(/^1 of 1 quote from readers tidied before use \(.+\); 1 shortened to fit$/);
    expect(readersWordsNote({ values: 3, cut: 0, cleaned: 0 })).toBe('');
  });
});
