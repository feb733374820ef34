/**
 * Every number of the report, as data: the page (page.ts), the weekly report's digest and
 * `gaps` read the same figures. Each is the answer of a question of queries/ — the files
 * Athena's saved queries and `npm start` run — asked for the period and the one before it, over
 * the tables warehouse.ts loads; the export's health comes from health.ts. Nothing here renders.
 *
 * Definitions (docs/report.md says the same to readers; each figure's own is in DEFINITIONS):
 * - visitors are the API's site totals per day (`visitors_totals`), summed over the days and
 *   projects — never pages summed, which would count a visitor once per page read;
 * - the previous period is as long as the period and ends where it starts;
 * - a dataset's two periods are compared only as warehouse/compare.ts's rule allows: totals when
 *   both have at least 80 % of their days exported (each unit's state, health.ts), figures per
 *   day when one has fewer, nothing when one has none.
 */
import { TYPED_QUESTIONS } from '../../queries/questions.js';
import {
  ask,
  type DailyTotalsRow,
  type ThumbsDownPageRow,
  type TopPageRow,
  type UnansweredCategoryRow,
  type UnclickedSearchRow,
} from '../warehouse/questions.js';
import { sqlString } from '../warehouse/sql.js';
import { ALL_ROWS } from '../gaps/read.js';
import { EFFECT_TABLES } from '../gaps/effect.js';
import { readErasureNotes, readHealth, readRequests, type ErasureNote, type HealthCell, type RequestsDay } from './health.js';
import { moversOf, type Movers, type Ranked } from './movers.js';
import { daysFrom, previousPeriod, type Period } from '../warehouse/period.js';
import { type Comparison, type Coverage, isCovered } from '../warehouse/compare.js';
import { beyondChance, type Exposures } from '../warehouse/noise.js';
import { loadWarehouse, type LoadedWarehouse } from '../warehouse/session.js';
import type { LakeFiles } from '../warehouse/lake.js';
import { FOLLOWUP_OUTCOMES } from '../warehouse/tables.js';
import { coverageOf, fillOf, leftOutOf, type LeftOutDay } from './coverage.js';
import {
  comparisonFor,
  type CountFigure,
  FIGURE_DATASET,
  type Headline,
  headline,
  overall,
  RANKING_DATASET,
  REPORT_DATASETS,
  type ReportDataset,
  share,
} from './headline.js';

export type { ErasureNote, HealthCell, HealthState, RequestsDay } from './health.js';
export { describeLeftOut, leftOutStateName, type LeftOutDay } from './coverage.js';
export {
  COUNT_FIGURES,
  comparisonFor,
  type CountFigure,
  FIGURE_DATASET,
  hasData,
  type Headline,
  RANKING_DATASET,
  REPORT_DATASETS,
  type ReportDataset,
} from './headline.js';
export { daysFrom, previousPeriod, type Period } from '../warehouse/period.js';

/** Rows shown in each ranking. */
export const LIMITS = { pages: 15, searches: 20, categories: 12, examples: 3, thumbsDown: 10 } as const;

/** Rows each ranking is asked for, so that what moved is known beyond what is shown. */
const RANKED_ROWS = 500;

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

