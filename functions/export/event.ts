/**
 * What an invocation asks for. The schedule sends an EventBridge event whose `time` fixes the
 * day; an operator may invoke the function by hand with `{date}`, `{from,to}` and/or
 * `{projects}` (a backfill or a re-run).
 */
import * as v from 'valibot';
import { assertFinishedDays, daysBetween, parseDay } from '../shared/dates.js';
import { PROJECT_ID_PATTERN } from '../shared/config.js';
import { ConfigError } from '../shared/errors.js';

export type ExportRequest =
  | { readonly kind: 'nightly'; readonly time: string; readonly projects?: readonly string[] }
  | { readonly kind: 'days'; readonly days: readonly string[]; readonly projects?: readonly string[] };

const ProjectsSchema = v.optional(v.pipe(v.array(v.pipe(v.string(), v.regex(PROJECT_ID_PATTERN))), v.minLength(1)));

const ManualSchema = v.strictObject({
  date: v.optional(v.string()),
  from: v.optional(v.string()),
  to: v.optional(v.string()),
  projects: ProjectsSchema,
});

const ScheduledSchema = v.object({
  'detail-type': v.optional(v.string()),
  source: v.optional(v.string()),
  time: v.pipe(v.string(), v.isoTimestamp()),
});

/** Turns a Lambda event into an export request, or throws a ConfigError saying what to fix. */
export function parseExportEvent(event: unknown, now: number): ExportRequest {
  if (event !== null && typeof event === 'object' && 'time' in event) {
    const scheduled = v.safeParse(ScheduledSchema, event);
    if (!scheduled.success) {
      throw new ConfigError(`scheduled event has an invalid "time": ${v.summarize(scheduled.issues)}`);
    }
    return { kind: 'nightly', time: scheduled.output.time };
  }
  const manual = v.safeParse(ManualSchema, event ?? {});
  if (!manual.success) {
    throw new ConfigError(
      `invalid export event (${v.summarize(manual.issues).replace(/\n/g, '; ')}): send {"date":"YYYY-MM-DD"}, {"from":"YYYY-MM-DD","to":"YYYY-MM-DD"} and/or {"projects":["id"]}`,
    );
  }
  const { date, from, to, projects } = manual.output;
  const scope = projects ? { projects } : {};
  if (date !== undefined) {
    if (from !== undefined || to !== undefined) throw new ConfigError('give either "date" or "from"/"to", not both');
    const day = parseDay(date, 'date');
    assertFinishedDays([day], now, 'date');
    return { kind: 'days', days: [day], ...scope };
  }
  if (from !== undefined || to !== undefined) {
    if (from === undefined || to === undefined) throw new ConfigError('"from" and "to" go together ("to" is exclusive)');
    const days = daysBetween(from, to);
    assertFinishedDays(days, now, 'day');
    return { kind: 'days', days, ...scope };
  }
  // A bare manual invoke behaves like tonight's scheduled run.
  return { kind: 'nightly', time: new Date(now).toISOString(), ...scope };
}
