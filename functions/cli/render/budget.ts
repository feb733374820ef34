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

/** What the requests left are made of, as the estimator said it (estimates.ts `Estimate`). */
export interface RequestsLeft {
  readonly requests: number;
  /** Units estimated at their dataset's typical day: nothing of it exported yet (a guess). */
  readonly typical: number;
  /** Units estimated from another project's pages (a guess). */
  readonly guessed: number;
  /** Partial units that staged as many pages as their known day: at least one more each (a floor). */
  readonly floors: number;
}

/** How many units of `units` are each kind of estimate (estimates.ts). */
export function requestsLeftOf(
  units: readonly { readonly estimate: number; readonly guess?: true; readonly typical?: true; readonly floor?: true }[],
): RequestsLeft {
  return {
    requests: units.reduce((sum, u) => sum + u.estimate, 0),
    typical: units.filter((u) => u.typical).length,
    guessed: units.filter((u) => u.guess && !u.typical).length,
    floors: units.filter((u) => u.floor).length,
  };
}

/**
 * The requests left, said as what they are — the same words in `plan`, `status` and `export`'s
 * progress: "about N" (a guess, and for how many units and from what) or "at least N" when some
 * unit's estimate is a floor; never "up to".
 */
export function requestsLeftText(left: RequestsLeft): string {
  const guesses = [
    ...(left.typical > 0 ? [`${left.typical} unit(s) at their dataset's typical day, nothing of it exported yet`] : []),
    ...(left.guessed > 0 ? [`${left.guessed} unit(s) from another project's pages`] : []),
  ];
  const guess = guesses.length > 0 ? ` (a guess for ${guesses.join(', ')})` : '';
  const floor = left.floors > 0 ? ` (${left.floors} partial unit(s) already as large as their known day: at least one more request each)` : '';
  return `${left.floors > 0 ? 'at least' : 'about'} ${left.requests} request(s)${guess}${floor}`;
}

/**
 * How long the budget needs, as plan and status say it: "no wait"; "at least 2 h" when the
 * requests are a floor; "about 2 h (a guess)" when some are guessed; else "up to 2 h" (the
 * schedule's bound for firm estimates: estimates.ts `budgetTime`). A run against the embedded
 * sandbox is not paced (api-target.ts `runsAgainstSandbox`) and says so.
 */
export function budgetNeeds(ms: number, unpaced = false, left?: Pick<RequestsLeft, 'typical' | 'guessed' | 'floors'>): string {
  if (unpaced) return 'no wait (the embedded sandbox is not paced; set ANALYTICS_BUDGET to pace it)';
  if (ms === 0) return 'no wait';
  if (left !== undefined && left.floors > 0) return `at least ${formatDuration(ms)}`;
  if (left !== undefined && left.typical + left.guessed > 0) return `about ${formatDuration(ms)} (a guess)`;
  return `up to ${formatDuration(ms)}`;
}
