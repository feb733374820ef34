/**
 * The report's rankings: pages by views, searches nobody clicked, unanswered categories and pages
 * with thumbs down (each a question of queries/), asked for the period and the one before, and
 * the searches clicked in the period before (queries/clicked-searches.sql) that tell "no longer
 * clicked" from new. Each shown row carries the period before where its dataset's totals compare.
 */
import { TYPED_QUESTIONS } from '../../queries/questions.js';
import { ask, type ThumbsDownPageRow, type TopPageRow, type UnansweredCategoryRow, type UnclickedSearchRow } from '../warehouse/questions.js';
import { ALL_ROWS } from '../gaps/read.js';
import { beyondChance } from '../warehouse/noise.js';
import type { LoadedWarehouse } from '../warehouse/session.js';
import { comparisonFor, RANKING_DATASET, type ReportDataset, share } from './headline.js';
import type { Ranked } from './movers.js';
import type { FigurePeriods } from './figures-health.js';
import type { HeadlineFigures } from './figures-headline.js';

/** Rows shown in each ranking. */
const LIMITS = { pages: 15, searches: 20, categories: 12, examples: 3, thumbsDown: 10 } as const;

/** Rows each ranking is asked for, so that what moved is known beyond what is shown. */
export const RANKED_ROWS = 500;

/** A page by views (the question's row, queries/top-pages.sql), with its AI share and the period before. */
export interface TopPage extends TopPageRow {
  readonly aiShare: number | null;
  /** Views in the previous period; null when the previous period has no data. */
  readonly previous: number | null;
}

/** A term nobody clicked a result of (queries/searches-without-clicks.sql), against the period before. */
export interface UnclickedSearch extends UnclickedSearchRow {
  readonly previous: number | null;
  /**
   * Searched in the previous period with results clicked, and the clicks then beyond chance against
   * none now (warehouse/noise.ts): new to the unclicked list, not as a search ("no longer clicked").
   */
  readonly clickedBefore: boolean;
  /** Searched in the previous period with a result clicked at all: not new, whether or not "no longer clicked". */
  readonly searchedBefore: boolean;
}

/** A category of unanswered questions (queries/unanswered-assistant-questions.sql), its most asked examples, the period before. */
export interface UnansweredCategory extends Pick<UnansweredCategoryRow, 'projectId' | 'category' | 'unanswered' | 'examples'> {
  readonly previous: number | null;
}

/** A page with thumbs down (queries/pages-with-negative-feedback.sql): its rate and the period before. */
export interface ThumbsDownPage extends ThumbsDownPageRow {
  /** Thumbs down ÷ (down + up). */
  readonly rate: number | null;
  readonly previous: number | null;
}

/** The rankings part of the report's figures. */
export interface RankingFigures {
  readonly topPages: readonly TopPage[];
  readonly unclickedSearches: readonly UnclickedSearch[];
  readonly unansweredByCategory: readonly UnansweredCategory[];
  readonly thumbsDownPages: readonly ThumbsDownPage[];
}

/** A ranking of the report. */
export type RankingKind = keyof typeof RANKING_DATASET;

/** The rankings' rows of the period, each ranking of both periods (`[now, before]`) and the searches clicked before. */
export interface Rankings {
  readonly pages: readonly TopPageRow[];
  readonly searches: readonly UnclickedSearchRow[];
  readonly categories: readonly UnansweredCategoryRow[];
  readonly thumbs: readonly ThumbsDownPageRow[];
  readonly ranked: Readonly<Record<RankingKind, readonly [readonly Ranked[], readonly Ranked[]]>>;
  /** Per project and lower-cased term, the searches of the previous period with a result clicked: their hits and about how many clicks. */
  readonly clickedBefore: ReadonlyMap<string, { readonly hits: number; readonly clicks: number }>;
}

