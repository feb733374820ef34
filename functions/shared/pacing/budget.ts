/**
 * The request budget as a schedule: at most `spec.requests` analytics requests — every
 * attempt, retries and failures included — START within any window of `spec.windowMs`, across
 * every run that shares the ledger (a DynamoDB item in AWS; for the local CLI a document in
 * `<stateDir>/` through `createLocalStore`, so two CLI runs on one machine share it).
 *
 * Why a sliding window: the service documents "100 requests per organisation per hour" but not
 * whether the hour is fixed (resets on the hour) or rolling. A sliding-window ledger that
 * never lets more than B starts into any window of length W satisfies both readings: every
 * fixed hour is one such window. A fixed-window counter would not: it can spend B at the end
 * of one hour and B again at the start of the next, 2B within one rolling hour.
 *
 * Windows are half-open: two starts share a window when they are less than W apart, so a
 * start may happen exactly W after the one it replaces. The ledger records the instant it
 * reserves a start; the request leaves a few milliseconds later, and run clocks differ by
 * milliseconds (NTP): the default budget's headroom (90 of 100) absorbs both.
 *
 * The ledger keeps one timestamp per start of the last {@link LEDGER_RETENTION_MS} (24 h, the
 * longest window a budget may have), not only of the window of the run that writes: runs of
 * one deployment with different budgets (`12/30s` for a test, `90/1h` for the schedule) then
 * share one truth about what was spent. At about 14 bytes a start, at most
 * {@link MAX_KEPT_STARTS} of them are kept (a DynamoDB item holds 400 KB).
 *
 * Times in the ledger come from other processes' clocks and from answers of the API: reading
 * it, no start or pause lies further ahead than one window (see {@link clampLedger}), so one
 * wrong clock or one absurd `Retry-After` can hold the deployment back for one window at most.
 */
import { MAX_WINDOW_MS, type BudgetSpec } from './budget-spec.js';
import { ConfigError } from '../errors.js';
import { BudgetExhaustedError } from './errors.js';
import { checkStoreKey, type SharedStore } from '../storage/shared-store.js';
import { backoffDelay, HOUR_MS } from '../time.js';

/**
 * The shared ledger document. `consecutive429` shows in status output how many 429s piled up
 * since the last admitted start; the gate's backoff series is counted per run (see
 * {@link createBudgetGate}), since a count that every admitted start resets could never double.
 */
export interface LedgerDoc {
  /** Epoch ms of each request start still inside the window, oldest first. */
  readonly starts: readonly number[];
  /** No analytics request may start before this (a 429 was received), epoch ms; 0 = none. */
  readonly pausedUntil: number;
  /** 429s recorded so far, and the consecutive ones since the last admitted start (drives backoff). */
  readonly rateLimited: number;
  readonly consecutive429: number;
  /**
   * What the last 429 taught: the organisation's other tools were spending part of the
   * budget, so the deployment allowed itself only `limit` starts per window from `at` on (see
   * {@link limitAt}). Absent: the whole budget.
   */
  readonly learnt?: { readonly limit: number; readonly at: number };
}

const EMPTY_LEDGER: LedgerDoc = { starts: [], pausedUntil: 0, rateLimited: 0, consecutive429: 0 };

/** Starts older than this leave the ledger: the longest window a budget may have (budget-spec.ts). */
export const LEDGER_RETENTION_MS = MAX_WINDOW_MS;

/** The most starts the ledger keeps (the newest); never fewer than one window's. */
export const MAX_KEPT_STARTS = 10_000;

/**
 * The ledger as this process may trust it at `now`: no start and no pause further ahead than
 * `now + windowMs` (a clock far ahead elsewhere, an absurd Retry-After recorded by an older
 * version), starts older than the retention dropped. `clamped` says a time was cut, so the cut
 * is written back (a cut that is not stored would slide with the clock and never end).
 */
export function clampLedger(doc: LedgerDoc, spec: BudgetSpec, now: number): { readonly doc: LedgerDoc; readonly clamped: boolean } {
  const latest = now + spec.windowMs;
  let clamped = doc.pausedUntil > latest;
  const starts = doc.starts
    .filter((start) => start > now - Math.max(LEDGER_RETENTION_MS, spec.windowMs))
    .map((start) => {
      if (start <= latest) return start;
      clamped = true;
      return latest;
    });
  const inWindow = starts.filter((start) => start > now - spec.windowMs).length;
  const kept = starts.slice(-Math.max(MAX_KEPT_STARTS, inWindow));
  return { doc: { ...doc, starts: kept, pausedUntil: Math.min(doc.pausedUntil, latest) }, clamped };
}

