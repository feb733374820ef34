/**
 * The export's health over a report's days: each unit's state as the export reads it
 * (functions/export/units.ts: manifest, else checkpoint, else failure record) and the requests
 * each run spent, from the run log as its owner parses it (functions/export/run-log.ts).
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parseRunRecords, type RunCounts } from '../export/run-log.js';
import { readUnitStates, unitView, type UnitState } from '../export/units.js';
import { isExpired, readExpiredUnits } from '../export/retention.js';
import { DATASET_NAMES, type DatasetName } from '../warehouse/catalog.js';
import type { LakeFiles } from '../warehouse/lake.js';
import { dayFolder, dayFolderName } from '../warehouse/lake/layout.js';
import { EXPORT_RUNS } from '../warehouse/tables.js';
import type { Period } from '../warehouse/period.js';
import { list } from '../warehouse/lake/files.js';
import { describeMark, readAnomalies } from '../warehouse/records.js';
import { describeUnitDrift, readErasureRecords, unitKey, unitsOf, type ErasureShare } from '../export/index.js';

/**
 * A unit's state in the calendar: `status`'s states (provisional: exported before its day was
 * due; expired: deleted by PERSONAL_DATA_RETENTION_DAYS, never exported again), and complete-with-drift.
 */
export type HealthState = 'complete' | 'provisional' | 'drift' | 'expired' | 'partial' | 'missing' | 'failed';

export interface HealthCell {
  readonly day: string;
  readonly dataset: DatasetName;
  /** The worst state over the projects. */
  readonly state: HealthState;
  readonly projects: readonly {
    readonly projectId: string;
    readonly state: HealthState;
    readonly detail?: string;
    /** When the export last wrote the unit (manifest, checkpoint or failure record; ISO 8601): which run exported it. */
    readonly writtenAt?: string;
  }[];
  /** Anomalies the deployment's hourly check found in this dataset's figures that day (`proj_a: human visitors 50 vs usual 505 (10 %)`). */
  readonly anomalies: readonly string[];
}

/**
 * The runs started on one UTC day (run log `export_runs`). The period's runs are those started
 * on its days and, after it, those that wrote one of its units: a day is exported after it ends,
 * so the runs that export the period's last days — or all of it, the first time — start after it.
 */
export interface RequestsDay {
  readonly day: string;
  /** Of the period's runs started this day: requests, runs, failed units. */
  readonly requests: number;
  readonly runs: number;
  readonly failedUnits: number;
  /** Runs started this day, after the period, that wrote none of its units (they exported later days). */
  readonly otherRuns: number;
}

/** How bad a state is, for the worst of several projects. */
const SEVERITY: Readonly<Record<HealthState, number>> = { complete: 0, provisional: 1, drift: 2, expired: 3, partial: 4, missing: 5, failed: 6 };

/** What an expired unit's cell says. */
export const EXPIRED_DETAIL = 'its personal data was deleted after PERSONAL_DATA_RETENTION_DAYS; never exported again';

/** A unit's state as the export's own view of it (`unitView`) says, complete units with drift told apart. */
function healthOf(state: UnitState | undefined): { state: HealthState; detail?: string } {
  const view = unitView(state);
  switch (view.state) {
    case 'complete': {
      const drift = describeUnitDrift(view.drift);
      return drift === undefined ? { state: 'complete' } : { state: 'drift', detail: drift };
    }
    case 'provisional':
      return { state: 'provisional', detail: `exported before the day was due; exported again after ${view.dueAt.slice(0, 16).replace('T', ' ')}Z` };
    case 'partial':
      return { state: 'partial', detail: `${view.pages} page(s) staged${view.error ? `; ${view.error}` : ''}` };
    case 'failed':
      return { state: 'failed', detail: view.error };
    case 'missing':
      return view.error === undefined ? { state: 'missing' } : { state: 'missing', detail: view.error };
    case 'expired':
      return { state: 'expired', detail: EXPIRED_DETAIL };
  }
}

/**
 * Day × dataset, each the worst of its projects, from the units' states and marks where the lake
 * mirrored them. A unit is `expired` as `status` says (export/status.ts): its expiry record is
 * there and it is not complete, or its day is before `retentionCutoff` (export/retention.ts).
 */
