/**
 * The hourly insights check, run after the export (its own schedule, a little later in the
 * hour): which units completed since the last check (their manifests' `finishedAt`), the
 * anomalies of those days, and the freshness of every configured project's dataset.
 *
 * Why a function of its own rather than a step of the export: the figures are read with DuckDB
 * (the report's definitions, a native binary of ~70 MB for x86_64), which the hourly export —
 * small, ARM, paced by a request budget — has no reason to load. The manifests tell exactly what
 * the export completed, so nothing is handed over between the two.
 *
 * Nothing is told twice: anomalies and stale datasets are claimed in the shared state store
 * before they are published, and the watermark (`checked`) only moves once a check succeeded.
 */
import type { DatasetName } from '../warehouse/catalog.js';
import { addDays } from '../shared/dates.js';
import { DestinationError } from '../shared/errors.js';
import type { Destination } from '../shared/storage/destination.js';
import { completeUnits, readUnitStates } from '../export/units.js';
import { lastDueDay, unitKey } from '../export/index.js';
import type { Lake, LakeScope } from '../warehouse/lake.js';
import { DAILY_TABLES } from '../warehouse/session.js';
import { findAnomalies, publishAnomalies, WEEKS_COMPARED, type Anomaly, type NewDay, type Thresholds } from './anomalies.js';
import { FIGURE_DATASET, FIGURE_NAMES, type FigureName } from '../warehouse/figure-names.js';
import { readDailyFigures } from './figures.js';
import { rewriteAnomalies } from '../warehouse/records.js';
import { checkFreshness, type Freshness, type FreshnessDeps, type FreshnessResult } from './stale.js';

/** Days back from the latest due day whose manifests are read for newly complete units. */
export const RECENT_DAYS = 14;
/** The watermark is set this far before the check started: a manifest written during the check is seen next time. */
const WATERMARK_MARGIN_MS = 10 * 60_000;

export const WATERMARK_KEY = 'checked';

export interface CheckSettings {
  readonly projectIds: readonly string[];
  readonly datasets: readonly DatasetName[];
  readonly settleHours: number;
  readonly thresholds: Thresholds;
}

/** What the freshness check needs (the state store, the topic, the clock), and the warehouse. */
export interface CheckDeps extends FreshnessDeps {
  /** The warehouse: manifests read, anomalies recorded (records.ts). */
  readonly destination: Destination;
  /** Opens the warehouse's days for DuckDB (the report's lake: a mirror of S3 or the folder itself). */
  readonly openLake: (scope: LakeScope) => Promise<Lake>;
}

export interface CheckResult {
  /** Project-days with newly complete figures. */
  readonly newDays: readonly NewDay[];
  /** Anomalies published by this check (not those published before). */
  readonly anomalies: readonly Anomaly[];
  readonly freshness: FreshnessResult;
}

interface Watermark {
  readonly until: string;
}

