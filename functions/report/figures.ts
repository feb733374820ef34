/**
 * Every number of the report, as data: the page (page.ts), the weekly report's digest and
 * `gaps` read the same figures. Each is the answer of a question of queries/ — the files
 * Athena's saved queries and `npm start` run — asked for the period and the one before it, over
 * the tables warehouse.ts loads; the export's health comes from health.ts. `readFigures` reads
 * them by section, as sections/ shows them: the headline (figures-headline.ts), the rankings
 * (figures-rankings.ts), what moved (figures-movers.ts) and the health (figures-health.ts), each
 * reader taking the session and the scope. Nothing here renders.
 *
 * Definitions (docs/report.md says the same to readers; each figure's own is in DEFINITIONS):
 * - visitors are the API's site totals per day (`visitors_totals`), summed over the days and
 *   projects — never pages summed, which would count a visitor once per page read;
 * - the previous period is as long as the period and ends where it starts;
 * - a dataset's two periods are compared only as warehouse/compare.ts's rule allows: totals when
 *   both have at least 80 % of their days exported (each unit's state, health.ts), figures per
 *   day when one has fewer, nothing when one has none.
 */
import { previousPeriod, type Period } from '../warehouse/period.js';
import { beyondChance } from '../warehouse/noise.js';
import { loadWarehouse, type LoadedWarehouse } from '../warehouse/session.js';
import type { LakeFiles } from '../warehouse/lake.js';
import { EFFECT_TABLES } from '../gaps/effect.js';
import type { ErasureNote, HealthCell, RequestsDay } from './health.js';
import type { CountFigure, Headline, ReportDataset } from './headline.js';
import { FIGURE_DATASET } from '../warehouse/figure-names.js';
import { readHealthFigures, type Merge } from './figures-health.js';
import { type DatasetComparison, type DayVisitors, headlineFigures, type ProjectHeadline, readDailyTotals } from './figures-headline.js';
import { rankingFigures, readRankings, type ThumbsDownPage, type TopPage, type UnansweredCategory, type UnclickedSearch } from './figures-rankings.js';
import { type MoverFigures, moverFigures } from './figures-movers.js';

export interface Figures {
  readonly period: Period;
  readonly previous: Period;
  /** Per dataset, how the period compares with the one before (warehouse/compare.ts's rule). */
  readonly comparisons: Readonly<Record<ReportDataset, DatasetComparison>>;
  readonly projects: readonly string[];
  readonly headline: { readonly current: Headline; readonly previous: Headline };
  readonly byProject: readonly ProjectHeadline[];
  /** One entry per day of the period; null where the day has no visitors data. */
  readonly visitorsPerDay: readonly DayVisitors[];
  /** The same for the previous period, day i beside day i of the period. */
  readonly previousVisitorsPerDay: readonly DayVisitors[];
  readonly topPages: readonly TopPage[];
  readonly unclickedSearches: readonly UnclickedSearch[];
  readonly unansweredByCategory: readonly UnansweredCategory[];
  readonly thumbsDownPages: readonly ThumbsDownPage[];
  /** What moved against the previous period, per ranking. */
  readonly movers: MoverFigures;
  readonly health: readonly HealthCell[];
  /** Erasures (`forget`) that removed rows from the months of the period or the one compared with: those figures changed (health.ts). */
  readonly erasures?: readonly ErasureNote[];
  /** Files of the period DuckDB could not read as Parquet, left out of every figure (relative to the warehouse root, sorted). */
  readonly unreadableFiles: readonly string[];
  /** One entry per day from the period's first to `runsTo` (zeros where no run started); after the period, its runs are those that wrote its units (health.ts). */
  readonly requestsPerDay: readonly RequestsDay[];
  /** The fixes' pull requests merged in the period (followup_outcomes `merged_at`), by UTC day: the daily charts mark them. */
  readonly merges: readonly Merge[];
}

