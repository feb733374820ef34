/**
 * Figure 7 — budget use (issue 8). A backlog of N analytics requests (days of a synthetic
 * project, 10 pages each) under a budget of B requests per window W, everything on ONE
 * simulated clock: the sandbox's `now`, the budget gate's and the client's `now`/`sleep`, the
 * leases — a sleep advances it, so 20 hours of schedule take a few seconds. The sandbox runs
 * in budget mode with the same B per W (429 beyond it, with Retry-After), once with `fixed`
 * windows (clock hours) and once with `rolling` ones; the export is one paced run (the CLI's
 * `export`: `runUnits` waits for budget instead of ending).
 *
 * - **alone**: windows needed to finish ÷ ceil(N/B) (≤ 1.05); the most requests the sandbox
 *   saw start within any window of length W (≤ B); 429s received (0); pages answered twice (0).
 * - **shared**: another tool of the organisation spends B/2 at the start of every window (the
 *   sandbox's spend control, called as the clock crosses each window start), which this
 *   deployment's ledger cannot see: windows ÷ ceil(N/(B/2)) (≤ 1.10) and 429s ÷ requests
 *   sent (≤ 5 %). Once with the sandbox's Retry-After on its 429s (the default), once
 *   without (the gate's own backoff then chooses when to ask again).
 *
 * Windows are counted from the (window-aligned) start of the run to the start of the last
 * request: `floor((last − T0) / W) + 1`.
 */
import type { DatasetName } from '../functions/warehouse/catalog.js';
import type { BudgetSpec } from '../functions/shared/pacing/budget-spec.js';
import { addDays } from '../functions/shared/dates.js';
import { startSandbox, type Sandbox } from '../sandbox/index.js';
import { createEngine, unitOf, type Clock } from './lib/engine.js';
import { info, judged, progress, type BenchResult, type Figures } from './lib/figures.js';
import { nullDestination } from './lib/null-destination.js';
import { maxInAnyWindow, refetchedPages, requestsOf } from './lib/request-log.js';

const HOUR_MS = 3_600_000;
const DATASET: DatasetName = 'visitors';
/** The run starts on a window boundary (an hour of the clock), so windows count cleanly. */
const T0 = Date.UTC(2026, 1, 2, 0, 0, 0);

export interface BudgetCase {
  /** Requests per window, for the ledger and the sandbox alike. */
  readonly requests: number;
  readonly windowMs: number;
  /** A `proj_synth_<N>` project: ceil(N/250) requests a day. */
  readonly project: string;
  /** Days in the backlog, from `firstDay`. */
  readonly days: number;
  readonly firstDay: string;
}

/** B = 10 per hour; 20 days of 2,500 paths (10 pages each), N = 200: twenty windows alone, forty when shared. */
export const BUDGET_CASE: BudgetCase = { requests: 10, windowMs: HOUR_MS, project: 'proj_synth_2500', days: 20, firstDay: '2026-01-01' };

/**
 * The deployment's default budget, 90/1h (ANALYTICS_BUDGET), shared the same way: 450 days of
 * one page each (N = 450, ten windows at 45 left per window). Shows how the 429 share
 * depends on B (one 429 per window at best, see the README).
 */
export const DEFAULT_BUDGET_CASE: BudgetCase = { requests: 90, windowMs: HOUR_MS, project: 'proj_synth_250', days: 450, firstDay: '2024-06-01' };

type WindowKind = 'fixed' | 'rolling';

interface Outcome {
  /** The backlog's size in requests: pages of every day. */
  readonly backlog: number;
  readonly sent: number;
  readonly ok: number;
  readonly rateLimited: number;
  readonly refetched: number;
  /** Windows from T0 to the last request's start. */
  readonly windows: number;
  /** Most of our requests started within any window (sliding; bounds every fixed window). */
  readonly maxPerWindow: number;
  /** Most of our requests answered 200 within any window. */
  readonly maxOkPerWindow: number;
  /** Requests the competitor spent, in all. */
  readonly competitorSpent: number;
  /** Simulated hours from T0 to the last request. */
  readonly hours: number;
  /** Real time the run took, ms. */
  readonly wallMs: number;
  /** What the run itself counted (gate and client). */
  readonly run: { readonly requests: number; readonly rateLimited: number; readonly budgetWaits: number; readonly completed: number };
}

