/**
 * Deterministic, lazily generated page counts: the visitors data, and with other options
 * the views data (views.ts: events, so `total` = human + ai there).
 *
 * Nothing is materialised: row `i` of a date range is computed on demand from a hash of
 * (seed, projectId, day, i), so a project with 1,000,000 paths per day costs no memory and
 * serving a page costs O(limit × days in the range).
 *
 * Shape of the data, per project and UTC day:
 * - the day lists the site's catalogue entries `[0, P_d)` (pages.ts) where `P_d` is the
 *   project's path count (±5 % by day unless `exact`), in rank order: rank `i` has a
 *   Zipf-like total `T0 / (i+1)^s` (non-increasing, so "most visited first" and stable), and
 *   ranks map to catalogue entries through a per-day involution (some neighbours swap), so
 *   days differ;
 * - each page splits its total into human-only, AI-only and both, so
 *   `max(human, ai) ≤ total ≤ human + ai` and usually `total < human + ai` (a distinct
 *   count); with `total: 'sum'` (views) `total` is then `human + ai`;
 * - site totals are unique visitors, so they are well below the sum of pages (a visitor
 *   reads several pages) but at least the largest page (`total` as for a page).
 *
 * A multi-day range lists the union of the days' catalogue entries in catalogue order,
 * with per-path sums; its totals are the sums of the daily totals.
 */
import type { PageVisitors, VisitorCounts } from '../../functions/shared/api-types.js';
import { hashString, mix, unit } from './hash.js';
import type { SitePages } from './pages.js';
import { baseRows, type BaseRows, type ProjectRegistry, type ProjectSeed, type SizedDataset } from './projects.js';
import { memo } from './cache.js';
import { swapNeighbours, unionRowCount, type DatasetGenerator } from './windowed.js';

/** Rows at the top of a day checked when making the site totals at least the largest page. */
const TOP_ROWS_CHECKED = 16;

/** A quiet day's traffic against an ordinary day's (`ProjectSeed.quietDays`). */
const QUIET_FACTOR = 0.1;

interface ProjectModel {
  readonly id: string;
  readonly key: number;
  /** Zipf exponent of this project's popularity curve. */
  readonly exponent: number;
  readonly size: BaseRows;
  /** Days whose traffic is `QUIET_FACTOR` of usual. */
  readonly quietDays: ReadonlySet<string>;
}

interface DayModel {
  readonly key: number;
  readonly pathCount: number;
  /** Total visitors of the rank-0 page. */
  readonly top: number;
}

/** How a page-count dataset differs from the visitors data. */
export interface PageCountOptions {
  /** Varies the per-day counts while keeping each project's catalogue of paths; default 0 (the visitors data). */
  readonly salt?: number;
  /** Multiplies the traffic; default 1. */
  readonly scale?: number;
  /** Sizes the days by `baseRows(seed, dataset)`; default: `paths`, ±5 % by day unless `exact` (the visitors data). */
  readonly dataset?: SizedDataset;
  /**
   * What `total` is: `distinct` (default, visitors) people counted once whether seen as human,
   * AI or both, so `max(human, ai) ≤ total ≤ human + ai`; `sum` (views) events, each human or
   * AI, so `total = human + ai`, as the dashboard's export defines total views.
   */
  readonly total?: 'distinct' | 'sum';
}

/** Splits `total` unique visitors into human/ai with an overlap (visitors counted in both). */
function split(total: number, key: number, aiShareMin: number, aiShareSpan: number, overlapMax: number): VisitorCounts {
  const both = total >= 2 ? Math.floor(total * overlapMax * unit(mix(key, 2))) : 0;
  const rest = total - both;
  const aiOnly = Math.round(rest * (aiShareMin + aiShareSpan * unit(mix(key, 1))));
  const humanOnly = rest - aiOnly;
  return { human: humanOnly + both, ai: aiOnly + both, total };
}

/** Page counts of a window (visitors, views), with the window's site totals. Per-project and per-day parameters are small and cached. */
export class PageCountData implements DatasetGenerator<PageVisitors> {
  private readonly projects = new Map<string, ProjectModel>();
  private readonly days = new Map<string, DayModel>();
  private readonly salt: number;
  private readonly scale: number;
  private readonly sizeOf: (seed: ProjectSeed) => BaseRows;
  private readonly summed: boolean;

  constructor(
    private readonly registry: ProjectRegistry,
    private readonly pages: SitePages,
    options: PageCountOptions = {},
  ) {
    this.salt = options.salt ?? 0;
    this.scale = options.scale ?? 1;
    this.summed = options.total === 'sum';
    const dataset = options.dataset;
    this.sizeOf = dataset === undefined ? (project) => ({ rows: project.paths, exact: project.exact === true }) : (project) => baseRows(project, dataset);
  }

  /** Rows of the range `days` (the days `[dateFrom, dateTo)`, oldest first). */
  rowCount(projectId: string, days: readonly string[]): number {
    const project = this.project(projectId);
    return unionRowCount(days, (day) => this.dayModel(project, day).pathCount);
  }