export interface FigureScope {
  readonly period: Period;
  /** The projects reported: those asked for, or those found in the period (`discoverProjects`). */
  readonly projects: readonly string[];
  /**
   * Day after the last day of the run log to read. @default period.to. The runs that export
   * a period's last days start after it ends: the CLI reads the log up to the day it runs.
   */
  readonly runsTo?: string;
  /** The report's tables, loaded by the caller for `period` and `projects` (`openReportWarehouse`); it stays open. */
  readonly warehouse: LoadedWarehouse;
  /** The first day PERSONAL_DATA_RETENTION_DAYS keeps: earlier days of the datasets it deletes are `expired` (health.ts). */
  readonly retentionCutoff?: string;
}

/**
 * Reads every figure of the report from `lake`, by section: the headline's and the rankings'
 * questions in the caller's session, the health from the lake's files (all three at once), then
 * what moved.
 */
export async function readFigures(lake: LakeFiles, scope: FigureScope): Promise<Figures> {
  const { period, warehouse: session } = scope;
  const periods = { period, previous: previousPeriod(period), projects: [...scope.projects] };
  const [totals, rankings, health] = await Promise.all([
    readDailyTotals(session, periods),
    readRankings(session, periods),
    readHealthFigures(lake, {
      ...periods,
      ...(scope.runsTo !== undefined ? { runsTo: scope.runsTo } : {}),
      ...(scope.retentionCutoff !== undefined ? { retentionCutoff: scope.retentionCutoff } : {}),
    }),
  ]);
  const headline = headlineFigures(totals, health, periods);
  const ranked = rankingFigures(rankings, headline);
  return {
    period,
    previous: periods.previous,
    comparisons: headline.comparisons,
    projects: periods.projects,
    headline: headline.headline,
    byProject: headline.byProject,
    visitorsPerDay: headline.visitorsPerDay,
    previousVisitorsPerDay: headline.previousVisitorsPerDay,
    topPages: ranked.topPages,
    unclickedSearches: ranked.unclickedSearches,
    unansweredByCategory: ranked.unansweredByCategory,
    thumbsDownPages: ranked.thumbsDownPages,
    movers: moverFigures(rankings, headline),
    health: health.current,
    unreadableFiles: [...session.unreadable].sort(),
    requestsPerDay: health.requestsPerDay,
    ...(health.erasures.length > 0 ? { erasures: health.erasures } : {}),
    merges: health.merges,
  };
}

/**
 * Whether the change of a headline figure from `previous` to `current` is beyond chance at its
 * counts (warehouse/noise.ts): a count over the days each period has exported of its dataset; a
 * share as its part (AI visitors, unanswered questions) over its whole (visitors, questions).
 */
export function changeBeyondChance(current: Headline, previous: Headline, figure: CountFigure | 'aiShare' | 'unansweredShare'): boolean {
  if (figure === 'aiShare') return beyondChance(current.ai, previous.ai, { current: current.human + current.ai, previous: previous.human + previous.ai });
  if (figure === 'unansweredShare') return beyondChance(current.unanswered, previous.unanswered, { current: current.questions, previous: previous.questions });
  const dataset = FIGURE_DATASET[figure];
  return beyondChance(current[figure], previous[figure], { current: current.coverage[dataset].exported, previous: previous.coverage[dataset].exported });
}

/** What the report reads in one session: its tables over its days, and the gap tables also over `gapDays`. */
export interface ReportWarehouseScope {
  readonly period: Period;
  readonly projects: readonly string[];
  /** More days of the gap tables (the days its fixes look back over: gaps/effect.ts `lookbackDays`). */
  readonly gapDays?: readonly string[];
  readonly onWarning?: (line: string) => void;
}

/** Loads the tables of the report of `scope` in one session (for `FigureScope.warehouse` and the fixes' `FixesScope.warehouse`). */
export function openReportWarehouse(lake: LakeFiles, scope: ReportWarehouseScope): Promise<LoadedWarehouse> {
  const days = [...previousPeriod(scope.period).days, ...scope.period.days];
  const gapDays = scope.gapDays ?? [];
  const spans = gapDays.length === 0 ? {} : { spans: Object.fromEntries(EFFECT_TABLES.map((t) => [t.name, [...new Set([...days, ...gapDays])].sort()])) };
  // Views, no copies: the report's questions read a few columns each, of their own days (session.ts `viewsOnly`).
  return loadWarehouse(lake, { days, projects: scope.projects, ...spans, viewsOnly: true, ...(scope.onWarning ? { onWarning: scope.onWarning } : {}) });
}