/**
 * A simulated clock whose sleep advances it; `atWindowStart` runs at every window start the
 * clock reaches or passes (with the clock set to that instant), before the sleeper wakes.
 */
function simulatedClock(start: number, windowMs: number, atWindowStart: (at: number) => void): Clock {
  let time = start;
  return {
    now: () => time,
    async sleep(ms, signal) {
      signal?.throwIfAborted();
      const end = time + Math.max(0, ms);
      for (let next = (Math.floor(time / windowMs) + 1) * windowMs; next <= end; next += windowMs) {
        time = next;
        atWindowStart(next);
      }
      time = end;
    },
  };
}

async function runBacklog(budget: BudgetCase, kind: WindowKind, competitorShare: number, retryAfter = true): Promise<Outcome> {
  const spent: number[] = [];
  let competitor = (_at: number): void => undefined;
  const clock = simulatedClock(T0, budget.windowMs, (at) => competitor(at));
  const sandbox: Sandbox = await startSandbox({
    now: clock.now,
    budget: { requests: budget.requests, windowMs: budget.windowMs, window: kind, retryAfter },
  });
  try {
    // Another tool of the organisation: spends its share at each window start, the first one included.
    competitor = (at) => {
      const got = sandbox.spendBudget(Math.round(budget.requests * competitorShare));
      for (let i = 0; i < got; i++) spent.push(at);
    };
    competitor(T0);

    const spec: BudgetSpec = { requests: budget.requests, windowMs: budget.windowMs, text: `${budget.requests}/${budget.windowMs / HOUR_MS}h` };
    const engine = createEngine({ apiUrl: sandbox.url, apiKey: sandbox.apiKey, destination: nullDestination(), clock, budget: spec });
    const days = Array.from({ length: budget.days }, (_, i) => addDays(budget.firstDay, i));
    const backlog = days.reduce((sum, day) => sum + Math.ceil(sandbox.data.rowCount(DATASET, budget.project, day) / 250), 0);
    const started = performance.now();
    const summary = await engine.run(days.map((day) => unitOf(DATASET, budget.project, day)));
    const wallMs = performance.now() - started;
    if (!summary.ok) {
      const bad = summary.units.find((unit) => unit.status !== 'complete');
      throw new Error(`budget: the backlog did not complete (${bad?.day} ${bad?.status}${bad?.status === 'failed' ? `: ${bad.error}` : ''})`);
    }

    const entries = requestsOf(sandbox.requests, DATASET, budget.project);
    const ok = entries.filter((entry) => entry.status === 200);
    const last = Math.max(...entries.map((entry) => entry.startedAt));
    return {
      backlog,
      sent: entries.length,
      ok: ok.length,
      rateLimited: entries.filter((entry) => entry.status === 429).length,
      refetched: refetchedPages(entries),
      windows: Math.floor((last - T0) / budget.windowMs) + 1,
      maxPerWindow: maxInAnyWindow(
        entries.map((entry) => entry.startedAt),
        budget.windowMs,
      ),
      maxOkPerWindow: maxInAnyWindow(
        ok.map((entry) => entry.startedAt),
        budget.windowMs,
      ),
      competitorSpent: spent.length,
      hours: (last - T0) / HOUR_MS,
      wallMs,
      run: { requests: summary.requests, rateLimited: summary.rateLimited, budgetWaits: summary.budgetWaits, completed: summary.completed },
    };
  } finally {
    await sandbox.close();
  }
}

