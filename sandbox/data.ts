/**
 * Deterministic, lazily generated visitor analytics for the sandbox.
 *
 * Nothing is materialised: row `i` of a date range is computed on demand from a hash of
 * (seed, projectId, day, i), so a project with 1,000,000 paths per day costs no memory and
 * serving a page costs O(limit × days in the range).
 *
 * Shape of the data, per project and UTC day:
 * - a stable catalogue of paths (`/docs/<section>/<slug>`, a few with non-ASCII or
 *   percent-encoded characters), catalogue index `k` ↦ one unique path;
 * - the day lists catalogue entries `[0, P_d)` where `P_d` is the project's path count
 *   (±5 % by day unless `exact`), in rank order: rank `i` has a Zipf-like total
 *   `T0 / (i+1)^s` (non-increasing, so "most visited first" and stable), and ranks map to
 *   catalogue entries through a per-day involution (some neighbours swap), so days differ;
 * - each page splits its total into human-only, AI-only and both, so
 *   `max(human, ai) ≤ total ≤ human + ai` and usually `total < human + ai`;
 * - site totals are unique visitors, so they are well below the sum of pages (a visitor
 *   reads several pages) but at least the largest page.
 *
 * A multi-day range lists the union of the days' catalogue entries in catalogue order,
 * with per-path sums; its totals are the sums of the daily totals.
 *
 * The views endpoint uses a second instance with a `salt` and a `scale`: the same catalogue
 * of paths (same site), other per-day counts.
 */
import type { PageVisitors, VisitorCounts } from '../functions/shared/api-types.js';
import { createRandom, hashString, mix, shuffled, unit } from './hash.js';

export { createRandom } from './hash.js';

/** A project the sandbox serves. */
export interface ProjectSeed {
  readonly id: string;
  /** Paths per day; varies by ±5 % from day to day unless `exact` is true. */
  readonly paths: number;
  /** When true, every day has exactly `paths` rows (and the other datasets their base counts). */
  readonly exact?: boolean;
  /**
   * Rows per day of the other datasets, exactly, every day. Defaults derive from `paths`
   * (views ≈ paths, searches ≈ paths/4, feedback ≈ paths×0.06, assistant ≈ paths/5, each
   * varying by day unless `exact`). `feedback: 0` stands for an organisation that has not
   * switched feedback on.
   */
  readonly rows?: {
    readonly views?: number;
    readonly searches?: number;
    readonly feedback?: number;
    readonly assistant?: number;
  };
}

/** The datasets whose rows per day a `ProjectSeed` sizes (visitors: `paths`). */
export type SizedDataset = 'views' | 'searches' | 'feedback' | 'assistant';

/** Default rows per day relative to `paths`, before the daily variation. */
const ROWS_PER_PATH: Readonly<Record<SizedDataset, number>> = { views: 1, searches: 0.25, feedback: 0.06, assistant: 0.2 };

/**
 * A project's base rows per day of `dataset`, and whether every day has exactly that many
 * (`exact` projects and explicit `rows` counts) rather than a count varying around it.
 */
export function baseRows(seed: ProjectSeed, dataset: SizedDataset): { readonly rows: number; readonly exact: boolean } {
  const explicit = seed.rows?.[dataset];
  if (explicit !== undefined) return { rows: explicit, exact: true };
  return { rows: Math.max(1, Math.round(seed.paths * ROWS_PER_PATH[dataset])), exact: seed.exact === true };
}

/** Rows of one day: the base count, or within ±`spread` of it (by the day's key) unless exact. */
export function dailyRows(base: { readonly rows: number; readonly exact: boolean }, dayKey: number, spread: number): number {
  if (base.exact) return base.rows;
  return Math.max(1, Math.round(base.rows * (1 - spread + 2 * spread * unit(mix(dayKey, 1)))));
}

/** The default projects: small, medium, and a large one with a fixed row count. */
/** Entries a sandbox cache keeps before it starts afresh: memory stays bounded whatever is asked. */
const CACHE_LIMIT = 10_000;

/**
 * `map`'s value for `key`, else `make()` stored under it. The map is emptied once it holds
 * CACHE_LIMIT entries: everything in it can be computed again, so a bound beats an LRU here.
 */
export function memo<K, V>(map: Map<K, V>, key: K, make: () => V): V {
  const hit = map.get(key);
  if (hit !== undefined) return hit;
  const value = make();
  if (map.size > CACHE_LIMIT) map.clear();
  map.set(key, value);
  return value;
}

/** Rows of a window whose days hold `countOf(day)` rows each. */
export function windowRowCount(days: readonly string[], countOf: (day: string) => number): number {
  let count = 0;
  for (const day of days) count += countOf(day);
  return count;
}

