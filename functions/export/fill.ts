/**
 * What fills a period: its due days that still have a unit to do (missing, partial, failed, or
 * provisional and due by now), the range an `export --from … --to …` must cover, and what the
 * units to do are expected to cost — `status`'s own reading (status.ts) and estimator
 * (estimates.ts), so the report's notice and `status` never disagree. Reads the destination
 * only; sends no request.
 */
import type { DatasetName } from '../warehouse/catalog.js';
import type { Destination } from '../shared/storage/destination.js';
import { addDays } from '../shared/dates.js';
import { readExportStatus, type ExportStatus, type UnitStatus } from './status.js';
import { unitsOf } from './unit-id.js';

export interface PeriodFill {
  /** The first due day of the period with a unit to do. */
  readonly from: string;
  /** The day after the last one with a unit to do: `export --to` (exclusive). */
  readonly to: string;
  /** Due days of the period with a unit to do. */
  readonly missingDays: number;
  /** Due days of the period (later days are not due: nothing fills them yet). */
  readonly dueDays: number;
  /** The units to do and their estimate (`todo`, `requests`, `typical`, `guessed`, `floors`). */
  readonly status: ExportStatus;
}

export interface PeriodFillInput {
  /** The period's days, oldest first. */
  readonly days: readonly string[];
  readonly projects: readonly string[];
  readonly datasets: readonly DatasetName[];
  /** The latest due day at `now`: later days are left out. */
  readonly lastDay: string;
  readonly now: number;
  /** Days before it are past PERSONAL_DATA_RETENTION_DAYS (expired: never exported again). */
  readonly retentionCutoff?: string;
}

/** A unit an export of its day would do now. */
function isToDo(unit: UnitStatus, now: number): boolean {
  if (unit.state === 'provisional') return Date.parse(unit.dueAt) <= now;
  return unit.state === 'missing' || unit.state === 'partial' || unit.state === 'failed';
}

/** What fills the period at `destination`; undefined when every due day of it is complete (or none is due). */
export async function readPeriodFill(destination: Destination, input: PeriodFillInput): Promise<PeriodFill | undefined> {
  const due = input.days.filter((day) => day <= input.lastDay);
  if (due.length === 0 || input.projects.length === 0 || input.datasets.length === 0) return undefined;
  const status = await readExportStatus(destination, unitsOf(due, input.projects, input.datasets), {
    lastDay: input.lastDay,
    now: input.now,
    ...(input.retentionCutoff !== undefined ? { retentionCutoff: input.retentionCutoff } : {}),
  });
  const missing = [...new Set(status.units.filter((unit) => isToDo(unit, input.now)).map((unit) => unit.date))].sort();
  const first = missing[0];
  const last = missing[missing.length - 1];
  if (first === undefined || last === undefined) return undefined;
  return { from: first, to: addDays(last, 1), missingDays: missing.length, dueDays: due.length, status };
}
