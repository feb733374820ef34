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
 */
import type { PageVisitors, VisitorCounts } from '../functions/shared/api-types.js';

/** A project the sandbox serves. */
export interface ProjectSeed {
  readonly id: string;
  /** Paths per day; varies by ±5 % from day to day unless `exact` is true. */
  readonly paths: number;
  /** When true, every day has exactly `paths` rows. */
  readonly exact?: boolean;
}

/** The default projects: small, medium, and a large one with a fixed row count. */
export const DEFAULT_PROJECTS: readonly ProjectSeed[] = [
  { id: 'proj_small', paths: 300 },
  { id: 'proj_medium', paths: 2_500 },
  { id: 'proj_large', paths: 20_000, exact: true },
];

/** `proj_synth_<N>`: a project with exactly N paths every day (benchmarks). */
const SYNTH_PATTERN = /^proj_synth_([1-9]\d{0,8})$/;

/** The largest synthetic project (paths per day), to keep counts within safe integers. */
export const MAX_SYNTH_PATHS = 100_000_000;

/** Rows at the top of a day checked when making the site totals at least the largest page. */
const TOP_ROWS_CHECKED = 16;

const SECTIONS = [
  'getting-started',
  'guides',
  'api-reference',
  'components',
  'integrations',
  'deploy',
  'settings',
  'changelog',
  'ai',
  'référence',
] as const;

const FIRST_WORDS = [
  'quickstart', 'install', 'authentication', 'webhooks', 'pagination', 'errors', 'rate-limits',
  'analytics', 'search', 'navigation', 'themes', 'custom-domain', 'redirects', 'versioning',
  'openapi', 'snippets', 'callouts', 'code-blocks', 'tabs', 'accordions', 'cards', 'images',
  'überblick', 'café', 'naïve', 'getting%20started', '日本語', 'sso', 'scim', 'audit-logs',
  'feedback', 'llms-txt', 'mcp', 'agents', 'workflows', 'preview', 'github', 'gitlab',
] as const;

const SECOND_WORDS = [
  'overview', 'setup', 'reference', 'examples', 'faq', 'migration', 'best-practices',
  'troubleshooting', 'limits', 'configuration', 'concepts', 'tutorial', 'api', 'cli', 'sdk',
  'v1', 'v2', 'advanced', 'basics', 'security', 'pricing', 'changelog', 'guide', 'intro',
] as const;

const PATH_COMBINATIONS = SECTIONS.length * FIRST_WORDS.length * SECOND_WORDS.length;
/** A prime that divides no PATH_COMBINATIONS factor, so `k ↦ k·m mod C` is a bijection. */
const PATH_MULTIPLIER = 7_919;

// --- hashing -------------------------------------------------------------------------

/** FNV-1a over UTF-16 code units: stable across runs and platforms. */
function hashString(value: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < value.length; i++) {
    h ^= value.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** Murmur3's finaliser: a good 32-bit avalanche. */
function fmix32(value: number): number {
  let h = value >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Combines a key with an integer (row index, salt) into a new well-mixed key. */
function mix(key: number, value: number): number {
  const lo = value >>> 0;
  const hi = Math.floor(value / 0x1_0000_0000) >>> 0;
  return fmix32(key ^ fmix32(lo + 0x9e3779b9) ^ Math.imul(fmix32(hi + 0x7f4a7c15), 0x27d4eb2f));
}

/** A uniform number in [0, 1) from a key. */
function unit(key: number): number {
  return key / 0x1_0000_0000;
}

/** A seeded PRNG (mulberry32), for latency jitter and shuffles. */
export function createRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 0x1_0000_0000;
  };
}

function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

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

  constructor(
    private readonly seed: number,
    seeds: readonly ProjectSeed[],
  ) {
    for (const project of seeds) this.projects.set(project.id, this.model(project));
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
    const total = Math.max(1, Math.round(day.top / Math.pow(rank + 1, project.exponent)));
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
    const key = mix(project.key, hashString(day));
    const base = project.seed.paths;
    const pathCount = project.seed.exact
      ? base
      : Math.max(1, Math.round(base * (0.95 + 0.1 * unit(mix(key, 1)))));
    // Weekly-ish variation of traffic; T0 grows sub-linearly with the size of the site.
    const dayFactor = 0.75 + 0.5 * unit(mix(key, 2));
    const top = Math.max(1, Math.round((40 + 3 * Math.pow(base, 0.75)) * dayFactor));
    const model = { key, pathCount, top };
    if (this.days.size > 10_000) this.days.clear();
    this.days.set(cacheKey, model);
    return model;
  }

  private project(projectId: string): ProjectModel | undefined {
    const known = this.projects.get(projectId);
    if (known) return known;
    const synth = SYNTH_PATTERN.exec(projectId);
    if (!synth) return undefined;
    const paths = Number(synth[1]);
    if (paths > MAX_SYNTH_PATHS) return undefined;
    const model = this.model({ id: projectId, paths, exact: true });
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