/** Clean windows (no 429) before the learnt limit grows by a step; the step doubles each time. */
export const RECOVERY_WINDOWS = 4;

/**
 * The starts allowed per window at `now`. A 429 means the organisation's other tools spent
 * part of the budget, and they usually keep doing so: after one, the ledger allows what got
 * through in that window (the starts in it but the refused one, and at least half the
 * budget), so the next windows send no more than fits instead of meeting a 429 in each. It
 * probes upwards slowly — a step of B/10 (at least 1) after RECOVERY_WINDOWS clean windows,
 * then 2, 4, 8 steps — so a steady competitor costs about one 429 per five windows, while a
 * one-off burst is forgotten within about twelve windows. Another 429 lowers it again.
 */
export function limitAt(doc: LedgerDoc, spec: BudgetSpec, now: number): number {
  if (!doc.learnt) return spec.requests;
  const periods = Math.max(0, Math.floor((now - doc.learnt.at) / (RECOVERY_WINDOWS * spec.windowMs)));
  if (periods >= 30) return spec.requests;
  const step = Math.max(1, Math.floor(spec.requests / 10));
  return Math.min(spec.requests, doc.learnt.limit + step * (2 ** periods - 1));
}

/**
 * Pure sliding-window decision at `now`: admitted (waitMs 0, `now` appended to starts, starts
 * older than the window pruned) or not (waitMs > 0 = time until a start may happen:
 * max(pausedUntil, oldest start in window + windowMs) - now; nothing appended).
 *
 * When the window holds more than B starts (the budget was lowered since they were made), the
 * wait runs until enough of them have left for one more. An admitted start resets
 * `consecutive429`. `reason` is what the wait is for: the later of the pause and the full window.
 */
export function admit(
  doc: LedgerDoc | undefined,
  spec: BudgetSpec,
  now: number,
): { readonly doc: LedgerDoc; readonly waitMs: number; readonly reason: 'budget' | 'paused' | 'free' } {
  return decide(clampLedger(normalizeLedger(doc), spec, now).doc, spec, now);
}

/** `admit` on a ledger already normalized and clamped at `now`. */
function decide(
  current: LedgerDoc,
  spec: BudgetSpec,
  now: number,
): { readonly doc: LedgerDoc; readonly waitMs: number; readonly reason: 'budget' | 'paused' | 'free' } {
  // Starts ahead of `now` (another run's clock a little fast) stay: they are in the window.
  // Older starts stay in the document (other runs may use a longer window), not in the count.
  const starts = current.starts.filter((start) => start > now - spec.windowMs);
  const excess = starts.length - limitAt(current, spec, now);
  // starts[excess] is the start whose leaving brings the window below B.
  const roomAt = excess >= 0 ? (starts[excess] ?? now) + spec.windowMs : now;
  const until = Math.max(roomAt, current.pausedUntil);
  if (until > now) {
    return {
      doc: current,
      waitMs: until - now,
      reason: current.pausedUntil >= roomAt ? 'paused' : 'budget',
    };
  }
  const all = current.starts;
  const at = all.findIndex((start) => start > now);
  const admitted = at === -1 ? [...all, now] : [...all.slice(0, at), now, ...all.slice(at)];
  return { doc: { ...current, starts: admitted.slice(-Math.max(MAX_KEPT_STARTS, starts.length + 1)), consecutive429: 0 }, waitMs: 0, reason: 'free' };
}

export interface BudgetSnapshot {
  readonly spec: BudgetSpec;
  /** Starts within the window ending now. */
  readonly used: number;
  /** Epoch ms when the next request may start (= now when it may start at once). */
  readonly nextStartAt: number;
  readonly pausedUntil: number;
  readonly rateLimited: number;
  /** Starts allowed per window now: below `spec.requests` for a while after a 429 (see `limitAt`). */
  readonly limit: number;
  /**
   * The stored pause ends more than one window from now (an absurd Retry-After written by an
   * older version, a clock far ahead): a problem, not waiting. Epoch ms of that pause, as stored.
   */
  readonly pauseBeyondWindow?: number;
}

export interface BudgetLedger {
  readonly spec: BudgetSpec;
  /**
   * Reserves a start now (waitMs 0, `at` = the instant recorded), or says how long to wait
   * (nothing reserved).
   */
  tryStart(): Promise<{ readonly waitMs: number; readonly reason: 'budget' | 'paused' | 'free'; readonly at?: number }>;
  /** Removes the start recorded at `at` (a request that provably never left this machine). */
  unstart(at: number): Promise<void>;
  /** Records a 429: nobody of the deployment starts an analytics request before `untilMs`; also counts it. */
  pause(untilMs: number): Promise<void>;
  snapshot(): Promise<BudgetSnapshot>;
}

