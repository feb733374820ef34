/**
 * The report's headline figures: the daily totals of both periods (queries/daily-totals.sql),
 * summed over the projects and per project, the visitors per day, and how each dataset's two
 * periods compare (warehouse/compare.ts's rule, from the units' states of health.ts).
 */
import { TYPED_QUESTIONS } from '../../queries/questions.js';
import { ask, type DailyTotalsRow } from '../warehouse/questions.js';
import type { Period } from '../warehouse/period.js';
import { type Comparison, type Coverage, isCovered } from '../warehouse/compare.js';
import type { LoadedWarehouse } from '../warehouse/session.js';
import type { Exposures } from '../warehouse/noise.js';
import { coverageOf, fillOf, leftOutOf, type LeftOutDay } from './coverage.js';
import { comparisonFor, type Headline, headline, overall, REPORT_DATASETS, type ReportDataset } from './headline.js';
import type { FigurePeriods, HealthFigures } from './figures-health.js';

export interface DayVisitors {
  readonly day: string;
  readonly human: number | null;
  readonly ai: number | null;
}

/** How a dataset's two periods compare, over the report's projects. */
export interface DatasetComparison {
  readonly comparison: Comparison;
  readonly current: Coverage;
  readonly previous: Coverage;
  /** `[from, to)` of the days of the periods not covered that lack this dataset: what `export --from --to` fills; absent when none. */
  readonly fill?: { readonly from: string; readonly to: string };
  /**
   * The days each period leaves out of its per-day figures (some project has not exported them:
   * missing, failed, partial, or expired by retention), with the worst state of the day.
   */
  readonly leftOut: { readonly current: readonly LeftOutDay[]; readonly previous: readonly LeftOutDay[] };
}

/** One project's headline of both periods. */
export interface ProjectHeadline {
  readonly projectId: string;
  readonly current: Headline;
  readonly previous: Headline;
  /** Visitors' own `total`, deduplicated across human and AI: can be less than human + AI. */
  readonly visitorsTotal: number;
}

/** The headline part of the report's figures. */
export interface HeadlineFigures {
  /** Per dataset, how the period compares with the one before (warehouse/compare.ts's rule). */
  readonly comparisons: Readonly<Record<ReportDataset, DatasetComparison>>;
  readonly headline: { readonly current: Headline; readonly previous: Headline };
  readonly byProject: readonly ProjectHeadline[];
  /** One entry per day of the period; null where the day has no visitors data. */
  readonly visitorsPerDay: readonly DayVisitors[];
  /** The same for the previous period, day i beside day i of the period. */
  readonly previousVisitorsPerDay: readonly DayVisitors[];
}

/** The daily totals of both periods, asked of `session`. */
export function readDailyTotals(session: LoadedWarehouse, scope: FigurePeriods): Promise<DailyTotalsRow[]> {
  return ask(session, TYPED_QUESTIONS.dailyTotals, { from: scope.previous.from, to: scope.period.to, projects: [...scope.projects] });
}

/** The headline of `scope` from its daily totals (`readDailyTotals`), each dataset's coverage from `health`. */
export function headlineFigures(totals: readonly DailyTotalsRow[], health: Pick<HealthFigures, 'current' | 'previous'>, scope: FigurePeriods): HeadlineFigures {
  const { period, previous, projects } = scope;
  const inPeriod = (p: Period) => totals.filter((r) => r.day >= p.from && r.day < p.to);
  const byProject = projects.map((projectId) => {
    const mine = (p: Period) => inPeriod(p).filter((r) => r.projectId === projectId);
    return {
      projectId,
      current: headline(mine(period), coverageOf(health.current, [projectId], period)),
      previous: headline(mine(previous), coverageOf(health.previous, [projectId], previous)),
      visitorsTotal: mine(period).reduce((sum, r) => sum + r.visitorsTotal, 0),
    };
  });
  const current = overall(
    inPeriod(period),
    coverageOf(health.current, projects, period),
    byProject.map((p) => p.current),
  );
  const earlier = overall(
    inPeriod(previous),
    coverageOf(health.previous, projects, previous),
    byProject.map((p) => p.previous),
  );
  return {
    comparisons: Object.fromEntries(
      REPORT_DATASETS.map((dataset) => {
        const compared = {
          comparison: comparisonFor({ current, previous: earlier }, dataset),
          current: current.coverage[dataset],
          previous: earlier.coverage[dataset],
          leftOut: { current: leftOutOf(dataset, health.current), previous: leftOutOf(dataset, health.previous) },
        };
        const fill =
          compared.comparison === 'totals'
            ? undefined
            : fillOf(dataset, [...(isCovered(compared.previous) ? [] : health.previous), ...(isCovered(compared.current) ? [] : health.current)]);
        const comparison: DatasetComparison = fill === undefined ? compared : { ...compared, fill };
        return [dataset, comparison];
      }),
    ) as Record<ReportDataset, DatasetComparison>,
    headline: { current, previous: earlier },
    byProject,
    visitorsPerDay: visitorsPerDay(totals, period),
    previousVisitorsPerDay: visitorsPerDay(totals, previous),
  };
}

/** The days of `dataset` each period has exported of `projectId`: the exposure its counts are compared over (warehouse/noise.ts). */
export function daysExported(figures: Pick<HeadlineFigures, 'byProject'>, projectId: string, dataset: ReportDataset): Exposures {
  const project = figures.byProject.find((p) => p.projectId === projectId);
  return { current: project?.current.coverage[dataset].exported ?? 0, previous: project?.previous.coverage[dataset].exported ?? 0 };
}

function visitorsPerDay(rows: readonly DailyTotalsRow[], period: Period): DayVisitors[] {
  return period.days.map((day) => {
    const ofDay = rows.filter((r) => r.day === day && r.visitorRows > 0);
    if (ofDay.length === 0) return { day, human: null, ai: null };
    return { day, human: ofDay.reduce((s, r) => s + r.human, 0), ai: ofDay.reduce((s, r) => s + r.ai, 0) };
  });
}
