/**
 * The gaps ranking (gaps/gaps.ts `rankGaps`) on typed evidence, in milliseconds: what stays
 * whatever the scores — a stable id per kind, project and key; the evidence, title and requests
 * carried; which gaps may be prompted; and the `--top` cut (the searches' and pages' questions cut
 * at N rows, with every category, give the ranking's first N gaps). The score itself: score.test.ts.
 */
import { describe, expect, it } from 'vitest';
import {
  type GapEvidence,
  type GapRequest,
  gapIdOf,
  rankGaps,
  type SearchEvidence,
  type ThumbsDownEvidence,
  type UnansweredEvidence,
} from '../../../functions/gaps/gaps.js';

const unanswered = (topic: string, count: number): UnansweredEvidence => ({
  kind: 'unanswered_topic',
  topic,
  terms: [topic],
  unanswered: count,
  questions: count,
  examples: [`how do I ${topic}?`],
});
const search = (query: string, searches: number): SearchEvidence => ({ kind: 'search_without_clicks', query, searches, days: 1 });
const thumbsDown = (path: string, count: number): ThumbsDownEvidence => ({ kind: 'thumbs_down_page', path, thumbsDown: count, thumbsUp: 1, comments: [] });
const found = (evidence: readonly GapEvidence[], projectId = 'proj_a') => evidence.map((e) => ({ projectId, evidence: e }));
const NO_REQUESTS = new Map<string, readonly GapRequest[]>();

describe('ranking gaps', () => {
  it('gives the same id to the same kind, project and key on any run, whatever the period and the figures', () => {
    const first = rankGaps(found([search('Install CLI', 40), thumbsDown('/quickstart', 3)]), NO_REQUESTS, 7);
    const later = rankGaps(found([thumbsDown('/quickstart', 90), search('install cli', 2)]), NO_REQUESTS, 90);

    const ids = (gaps: typeof first) => Object.fromEntries(gaps.map((g) => [`${g.kind} ${g.key}`, g.gapId]));
    expect(ids(later)).toEqual(ids(first));
    expect(first.map((g) => g.gapId)).toEqual(expect.arrayContaining([gapIdOf('search_without_clicks', 'proj_a', 'install cli')]));
    for (const gap of first) expect(gap.gapId).toMatch(/^gap_[0-9a-f]{16}$/);
  });

  it('gives another kind, project or key another id', () => {
    const gaps = [
      ...rankGaps(found([unanswered('auth', 5), search('auth', 5), thumbsDown('auth', 5)]), NO_REQUESTS, 7),
      ...rankGaps(found([search('auth', 5), search('oauth', 5)], 'proj_b'), NO_REQUESTS, 7),
    ];

    expect(new Set(gaps.map((g) => g.gapId)).size).toBe(5);
  });

  it('ranks every gap found, none left out or twice, each carrying its evidence, key and title', () => {
    const evidence = [unanswered('setup', 4), search('Webhooks', 12), thumbsDown('/api/errors', 2), unanswered('billing', 9)];

    const gaps = rankGaps(found(evidence), NO_REQUESTS, 7);

    expect(gaps).toHaveLength(4);
    expect(evidence.map((e) => gaps.find((g) => g.evidence === e)?.key)).toEqual(['setup', 'webhooks', '/api/errors', 'billing']);
    expect(gaps.find((g) => g.key === 'webhooks')).toMatchObject({
      kind: 'search_without_clicks',
      projectId: 'proj_a',
      title: 'Search "Webhooks" with no click',
    });
    expect(gaps.find((g) => g.key === 'setup')?.title).toBe('Unanswered assistant questions about "setup", most asked: "how do I setup?"');
  });

  it('carries the requests made for each gap, and prompts again only after none or a failed or rejected one', () => {
    const request = (requestId: string, state: GapRequest['state'], status?: GapRequest['status']): GapRequest => ({
      requestId,
      state,
      ...(status ? { status } : {}),
    });
    const evidence = [search('a', 9), search('b', 8), search('c', 7), search('d', 6), search('e', 5)];
    const id = (query: string) => gapIdOf('search_without_clicks', 'proj_a', query);
    const requests = new Map<string, readonly GapRequest[]>([
      [id('b'), [request('r2', 'in_flight')]],
      [id('c'), [request('r3', 'done', 'completed')]],
      [id('d'), [request('r5', 'done', 'failed'), request('r4', 'done', 'completed')]],
      [id('e'), [request('r6', 'done', 'rejected')]],
    ]);

    const gaps = rankGaps(found(evidence), requests, 7);

    const byKey = new Map(gaps.map((g) => [g.key, g]));
    expect(byKey.get('d')?.requests.map((r) => r.requestId)).toEqual(['r5', 'r4']);
    expect(byKey.get('a')?.requests).toEqual([]);
    expect(['a', 'b', 'c', 'd', 'e'].map((key) => byKey.get(key)?.promptable)).toEqual([true, false, false, true, true]);
  });

  it('keeps the --top cut exact: the searches and pages cut at their first N rows, with every category, give the first N gaps of the whole ranking', () => {
    // Each question's rows come in its own order: the largest figure first. A category's score
    // (its named questions) does not follow its whole count: gaps reads every category.
    const categories: GapEvidence[] = [
      { ...unanswered('auth', 300), asked: [2] },
      { ...unanswered('billing', 220), asked: [21] },
      { ...unanswered('sso', 90), asked: [40] },
      { ...unanswered('theme', 40), asked: [3] },
    ];
    const questions: GapEvidence[][] = [
      [search('webhooks', 41), search('rate limit', 20), search('sdk', 20), search('cli', 3)],
      [thumbsDown('/quickstart', 25), thumbsDown('/api', 21), thumbsDown('/errors', 2)],
    ];
    const every = rankGaps(found([...categories, ...questions.flat()]), NO_REQUESTS, 7);

    for (let top = 1; top <= 11; top++) {
      const cut = rankGaps(found([...categories, ...questions.flatMap((rows) => rows.slice(0, top))]), NO_REQUESTS, 7).slice(0, top);
      expect(cut.map((g) => g.gapId)).toEqual(every.slice(0, top).map((g) => g.gapId));
    }
    expect(every.slice(0, 3).map((g) => g.key)).toEqual(['webhooks', 'sso', '/quickstart']);
  });
});