export const LEDGER_KEY = 'budget/ledger';

/**
 * The share of `spec` left to the exporter when `reservePerHour` requests an hour are kept for
 * the key's other users (`ANALYTICS_RESERVE`): the reserve, scaled to the window and rounded up,
 * comes off each window. With many organisations each one's ledger gets this share.
 * @throws ConfigError when nothing would be left.
 */
export function shareOf(spec: BudgetSpec, reservePerHour: number): BudgetSpec {
  if (reservePerHour <= 0) return spec;
  const reserved = Math.ceil((reservePerHour * spec.windowMs) / HOUR_MS);
  const requests = spec.requests - reserved;
  if (requests < 1) {
    throw new ConfigError(
      `ANALYTICS_RESERVE ${reservePerHour} an hour leaves nothing of ANALYTICS_BUDGET ${spec.text} (${reserved} of its ${spec.requests} per window): lower the reserve or raise the budget`,
    );
  }
  return { requests, windowMs: spec.windowMs, text: `${requests}/${spec.text.split('/')[1] ?? ''}` };
}

/**
 * The budget ledger of one deployment in `store` (at `key`, default {@link LEDGER_KEY}).
 * `now` (default `Date.now`) is read inside each atomic update, so a retried update decides
 * on the time it commits at, not on the time of an attempt that lost.
 */
export function createBudgetLedger(store: SharedStore, spec: BudgetSpec, options: { now?: () => number; key?: string } = {}): BudgetLedger {
  const now = options.now ?? Date.now;
  const key = checkStoreKey(options.key ?? LEDGER_KEY);

  return {
    spec,

    tryStart() {
      return store.update<LedgerDoc, { waitMs: number; reason: 'budget' | 'paused' | 'free'; at?: number }>(key, (current) => {
        const at = now();
        const { doc, clamped } = clampLedger(normalizeLedger(current), spec, at);
        const decision = decide(doc, spec, at);
        const result = { waitMs: decision.waitMs, reason: decision.reason, ...(decision.waitMs === 0 ? { at } : {}) };
        // A refusal leaves the document as it was — the stores skip the write, so runs waiting
        // for budget do not contend with the one being admitted — unless a time in it had to
        // be cut: that cut is stored, or it would slide with the clock and never end.
        return { value: decision.waitMs === 0 || clamped ? decision.doc : (current ?? decision.doc), result };
      });
    },

    async unstart(at) {
      await store.update<LedgerDoc, void>(key, (current) => {
        if (current === undefined) return { value: current, result: undefined };
        const doc = normalizeLedger(current);
        const index = doc.starts.lastIndexOf(at);
        if (index === -1) return { value: current, result: undefined };
        return { value: { ...doc, starts: [...doc.starts.slice(0, index), ...doc.starts.slice(index + 1)] }, result: undefined };
      });
    },

    async pause(untilMs) {
      if (!Number.isFinite(untilMs)) throw new RangeError(`pause needs an epoch ms time, got ${untilMs}`);
      await store.update<LedgerDoc, void>(key, (current) => {
        const at = now();
        const doc = clampLedger(normalizeLedger(current), spec, at).doc;
        // Ours that got through in this window: every start in it but the one refused. Never
        // below half the budget: a 429 after few of ours is a burst of someone else's (or a
        // hiccup), which the pause and the backoff handle; assuming it lasts would only slow
        // the export for hours.
        const ours = doc.starts.filter((start) => start > at - spec.windowMs && start <= at).length - 1;
        const limit = Math.max(Math.ceil(spec.requests / 2), Math.min(ours, limitAt(doc, spec, at)));
        return {
          value: {
            ...doc,
            // Never shortens a longer pause another run recorded; never longer than a window.
            pausedUntil: Math.min(Math.max(doc.pausedUntil, untilMs), at + spec.windowMs),
            rateLimited: doc.rateLimited + 1,
            consecutive429: doc.consecutive429 + 1,
            learnt: { limit, at },
          },
          result: undefined,
        };
      });
    },

    async snapshot() {
      const at = now();
      const stored = normalizeLedger(await store.get<LedgerDoc>(key));
      const doc = clampLedger(stored, spec, at).doc;
      const { waitMs } = admit(doc, spec, at);
      return {
        spec,
        used: doc.starts.filter((start) => start > at - spec.windowMs).length,
        nextStartAt: at + waitMs,
        pausedUntil: doc.pausedUntil,
        rateLimited: doc.rateLimited,
        limit: limitAt(doc, spec, at),
        ...(stored.pausedUntil > at + spec.windowMs ? { pauseBeyondWindow: stored.pausedUntil } : {}),
      };
    },
  };
}

