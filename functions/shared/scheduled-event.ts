/**
 * EventBridge's scheduled event, read through one schema by the three scheduled handlers (the
 * export, the insights check, the weekly report): its `time` is the hour the run is for, so a
 * retried event works on the days of the hour it was scheduled for.
 */
import * as v from 'valibot';

/** What a scheduled event holds that a handler reads. */
export const SCHEDULED_EVENT = v.object({
  'detail-type': v.optional(v.string()),
  source: v.optional(v.string()),
  time: v.pipe(v.string(), v.isoTimestamp()),
});

/**
 * The run's "now": the scheduled event's `time`, else the clock (an invocation by hand, whose
 * event has no time).
 */
export function scheduledTime(event: unknown, now: () => number): number {
  const scheduled = v.safeParse(SCHEDULED_EVENT, event);
  return scheduled.success ? Date.parse(scheduled.output.time) : now();
}
