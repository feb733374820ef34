/**
 * The unanswered questions of a session held once (issue 57, gaps/bank.ts): the same question on
 * several days and in several widths is one question, any range of the days read gives its own
 * counts and the text of its latest day, and a text read before is not read again.
 */
import { describe, expect, it } from 'vitest';
import { QuestionBank } from '../../../functions/gaps/bank.js';
import { groupPacked, termsOfKey, topicMatcher } from '../../../functions/gaps/topics.js';
import { Vocabulary } from '../../../functions/gaps/terms.js';

/** The rows of a question asked `times` on `day`, the last at `hour` (the query gives one row per time). */
const rows = (projectId: string, day: string, text: string, times: number, hour = 12) =>
  Array.from({ length: times }, (_, i) => ({ projectId, day, text, askedAt: Date.parse(`${day}T${String(hour).padStart(2, '0')}:00:00Z`) - i * 60_000 }));

const ROWS = [
  ...rows('proj_a', '2026-09-01', 'How do I verify webhooks?', 2),
  ...rows('proj_a', '2026-09-01', 'Rotate the API key', 1),
  // Asked earlier the same day in other words: the day's text is the latest.
  ...rows('proj_a', '2026-09-02', 'HOW DO I  verify webhooks', 1, 9),
  ...rows('proj_a', '2026-09-02', 'how do I verify WEBHOOKS', 1),
  // The same question in full width: `sameQuestion` folds width (the SQL fold does not).
  ...rows('proj_a', '2026-09-03', 'ＨＯＷ ＤＯ Ｉ ＶＥＲＩＦＹ ＷＥＢＨＯＯＫＳ', 4),
  ...rows('proj_b', '2026-09-02', 'How do I verify webhooks?', 7),
];

function bank(order: readonly (typeof ROWS)[number][] = ROWS): { bank: QuestionBank; vocabulary: Vocabulary; steps: { steps: number } } {
  const steps = { steps: 0 };
  const vocabulary = new Vocabulary(steps);
  const made = new QuestionBank(vocabulary, { from: '2026-09-01', to: '2026-09-04', projects: ['proj_a', 'proj_b'] });
  for (const r of order) made.add(r);
  return { bank: made, vocabulary, steps };
}

describe('a bank of unanswered questions', () => {
  it('holds the same question once whatever its day and width, with the counts and latest text of the range asked', () => {
    const { bank: made } = bank();
    const all = made.packed('proj_a', '2026-09-01', '2026-09-04');
    const first = made.packed('proj_a', '2026-09-01', '2026-09-03');

    const list = (p: ReturnType<QuestionBank['packed']>) => Array.from({ length: p.size }, (_, i) => [p.text(i), p.unanswered(i)]);
    expect(list(all)).toEqual([
      ['ＨＯＷ ＤＯ Ｉ ＶＥＲＩＦＹ ＷＥＢＨＯＯＫＳ', 8],
      ['Rotate the API key', 1],
    ]);
    expect(list(first)).toEqual([
      ['how do I verify WEBHOOKS', 4],
      ['Rotate the API key', 1],
    ]);
    expect(list(made.packed('proj_a', '2026-09-02', '2026-09-03'))).toEqual([['how do I verify WEBHOOKS', 2]]);
  });

  it('gives the same counts and texts whatever the order of the rows (DuckDB streams them unordered)', () => {
    const { bank: ordered } = bank();
    const { bank: reversed } = bank([...ROWS].reverse());
    const texts = (made: QuestionBank, from: string, to: string) => {
      const p = made.packed('proj_a', from, to);
      return Array.from({ length: p.size }, (_, i) => [p.text(i), p.unanswered(i)]).sort();
    };
    for (const [from, to] of [
      ['2026-09-01', '2026-09-04'],
      ['2026-09-02', '2026-09-03'],
    ] as const) {
      expect(texts(reversed, from, to)).toEqual(texts(ordered, from, to));
    }
  });

  it('groups a range into topics as groupTopics does, and counts a topic per day', () => {
    const { bank: made, vocabulary } = bank();
    const { topics } = groupPacked(made.packed('proj_a', '2026-09-01', '2026-09-04'), vocabulary);
    expect(topics.map((t) => [t.terms, t.unanswered])).toEqual([
      [['verify', 'webhook'], 8],
      [['api', 'key', 'rotat'], 1],
    ]);

    const gaps = [{ gapId: 'g1', projectId: 'proj_a', key: 'verify webhook' }];
    const match = topicMatcher(
      vocabulary,
      gaps.map((g) => termsOfKey(g.key)),
    );
    const figures = made.figuresByDay(gaps, match, '2026-09-01', '2026-09-04');
    expect([...(figures.get('g1') ?? [])]).toEqual([
      ['2026-09-01', 2],
      ['2026-09-02', 2],
      ['2026-09-03', 4],
    ]);
  });

  it('counts each gap per day in its own project only, its days in date order whatever order they were read in', () => {
    const { bank: made, vocabulary } = bank([...ROWS].reverse());
    const gaps = [
      { gapId: 'a', projectId: 'proj_a', key: 'verify webhook' },
      { gapId: 'b', projectId: 'proj_b', key: 'verify webhook' },
      { gapId: 'c', projectId: 'proj_a', key: 'api key' },
      { gapId: 'none', projectId: 'proj_c', key: 'verify webhook' },
    ];
    const match = topicMatcher(
      vocabulary,
      gaps.map((g) => termsOfKey(g.key)),
    );
    const figures = made.figuresByDay(gaps, match, '2026-09-02', '2026-09-04');
    expect([...figures].map(([gapId, days]) => [gapId, [...days]])).toEqual([
      [
        'a',
        [
          ['2026-09-02', 2],
          ['2026-09-03', 4],
        ],
      ],
      ['b', [['2026-09-02', 7]]],
    ]);
  });

  it('keeps two questions apart whose keys share a hash (the bank holds hashes, not keys)', () => {
    // These two folded texts have the same 30-bit FNV-1a hash.
    const [a, b] = ['How do I rotate key 168724?', 'How do I rotate key 598200?'];
    const made = new QuestionBank(new Vocabulary(), { from: '2026-09-01', to: '2026-09-02', projects: ['proj_a'] });
    for (const r of [...rows('proj_a', '2026-09-01', a, 2), ...rows('proj_a', '2026-09-01', b, 3), ...rows('proj_a', '2026-09-01', a.toUpperCase(), 1, 13)]) {
      made.add(r);
    }
    const p = made.packed('proj_a', '2026-09-01', '2026-09-02');
    expect(Array.from({ length: p.size }, (_, i) => [p.text(i), p.unanswered(i)])).toEqual([
      [a.toUpperCase(), 3],
      [b, 3],
    ]);
  });

  it('gives the terms of a text it read without reading it again', () => {
    const { bank: made, vocabulary, steps } = bank();
    vocabulary.knowing((text) => made.termIdsOf(text));
    const read = steps.steps;

    const ids = [...vocabulary.termIdsOf('rotate the api key')].map((id) => vocabulary.term(id));

    expect(ids.sort()).toEqual(['api', 'key', 'rotat']);
    expect(steps.steps).toBe(read);
  });
});