/**
 * The ledger of a server without a limit (the CLI's embedded sandbox), in this process only:
 * every start is admitted at once and counted in the window; a 429 (the sandbox can answer
 * one) still pauses every request until its time, as the shared ledger would. The shared
 * ledger rewrites its whole document per start — the day's starts, thousands of them in a
 * sandbox run — which is right for a limit that runs share and pure cost without one.
 */
export function createUnlimitedLedger(spec: BudgetSpec, options: { now?: () => number } = {}): BudgetLedger {
  const now = options.now ?? Date.now;
  /** Starts of the window, oldest first, from `first` on (the ones before have left the window). */
  const starts: number[] = [];
  let first = 0;
  let pausedUntil = 0;
  let rateLimited = 0;
  const used = (at: number): number => {
    while (first < starts.length && (starts[first] as number) <= at - spec.windowMs) first += 1;
    // The starts that left the window go in one cut once they are most of the array.
    if (first > 1024 && first * 2 > starts.length) {
      starts.splice(0, first);
      first = 0;
    }
    return starts.length - first;
  };
  return {
    spec,
    async tryStart() {
      const at = now();
      if (pausedUntil > at) return { waitMs: pausedUntil - at, reason: 'paused' as const };
      used(at);
      starts.push(at);
      return { waitMs: 0, reason: 'free' as const, at };
    },
    async unstart(at) {
      const index = starts.lastIndexOf(at);
      if (index >= first) starts.splice(index, 1);
    },
    async pause(untilMs) {
      if (!Number.isFinite(untilMs)) throw new RangeError(`pause needs an epoch ms time, got ${untilMs}`);
      const at = now();
      pausedUntil = Math.min(Math.max(pausedUntil, untilMs), at + spec.windowMs);
      rateLimited += 1;
    },
    async snapshot() {
      const at = now();
      return { spec, used: used(at), nextStartAt: Math.max(at, pausedUntil), pausedUntil, rateLimited, limit: spec.requests };
    },
  };
}

/** What a caller waiting for budget is told (CLI countdown, metrics). */
export interface BudgetWait {
  readonly waitMs: number;
  readonly until: number;
  readonly reason: 'budget' | 'paused';
}

export interface BudgetGateStats {
  admitted: number;
  waits: number;
  waitedMs: number;
  rateLimited: number;
  /** 429s that asked for a wait longer than the window (cut to the window). */
  waitsCut: number;
}

/** What a 429 did to the deployment's pause. */
export interface RateLimitPause {
  /** How long every analytics request now pauses, ms. */
  readonly pausedMs: number;
  /** Set when the answer asked for longer than the budget window: what it asked for, ms. */
  readonly askedMs?: number;
}

export interface BudgetGate {
  readonly ledger: BudgetLedger;
  readonly stats: BudgetGateStats; // live counters since the gate was created
  /**
   * Resolves once the ledger admitted one analytics request start (it is then counted). While
   * it must wait it calls onWait and sleeps (the injected sleep, with the signal). Throws
   * BudgetExhaustedError (with nextStartAt) when the wait would end after `deadline` — without
   * sleeping —, or the signal's reason when aborted.
   */
  take(options?: { readonly deadline?: number; readonly signal?: AbortSignal }): Promise<void>;
  /**
   * A 429 was received: pause the whole deployment until now + retryAfterMs, or, when the
   * server gave none (absent or 0), a backoff that doubles with consecutive 429s: 30 s, 60 s, …
   * capped at the window length. Counted in stats.rateLimited and in the ledger.
   *
   * A wait longer than the budget window is cut to the window: the service's limit is hourly,
   * so a longer one is a proxy's, a CDN's or a unit mix-up (`Retry-After: 99999999`, 3 years).
   * The result says so (`askedMs`), for a warning that names the header.
   */
  rateLimited(retryAfterMs: number | undefined): Promise<RateLimitPause>;
  /**
   * Gives back the start `take` last admitted: its request provably never left this machine
   * (connection refused, a name that does not resolve), so it spent none of the budget.
   */
  refund(): Promise<void>;
}

/** First backoff after a 429 without Retry-After; doubles with each consecutive one. */
const BACKOFF_START_MS = 30_000;

