/**
 * The report's health figures: each unit's state over the period and the one before
 * (health.ts), the requests of the runs that exported them, the erasures that changed their
 * months, and the fixes' pull requests merged in the period (followup_outcomes). Read from the
 * lake's files, not asked of the session.
 */
import { readErasureNotes, readHealth, readRequests, type ErasureNote, type HealthCell, type RequestsDay } from './health.js';
import { daysFrom, type Period } from '../warehouse/period.js';
import type { LakeFiles } from '../warehouse/lake.js';
import { FOLLOWUP_OUTCOMES } from '../warehouse/tables.js';

/** The periods a figure is read for and the projects reported: what every reader of the report's figures takes. */
export interface FigurePeriods {
  readonly period: Period;
  /** As long as the period, ending where it starts (`previousPeriod`). */
  readonly previous: Period;
  readonly projects: readonly string[];
}

/** What the health reader takes beside the periods: how far the run log is read, and the retention cutoff. */
export interface HealthScope extends FigurePeriods {
  /** Day after the last day of the run log to read. @default period.to */
  readonly runsTo?: string;
  /** The first day PERSONAL_DATA_RETENTION_DAYS keeps: earlier days of the datasets it deletes are `expired`. */
  readonly retentionCutoff?: string;
}

/** A pull request merged on `day` (UTC), from a followup_outcomes record of the report's projects. */
export interface Merge {
  readonly day: string;
  readonly projectId: string;
  readonly prLink?: string;
}

/** The export's health of both periods, as the report shows it. */
export interface HealthFigures {
  /** Day × dataset of the period. */
  readonly current: readonly HealthCell[];
  /** The same of the previous period: its coverage decides how the two compare. */
  readonly previous: readonly HealthCell[];
  readonly requestsPerDay: readonly RequestsDay[];
  readonly erasures: readonly ErasureNote[];
  readonly merges: readonly Merge[];
}

/** Reads the health figures of `scope` from `lake`: the units' states, the run log, the erasure and outcome records. */
export async function readHealthFigures(lake: LakeFiles, scope: HealthScope): Promise<HealthFigures> {
  const { period, previous, projects } = scope;
  const current = await readHealth(lake, period, projects, scope.retentionCutoff);
  const before = await readHealth(lake, previous, projects, scope.retentionCutoff);
  const requestsPerDay = await readRequests(lake, daysFrom(period.from, scope.runsTo ?? period.to), period, current);
  const erasures = await readErasureNotes(lake, [...previous.days, ...period.days]);
  return { current, previous: before, requestsPerDay, erasures, merges: await readMerges(lake, period, projects) };
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