/**
 * Where row `index` of a window falls when the API lists its days newest first: the day and
 * the row's index within it; undefined past the window's end.
 */
export function locateInWindow(
  days: readonly string[],
  index: number,
  countOf: (day: string) => number,
): { readonly day: string; readonly rest: number } | undefined {
  let rest = index;
  for (let d = days.length - 1; d >= 0; d--) {
    const day = days[d] as string;
    const count = countOf(day);
    if (rest < count) return { day, rest };
    rest -= count;
  }
  return undefined;
}

export const DEFAULT_PROJECTS: readonly ProjectSeed[] = [
  { id: 'proj_small', paths: 300 },
  { id: 'proj_medium', paths: 2_500 },
  { id: 'proj_large', paths: 20_000, exact: true },
];

/**
 * `proj_synth_<N>`: a project with exactly N rows every day in every paged dataset — N
 * visitor paths, N view paths, N search terms, N feedback rows, N assistant turns (so
 * caller-stats `total` is N) — for tests and benchmarks. Rows are generated lazily.
 */
const SYNTH_PATTERN = /^proj_synth_([1-9]\d{0,8})$/;

/** The largest synthetic project (rows per day), to keep counts within safe integers. */
export const MAX_SYNTH_PATHS = 100_000_000;

/** The seed of `proj_synth_<N>`; undefined when `projectId` is not one (or N is too large). */
export function synthProjectSeed(projectId: string): ProjectSeed | undefined {
  const synth = SYNTH_PATTERN.exec(projectId);
  if (!synth) return undefined;
  const rows = Number(synth[1]);
  if (rows > MAX_SYNTH_PATHS) return undefined;
  return { id: projectId, paths: rows, exact: true, rows: { views: rows, searches: rows, feedback: rows, assistant: rows } };
}

/** Rows at the top of a day checked when making the site totals at least the largest page. */
const TOP_ROWS_CHECKED = 16;

const SECTIONS = ['getting-started', 'guides', 'api-reference', 'components', 'integrations', 'deploy', 'settings', 'changelog', 'ai', 'référence'] as const;

const FIRST_WORDS = [
  'quickstart',
  'install',
  'authentication',
  'webhooks',
  'pagination',
  'errors',
  'rate-limits',
  'analytics',
  'search',
  'navigation',
  'themes',
  'custom-domain',
  'redirects',
  'versioning',
  'openapi',
  'snippets',
  'callouts',
  'code-blocks',
  'tabs',
  'accordions',
  'cards',
  'images',
  'überblick',
  'café',
  'naïve',
  'getting%20started',
  '日本語',
  'sso',
  'scim',
  'audit-logs',
  'feedback',
  'llms-txt',
  'mcp',
  'agents',
  'workflows',
  'preview',
  'github',
  'gitlab',
] as const;

const SECOND_WORDS = [
  'overview',
  'setup',
  'reference',
  'examples',
  'faq',
  'migration',
  'best-practices',
  'troubleshooting',
  'limits',
  'configuration',
  'concepts',
  'tutorial',
  'api',
  'cli',
  'sdk',
  'v1',
  'v2',
  'advanced',
  'basics',
  'security',
  'pricing',
  'changelog',
  'guide',
  'intro',
] as const;

const PATH_COMBINATIONS = SECTIONS.length * FIRST_WORDS.length * SECOND_WORDS.length;
/** A prime that divides no PATH_COMBINATIONS factor, so `k ↦ k·m mod C` is a bijection. */
const PATH_MULTIPLIER = 7_919;

// --- the model -----------------------------------------------------------------------

interface ProjectModel {
  readonly seed: ProjectSeed;
  readonly key: number;
  /** Zipf exponent of this project's popularity curve. */
  readonly exponent: number;
  readonly firstWords: readonly string[];
  readonly secondWords: readonly string[];
  /** Offset of the path bijection, per project. */
  readonly pathOffset: number;
}

interface DayModel {
  readonly key: number;
  readonly pathCount: number;
  /** Total visitors of the rank-0 page. */
  readonly top: number;
}

/** Splits `total` unique visitors into human/ai with an overlap (visitors counted in both). */
function split(total: number, key: number, aiShareMin: number, aiShareSpan: number, overlapMax: number): VisitorCounts {
  const both = total >= 2 ? Math.floor(total * overlapMax * unit(mix(key, 2))) : 0;
  const rest = total - both;
  const aiOnly = Math.round(rest * (aiShareMin + aiShareSpan * unit(mix(key, 1))));
  const humanOnly = rest - aiOnly;
  return { human: humanOnly + both, ai: aiOnly + both, total };
}