/** One check: anomalies of newly complete days, then freshness; moves the watermark last. */
export async function runInsightChecks(settings: CheckSettings, deps: CheckDeps): Promise<CheckResult> {
  const startedAt = deps.now();
  const watermark = await deps.store.get<Watermark>(WATERMARK_KEY);
  const since = watermark === undefined ? Number.NEGATIVE_INFINITY : Date.parse(watermark.until);
  const latestDue = lastDueDay(startedAt, settings.settleHours);
  const recent = Array.from({ length: RECENT_DAYS }, (_, i) => addDays(latestDue, i + 1 - RECENT_DAYS));

  if (deps.destination.list === undefined) throw new DestinationError(`the insights check needs a destination it can list: ${deps.destination.url} cannot be`);
  const units = (await Promise.all(settings.datasets.map((dataset) => completeUnits(deps.destination, dataset)))).flat();
  const complete = new Set(units.map(unitKey));
  const latest = new Map<string, string>();
  for (const { dataset, projectId, day } of units) {
    const newest = latest.get(`${dataset}/${projectId}`);
    if (newest === undefined || day > newest) latest.set(`${dataset}/${projectId}`, day);
  }
  const figureDatasets = new Set<DatasetName>(FIGURE_NAMES.map((figure) => FIGURE_DATASET[figure]));
  const states = await readUnitStates(
    deps.destination,
    recent.flatMap((day) =>
      settings.projectIds.flatMap((projectId) =>
        [...figureDatasets].filter((dataset) => complete.has(unitKey({ dataset, projectId, day }))).map((dataset) => ({ dataset, projectId, day })),
      ),
    ),
    { keepIndexes: false },
  );
  const finished = new Map<string, number>();
  for (const [key, state] of states) {
    const at = state.kind === 'complete' ? Date.parse(state.manifest.finishedAt) : Number.NaN;
    if (!Number.isNaN(at)) finished.set(key, at);
  }
  const newDays: NewDay[] = [];
  for (const day of recent) {
    for (const projectId of settings.projectIds) {
      const figures = FIGURE_NAMES.filter(
        (figure) => (finished.get(unitKey({ dataset: FIGURE_DATASET[figure], projectId, day })) ?? Number.NEGATIVE_INFINITY) > since,
      );
      if (figures.length > 0) newDays.push({ projectId, day, figures });
    }
  }

  const anomalies = await checkAnomalies(newDays, complete, settings, deps);
  const freshness = await checkFreshness(
    settings.projectIds.flatMap((projectId) =>
      settings.datasets.map((dataset): Freshness => ({ projectId, dataset, latest: latest.get(`${dataset}/${projectId}`) })),
    ),
    settings.settleHours,
    deps,
  );
  await deps.store.update<Watermark, void>(WATERMARK_KEY, () => ({
    value: { until: new Date(startedAt - WATERMARK_MARGIN_MS).toISOString() },
    result: undefined,
  }));
  return { newDays, anomalies, freshness };
}

/** Reads the figures of the new days and of the weekdays they are compared with; publishes what is new. */
async function checkAnomalies(newDays: readonly NewDay[], complete: ReadonlySet<string>, settings: CheckSettings, deps: CheckDeps): Promise<Anomaly[]> {
  const found = await markAnomalies(newDays, complete, settings.thresholds, deps);
  return found.length === 0 ? [] : await publishAnomalies(found, settings.thresholds, deps);
}

/**
 * The anomalies of `newDays` (their figures against the same weekdays before), recorded as
 * marks in the warehouse (`status`, the report's calendar) — what the hourly check and a
 * laptop's `export` share; publishing is the check's alone. `complete`: the `unitKey`s of the complete units.
 */
export async function markAnomalies(
  newDays: readonly NewDay[],
  complete: ReadonlySet<string>,
  thresholds: Thresholds,
  deps: Pick<CheckDeps, 'destination' | 'openLake'>,
): Promise<Anomaly[]> {
  if (newDays.length === 0) return [];
  const days = newDays.map((d) => d.day).sort();
  const first = addDays(days[0] as string, -7 * WEEKS_COMPARED);
  const last = days[days.length - 1] as string;
  const projects = [...new Set(newDays.map((d) => d.projectId))].sort();
  const prefixes = DAILY_TABLES.map((t) => t.prefix);
  const lake = await deps.openLake({ from: first, to: addDays(last, 1), prefixes });
  try {
    const figures = await readDailyFigures(lake, first, last, projects);
    const isComplete = (projectId: string, figure: FigureName, day: string) => complete.has(unitKey({ dataset: FIGURE_DATASET[figure], projectId, day }));
    const found = findAnomalies(newDays, figures, isComplete, thresholds);
    // Shown (status, the report's calendar) before told: a failed publish is told again later.
    // Each checked day's marks are rewritten: one a re-export fixed goes.
    await rewriteAnomalies(deps.destination, newDays, found);
    return found;
  } finally {
    await lake.close();
  }
}
