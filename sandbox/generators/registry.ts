/**
 * Every dataset's generator, keyed by the catalog's dataset names (functions/warehouse/catalog.ts),
 * behind one object: the endpoints answer from it, and tests and benchmarks read the expected
 * rows of a (dataset, project, day) from it without HTTP. A new dataset's generator is one
 * line in `createGenerators` (the compiler asks for one per catalog name); its row and day
 * types follow from the generator.
 */
import type { DatasetName } from '../../functions/warehouse/catalog.js';
import { parseDay } from '../../functions/shared/dates.js';
import { AssistantData } from './assistant.js';
import { CallerStatsData } from './caller-stats.js';
import { FeedbackByPageData } from './feedback-by-page.js';
import { FeedbackData } from './feedback.js';
import { SitePages } from './pages.js';
import { PlantedFalls, plantedFixes, type PlantedFix } from './planted-fixes.js';
import { DEFAULT_PROJECTS, ProjectRegistry, type ProjectSeed } from './projects.js';
import { SearchData } from './searches.js';
import { createViewsData } from './views.js';
import { PageCountData } from './visitors.js';
import type { DatasetGenerator, DayOf, RowOf } from './windowed.js';

/** Options of `createSandboxData`, the same as the sandbox's. */
export interface SandboxDataOptions {
  /** Default 42. */
  readonly seed?: number;
  /** Default `DEFAULT_PROJECTS`; `proj_synth_<N>` always exists as well. */
  readonly projects?: readonly ProjectSeed[];
  /** Plant past fixes as of this day (`YYYY-MM-DD`, planted-fixes.ts); default none. */
  readonly fixesAsOf?: string;
}

/** One generator per dataset of the catalog, over one project registry and one catalogue of pages. */
function createGenerators(seed: number, projects: readonly ProjectSeed[], fixesAsOf: string | undefined) {
  const registry = new ProjectRegistry(seed, projects);
  const pages = new SitePages(registry);
  const views = createViewsData(registry, pages);
  const planted = new PlantedFalls(fixesAsOf === undefined ? [] : plantedFixes(projects, pages, parseDay(fixesAsOf, 'fixesAsOf')));
  const feedback = new FeedbackData(registry, pages, planted);
  const assistant = new AssistantData(registry, pages);
  return {
    registry,
    planted: planted.fixes,
    generators: {
      visitors: new PageCountData(registry, pages),
      views,
      searches: new SearchData(registry, pages),
      feedback,
      feedback_by_page: new FeedbackByPageData(feedback),
      assistant,
      caller_stats: new CallerStatsData(assistant),
    } satisfies Record<DatasetName, DatasetGenerator<unknown>>,
  };
}

/** The generator of each dataset, by the catalog's name. */
export type Generators = ReturnType<typeof createGenerators>['generators'];

/** One row of each dataset, as the API sends it. */
export type DatasetRowTypes = { readonly [D in DatasetName]: RowOf<Generators[D]> };

/** Everything a correct export of one (dataset, project, day) holds: its rows, and its totals or flags where it has them. */
export type DatasetDayTypes = { readonly [D in DatasetName]: DayOf<Generators[D]> };

/**
 * The expected data of the sandbox, computed exactly as the endpoints compute it (same seed,
 * same projects, same feedback status changes). Every method takes a `day` (`YYYY-MM-DD`)
 * and describes the one-day window `[day, day+1)` with no filter, rows in API order (the
 * order of walking every page). Unknown projects throw a RangeError, bad days a ConfigError.
 */
export interface SandboxData {
  /** Whether the project exists (a configured one or `proj_synth_<N>`). */
  hasProject(projectId: string): boolean;
  /** Rows of the day (feedback_by_page: at most 100; caller_stats: 1), without building them. */
  rowCount(dataset: DatasetName, projectId: string, day: string): number;
  /** The day's rows one at a time, generated lazily: for synthetic projects of any size. */
  iterateRows<D extends DatasetName>(dataset: D, projectId: string, day: string): Generator<DatasetRowTypes[D]>;
  /** The day's rows as an array. */
  rows<D extends DatasetName>(dataset: D, projectId: string, day: string): DatasetRowTypes[D][];
  /** The day's rows with the dataset's totals (visitors, views, searches) or flags (feedback_by_page). */
  day<D extends DatasetName>(dataset: D, projectId: string, day: string): DatasetDayTypes[D];
}

/** The generators of every dataset, for the server, and the public `SandboxData`. */
export class Datasets implements SandboxData {
  readonly seed: number;
  readonly generators: Generators;
  /** The past fixes planted in the data (planted-fixes.ts); none unless `fixesAsOf` was given. */
  readonly planted: readonly PlantedFix[];
  private readonly registry: ProjectRegistry;

  constructor(options: SandboxDataOptions = {}) {
    this.seed = options.seed ?? 42;
    const created = createGenerators(this.seed, options.projects ?? DEFAULT_PROJECTS, options.fixesAsOf);
    this.registry = created.registry;
    this.generators = created.generators;
    this.planted = created.planted;
  }

  hasProject(projectId: string): boolean {
    return this.registry.has(projectId);
  }

  rowCount(dataset: DatasetName, projectId: string, day: string): number {
    return this.generator(dataset).rowCount(projectId, this.window(projectId, day));
  }

  *iterateRows<D extends DatasetName>(dataset: D, projectId: string, day: string): Generator<DatasetRowTypes[D]> {
    const days = this.window(projectId, day);
    const generator = this.generator(dataset);
    const count = generator.rowCount(projectId, days);
    for (let i = 0; i < count; i++) yield generator.row(projectId, days, i) as DatasetRowTypes[D];
  }

  rows<D extends DatasetName>(dataset: D, projectId: string, day: string): DatasetRowTypes[D][] {
    return [...this.iterateRows(dataset, projectId, day)];
  }

  day<D extends DatasetName>(dataset: D, projectId: string, day: string): DatasetDayTypes[D] {
    const days = this.window(projectId, day);
    const rows = this.rows(dataset, projectId, day);
    const generator = this.generator(dataset);
    return (generator.day ? generator.day(projectId, days, rows) : { rows }) as DatasetDayTypes[D];
  }

  /** Any dataset's generator, as the registry's common type. */
  private generator(dataset: DatasetName): DatasetGenerator<unknown> {
    return this.generators[dataset] as DatasetGenerator<unknown>;
  }

  private window(projectId: string, day: string): readonly string[] {
    if (!this.registry.has(projectId)) throw new RangeError(`unknown sandbox project "${projectId}"`);
    return [parseDay(day, 'day')];
  }
}

/**
 * The sandbox's data without a server (e.g. for a benchmark's expected rows): the same
 * values a sandbox started with the same `seed` and `projects` serves.
 */
export function createSandboxData(options: SandboxDataOptions = {}): SandboxData {
  return new Datasets(options);
}