/**
 * The seeded data set. Cheap to construct; per-project and per-day parameters are small
 * and cached, rows are never stored.
 */
export class VisitorData {
  private readonly projects = new Map<string, ProjectModel>();
  private readonly days = new Map<string, DayModel>();
  private readonly salt: number;
  private readonly scale: number;
  private readonly sizeOf: (seed: ProjectSeed) => { readonly rows: number; readonly exact: boolean };

  /**
   * @param options.salt Varies the per-day counts while keeping each project's catalogue of
   *   paths; default 0 (the visitors data).
   * @param options.scale Multiplies the traffic; default 1.
   * @param options.dataset Sizes the days by `baseRows(seed, dataset)`; default: `paths`, ±5 %
   *   by day unless `exact` (the visitors data).
   */
  constructor(
    private readonly seed: number,
    seeds: readonly ProjectSeed[],
    options: { readonly salt?: number; readonly scale?: number; readonly dataset?: SizedDataset } = {},
  ) {
    this.salt = options.salt ?? 0;
    this.scale = options.scale ?? 1;
    const dataset = options.dataset;
    this.sizeOf = dataset === undefined ? (project) => ({ rows: project.paths, exact: project.exact === true }) : (project) => baseRows(project, dataset);
    for (const project of seeds) this.projects.set(project.id, this.model(project));
  }

  /** Path of catalogue entry `k` of a project (the same site-wide catalogue for every day). */
  catalogPath(projectId: string, k: number): string {
    return this.path(this.require(projectId), k);
  }

  /** Whether `projectId` exists: a configured project or `proj_synth_<N>`. */
  hasProject(projectId: string): boolean {
    return this.project(projectId) !== undefined;
  }

  /** Rows of the range `days` (the days `[dateFrom, dateTo)`, oldest first). */
  rowCount(projectId: string, days: readonly string[]): number {
    const project = this.require(projectId);
    let count = 0;
    for (const day of days) count = Math.max(count, this.day(project, day).pathCount);
    return count;
  }

  /** Row `index` (0-based, API order) of the range; `index` must be < rowCount. */
  row(projectId: string, days: readonly string[], index: number): PageVisitors {
    const project = this.require(projectId);
    if (days.length === 1) {
      const day = this.day(project, days[0] as string);
      return this.pageAt(project, day, index, this.catalogIndex(day, index));
    }
    // Multi-day: catalogue order, summed over the days that list the path.
    let human = 0;
    let ai = 0;
    let total = 0;
    for (const dayString of days) {
      const day = this.day(project, dayString);
      if (index >= day.pathCount) continue;
      // The rank permutation is an involution: the rank of catalogue entry k is perm(k).
      const counts = this.pageAt(project, day, this.catalogIndex(day, index), index);
      human += counts.human;
      ai += counts.ai;
      total += counts.total;
    }
    return { path: this.path(project, index), human, ai, total };
  }

  /** Site-wide unique visitors of the range: the sum of the daily site totals. */
  totals(projectId: string, days: readonly string[]): VisitorCounts {
    const project = this.require(projectId);
    let human = 0;
    let ai = 0;
    let total = 0;
    for (const dayString of days) {
      const counts = this.dayTotals(project, this.day(project, dayString));
      human += counts.human;
      ai += counts.ai;
      total += counts.total;
    }
    return { human, ai, total };
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
    const total = Math.min(Math.max(site.total, human, ai), human + ai);
    return { human, ai, total };
  }

  /** The page at `rank` of a day, which lists catalogue entry `catalog`. */
  private pageAt(project: ProjectModel, day: DayModel, rank: number, catalog: number): PageVisitors {
    const total = Math.max(1, Math.round(day.top / (rank + 1) ** project.exponent));
    const counts = split(total, mix(day.key, 1_000 + catalog), 0.1, 0.5, 0.25);
    return { path: this.path(project, catalog), ...counts };
  }

  /** Rank → catalogue entry: some neighbouring pairs swap, differently each day. */
  private catalogIndex(day: DayModel, rank: number): number {
    const partner = rank ^ 1;
    if (partner >= day.pathCount) return rank;
    const swap = (mix(mix(day.key, 3), Math.floor(rank / 2)) & 3) === 0;
    return swap ? partner : rank;
  }

