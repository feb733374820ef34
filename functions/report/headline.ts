/**
 * The report's headline: the datasets its figures come from, its counts (each a sum over days
 * and a figure per exported day), and how two periods' headlines compare (warehouse/compare.ts).
 */
import type { DailyTotalsRow } from '../warehouse/questions.js';
import { type Comparison, comparisonOf, type Coverage } from '../warehouse/compare.js';
import type { DatasetName } from '../warehouse/catalog.js';
import { FIGURE_DATASET } from '../warehouse/figure-names.js';

/** The datasets the report's figures come from (the others are the export's own: health only). */
export const REPORT_DATASETS = ['visitors', 'views', 'searches', 'assistant', 'feedback'] as const satisfies readonly DatasetName[];
export type ReportDataset = (typeof REPORT_DATASETS)[number];

/** The headline's counts: each a sum over days (a per-day figure exists of each). */
export const COUNT_FIGURES = ['human', 'ai', 'views', 'searches', 'questions', 'unanswered', 'thumbsDown'] as const;
export type CountFigure = (typeof COUNT_FIGURES)[number];

/** The dataset each ranking (and its movers) comes from. */
export const RANKING_DATASET = { pages: 'views', searches: 'searches', categories: 'assistant', thumbsDown: 'feedback' } as const satisfies Readonly<
  Record<string, ReportDataset>
>;

export interface Headline {
  readonly human: number;
  readonly ai: number;
  /** AI ÷ (human + AI); null when there were no visitors. */
  readonly aiShare: number | null;
  readonly views: number;
  readonly searches: number;
  readonly questions: number;
  readonly unanswered: number;
  /** Unanswered ÷ questions; null when there were no questions. */
  readonly unansweredShare: number | null;
  readonly thumbsDown: number;
  /** Days with a `visitors_totals` row. */
  readonly daysWithData: number;
  /** Per dataset, its days exported (a day of each project) out of the period's days times the projects. */
  readonly coverage: Readonly<Record<ReportDataset, Coverage>>;
  /**
   * Each count per exported day of its dataset: of one project its total ÷ its exported days, of
   * several the sum of theirs; null where no day of the dataset is exported.
   */
  readonly perDay: Readonly<Record<CountFigure, number | null>>;
}

/** How the figures of `dataset` of two headlines (a period and the one before) may be compared (warehouse/compare.ts). */
export function comparisonFor(headlines: { readonly current: Headline; readonly previous: Headline }, dataset: ReportDataset): Comparison {
  return comparisonOf(headlines.current.coverage[dataset], headlines.previous.coverage[dataset]);
}

/** Whether a headline has any data at all. */
export function hasData(headline: Headline): boolean {
  return headline.daysWithData > 0 || headline.views + headline.searches + headline.questions + headline.thumbsDown > 0;
}

/** The headline of several projects: sums of `rows`, and per-day figures as the sums of the projects' own. */
export function overall(rows: readonly DailyTotalsRow[], coverage: Record<ReportDataset, Coverage>, projects: readonly Headline[]): Headline {
  const perDay = Object.fromEntries(
    COUNT_FIGURES.map((figure) => {
      const known = projects.map((p) => p.perDay[figure]).filter((v): v is number => v !== null);
      return [figure, known.length === 0 ? null : known.reduce((sum, v) => sum + v, 0)];
    }),
  ) as Record<CountFigure, number | null>;
  return { ...headline(rows, coverage), perDay };
}

/** Sums of `rows` (days × projects); per-day figures over the exported days of `coverage` (one project's). */
export function headline(rows: readonly DailyTotalsRow[], coverage: Record<ReportDataset, Coverage>): Headline {
  const sum = (field: Exclude<keyof DailyTotalsRow, 'projectId' | 'day'>) => rows.reduce((total, r) => total + r[field], 0);
  const human = sum('human');
  const ai = sum('ai');
  const questions = sum('questions');
  const unanswered = sum('unanswered');
  return {
    human,
    ai,
    aiShare: share(ai, human + ai),
    views: sum('views'),
    searches: sum('searches'),
    questions,
    unanswered,
    unansweredShare: share(unanswered, questions),
    thumbsDown: sum('thumbsDown'),
    daysWithData: new Set(rows.filter((r) => r.visitorRows > 0).map((r) => r.day)).size,
    coverage,
    perDay: Object.fromEntries(
      COUNT_FIGURES.map((figure) => {
        const days = coverage[FIGURE_DATASET[figure]].exported;
        return [figure, days === 0 ? null : sum(figure) / days];
      }),
    ) as Record<CountFigure, number | null>,
  };
}

export function share(part: number, whole: number): number | null {
  return whole === 0 ? null : part / whole;
}