  /** Row `index` (0-based, API order) of the range; `index` must be < rowCount. */
  row(projectId: string, days: readonly string[], index: number): PageVisitors {
    const project = this.project(projectId);
    if (days.length === 1) {
      const day = this.dayModel(project, days[0] as string);
      return this.pageAt(project, day, index, this.catalogIndex(day, index));
    }
    // Multi-day: catalogue order, summed over the days that list the path.
    let human = 0;
    let ai = 0;
    let total = 0;
    for (const dayString of days) {
      const day = this.dayModel(project, dayString);
      if (index >= day.pathCount) continue;
      // The rank permutation is an involution: the rank of catalogue entry k is perm(k).
      const counts = this.pageAt(project, day, this.catalogIndex(day, index), index);
      human += counts.human;
      ai += counts.ai;
      total += counts.total;
    }
    return { path: this.pages.path(projectId, index), human, ai, total };
  }

  /** Site-wide unique visitors of the range: the sum of the daily site totals. */
  totals(projectId: string, days: readonly string[]): VisitorCounts {
    const project = this.project(projectId);
    let human = 0;
    let ai = 0;
    let total = 0;
    for (const dayString of days) {
      const counts = this.dayTotals(project, this.dayModel(project, dayString));
      human += counts.human;
      ai += counts.ai;
      total += counts.total;
    }
    return { human, ai, total };
  }

  day(projectId: string, days: readonly string[], rows: PageVisitors[]): { readonly totals: VisitorCounts; readonly rows: PageVisitors[] } {
    return { totals: this.totals(projectId, days), rows };
  }

  private dayTotals(project: ProjectModel, day: DayModel): VisitorCounts {
    if (day.pathCount === 0) return { human: 0, ai: 0, total: 0 };
    // Unique visitors of the site ≈ 35–55 % of the sum of page uniques (≈ T0 · H(P)).
    const harmonic = Math.log(day.pathCount) + 0.58;
    const estimate = Math.round(day.top * harmonic * (0.35 + 0.2 * unit(mix(day.key, 4))));
    // The "+ extra" keeps a one-page site's total from equalling the sum of its pages:
    // some visitors only reach pages that are not part of the docs.
    const extra = 1 + (mix(day.key, 5) % 7);
    const site = split(Math.max(estimate, day.top) + extra, mix(day.key, 6), 0.15, 0.3, 0.1);
    let maxHuman = 0;
    let maxAi = 0;
    for (let i = 0; i < Math.min(day.pathCount, TOP_ROWS_CHECKED); i++) {
      const page = this.pageAt(project, day, i, this.catalogIndex(day, i));
      maxHuman = Math.max(maxHuman, page.human);
      maxAi = Math.max(maxAi, page.ai);
    }
    const human = Math.max(site.human, maxHuman);
    const ai = Math.max(site.ai, maxAi);
    const total = this.summed ? human + ai : Math.min(Math.max(site.total, human, ai), human + ai);
    return { human, ai, total };
  }

  /** The page at `rank` of a day, which lists catalogue entry `catalog`. */
  private pageAt(project: ProjectModel, day: DayModel, rank: number, catalog: number): PageVisitors {
    const total = Math.max(1, Math.round(day.top / (rank + 1) ** project.exponent));
    const { human, ai } = split(total, mix(day.key, 1_000 + catalog), 0.1, 0.5, 0.25);
    return { path: this.pages.path(project.id, catalog), human, ai, total: this.summed ? human + ai : total };
  }

  /** Rank ↔ catalogue entry of a day. */
  private catalogIndex(day: DayModel, rank: number): number {
    return swapNeighbours(rank, day.pathCount, day.key, 3);
  }

  private dayModel(project: ProjectModel, day: string): DayModel {
    return memo(this.days, `${project.id}\u0000${day}`, () => {
      const key = mix(this.salt === 0 ? project.key : mix(project.key, this.salt), hashString(day));
      const base = project.size.rows;
      const pathCount = project.size.exact ? base : Math.max(1, Math.round(base * (0.95 + 0.1 * unit(mix(key, 1)))));
      // Weekly-ish variation of traffic; T0 grows sub-linearly with the size of the site.
      const dayFactor = 0.75 + 0.5 * unit(mix(key, 2));
      const quiet = project.quietDays.has(day) ? QUIET_FACTOR : 1;
      const top = Math.max(1, Math.round((40 + 3 * Math.max(1, base) ** 0.75) * dayFactor * this.scale * quiet));
      return { key, pathCount, top };
    });
  }

  private project(projectId: string): ProjectModel {
    return memo(this.projects, projectId, () => {
      const entry = this.registry.require(projectId);
      return {
        id: projectId,
        key: entry.key,
        exponent: 0.85 + 0.3 * unit(mix(entry.key, 3)),
        size: this.sizeOf(entry.seed),
        quietDays: new Set(entry.seed.quietDays ?? []),
      };
    });
  }
}
