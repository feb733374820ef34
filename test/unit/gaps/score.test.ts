/**
 * The gaps' score (gaps/gaps.ts `scoreOf`, `rankGaps`) on typed rows: readers failed by what a gap
 * names — a page's thumbs down, a term's searches, the times its named questions went unanswered
 * — so a category holding thousands of different questions no longer outranks every page and
 * term; the whole count kept beside it (`failures`) and said in `because`; one order on every run.
 */
import { describe, expect, it } from 'vitest';
import {
  FAILURES_RULE,
  type GapEvidence,
  type GapRequest,
  rankGaps,
  SCORE_RULE,
  scoreOf,
  type SearchEvidence,
  type ThumbsDownEvidence,
  type UnansweredEvidence,
} from '../../../functions/gaps/gaps.js';

const unanswered = (topic: string, count: number, asked: readonly number[]): UnansweredEvidence => ({
  kind: 'unanswered_topic',
  topic,
  terms: [topic],
  unanswered: count,
  questions: count,
  examples: asked.map((_, i) => `question ${i + 1} about ${topic}`),
  asked,
});
const search = (query: string, searches: number): SearchEvidence => ({ kind: 'search_without_clicks', query, searches, days: 13 });
const thumbsDown = (path: string, count: number): ThumbsDownEvidence => ({ kind: 'thumbs_down_page', path, thumbsDown: count, thumbsUp: 10, comments: [] });
const found = (evidence: readonly GapEvidence[], projectId = 'proj_a') => evidence.map((e) => ({ projectId, evidence: e }));
const NO_REQUESTS = new Map<string, readonly GapRequest[]>();

describe("a gap's score", () => {
  it('is the thumbs down of a page and the searches of a term', () => {
    expect(scoreOf(thumbsDown('/quickstart', 152))).toBe(152);
    expect(scoreOf(search('webhooks', 33))).toBe(33);
  });

  it("is, for unanswered questions, how often the questions it names were asked, not the category's whole count", () => {
    expect(scoreOf(unanswered('setup', 3611, [16, 16, 16]))).toBe(48);
    expect(scoreOf(unanswered('billing', 1819, [11]))).toBe(11);
    // A named question was asked once at least, when its count is unknown; never more than the whole count.
    expect(scoreOf({ ...unanswered('sso', 40, []), examples: ['a?', 'b?'] })).toBe(2);
    expect(scoreOf(unanswered('sso', 5, [4, 3, 2]))).toBe(5);
    expect(scoreOf(unanswered('sso', 0, []))).toBe(0);
  });

  it('ranks a page, a term and a category by the readers failed by what each names: the bucket of 3,611 questions no longer comes first', () => {
    const gaps = rankGaps(
      found([
        unanswered('setup', 3611, [16, 16, 16]),
        unanswered('billing', 1819, [11, 10, 10]),
        search('openapi', 33),
        thumbsDown('/gitlab', 152),
        thumbsDown('/tabs', 12),
      ]),
      NO_REQUESTS,
      13,
    );

    expect(gaps.map((g) => [g.kind, g.key, g.score, g.failures])).toEqual([
      ['thumbs_down_page', '/gitlab', 152, 152],
      ['unanswered_topic', 'setup', 48, 3611],
      ['search_without_clicks', 'openapi', 33, 33],
      ['unanswered_topic', 'billing', 31, 1819],
      ['thumbs_down_page', '/tabs', 12, 12],
    ]);
  });

  it('keeps the whole count beside the score and says both', () => {
    const [bucket, term] = rankGaps(found([unanswered('setup', 3611, [16, 16, 16]), search('openapi', 33)]), NO_REQUESTS, 13);

    expect(bucket).toMatchObject({ score: 48, failures: 3611 });
    expect(bucket?.because).toBe('3611 questions on this topic left unanswered in 13 days, 3611 different questions — 48 of them the 3 most asked');
    expect(term).toMatchObject({ score: 33, failures: 33 });
    expect(term?.because).toBe('33 searches in 13 days, on 13 days, and not one click on a result');
    const [one] = rankGaps(found([unanswered('sso', 9, [7])]), NO_REQUESTS, 2);
    expect(one?.because).toBe('9 questions on this topic left unanswered in 2 days, 9 different questions — 7 of them the most asked');
  });

  it('says how it is made in one sentence each', () => {
    for (const rule of [SCORE_RULE, FAILURES_RULE]) {
      expect(rule.split(/[.!?](\s|$)/).filter((s) => s.trim() !== '')).toHaveLength(1);
      expect(rule).not.toContain('\n');
    }
    expect(SCORE_RULE).toMatch(/thumbs down.*searches.*unanswered/);
  });

  it('gives one order on every run: equal scores by kind (unanswered, searches, pages), then in the order given', () => {
    const evidence = [
      thumbsDown('/b', 31),
      search('x', 31),
      unanswered('other', 1802, [11, 10, 10]),
      thumbsDown('/a', 31),
      unanswered('billing', 1819, [11, 10, 10]),
    ];

    const first = rankGaps(found(evidence), NO_REQUESTS, 13).map((g) => g.key);
    const again = rankGaps(found(evidence), NO_REQUESTS, 13).map((g) => g.key);

    expect(first).toEqual(['other', 'billing', 'x', '/b', '/a']);
    expect(again).toEqual(first);
  });
});