export interface Figures {
  readonly period: Period;
  readonly previous: Period;
  /** Per dataset, how the period compares with the one before (warehouse/compare.ts's rule). */
  readonly comparisons: Readonly<Record<ReportDataset, DatasetComparison>>;
  readonly projects: readonly string[];
  readonly headline: { readonly current: Headline; readonly previous: Headline };
  readonly byProject: readonly {
    readonly projectId: string;
    readonly current: Headline;
    readonly previous: Headline;
    /** Visitors' own `total`, deduplicated across human and AI: can be less than human + AI. */
    readonly visitorsTotal: number;
  }[];
  /** One entry per day of the period; null where the day has no visitors data. */
  readonly visitorsPerDay: readonly DayVisitors[];
  /** The same for the previous period, day i beside day i of the period. */
  readonly previousVisitorsPerDay: readonly DayVisitors[];
  readonly topPages: readonly TopPage[];
  readonly unclickedSearches: readonly UnclickedSearch[];
  readonly unansweredByCategory: readonly UnansweredCategory[];
  readonly thumbsDownPages: readonly ThumbsDownPage[];
  /** What moved against the previous period, per ranking. */
  readonly movers: { readonly pages: Movers; readonly searches: Movers; readonly categories: Movers; readonly thumbsDown: Movers };
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

/** A pull request merged on `day` (UTC), from a followup_outcomes record of the report's projects. */
export interface Merge {
  readonly day: string;
  readonly projectId: string;
  readonly prLink?: string;
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

/** Reads every figure of the report from `lake`: the questions in the caller's session, the units' states and the run log from the lake's files. */
export async function readFigures(lake: LakeFiles, scope: FigureScope): Promise<Figures> {
  const { period, warehouse } = scope;
  const previous = previousPeriod(period);
  const projects = [...scope.projects];
  const now = { from: period.from, to: period.to, projects, limit: RANKED_ROWS };
  const before = { from: previous.from, to: previous.to, projects, limit: RANKED_ROWS };
  // The period's gap questions, asked as gaps asks them (every row, gaps/read.ts) so that the
  // report's fixes get the same answer from the session; ranked on their first rows. Each
  // question orders its rows completely: the first rows of every row are those of the cut.
  const all = { ...now, limit: ALL_ROWS };
  const cut = async <T>(rows: Promise<T[]>) => (await rows).slice(0, RANKED_ROWS);
  const [daily, pages, pagesBefore, searches, searchesBefore, categories, categoriesBefore, thumbs, thumbsBefore, health] = await Promise.all([
    ask(warehouse, TYPED_QUESTIONS.dailyTotals, { from: previous.from, to: period.to, projects }),
    ask(warehouse, TYPED_QUESTIONS.topPages, now),
    ask(warehouse, TYPED_QUESTIONS.topPages, before),
    cut(ask(warehouse, TYPED_QUESTIONS.searchesWithoutClicks, all)),
    ask(warehouse, TYPED_QUESTIONS.searchesWithoutClicks, before),
    cut(ask(warehouse, TYPED_QUESTIONS.unansweredQuestions, all)),
    ask(warehouse, TYPED_QUESTIONS.unansweredQuestions, before),
    cut(ask(warehouse, TYPED_QUESTIONS.thumbsDownPages, all)),
    ask(warehouse, TYPED_QUESTIONS.thumbsDownPages, before),
    readHealth(lake, period, projects, scope.retentionCutoff),
  ]);
  const healthBefore = await readHealth(lake, previous, projects, scope.retentionCutoff);
  const requests = await readRequests(lake, daysFrom(period.from, scope.runsTo ?? period.to), period, health);
  const erasures = await readErasureNotes(lake, [...previous.days, ...period.days]);

  const totals = daily;
  const inPeriod = (p: Period) => totals.filter((r) => r.day >= p.from && r.day < p.to);
  const byProject = projects.map((projectId) => {
    const mine = (p: Period) => inPeriod(p).filter((r) => r.projectId === projectId);
    return {
      projectId,
      current: headline(mine(period), coverageOf(health, [projectId], period)),
      previous: headline(mine(previous), coverageOf(healthBefore, [projectId], previous)),
      visitorsTotal: mine(period).reduce((sum, r) => sum + r.visitorsTotal, 0),
    };
  });
  const current = overall(
    inPeriod(period),
    coverageOf(health, projects, period),
    byProject.map((p) => p.current),
  );
  const earlier = overall(
    inPeriod(previous),
    coverageOf(healthBefore, projects, previous),
    byProject.map((p) => p.previous),
  );
  // A ranking is compared with the period before only where its dataset's totals compare (the rule).
  const compares = (dataset: ReportDataset) => comparisonFor({ current, previous: earlier }, dataset) === 'totals';

  const ranked = {
    pages: [
      rankOf(
        pages,
        (r) => r.path,
        (r) => r.views,
      ),
      rankOf(
        pagesBefore,
        (r) => r.path,
        (r) => r.views,
      ),
    ],
    searches: [
      rankOf(
        searches,
        (r) => r.query,
        (r) => r.hits,
        true,
      ),
      rankOf(
        searchesBefore,
        (r) => r.query,
        (r) => r.hits,
        true,
      ),
    ],
    categories: [
      rankOf(
        categories,
        (r) => r.category,
        (r) => r.unanswered,
      ),
      rankOf(
        categoriesBefore,
        (r) => r.category,
        (r) => r.unanswered,
      ),
    ],
    thumbsDown: [
      rankOf(
        thumbs,
        (r) => r.path,
        (r) => r.thumbsDown,
      ),
      rankOf(
        thumbsBefore,
        (r) => r.path,
        (r) => r.thumbsDown,
      ),
    ],
  } as const;
  // The searches of the previous period with a result clicked, and about how many clicks (hits × the
  // click-through rate, which the API sends on a scale of 0–1 or 0–100): "no longer clicked" needs
  // clicks before, beyond chance against none now (warehouse/noise.ts).
  const clicked = await warehouse.ask(
    `SELECT project_id, lower(search_query) AS term, sum(hits) AS hits, round(sum(CASE WHEN top_clicked_page IS NULL THEN 0 WHEN ctr > 1 THEN hits * ctr / 100 ELSE hits * coalesce(ctr, 0) END)) AS clicks FROM ${warehouse.tables.searches} WHERE dt >= ${sqlString(previous.from)} AND dt < ${sqlString(previous.to)} GROUP BY 1, 2 HAVING count(top_clicked_page) > 0`,
  );
  const clickedBefore = new Map(
    clicked.map((row) => [`${String(row.project_id)}\u0000${String(row.term)}`, { hits: Number(row.hits), clicks: Number(row.clicks) }]),
  );
  const wasClicked = (projectId: string, key: string, hitsNow: number) => {
    const before = clickedBefore.get(`${projectId}\u0000${key}`);
    return before !== undefined && before.clicks > 0 && beyondChance(0, before.clicks, { current: Math.max(1, hitsNow), previous: Math.max(1, before.hits) });
  };
  const daysOf = (dataset: ReportDataset) => (projectId: string) => daysExported({ byProject }, projectId, dataset);
  const previousOf = (kind: keyof typeof ranked, projectId: string, key: string): number | null =>
    compares(RANKING_DATASET[kind]) ? (ranked[kind][1].find((r) => r.projectId === projectId && r.key === key)?.value ?? 0) : null;
  const moversOfKind = (kind: keyof typeof ranked, thereBefore?: (r: Ranked) => 'absent' | 'lapsed' | 'unsure'): Movers =>
    compares(RANKING_DATASET[kind]) ? moversOf(...ranked[kind], RANKED_ROWS, thereBefore, daysOf(RANKING_DATASET[kind])) : NO_MOVERS;

  return {
    period,
    previous,
    comparisons: Object.fromEntries(
      REPORT_DATASETS.map((dataset) => {
        const compared = {
          comparison: comparisonFor({ current, previous: earlier }, dataset),
          current: current.coverage[dataset],
          previous: earlier.coverage[dataset],
          leftOut: { current: leftOutOf(dataset, health), previous: leftOutOf(dataset, healthBefore) },
        };
        const fill =
          compared.comparison === 'totals'
            ? undefined
            : fillOf(dataset, [...(isCovered(compared.previous) ? [] : healthBefore), ...(isCovered(compared.current) ? [] : health)]);
        const comparison: DatasetComparison = fill === undefined ? compared : { ...compared, fill };
        return [dataset, comparison];
      }),
    ) as Record<ReportDataset, DatasetComparison>,
    projects,
    headline: { current, previous: earlier },
    byProject,
    visitorsPerDay: visitorsPerDay(totals, period),
    previousVisitorsPerDay: visitorsPerDay(totals, previous),
    topPages: pages.slice(0, LIMITS.pages).map((page) => ({
      ...page,
      aiShare: share(page.ai, page.human + page.ai),
      previous: previousOf('pages', page.projectId, page.path),
    })),
    unclickedSearches: searches.slice(0, LIMITS.searches).map((search) => ({
      ...search,
      previous: previousOf('searches', search.projectId, search.query.toLowerCase()),
      clickedBefore: wasClicked(search.projectId, search.query.toLowerCase(), search.hits),
      searchedBefore: clickedBefore.has(`${search.projectId}\u0000${search.query.toLowerCase()}`),
    })),
    unansweredByCategory: categories.slice(0, LIMITS.categories).map(({ projectId, category, unanswered, examples }) => ({
      projectId,
      category,
      unanswered,
      examples,
      previous: previousOf('categories', projectId, category),
    })),
    thumbsDownPages: thumbs.slice(0, LIMITS.thumbsDown).map((page) => ({
      ...page,
      rate: share(page.thumbsDown, page.thumbsDown + page.thumbsUp),
      previous: previousOf('thumbsDown', page.projectId, page.path),
    })),
    movers: {
      pages: moversOfKind('pages'),
      searches: moversOfKind('searches', (r) =>
        wasClicked(r.projectId, r.key, r.value) ? 'lapsed' : clickedBefore.has(`${r.projectId}\u0000${r.key}`) ? 'unsure' : 'absent',
      ),
      categories: moversOfKind('categories'),
      thumbsDown: moversOfKind('thumbsDown'),
    },
    health,
    unreadableFiles: [...warehouse.unreadable].sort(),
    requestsPerDay: requests,
    ...(erasures.length > 0 ? { erasures } : {}),
    merges: await readMerges(lake, period, projects),
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

/**
 * The pull requests merged in `period` for `projects`: the `merged_at` of each followup_outcomes
 * record (written by the scope check; the shared contract), one per job. A record that does not
 * read is left out here (the fixes' reader names it).
 */
export async function readMerges(lake: Pick<LakeFiles, 'records'>, period: Period, projects: readonly string[]): Promise<Merge[]> {
  const keys = ((await lake.records.list?.(`${FOLLOWUP_OUTCOMES.prefix}/`)) ?? []).filter((key) => key.endsWith('.json'));
  const wanted = new Set(projects);
  const merges = new Map<string, Merge>();
  for (const key of keys) {
    let record: { job_id?: unknown; project_id?: unknown; merged_at?: unknown; pr_link?: unknown };
    try {
      record = JSON.parse(new TextDecoder().decode((await lake.records.get(key)) ?? new Uint8Array())) as typeof record;
    } catch {
      continue;
    }
    if (typeof record.merged_at !== 'string' || typeof record.project_id !== 'string' || !wanted.has(record.project_id)) continue;
    const at = Date.parse(record.merged_at);
    if (!Number.isFinite(at)) continue;
    const day = new Date(at).toISOString().slice(0, 10);
    if (day < period.from || day >= period.to) continue;
    const id = typeof record.job_id === 'string' ? record.job_id : key;
    merges.set(id, { day, projectId: record.project_id, ...(typeof record.pr_link === 'string' ? { prLink: record.pr_link } : {}) });
  }
  return [...merges.values()].sort((a, b) => (a.day < b.day ? -1 : a.day > b.day ? 1 : 0));
}

/** The days of `dataset` each period has exported of `projectId`: the exposure its counts are compared over (warehouse/noise.ts). */
export function daysExported(figures: Pick<Figures, 'byProject'>, projectId: string, dataset: ReportDataset): Exposures {
  const project = figures.byProject.find((p) => p.projectId === projectId);
  return { current: project?.current.coverage[dataset].exported ?? 0, previous: project?.previous.coverage[dataset].exported ?? 0 };
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
  return loadWarehouse(lake, { days, projects: scope.projects, ...spans, ...(scope.onWarning ? { onWarning: scope.onWarning } : {}) });
}

/** Nothing moved: a ranking whose periods do not compare. */
const NO_MOVERS: Movers = { new: [], lapsed: [], risers: [], fallers: [] };

function visitorsPerDay(rows: readonly DailyTotalsRow[], period: Period): DayVisitors[] {
  return period.days.map((day) => {
    const ofDay = rows.filter((r) => r.day === day && r.visitorRows > 0);
    if (ofDay.length === 0) return { day, human: null, ai: null };
    return { day, human: ofDay.reduce((s, r) => s + r.human, 0), ai: ofDay.reduce((s, r) => s + r.ai, 0) };
  });
}

function rankOf<T extends { readonly projectId: string }>(rows: readonly T[], label: (r: T) => string, value: (r: T) => number, lower = false): Ranked[] {
  return rows.map((r) => ({ projectId: r.projectId, key: lower ? label(r).toLowerCase() : label(r), label: label(r), value: value(r) }));
}
