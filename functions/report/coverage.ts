/**
 * Which days a report's figures cover: each dataset's days exported, the days it leaves out and
 * why (`expired (retention)`, `missing`, …), and the days a fill command would export again.
 */
import { addDays } from '../shared/dates.js';
import type { Coverage } from '../warehouse/compare.js';
import type { Period } from '../warehouse/period.js';
import type { HealthCell, HealthState } from './health.js';
import { REPORT_DATASETS, type ReportDataset } from './headline.js';

/** A day a dataset's figures leave out, and why (the worst state of its projects that day). */
export interface LeftOutDay {
  readonly day: string;
  readonly state: Exclude<HealthState, 'complete' | 'provisional' | 'drift'>;
}

/** A unit's state that holds its day's figures: it is exported. */
export const EXPORTED = new Set<HealthState>(['complete', 'provisional', 'drift']);

/** The coverage of each report dataset over `period` for `projects`, from the units' states. */
export function coverageOf(health: readonly HealthCell[], projects: readonly string[], period: Period): Record<ReportDataset, Coverage> {
  const wanted = new Set(projects);
  const days = period.days.length * projects.length;
  return Object.fromEntries(
    REPORT_DATASETS.map((dataset) => {
      const exported = health
        .filter((cell) => cell.dataset === dataset)
        .reduce((n, cell) => n + cell.projects.filter((p) => wanted.has(p.projectId) && EXPORTED.has(p.state)).length, 0);
      return [dataset, { exported, days }];
    }),
  ) as Record<ReportDataset, Coverage>;
}

/** How a left-out day's state is named: `expired (retention)`, `missing`, … */
export function leftOutStateName(state: LeftOutDay['state']): string {
  return state === 'expired' ? 'expired (retention)' : state;
}

/**
 * `2026-05-02 to 2026-05-12 expired (retention) (11 days), 2026-05-20 missing`: runs of
 * consecutive days in one state, in order.
 */
export function describeLeftOut(days: readonly LeftOutDay[]): string {
  const runs: { first: string; last: string; state: LeftOutDay['state']; count: number }[] = [];
  for (const { day, state } of days) {
    const run = runs.at(-1);
    if (run !== undefined && run.state === state && addDays(run.last, 1) === day) {
      run.last = day;
      run.count += 1;
    } else runs.push({ first: day, last: day, state, count: 1 });
  }
  return runs
    .map((r) => (r.count === 1 ? `${r.first} ${leftOutStateName(r.state)}` : `${r.first} to ${r.last} ${leftOutStateName(r.state)} (${r.count} days)`))
    .join(', ');
}

/** The days of `cells` of `dataset` some project has not exported, each with its worst state, in order. */
export function leftOutOf(dataset: ReportDataset, cells: readonly HealthCell[]): LeftOutDay[] {
  return cells
    .filter((cell) => cell.dataset === dataset && cell.projects.some((p) => !EXPORTED.has(p.state)))
    .map((cell) => ({ day: cell.day, state: cell.state as LeftOutDay['state'] }))
    .sort((a, b) => (a.day < b.day ? -1 : a.day > b.day ? 1 : 0));
}

/**
 * The days of `cells` of `dataset` some project has not exported, as `[from, to)`; undefined when
 * none. An expired day (retention) is never exported again: nothing fills it.
 */
export function fillOf(dataset: ReportDataset, cells: readonly HealthCell[]): { from: string; to: string } | undefined {
  const days = cells
    .filter((cell) => cell.dataset === dataset && cell.projects.some((p) => !EXPORTED.has(p.state) && p.state !== 'expired'))
    .map((cell) => cell.day)
    .sort();
  const first = days[0];
  const last = days[days.length - 1];
  return first === undefined || last === undefined ? undefined : { from: first, to: addDays(last, 1) };
}
