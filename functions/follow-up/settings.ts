/**
 * The follow-up consumer's settings: every default in one object, resolved and validated once
 * (the way ky's `normalize` turns options into a complete object), so no code further in
 * carries a `?? 15_000` of its own.
 */
import { CONFIG_DEFAULTS } from '../settings/config.js';
import { ConfigError } from '../shared/errors.js';
import { backoffDelay, HOUR_MS, MINUTE_MS } from '../shared/time.js';
import { DEFAULT_GRACE, DEFAULT_POLL_SCHEDULE, type PollSchedule, type StaleReadGrace } from './poll.js';

/** What callers may set; everything but `projectIds` has a default in FOLLOW_UP_DEFAULTS. */
export interface FollowUpSettings {
  /** MINTLIFY_PROJECT_IDS: a message may omit projectId only when there is exactly one. */
  readonly projectIds: readonly string[];
  /** FOLLOWUP_MAX_WAIT_HOURS in ms: this long after the send, the outcome is `timed_out`. */
  readonly maxWaitMs?: number;
  /**
   * FOLLOWUP_MAX_DEFER_MINUTES in ms: a prompt still not sent this long after its first
   * attempt (job still active, rate limited, reads failing) is rejected: dead-lettered with
   * the reason, never sent.
   */
  readonly maxDeferMs?: number;
  /** How long one call may poll before it defers the message (ms). */
  readonly pollBudgetMs?: number;
  readonly schedule?: PollSchedule;
  readonly grace?: StaleReadGrace;
  /**
   * How long a claim (and a poll lease) holds (ms): longer than a POST can take. A claim
   * found expired means its holder stopped between claim and record: the send is `uncertain`.
   */
  readonly leaseMs?: number;
  /** Consumer failures (not deferrals) before the message is dead-lettered. */
  readonly maxFailures?: number;
  /** Delay while the job is active before the send (ms). */
  readonly activeDeferMs?: number;
  /** Delay after a 429 without Retry-After (ms). */
  readonly rateLimitDeferMs?: number;
  /** Delay after the first failure (ms), doubled per failure up to `failureBackoffCapMs`. */
  readonly failureBackoffMs?: number;
  readonly failureBackoffCapMs?: number;
}

/** Settings with every value present and checked: what the core works with. */
export type ResolvedSettings = { readonly [K in keyof FollowUpSettings]-?: Exclude<FollowUpSettings[K], undefined> };

export const FOLLOW_UP_DEFAULTS = {
  maxWaitMs: CONFIG_DEFAULTS.followUpMaxWaitHours * HOUR_MS,
  // Longer than the API's rate-limit window (100 follow-ups per project per hour), so a 429
  // alone never turns into a rejection.
  maxDeferMs: CONFIG_DEFAULTS.followUpMaxDeferMinutes * MINUTE_MS,
  pollBudgetMs: 60_000,
  schedule: DEFAULT_POLL_SCHEDULE,
  grace: DEFAULT_GRACE,
  leaseMs: 120_000,
  // With the doubling backoff (10 s … 15 min), 10 failures ride out an API outage of ~50 min.
  maxFailures: 10,
  activeDeferMs: 15_000,
  rateLimitDeferMs: 60_000,
  failureBackoffMs: 10_000,
  failureBackoffCapMs: 15 * 60_000,
} as const satisfies Omit<ResolvedSettings, 'projectIds'>;

const resolvedObjects = new WeakSet<object>();

/** Fills in the defaults and checks every value; a resolved object is returned as it is. */
export function resolveSettings(settings: FollowUpSettings): ResolvedSettings {
  if (isResolved(settings)) return settings;
  const defined = Object.fromEntries(Object.entries(settings).filter(([, value]) => value !== undefined));
  const s: ResolvedSettings = { ...FOLLOW_UP_DEFAULTS, ...defined, projectIds: settings.projectIds };
  atLeast('maxWaitMs', s.maxWaitMs, 0);
  atLeast('maxDeferMs', s.maxDeferMs, 1);
  atLeast('pollBudgetMs', s.pollBudgetMs, 0);
  atLeast('leaseMs', s.leaseMs, 1);
  atLeast('maxFailures', s.maxFailures, 1, true);
  atLeast('activeDeferMs', s.activeDeferMs, 0);
  atLeast('rateLimitDeferMs', s.rateLimitDeferMs, 0);
  atLeast('failureBackoffMs', s.failureBackoffMs, 0);
  atLeast('failureBackoffCapMs', s.failureBackoffCapMs, s.failureBackoffMs);
  atLeast('schedule.minIntervalMs', s.schedule.minIntervalMs, 1);
  atLeast('schedule.maxIntervalMs', s.schedule.maxIntervalMs, s.schedule.minIntervalMs);
  atLeast('schedule.fraction', s.schedule.fraction, 0);
  if (!(s.schedule.jitter >= 0 && s.schedule.jitter < 1))
    throw new ConfigError(`follow-up setting schedule.jitter must be in [0, 1) (got ${s.schedule.jitter})`);
  atLeast('grace.ms', s.grace.ms, 0);
  atLeast('grace.reads', s.grace.reads, 1, true);
  const frozen = Object.freeze(s);
  resolvedObjects.add(frozen);
  return frozen;
}

function isResolved(settings: FollowUpSettings): settings is ResolvedSettings {
  return resolvedObjects.has(settings);
}

/** The delay after the `failures`-th consumer failure: doubling from the base, capped. */
export function failureBackoff(failures: number, settings: ResolvedSettings): number {
  return backoffDelay(failures, { baseMs: settings.failureBackoffMs, maxMs: settings.failureBackoffCapMs });
}

/** Settings from the validated configuration (MINTLIFY_PROJECT_IDS, FOLLOWUP_MAX_WAIT_HOURS, FOLLOWUP_MAX_DEFER_MINUTES, FOLLOWUP_POLL_MIN_SECONDS). */
export function settingsFromConfig(config: {
  readonly projectIds: readonly string[];
  readonly followUpMaxWaitHours: number;
  readonly followUpMaxDeferMinutes?: number;
  readonly followUpPollMinSeconds?: number;
}): FollowUpSettings {
  return {
    projectIds: config.projectIds,
    maxWaitMs: config.followUpMaxWaitHours * HOUR_MS,
    ...(config.followUpMaxDeferMinutes === undefined ? {} : { maxDeferMs: config.followUpMaxDeferMinutes * MINUTE_MS }),
    ...(config.followUpPollMinSeconds === undefined
      ? {}
      : { schedule: { ...DEFAULT_POLL_SCHEDULE, minIntervalMs: Math.max(1, Math.round(config.followUpPollMinSeconds * 1000)) } }),
  };
}

function atLeast(name: string, value: number, min: number, integer = false): void {
  if (typeof value !== 'number' || !(value >= min) || (integer && !Number.isInteger(value))) {
    throw new ConfigError(`follow-up setting ${name} must be ${integer ? 'a whole number' : 'a number'} ≥ ${min} (got ${String(value)})`);
  }
}