  /**
   * Catalogue entry → unique path: an affine bijection scrambles `k` within each block of
   * `PATH_COMBINATIONS` (so neighbouring entries look unrelated), then a mixed-radix
   * decomposition picks section and words; later blocks get a numeric suffix.
   */
  private path(project: ProjectModel, k: number): string {
    const block = Math.floor(k / PATH_COMBINATIONS);
    const within = (((k % PATH_COMBINATIONS) * PATH_MULTIPLIER + project.pathOffset) % PATH_COMBINATIONS) + block * PATH_COMBINATIONS;
    const section = SECTIONS[within % SECTIONS.length] as string;
    let q = Math.floor(within / SECTIONS.length);
    const first = project.firstWords[q % project.firstWords.length] as string;
    q = Math.floor(q / project.firstWords.length);
    const second = project.secondWords[q % project.secondWords.length] as string;
    q = Math.floor(q / project.secondWords.length);
    return `/docs/${section}/${first}-${second}${q > 0 ? `-${q + 1}` : ''}`;
  }

  private day(project: ProjectModel, day: string): DayModel {
    const cacheKey = `${project.seed.id}\u0000${day}`;
    const cached = this.days.get(cacheKey);
    if (cached) return cached;
    const key = mix(this.salt === 0 ? project.key : mix(project.key, this.salt), hashString(day));
    const size = this.sizeOf(project.seed);
    const base = size.rows;
    const pathCount = size.exact ? base : Math.max(1, Math.round(base * (0.95 + 0.1 * unit(mix(key, 1)))));
    // Weekly-ish variation of traffic; T0 grows sub-linearly with the size of the site.
    const dayFactor = 0.75 + 0.5 * unit(mix(key, 2));
    const top = Math.max(1, Math.round((40 + 3 * Math.max(1, base) ** 0.75) * dayFactor * this.scale));
    const model = { key, pathCount, top };
    if (this.days.size > 10_000) this.days.clear();
    this.days.set(cacheKey, model);
    return model;
  }

  private project(projectId: string): ProjectModel | undefined {
    const known = this.projects.get(projectId);
    if (known) return known;
    const synth = synthProjectSeed(projectId);
    if (!synth) return undefined;
    const model = this.model(synth);
    this.projects.set(projectId, model);
    return model;
  }

  private require(projectId: string): ProjectModel {
    const project = this.project(projectId);
    if (!project) throw new RangeError(`unknown sandbox project "${projectId}"`);
    return project;
  }

  private model(seed: ProjectSeed): ProjectModel {
    if (!Number.isSafeInteger(seed.paths) || seed.paths < 1) {
      throw new RangeError(`project "${seed.id}": paths must be a positive integer`);
    }
    for (const [dataset, rows] of Object.entries(seed.rows ?? {})) {
      if (!Number.isSafeInteger(rows) || rows < 0 || rows > MAX_SYNTH_PATHS) {
        throw new RangeError(`project "${seed.id}": rows.${dataset} must be an integer from 0 to ${MAX_SYNTH_PATHS}`);
      }
    }
    const key = mix(this.seed >>> 0, hashString(seed.id));
    const random = createRandom(key);
    return {
      seed,
      key,
      exponent: 0.85 + 0.3 * unit(mix(key, 3)),
      firstWords: shuffled(FIRST_WORDS, random),
      secondWords: shuffled(SECOND_WORDS, random),
      pathOffset: mix(key, 4) % PATH_COMBINATIONS,
    };
  }
}

/** A project as the other datasets' generators see it: its seed and a key per dataset. */
export interface ProjectEntry {
  readonly seed: ProjectSeed;
  /** mix(data seed, project id): the root of every generated value of the project. */
  readonly key: number;
}

/** Resolves project ids (configured ones and `proj_synth_<N>`) for the dataset generators. */
export class ProjectRegistry {
  private readonly projects = new Map<string, ProjectEntry>();

  constructor(
    private readonly seed: number,
    seeds: readonly ProjectSeed[],
  ) {
    for (const project of seeds) this.projects.set(project.id, this.entry(project));
  }

  has(projectId: string): boolean {
    return this.find(projectId) !== undefined;
  }

  find(projectId: string): ProjectEntry | undefined {
    const known = this.projects.get(projectId);
    if (known) return known;
    const synth = synthProjectSeed(projectId);
    if (!synth) return undefined;
    const entry = this.entry(synth);
    if (this.projects.size > 10_000) this.projects.clear();
    this.projects.set(projectId, entry);
    return entry;
  }

  /** The project, or a RangeError naming it (callers check `has` first). */
  require(projectId: string): ProjectEntry {
    const project = this.find(projectId);
    if (!project) throw new RangeError(`unknown sandbox project "${projectId}"`);
    return project;
  }

  private entry(seed: ProjectSeed): ProjectEntry {
    return { seed, key: mix(this.seed >>> 0, hashString(seed.id)) };
  }
}
