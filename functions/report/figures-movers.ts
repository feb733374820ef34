/**
 * The report's movers: per ranking, what is new, what lapsed ("no longer clicked"), what rose and
 * what fell against the period before (movers.ts), only where the ranking's dataset compares as
 * totals, each move measured over the days its project has exported.
 */
import type { ReportDataset } from './headline.js';
import { RANKING_DATASET } from './headline.js';
import { moversOf, type Movers, type Ranked } from './movers.js';
import { daysExported, type HeadlineFigures } from './figures-headline.js';
import { RANKED_ROWS, rankingCompares, type RankingKind, type Rankings, termKey, wasClicked } from './figures-rankings.js';

/** What moved against the previous period, per ranking. */
export interface MoverFigures {
  readonly pages: Movers;
  readonly searches: Movers;
  readonly categories: Movers;
  readonly thumbsDown: Movers;
}

/** Nothing moved: a ranking whose periods do not compare. */
const NO_MOVERS: Movers = { new: [], lapsed: [], risers: [], fallers: [] };

/** The movers of each ranking of `rankings` (`readRankings`), against the headline's comparisons and days exported. */
export function moverFigures(rankings: Rankings, headline: Pick<HeadlineFigures, 'headline' | 'byProject'>): MoverFigures {
  const daysOf = (dataset: ReportDataset) => (projectId: string) => daysExported(headline, projectId, dataset);
  const moversOfKind = (kind: RankingKind, thereBefore?: (r: Ranked) => 'absent' | 'lapsed' | 'unsure'): Movers =>
    rankingCompares(headline, kind) ? moversOf(...rankings.ranked[kind], RANKED_ROWS, thereBefore, daysOf(RANKING_DATASET[kind])) : NO_MOVERS;
  return {
    pages: moversOfKind('pages'),
    searches: moversOfKind('searches', (r) =>
      wasClicked(rankings, r.projectId, r.key, r.value) ? 'lapsed' : rankings.clickedBefore.has(termKey(r.projectId, r.key)) ? 'unsure' : 'absent',
    ),
    categories: moversOfKind('categories'),
    thumbsDown: moversOfKind('thumbsDown'),
  };
}
