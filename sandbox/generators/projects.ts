/**
 * The projects the sandbox serves and how many rows a day each dataset has for them: the
 * configured ones (`DEFAULT_PROJECTS` unless the options say otherwise) and `proj_synth_<N>`,
 * which exists in every sandbox. Every generator resolves a project id here.
 */
import { memo } from './cache.js';
import { hashString, mix, unit } from './hash.js';

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
  /**
   * Days (`YYYY-MM-DD`) whose visitors and views are a tenth of usual: a broken tracking
   * snippet, what the anomaly check is for.
   */
  readonly quietDays?: readonly string[];
}

/** The default projects: small, medium, and a large one with a fixed row count. */
export const DEFAULT_PROJECTS: readonly ProjectSeed[] = [
  { id: 'proj_small', paths: 300 },
  { id: 'proj_medium', paths: 2_500 },
  { id: 'proj_large', paths: 20_000, exact: true },
];

/** The datasets whose rows per day a `ProjectSeed` sizes (visitors: `paths`). */
export type SizedDataset = 'views' | 'searches' | 'feedback' | 'assistant';

/** Default rows per day relative to `paths`, before the daily variation. */
const ROWS_PER_PATH: Readonly<Record<SizedDataset, number>> = { views: 1, searches: 0.25, feedback: 0.06, assistant: 0.2 };

/** A day's size: a base count of rows, and whether every day has exactly that many. */
export interface BaseRows {
  readonly rows: number;
  readonly exact: boolean;
}

/**
 * A project's base rows per day of `dataset`, and whether every day has exactly that many
 * (`exact` projects and explicit `rows` counts) rather than a count varying around it.
 */
export function baseRows(seed: ProjectSeed, dataset: SizedDataset): BaseRows {
  const explicit = seed.rows?.[dataset];
  if (explicit !== undefined) return { rows: explicit, exact: true };
  return { rows: Math.max(1, Math.round(seed.paths * ROWS_PER_PATH[dataset])), exact: seed.exact === true };
}

/** Rows of one day: the base count, or within ±`spread` of it (by the day's key) unless exact. */
export function dailyRows(base: BaseRows, dayKey: number, spread: number): number {
  if (base.exact) return base.rows;
  return Math.max(1, Math.round(base.rows * (1 - spread + 2 * spread * unit(mix(dayKey, 1)))));
}

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

/** Throws a RangeError naming the first thing wrong with a configured project. */
export function checkProjectSeed(seed: ProjectSeed): void {
  if (!Number.isSafeInteger(seed.paths) || seed.paths < 1) {
    throw new RangeError(`project "${seed.id}": paths must be a positive integer`);
  }
  for (const [dataset, rows] of Object.entries(seed.rows ?? {})) {
    if (!Number.isSafeInteger(rows) || rows < 0 || rows > MAX_SYNTH_PATHS) {
      throw new RangeError(`project "${seed.id}": rows.${dataset} must be an integer from 0 to ${MAX_SYNTH_PATHS}`);
    }
  }
}

/** A project as the generators see it: its seed and the root key of its generated values. */
export interface ProjectEntry {
  readonly seed: ProjectSeed;
  /** mix(data seed, project id): the root of every generated value of the project. */
  readonly key: number;
}

/** Resolves project ids (configured ones and `proj_synth_<N>`) for the dataset generators. */
export class ProjectRegistry {
  /** The configured projects, for the sandbox's lifetime. */
  private readonly configured = new Map<string, ProjectEntry>();
  /** The `proj_synth_<N>` asked for, a bounded cache (each can be made again). */
  private readonly synthetic = new Map<string, ProjectEntry>();

  /** Throws a RangeError when a configured project is invalid (`checkProjectSeed`). */
  constructor(
    private readonly seed: number,
    seeds: readonly ProjectSeed[],
  ) {
    for (const project of seeds) {
      checkProjectSeed(project);
      this.configured.set(project.id, this.entry(project));
    }
  }

  has(projectId: string): boolean {
    return this.find(projectId) !== undefined;
  }

  find(projectId: string): ProjectEntry | undefined {
    const known = this.configured.get(projectId);
    if (known) return known;
    const synth = synthProjectSeed(projectId);
    return synth ? memo(this.synthetic, projectId, () => this.entry(synth)) : undefined;
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