/** Asks `session` the rankings' questions of both periods of `scope`. */
export async function readRankings(session: LoadedWarehouse, scope: FigurePeriods): Promise<Rankings> {
  const { period, previous } = scope;
  const projects = [...scope.projects];
  const now = { from: period.from, to: period.to, projects, limit: RANKED_ROWS };
  const before = { from: previous.from, to: previous.to, projects, limit: RANKED_ROWS };
  // The period's gap questions, asked as gaps asks them (every row, gaps/read.ts) so that the
  // report's fixes get the same answer from the session; ranked on their first rows. Each
  // question orders its rows completely: the first rows of every row are those of the cut.
  const all = { ...now, limit: ALL_ROWS };
  const cut = async <T>(rows: Promise<T[]>) => (await rows).slice(0, RANKED_ROWS);
  const [pages, pagesBefore, searches, searchesBefore, categories, categoriesBefore, thumbs, thumbsBefore, clicked] = await Promise.all([
    ask(session, TYPED_QUESTIONS.topPages, now),
    ask(session, TYPED_QUESTIONS.topPages, before),
    cut(ask(session, TYPED_QUESTIONS.searchesWithoutClicks, all)),
    ask(session, TYPED_QUESTIONS.searchesWithoutClicks, before),
    cut(ask(session, TYPED_QUESTIONS.unansweredQuestions, all)),
    ask(session, TYPED_QUESTIONS.unansweredQuestions, before),
    cut(ask(session, TYPED_QUESTIONS.thumbsDownPages, all)),
    ask(session, TYPED_QUESTIONS.thumbsDownPages, before),
    // The searches of the previous period with a result clicked, and about how many clicks:
    // "no longer clicked" needs clicks before, beyond chance against none now (warehouse/noise.ts).
    ask(session, TYPED_QUESTIONS.clickedSearches, { ...before, limit: ALL_ROWS }),
  ]);
  return {
    pages,
    searches,
    categories,
    thumbs,
    ranked: {
      pages: [rankOf(pages, 'path', 'views'), rankOf(pagesBefore, 'path', 'views')],
      searches: [rankOf(searches, 'query', 'hits', true), rankOf(searchesBefore, 'query', 'hits', true)],
      categories: [rankOf(categories, 'category', 'unanswered'), rankOf(categoriesBefore, 'category', 'unanswered')],
      thumbsDown: [rankOf(thumbs, 'path', 'thumbsDown'), rankOf(thumbsBefore, 'path', 'thumbsDown')],
    },
    clickedBefore: new Map(clicked.map((row) => [termKey(row.projectId, row.term), { hits: row.hits, clicks: row.clicks }])),
  };
}

/** The key of a project's search term in `Rankings.clickedBefore`. */
export function termKey(projectId: string, term: string): string {
  return `${projectId}\u0000${term}`;
}

/** Whether `term` (lower-cased) of `projectId`, searched `hitsNow` times with nothing clicked, had clicks before beyond chance against none now. */
export function wasClicked(rankings: Pick<Rankings, 'clickedBefore'>, projectId: string, term: string, hitsNow: number): boolean {
  const before = rankings.clickedBefore.get(termKey(projectId, term));
  return before !== undefined && before.clicks > 0 && beyondChance(0, before.clicks, { current: Math.max(1, hitsNow), previous: Math.max(1, before.hits) });
}

/** Whether a ranking's dataset compares as totals between the two periods (the rule): only then is it compared with the period before. */
export function rankingCompares(headline: Pick<HeadlineFigures, 'headline'>, kind: RankingKind): boolean {
  const dataset: ReportDataset = RANKING_DATASET[kind];
  return comparisonFor(headline.headline, dataset) === 'totals';
}

/** The rows each ranking shows, each with the period before where its dataset compares. */
export function rankingFigures(rankings: Rankings, headline: Pick<HeadlineFigures, 'headline'>): RankingFigures {
  const previousOf = (kind: RankingKind, projectId: string, key: string): number | null =>
    rankingCompares(headline, kind) ? (rankings.ranked[kind][1].find((r) => r.projectId === projectId && r.key === key)?.value ?? 0) : null;
  return {
    topPages: rankings.pages.slice(0, LIMITS.pages).map((page) => ({
      ...page,
      aiShare: share(page.ai, page.human + page.ai),
      previous: previousOf('pages', page.projectId, page.path),
    })),
    unclickedSearches: rankings.searches.slice(0, LIMITS.searches).map((search) => ({
      ...search,
      previous: previousOf('searches', search.projectId, search.query.toLowerCase()),
      clickedBefore: wasClicked(rankings, search.projectId, search.query.toLowerCase(), search.hits),
      searchedBefore: rankings.clickedBefore.has(termKey(search.projectId, search.query.toLowerCase())),
    })),
    unansweredByCategory: rankings.categories.slice(0, LIMITS.categories).map(({ projectId, category, unanswered, examples }) => ({
      projectId,
      category,
      unanswered,
      examples,
      previous: previousOf('categories', projectId, category),
    })),
    thumbsDownPages: rankings.thumbs.slice(0, LIMITS.thumbsDown).map((page) => ({
      ...page,
      rate: share(page.thumbsDown, page.thumbsDown + page.thumbsUp),
      previous: previousOf('thumbsDown', page.projectId, page.path),
    })),
  };
}

/** The fields of `T` that hold a `V`. */
type FieldOf<T, V> = { [K in keyof T]: T[K] extends V ? K : never }[keyof T];

/** `rows` ranked by their `value` field, each named by its `label` field (the key lower-cased where `lower`: a search term). */
function rankOf<T extends { readonly projectId: string }>(rows: readonly T[], label: FieldOf<T, string>, value: FieldOf<T, number>, lower = false): Ranked[] {
  return rows.map((r) => {
    const shown = r[label] as string;
    return { projectId: r.projectId, key: lower ? shown.toLowerCase() : shown, label: shown, value: r[value] as number };
  });
}
