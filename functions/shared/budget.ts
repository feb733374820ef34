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
 * The ledger keeps one timestamp per start still in the window (about 14 bytes each), so a
 * budget of tens of thousands of requests per window would outgrow a DynamoDB item (400 KB);
 * the service's 100 per hour is far from that.
 */
import type { BudgetSpec } from './budget-spec.js';
import { BudgetExhaustedError } from './errors.js';
import { checkStoreKey, type SharedStore } from './shared-store.js';

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
  const current = normalizeLedger(doc);
  // Starts ahead of `now` (another run's clock a little fast) stay: they are in the window.
  const starts = current.starts.filter((start) => start > now - spec.windowMs);
  const excess = starts.length - limitAt(current, spec, now);
  // starts[excess] is the start whose leaving brings the window below B.
  const roomAt = excess >= 0 ? (starts[excess] ?? now) + spec.windowMs : now;
  const until = Math.max(roomAt, current.pausedUntil);
  if (until > now) {
    return {
      doc: { ...current, starts },
      waitMs: until - now,
      reason: current.pausedUntil >= roomAt ? 'paused' : 'budget',
    };
  }
  const at = starts.findIndex((start) => start > now);
  const admitted = at === -1 ? [...starts, now] : [...starts.slice(0, at), now, ...starts.slice(at)];
  return { doc: { ...current, starts: admitted, consecutive429: 0 }, waitMs: 0, reason: 'free' };
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
}

export interface BudgetLedger {
  readonly spec: BudgetSpec;
  /** Reserves a start now (waitMs 0), or says how long to wait (nothing reserved). */
  tryStart(): Promise<{ readonly waitMs: number; readonly reason: 'budget' | 'paused' | 'free' }>;
  /** Records a 429: nobody of the deployment starts an analytics request before `untilMs`; also counts it. */
  pause(untilMs: number): Promise<void>;
  snapshot(): Promise<BudgetSnapshot>;
}

export const LEDGER_KEY = 'budget/ledger';

/**
 * The budget ledger of one deployment in `store` (at `key`, default {@link LEDGER_KEY}).
 * `now` (default `Date.now`) is read inside each atomic update, so a retried update decides
 * on the time it commits at, not on the time of an attempt that lost.
 */
export function createBudgetLedger(
  store: SharedStore,
  spec: BudgetSpec,
  options: { now?: () => number; key?: string } = {},
): BudgetLedger {
  const now = options.now ?? Date.now;
  const key = checkStoreKey(options.key ?? LEDGER_KEY);

  return {
    spec,

    tryStart() {
      return store.update<LedgerDoc, { waitMs: number; reason: 'budget' | 'paused' | 'free' }>(key, (current) => {
        const decision = admit(current, spec, now());
        const result = { waitMs: decision.waitMs, reason: decision.reason };
        // A refusal leaves the document as it was: the stores skip the write, so runs waiting
        // for budget do not contend with the one being admitted.
        return { value: decision.waitMs === 0 ? decision.doc : (current ?? decision.doc), result };
      });
    },

    async pause(untilMs) {
      if (!Number.isFinite(untilMs)) throw new RangeError(`pause needs an epoch ms time, got ${untilMs}`);
      await store.update<LedgerDoc, void>(key, (current) => {
        const doc = normalizeLedger(current);
        const at = now();
        // Ours that got through in this window: every start in it but the one refused. Never
        // below half the budget: a 429 after few of ours is a burst of someone else's (or a
        // hiccup), which the pause and the backoff handle; assuming it lasts would only slow
        // the export for hours.
        const ours = doc.starts.filter((start) => start > at - spec.windowMs && start <= at).length - 1;
        const limit = Math.max(Math.ceil(spec.requests / 2), Math.min(ours, limitAt(doc, spec, at)));
        return {
          value: {
            ...doc,
            // Never shortens a longer pause another run recorded.
            pausedUntil: Math.max(doc.pausedUntil, untilMs),
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
      const doc = normalizeLedger(await store.get<LedgerDoc>(key));
      const { waitMs } = admit(doc, spec, at);
      return {
        spec,
        used: doc.starts.filter((start) => start > at - spec.windowMs).length,
        nextStartAt: at + waitMs,
        pausedUntil: doc.pausedUntil,
        rateLimited: doc.rateLimited,
        limit: limitAt(doc, spec, at),
      };
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
   */
  rateLimited(retryAfterMs: number | undefined): Promise<void>;
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
  const stats: BudgetGateStats = { admitted: 0, waits: 0, waitedMs: 0, rateLimited: 0 };
  let consecutive429 = 0;
  let rateLimitedSinceStart = false;

  return {
    ledger,
    stats,

    async take({ deadline, signal } = {}) {
      for (;;) {
        signal?.throwIfAborted();
        const decision = await ledger.tryStart();
        if (decision.reason === 'free' || decision.waitMs <= 0) {
          stats.admitted += 1;
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

    async rateLimited(retryAfterMs) {
      stats.rateLimited += 1;
      const serverAsked = retryAfterMs !== undefined && Number.isFinite(retryAfterMs) && retryAfterMs > 0;
      const delay = serverAsked ? retryAfterMs : Math.min(BACKOFF_START_MS * 2 ** consecutive429, ledger.spec.windowMs);
      consecutive429 += 1;
      rateLimitedSinceStart = true;
      await ledger.pause(now() + delay);
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
  const starts = Array.isArray(doc.starts)
    ? doc.starts.filter((start): start is number => typeof start === 'number' && Number.isFinite(start))
    : [];
  return {
    starts: [...starts].sort((a, b) => a - b),
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
