/** The request budget as `plan` and `status` show it: a ledger snapshot as text and as JSON. */
import type { BudgetSnapshot } from '../../shared/pacing/budget.js';
import { formatDuration } from '../../shared/durations.js';

/** The latest time a Date can show (a ledger may hold anything). */
const MAX_DATE_MS = 8.64e15;

export function budgetJson(snapshot: BudgetSnapshot, now: number) {
  return {
    budget: snapshot.spec.text,
    used: snapshot.used,
    nextStartAt: new Date(Math.max(now, snapshot.nextStartAt)).toISOString(),
    pausedUntil: snapshot.pausedUntil > now ? new Date(snapshot.pausedUntil).toISOString() : null,
    rateLimited: snapshot.rateLimited,
    limit: snapshot.limit,
    // A problem, shown only when there is one: a stored pause longer than the window.
    ...(snapshot.pauseBeyondWindow !== undefined ? { pauseBeyondWindow: new Date(Math.min(snapshot.pauseBeyondWindow, MAX_DATE_MS)).toISOString() } : {}),
  };
}

export function budgetLine(snapshot: BudgetSnapshot, now: number): string {
  const { spec } = snapshot;
  const next =
    snapshot.nextStartAt - now < 1_000
      ? 'the next request may start now'
      : `the next request may start at ${new Date(snapshot.nextStartAt).toISOString().slice(0, 19)}Z (in ${formatDuration(snapshot.nextStartAt - now)})${snapshot.pausedUntil > now ? ', after a 429' : ''}`;
  const learnt =
    snapshot.limit < spec.requests
      ? ` Since a 429, ${snapshot.limit} per ${formatDuration(spec.windowMs, 'window')} for now: the organisation's other tools take the rest.`
      : '';
  const problem =
    snapshot.pauseBeyondWindow !== undefined
      ? `\nPROBLEM: the ledger holds a pause until ${new Date(Math.min(snapshot.pauseBeyondWindow, MAX_DATE_MS)).toISOString().slice(0, 19)}Z, longer than the budget window (${formatDuration(spec.windowMs, 'window')}): an absurd Retry-After or a clock far ahead wrote it. The next export cuts it to one window; nothing else is needed.`
      : '';
  return `Budget ${spec.text}: ${snapshot.used} request(s) in the last ${formatDuration(spec.windowMs, 'window')}; ${next}.${learnt}${problem}`;
}

/**
 * How long the budget needs, as plan and status say it: "no wait" or "up to 1h 5m"; a run
 * against the embedded sandbox is not paced (estimates.ts `runsUnpaced`) and says so.
 */
export function budgetNeeds(ms: number, unpaced = false): string {
  if (unpaced) return 'no wait (the embedded sandbox is not paced; set ANALYTICS_BUDGET to pace it)';
  return ms === 0 ? 'no wait' : `up to ${formatDuration(ms)}`;
}