export async function readHealth(lake: LakeFiles, period: Period, projects: readonly string[], retentionCutoff?: string): Promise<HealthCell[]> {
  const units = unitsOf(period.days, projects, DATASET_NAMES);
  const destination = lake.mirror;
  const [states, marks, recorded] = await Promise.all([
    readUnitStates(destination, units, { keepIndexes: false }),
    readAnomalies(destination, period.days, projects),
    readExpiredUnits(destination),
  ]);
  return period.days.flatMap((day) =>
    DATASET_NAMES.map((dataset) => {
      const cells = projects.map((projectId) => {
        const unit = { dataset, projectId, day };
        const unitState = states.get(unitKey(unit));
        const expired = unitState?.kind !== 'complete' && (recorded.has(unitKey(unit)) || isExpired(unit, retentionCutoff));
        if (expired) return { projectId, state: 'expired' as const, detail: EXPIRED_DETAIL };
        const writtenAt = writtenAtOf(unitState);
        return { projectId, ...healthOf(unitState), ...(writtenAt !== undefined ? { writtenAt } : {}) };
      });
      const state = cells.reduce<HealthState>((worst, c) => (SEVERITY[c.state] > SEVERITY[worst] ? c.state : worst), 'complete');
      const anomalies = marks.filter((m) => m.day === day && m.dataset === dataset).map((m) => `${m.projectId}: ${describeMark(m)}`);
      return { day, dataset, state: cells.length === 0 ? 'missing' : state, projects: cells, anomalies };
    }),
  );
}

/** When the export last wrote a unit's state: its manifest's end, else its checkpoint's last page, else its failure. */
function writtenAtOf(state: UnitState | undefined): string | undefined {
  switch (state?.kind) {
    case 'complete':
      return state.manifest.finishedAt;
    case 'partial':
      return state.checkpoint.updatedAt;
    case 'failed':
      return state.failure.at;
    default:
      return undefined;
  }
}

/**
 * Requests, runs and failed units per UTC day a run started on, `days` long (the period's days
 * and those after it up to the report's day), from `export_runs`. After the period a run counts
 * as the period's when one of its units (`health`) was written while it ran; the others are
 * `otherRuns`. A run still going is not in the log yet: it is counted once it ends.
 */
export async function readRequests(lake: LakeFiles, days: readonly string[], period: Period, health: readonly HealthCell[]): Promise<RequestsDay[]> {
  const { root } = lake;
  const present = new Set(await list(path.join(root, EXPORT_RUNS.prefix)));
  const written = health.flatMap((cell) => cell.projects.flatMap((p) => (p.writtenAt === undefined ? [] : [Date.parse(p.writtenAt)]))).filter(Number.isFinite);
  const wroteThePeriod = ({ startedAt, finishedAt = startedAt }: RunCounts) =>
    startedAt !== undefined && finishedAt !== undefined && written.some((at) => at >= startedAt && at <= finishedAt);
  return Promise.all(
    days.map(async (day) => {
      const totals = { day, requests: 0, runs: 0, failedUnits: 0, otherRuns: 0 };
      if (!present.has(dayFolderName(day))) return totals;
      const folder = path.join(root, dayFolder(EXPORT_RUNS.prefix, day));
      for (const name of await list(folder)) {
        if (!name.endsWith('.json') || name.startsWith('.')) continue;
        for (const run of parseRunRecords(await readFile(path.join(folder, name), 'utf8'))) {
          if (day >= period.to && !wroteThePeriod(run)) {
            totals.otherRuns += 1;
            continue;
          }
          totals.runs += 1;
          totals.requests += run.requests;
          totals.failedUnits += run.unitsFailed;
        }
      }
      return totals;
    }),
  );
}

/** An erasure (`forget`) that removed rows from the report's months: their past figures changed. */
export interface ErasureNote {
  /** When it started (ISO 8601). */
  readonly at: string;
  /** The share of each table's rows it removed, in the months of the days asked for only. */
  readonly shares: readonly ErasureShare[];
}

/**
 * The erasures recorded in the lake (`_privacy/erasures/`, read from the destination itself) that
 * removed rows from a month of `days`, oldest first: each with the share of each table's rows it
 * removed there. An erasure recorded before shares were (none listed) is left out; a lake that
 * cannot list has none to tell.
 */
export async function readErasureNotes(lake: Pick<LakeFiles, 'records'>, days: readonly string[]): Promise<ErasureNote[]> {
  if (lake.records.list === undefined) return [];
  const months = new Set(days.map((day) => day.slice(0, 7)));
  return (await readErasureRecords(lake.records))
    .map((record) => ({ at: record.at, shares: (record.shares ?? []).filter((share) => months.has(share.month) && share.removed > 0) }))
    .filter((note) => note.shares.length > 0)
    .sort((a, b) => a.at.localeCompare(b.at));
}