/** The figures of a shared run under `key`. */
function sharedFigures(figures: Figures, key: string, shared: Outcome, budget: BudgetCase, share: number, note = ''): void {
  const left = budget.requests - Math.round(budget.requests * share);
  const ideal = Math.ceil(shared.backlog / left);
  figures[`${key}.windows_ratio`] = judged(
    shared.windows / ideal,
    'ratio',
    '<=',
    1.1,
    `${shared.windows} windows ÷ ceil(N=${shared.backlog} / ${left} left per window) = ${ideal}`,
  );
  figures[`${key}.rate_limited_share`] = judged(
    shared.rateLimited / shared.sent,
    'ratio',
    '<=',
    0.05,
    `${shared.rateLimited} 429s of ${shared.sent} requests sent${note}`,
  );
  figures[`${key}.refetched`] = judged(shared.refetched, 'pages', '==', 0, 'pages answered 200 twice');
}

export async function benchBudget(budget: BudgetCase = BUDGET_CASE, atDefault: BudgetCase = DEFAULT_BUDGET_CASE): Promise<BenchResult> {
  const figures: Figures = {};
  const details: Record<string, unknown> = {};
  const B = budget.requests;
  const share = 0.5;
  const spec = specText(budget);

  for (const kind of ['fixed', 'rolling'] as const) {
    progress(`budget: ${budget.days} days of ${budget.project} alone, ${spec}, ${kind} windows (simulated clock)`);
    const alone = await runBacklog(budget, kind, 0);
    const ideal = Math.ceil(alone.backlog / B);
    const key = `budget.alone.${kind}`;
    figures[`${key}.windows_ratio`] = judged(
      alone.windows / ideal,
      'ratio',
      '<=',
      1.05,
      `${alone.windows} windows ÷ ceil(N=${alone.backlog} / ${spec}) = ${ideal}`,
    );
    figures[`${key}.max_per_window`] = judged(alone.maxPerWindow, 'requests', '<=', B, `most starts in any ${budget.windowMs / 60_000} min (sandbox log)`);
    figures[`${key}.rate_limited`] = judged(alone.rateLimited, '429s', '==', 0, `${alone.sent} requests sent`);
    figures[`${key}.refetched`] = judged(alone.refetched, 'pages', '==', 0, 'pages answered 200 twice');
    figures[`${key}.wall`] = info(alone.wallMs / 1000, 's', `real time for ${alone.hours.toFixed(1)} simulated hours`);
    details[key] = alone;

    // With Retry-After on the sandbox's 429s (its default), then without: the gate's own backoff decides.
    for (const retryAfter of [true, false]) {
      const variant = retryAfter ? '' : ' (429s without Retry-After)';
      progress(`budget: the same backlog sharing ${spec} with a tool spending ${B * share} at each window start, ${kind} windows${variant}`);
      const shared = await runBacklog(budget, kind, share, retryAfter);
      const key = `budget.shared.${kind}${retryAfter ? '' : '.no_retry_after'}`;
      sharedFigures(figures, key, shared, budget, share, variant);
      if (retryAfter) {
        figures[`${key}.max_ok_per_window`] = info(
          shared.maxOkPerWindow,
          'requests',
          `most 200s in any window; the other tool spent ${shared.competitorSpent}`,
        );
      }
      details[key] = shared;
    }
  }

  // The same sharing at the deployment's default budget (fixed windows: rolling ones behaved the same above).
  progress(
    `budget: ${atDefault.days} days of ${atDefault.project} sharing ${specText(atDefault)} with a tool spending ${atDefault.requests * share} at each window start`,
  );
  const shared = await runBacklog(atDefault, 'fixed', share);
  sharedFigures(figures, 'budget.shared_default.fixed', shared, atDefault, share, `, ${specText(atDefault)}`);
  details['budget.shared_default.fixed'] = shared;
  return { figures, details };
}

function specText(budget: BudgetCase): string {
  return `B=${budget.requests}/${budget.windowMs / HOUR_MS}h`;
}