/**
 * The gate one run puts in front of every analytics request.
 *
 * Waits sleep exactly until the ledger says a start may happen — a pause is never shortened
 * and starts only leave the window, so nothing can make that time earlier — and then ask the
 * ledger again, because another run may have taken the freed start first.
 *
 * Backoff counts this gate's own 429s in a row: a 429 on a request whose start followed a 429
 * continues the series; a start after a request that was not rate limited ends it. Counting
 * per run keeps several runs hit by one burst of 429s from doubling each other's backoff; the
 * ledger's pause (the max of everyone's) still holds back the whole deployment.
 */
export function createBudgetGate(
  ledger: BudgetLedger,
  options: {
    now: () => number;
    sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
    onWait?: (wait: BudgetWait) => void;
  },
): BudgetGate {
  const { now, sleep, onWait } = options;
  const stats: BudgetGateStats = { admitted: 0, waits: 0, waitedMs: 0, rateLimited: 0, waitsCut: 0 };
  let consecutive429 = 0;
  let rateLimitedSinceStart = false;
  let lastStart: number | undefined;

  return {
    ledger,
    stats,

    async take({ deadline, signal } = {}) {
      for (;;) {
        signal?.throwIfAborted();
        const decision = await ledger.tryStart();
        if (decision.reason === 'free' || decision.waitMs <= 0) {
          stats.admitted += 1;
          lastStart = decision.at;
          if (!rateLimitedSinceStart) consecutive429 = 0;
          rateLimitedSinceStart = false;
          return;
        }
        const { waitMs, reason } = decision;
        const until = now() + waitMs;
        if (deadline !== undefined && until > deadline) {
          const why = reason === 'paused' ? 'the API answered 429 and asked everyone to pause' : `the budget ${ledger.spec.text} is spent`;
          throw new BudgetExhaustedError(
            `No analytics request may start before ${new Date(until).toISOString()} (${why}), after this run's deadline: the unit keeps its checkpoint and a later run continues it`,
            until,
          );
        }
        onWait?.({ waitMs, until, reason });
        stats.waits += 1;
        const sleptFrom = now();
        try {
          await sleep(waitMs, signal);
        } catch (error) {
          stats.waitedMs += Math.min(waitMs, Math.max(0, now() - sleptFrom));
          throw signal?.aborted ? signal.reason : error;
        }
        stats.waitedMs += waitMs;
      }
    },

    async refund() {
      const at = lastStart;
      lastStart = undefined;
      if (at === undefined) return;
      stats.admitted -= 1;
      await ledger.unstart(at);
    },

    async rateLimited(retryAfterMs) {
      stats.rateLimited += 1;
      const serverAsked = retryAfterMs !== undefined && Number.isFinite(retryAfterMs) && retryAfterMs > 0;
      const { windowMs } = ledger.spec;
      const asked = serverAsked ? retryAfterMs : backoffDelay(consecutive429 + 1, { baseMs: BACKOFF_START_MS, maxMs: windowMs });
      const delay = Math.min(asked, windowMs);
      consecutive429 += 1;
      rateLimitedSinceStart = true;
      if (asked > delay) stats.waitsCut += 1;
      await ledger.pause(now() + delay);
      return { pausedMs: delay, ...(asked > delay ? { askedMs: asked } : {}) };
    },
  };
}

/**
 * A ledger read from a store is data from outside this process (another version of the
 * exporter, a hand edit): keep only what makes sense rather than trust its shape.
 */
function normalizeLedger(doc: LedgerDoc | undefined): LedgerDoc {
  if (doc === undefined || typeof doc !== 'object' || doc === null) return EMPTY_LEDGER;
  const count = (n: unknown) => (typeof n === 'number' && Number.isFinite(n) && n > 0 ? Math.floor(n) : 0);
  const starts = Array.isArray(doc.starts) ? doc.starts.filter((start): start is number => typeof start === 'number' && Number.isFinite(start)) : [];
  return {
    starts: starts.every((start, i) => i === 0 || (starts[i - 1] as number) <= start) ? starts : [...starts].sort((a, b) => a - b),
    pausedUntil: typeof doc.pausedUntil === 'number' && Number.isFinite(doc.pausedUntil) ? doc.pausedUntil : 0,
    rateLimited: count(doc.rateLimited),
    consecutive429: count(doc.consecutive429),
    ...(isLearnt(doc.learnt) ? { learnt: { limit: doc.learnt.limit, at: doc.learnt.at } } : {}),
  };
}

function isLearnt(value: unknown): value is { limit: number; at: number } {
  const learnt = value as { limit?: unknown; at?: unknown } | undefined;
  return (
    typeof learnt === 'object' &&
    learnt !== null &&
    Number.isSafeInteger(learnt.limit) &&
    (learnt.limit as number) >= 1 &&
    typeof learnt.at === 'number' &&
    Number.isFinite(learnt.at)
  );
}
