/**
 * Deterministic, lazily generated search analytics: one row per distinct search term of the
 * window, ordered by `hits` descending.
 *
 * Per project and UTC day: a stable catalogue of terms (index `k` ↦ one unique term, built
 * from the unicode-heavy lists of text.ts), of which the day lists entries `[0, T_d)`; rank
 * `i` has Zipf-like hits `H0 / (i+1)^s` (non-increasing, so the order is "most searched
 * first") and ranks map to catalogue entries through a per-day swap of some neighbours, so
 * days differ. Clicks are 0 for about one term in five (then `ctr` is 0 and
 * `topClickedPage` null), else a share of the hits.
 *
 * ⚠ `ctr` is sent on a 0–1 scale (clicks ÷ hits, 4 decimals); the real scale is undocumented.
 *
 * A multi-day window merges the days' terms (hits and clicks summed, `lastSearchedAt` the
 * latest) and sorts them by hits descending, then catalogue order; that needs the merged
 * window in memory, so it is capped at `MAX_MERGED_TERMS` terms.
 */
import { dayStart } from '../../functions/shared/dates.js';
import { DAY_MS } from '../../functions/shared/time.js';
import { createRandom, hashString, mix, pick, shuffled, unit } from './hash.js';
import type { SitePages } from './pages.js';
import { baseRows, dailyRows, type ProjectEntry, type ProjectRegistry } from './projects.js';
import { SEARCH_HEADS, SEARCH_TAILS } from './text.js';
import { memo } from './cache.js';
import { swapNeighbours, unionRowCount, type DatasetGenerator } from './windowed.js';

/** One row of `GET /v1/analytics/{projectId}/searches`. */
export interface SearchRow {
  readonly searchQuery: string;
  readonly hits: number;
  /** clicks ÷ hits on a 0–1 scale, rounded to 4 decimals. */
  readonly ctr: number;
  /** Null when nobody clicked a result. */
  readonly topClickedPage: string | null;
  /** ISO 8601 with milliseconds, inside the window. */
  readonly lastSearchedAt: string;
}

/** The largest multi-day window the sandbox merges (terms in the union of the days). */
export const MAX_MERGED_TERMS = 2_000_000;

const SALT = 0x5ea7c4;
const COMBINATIONS = SEARCH_HEADS.length * SEARCH_TAILS.length;
/** A prime that divides no COMBINATIONS factor, so `k ↦ k·m mod C` is a bijection. */
const MULTIPLIER = 7_919;

interface Project {
  readonly entry: ProjectEntry;
  readonly key: number;
  readonly exponent: number;
  readonly heads: readonly string[];
  readonly tails: readonly string[];
  readonly offset: number;
  /** Catalogue entries (the site's pages, as many as the views data lists, at most 5,000) that clicked results point to. */
  readonly pageRange: number;
}

interface Day {
  readonly key: number;
  readonly start: number;
  readonly count: number;
  readonly top: number;
}

/** Per-term values of one day. */
interface TermDay {
  readonly hits: number;
  readonly clicks: number;
  readonly time: number;
}

export class SearchData implements DatasetGenerator<SearchRow> {
  private readonly projects = new Map<string, Project>();
  private readonly days = new Map<string, Day>();
  private readonly sums = new Map<string, number>();
  private readonly merged = new Map<string, Uint32Array>();

  constructor(
    private readonly registry: ProjectRegistry,
    private readonly pages: SitePages,
  ) {}

  /** Terms of the window `days` (UTC days, oldest first). */
  rowCount(projectId: string, days: readonly string[]): number {
    const project = this.project(projectId);
    return unionRowCount(days, (day) => this.dayModel(project, day).count);
  }

  /**
   * Row `index` of the window in API order; `index` must be < rowCount. Throws a RangeError
   * for a multi-day window of more than MAX_MERGED_TERMS terms.
   */
  row(projectId: string, days: readonly string[], index: number): SearchRow {
    const project = this.project(projectId);
    if (days.length === 1) {
      const day = this.dayModel(project, days[0] as string);
      const k = catalogIndex(day, index);
      return this.toRow(project, k, this.termDay(project, day, k, index));
    }
    const k = this.mergedOrder(project, days)[index] as number;
    let hits = 0;
    let clicks = 0;
    let time = 0;
    for (const dayString of days) {
      const day = this.dayModel(project, dayString);
      if (k >= day.count) continue;
      const values = this.termDay(project, day, k, catalogIndex(day, k));
      hits += values.hits;
      clicks += values.clicks;
      time = Math.max(time, values.time);
    }
    return this.toRow(project, k, { hits, clicks, time });
  }

