/**
 * What an export run is asked to do, from a Lambda event or from CLI flags — one builder for
 * both, so they accept and refuse the same things, each in its own words.
 *
 * The hourly schedule sends an EventBridge event whose `time` fixes "now". An operator may
 * invoke the function by hand with `{date}` or `{from,to}` and/or `{projects}`, `{datasets}`;
 * such a request that does not fit in its run is kept as a backlog entry that later runs drain.
 */
import * as v from 'valibot';
import { PROJECT_ID_PATTERN } from '../shared/validators.js';
import { DATASET_NAMES, type DatasetName } from '../warehouse/catalog.js';
import { addDays, dayStart, formatDay, parseDay } from '../shared/dates.js';
import { ConfigError } from '../shared/errors.js';
import { SCHEDULED_EVENT } from '../shared/scheduled-event.js';
import type { RunRequest } from './run.js';

/** The day range of a request, as given (CLI flags or event fields). */
export interface DayRangeInput {
  readonly date?: string | undefined;
  readonly from?: string | undefined;
  readonly to?: string | undefined;
}

/** How the caller names the fields, so a Lambda caller is not told about CLI flags. */
export interface FieldNames {
  readonly date: string;
  readonly from: string;
  readonly to: string;
}

export const FLAG_NAMES: FieldNames = { date: '--date', from: '--from', to: '--to' };
export const EVENT_FIELDS: FieldNames = { date: '"date"', from: '"from"', to: '"to"' };

/**
 * The days asked for: `date`, or every day of `[from, to)`; undefined when neither is given.
 * Refuses impossible dates, a reversed or empty range and days that are not over yet (UTC) —
 * a manifest would mark a partial day complete.
 */
export function requestedDays(input: DayRangeInput, now: number, names: FieldNames): string[] | undefined {
  const { date, from, to } = input;
  if (date !== undefined) {
    if (from !== undefined || to !== undefined) throw new ConfigError(`give either ${names.date} or ${names.from}/${names.to}, not both`);
    return finished([parseDay(date, names.date)], now, names.date);
  }
  if (from === undefined && to === undefined) return undefined;
  if (from === undefined || to === undefined) {
    throw new ConfigError(`${names.from} and ${names.to} go together (${names.to} is exclusive), e.g. ${names.from} 2026-01-01 ${names.to} 2026-02-01`);
  }
  const start = dayStart(parseDay(from, names.from));
  const end = dayStart(parseDay(to, names.to));
  if (start > end) throw new ConfigError(`${names.from} ${from} is after ${names.to} ${to}: swap them (${names.to} is exclusive)`);
  if (start === end) throw new ConfigError(`${names.from} ${from} ${names.to} ${to} is empty: ${names.to} is exclusive, use the day after the last one`);
  const days: string[] = [];
  for (let day = from; day < to; day = addDays(day, 1)) days.push(day);
  return finished(days, now, 'day');
}

function finished(days: string[], now: number, what: string): string[] {
  const today = formatDay(now);
  const unfinished = days.find((day) => day >= today);
  if (unfinished !== undefined) {
    throw new ConfigError(`${what} ${unfinished} is not over yet (UTC): export finished days only, the latest is ${addDays(today, -1)}`);
  }
  return days;
}

const ProjectsSchema = v.optional(v.pipe(v.array(v.pipe(v.string(), v.regex(PROJECT_ID_PATTERN))), v.minLength(1)));
const DatasetsSchema = v.optional(v.pipe(v.array(v.picklist(DATASET_NAMES)), v.minLength(1)));

const ManualSchema = v.strictObject({
  date: v.optional(v.string()),
  from: v.optional(v.string()),
  to: v.optional(v.string()),
  projects: ProjectsSchema,
  datasets: DatasetsSchema,
});

/** Turns a Lambda event into a run request, or throws a ConfigError saying what to fix. */
export function parseExportEvent(event: unknown, now: number): RunRequest {
  if (event !== null && typeof event === 'object' && 'time' in event) {
    const scheduled = v.safeParse(SCHEDULED_EVENT, event);
    if (!scheduled.success) {
      throw new ConfigError(`scheduled event has an invalid "time": ${v.summarize(scheduled.issues)}`);
    }
    return { kind: 'scheduled', time: Date.parse(scheduled.output.time) };
  }
  const manual = v.safeParse(ManualSchema, event ?? {});
  if (!manual.success) {
    throw new ConfigError(
      `invalid export event (${v.summarize(manual.issues).replace(/\n/g, '; ')}): send {"date":"YYYY-MM-DD"} or {"from":"YYYY-MM-DD","to":"YYYY-MM-DD"}, optionally with {"projects":["id"]} and {"datasets":[${DATASET_NAMES.map((d) => `"${d}"`).join(',')}]}`,
    );
  }
  const { projects, datasets } = manual.output;
  const scope = { ...(projects ? { projects } : {}), ...(datasets ? { datasets: datasets as DatasetName[] } : {}) };
  const days = requestedDays(manual.output, now, EVENT_FIELDS);
  // A bare manual invoke behaves like this hour's scheduled run.
  if (days === undefined) return { kind: 'scheduled', time: now, manual: true, ...scope };
  return { kind: 'days', days, force: true, backlog: true, ...scope };
}