  /** Search events of the window: the sum of every row's hits. */
  totalSearches(projectId: string, days: readonly string[]): number {
    const project = this.project(projectId);
    let total = 0;
    for (const dayString of days) {
      const day = this.dayModel(project, dayString);
      const cacheKey = `${projectId}\u0000${dayString}`;
      let sum = this.sums.get(cacheKey);
      if (sum === undefined) {
        sum = 0;
        for (let rank = 0; rank < day.count; rank++) sum += hitsAt(project, day, rank);
        if (this.sums.size > 10_000) this.sums.clear();
        this.sums.set(cacheKey, sum);
      }
      total += sum;
    }
    return total;
  }

  day(projectId: string, days: readonly string[], rows: SearchRow[]): { readonly totalSearches: number; readonly rows: SearchRow[] } {
    return { totalSearches: this.totalSearches(projectId, days), rows };
  }

  private toRow(project: Project, k: number, values: TermDay): SearchRow {
    const termKey = mix(project.key, k);
    let topClickedPage: string | null = null;
    if (values.clicks > 0) {
      const path = this.pages.path(project.entry.seed.id, mix(termKey, 4) % project.pageRange);
      topClickedPage = unit(mix(termKey, 5)) < 0.15 ? `${path}#${pick(['example', 'parameters', 'errors', 'réponse'], mix(termKey, 6))}` : path;
    }
    return {
      searchQuery: this.term(project, k),
      hits: values.hits,
      ctr: values.clicks === 0 ? 0 : Math.round((values.clicks / values.hits) * 10_000) / 10_000,
      topClickedPage,
      lastSearchedAt: new Date(values.time).toISOString(),
    };
  }

  private termDay(project: Project, day: Day, k: number, rank: number): TermDay {
    const key = mix(day.key, k);
    const hits = hitsAt(project, day, rank);
    const clicks = unit(mix(key, 1)) < 0.2 ? 0 : Math.floor(hits * 0.85 * unit(mix(key, 2)));
    return { hits, clicks, time: day.start + Math.floor(unit(mix(key, 3)) * DAY_MS) };
  }

  /** Catalogue entry → unique term (mixed radix over the project's shuffled word lists). */
  private term(project: Project, k: number): string {
    const block = Math.floor(k / COMBINATIONS);
    const within = ((k % COMBINATIONS) * MULTIPLIER + project.offset) % COMBINATIONS;
    const head = project.heads[within % project.heads.length] as string;
    const tail = project.tails[Math.floor(within / project.heads.length)] as string;
    return `${head} ${tail}${block > 0 ? ` ${block + 1}` : ''}`;
  }

  /** Catalogue entries of a multi-day window, by summed hits descending, then entry. */
  private mergedOrder(project: Project, days: readonly string[]): Uint32Array {
    const cacheKey = `${project.entry.seed.id}\u0000${days.join(',')}`;
    const cached = this.merged.get(cacheKey);
    if (cached) return cached;
    const models = days.map((day) => this.dayModel(project, day));
    const union = Math.max(...models.map((day) => day.count));
    if (union > MAX_MERGED_TERMS) {
      throw new RangeError(`the sandbox merges at most ${MAX_MERGED_TERMS} search terms over several days: ask for one day at a time`);
    }
    const hits = new Float64Array(union);
    for (const day of models) {
      for (let k = 0; k < day.count; k++) hits[k] = (hits[k] as number) + hitsAt(project, day, catalogIndex(day, k));
    }
    const order = new Uint32Array(union);
    for (let k = 0; k < union; k++) order[k] = k;
    order.sort((a, b) => (hits[b] as number) - (hits[a] as number) || a - b);
    if (this.merged.size >= 4) this.merged.clear();
    this.merged.set(cacheKey, order);
    return order;
  }

  private project(projectId: string): Project {
    return memo(this.projects, projectId, () => {
      const entry = this.registry.require(projectId);
      const key = mix(entry.key, SALT);
      const random = createRandom(key);
      const project: Project = {
        entry,
        key,
        exponent: 0.9 + 0.3 * unit(mix(key, 1)),
        heads: shuffled(SEARCH_HEADS, random),
        tails: shuffled(SEARCH_TAILS, random),
        offset: mix(key, 2) % COMBINATIONS,
        pageRange: this.pages.listed(projectId, 5_000),
      };
      return project;
    });
  }

  private dayModel(project: Project, day: string): Day {
    const cacheKey = `${project.entry.seed.id}\u0000${day}`;
    return memo(this.days, cacheKey, () => {
      const key = mix(project.key, hashString(day));
      const base = baseRows(project.entry.seed, 'searches');
      const count = dailyRows(base, key, 0.1);
      const top = Math.max(1, Math.round((20 + 2 * Math.max(1, base.rows) ** 0.7) * (0.7 + 0.6 * unit(mix(key, 2)))));
      const model = { key, start: dayStart(day), count, top };
      return model;
    });
  }
}

function hitsAt(project: Project, day: Day, rank: number): number {
  return Math.max(1, Math.round(day.top / (rank + 1) ** project.exponent));
}

/** Rank ↔ catalogue entry of a day. */
function catalogIndex(day: Day, index: number): number {
  return swapNeighbours(index, day.count, day.key, 7);
}
