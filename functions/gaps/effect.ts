/**
 * Whether a fix made a difference: for every completed job made for a gap (a followup_outcomes
 * record with `gap_id` and status `completed`), the gap's own figure per day over the N days
 * before its fix went live (its pull request's merge, else the job's completion) and the N days
 * after, N = min(90, whole days since) — and a verdict
 * (verdict.ts) on its **rate** (signal ÷ exposure per day, queries/gap-rates-by-day.sql) over the
 * same days, against a **control**: the same project's gaps of the same kind that got no job,
 * with a similar rate before (within CONTROL_BAND×, the CONTROL_MAX nearest), pooled.
 *
 * The day the job completed belongs to neither side (part of it was before the fix). "Whole
 * days since" are the UTC days after that one that have ended by `now`; under 7 it is too early
 * to tell. The gap is found again from its id by running the gap questions over the 90 days
 * before the job completed and the days since (an id is a hash: it names a gap, it does not
 * spell it).
 */
import { addDays, dayStart, formatDay } from '../shared/dates.js';
import { DAY_MS } from '../shared/time.js';
import type { LakeFiles } from '../warehouse/lake.js';
import { loadWarehouse, type LoadedWarehouse } from '../warehouse/session.js';
import { VIEWS_PAGES } from '../warehouse/tables.js';
import { dailyRates, exportedDays, NONE } from './day-rates.js';
import { rankGaps, type Gap, type GapKind, type GapRequest } from './gaps.js';
import { dailyFigures, evidenceOf, GAP_TABLES, gapTablesIn, openGapTables, type GapScope, type GapTables } from './read.js';
import type { RateGap } from './rates.js';
import { judgeEffect, type DayCount, type Verdict, type VerdictResult } from './verdict.js';

/**
 * Days compared at most on each side: both sides grow with the whole days since (each day
 * narrows the interval: `daysToVerdict` counts on it) up to this, the lookback's length.
 */
export const EFFECT_MAX_DAYS = 90;
/** Fewer whole days since the job completed than this: too early to tell. */
export const VERDICT_MIN_DAYS = 7;
/** How far before a job's completion its gap is looked for. */
export const LOOKBACK_DAYS = 90;
/** A control's rate before is within this factor of the fixed gap's (either way). */
export const CONTROL_BAND = 2;
/** Controls pooled at most: the nearest in rate before. */
export const CONTROL_MAX = 20;
/** Gaps of a project and kind considered as controls at most: the highest ranked without a job. */
const CONTROL_CANDIDATES = 200;

/** The tables a fix's verdict reads: the gap tables and the exposure of pages (views_pages). */
export const EFFECT_TABLES = [...GAP_TABLES, VIEWS_PAGES] as const;

/** What a kind's rate divides, in words (verdict reasons, the report, docs). */
export const RATE_WORDS: Readonly<Record<GapKind, { readonly signal: string; readonly exposure: string; readonly rate: string }>> = {
  thumbs_down_page: { signal: 'thumbs down', exposure: 'human views of the page', rate: 'thumbs down per view' },
  search_without_clicks: { signal: 'searches without a click', exposure: 'searches of the term', rate: 'share of searches without a click' },
  unanswered_topic: { signal: 'unanswered questions', exposure: 'questions asked in the topic', rate: 'share of questions unanswered' },
};

/** One side of the comparison: the figure summed over `days` days, and per day. */
export interface EffectWindow {
  readonly from: string;
  /** The last day (inclusive). */
  readonly last: string;
  /** The days counted: of the side's days, those exported. */
  readonly days: number;
  readonly total: number;
  /** total ÷ days, unrounded (the page rounds it); 0 when no day was exported. */
  readonly perDay: number;
  /** The side's days never exported, left out of `days` and `total`. */
  readonly leftOut: readonly string[];
}

export interface GapEffect {
  readonly gapId: string;
  readonly projectId: string;
  /** The gap as found again; absent when no day of the warehouse holds it. */
  readonly gap?: { readonly kind: GapKind; readonly key: string; readonly title: string } | undefined;
  readonly requestId: string;
  readonly jobId?: string | undefined;
  readonly prLink?: string | undefined;
  /** UTC day the job completed. */
  readonly completedDay: string;
  /** UTC day its pull request was merged (the outcome record's `merged_at`); absent: not merged or not read. */
  readonly mergedDay?: string | undefined;
  /** The day the sides are measured around: the merge's, else the completion's ("after" starts the day after it). */
  readonly startDay: string;
  /** Later completed jobs for the same gap (the earliest is the fix): named, not measured. */
  readonly laterJobs: readonly { readonly requestId: string; readonly jobId?: string | undefined; readonly completedDay: string }[];
  /** Whole days since the start day, by `now`. */
  readonly daysSince: number;
  /** min(90, daysSince): the days of each side. */
  readonly n: number;
  readonly tooEarly: boolean;
  /** Absent when n is 0. */
  readonly before?: EffectWindow | undefined;
  readonly after?: EffectWindow | undefined;
  /** The verdict on the gap's rate against its controls (verdict.ts); `verdict` null when the job is not measured (out of scope, not merged). */
  readonly judged: Judged;
}

export interface Fixes {
  /** Latest completion first. */
  readonly effects: readonly GapEffect[];
  /** The period's gaps without a completed job, ranked. */
  readonly open: readonly Gap[];
}

export interface FixesScope {
  /** The report's days (the open gaps are those of these days). */
  readonly days: readonly string[];
  readonly projects: readonly string[];
  readonly now: number;
  /** Open gaps listed at most. @default 10 */
  readonly openLimit?: number;
  /**
   * A session the caller loaded with the gap tables of `days` and of `lookbackDays` (the
   * report's): read in it, not in sessions of their own. It stays open.
   */
  readonly warehouse?: LoadedWarehouse;
}

/** A verdict, or a job not measured: `verdict` null, the reason says why ("out of scope: not measured"). */
export type Judged = VerdictResult | (Omit<VerdictResult, 'verdict'> & { readonly verdict: null });

/** A fix's two sides by `today` (the UTC day of now): whole days since, N, and the windows (absent when N is 0). */
export type EffectWindows = Pick<GapEffect, 'daysSince' | 'n' | 'tooEarly' | 'before' | 'after'>;

/**
 * The days of a fix live from the day after `startDay`, by `today`: whole days since, N = min(90,
 * whole days since), and the N days each side (the day itself on neither).
 */
export function effectDays(startDay: string, today: string): { daysSince: number; n: number; before: string[]; after: string[] } {
  const daysSince = Math.max(0, Math.round((dayStart(today) - dayStart(startDay)) / DAY_MS) - 1);
  const n = Math.min(EFFECT_MAX_DAYS, daysSince);
  const side = (from: string, length: number) => Array.from({ length }, (_, d) => addDays(from, d));
  return { daysSince, n, before: side(addDays(startDay, -n), n), after: side(addDays(startDay, 1), n) };
}

/**
 * The windows of a fix live from the day after `startDay`, from its gap's figure per day (a day
 * without an entry counts 0): the N days before that day and the N days after it (N = min(90,
 * whole days since)), the day itself on neither side. With `exported`, a day not in it
 * (never exported) is left out of its side — named in `leftOut`, not counted as 0 — and "a day"
 * divides by the days left in. Pure.
 */
export function effectWindows(startDay: string, today: string, perDay: ReadonlyMap<string, number>, exported?: ReadonlySet<string>): EffectWindows {
  const { daysSince, n, before, after } = effectDays(startDay, today);
  const window = (all: readonly string[]): EffectWindow => {
    const days = exported === undefined ? all : all.filter((day) => exported.has(day));
    const total = days.reduce((sum, day) => sum + (perDay.get(day) ?? 0), 0);
    return {
      from: all[0] as string,
      last: all[all.length - 1] as string,
      days: days.length,
      total,
      perDay: days.length > 0 ? total / days.length : 0,
      leftOut: exported === undefined ? [] : all.filter((day) => !exported.has(day)),
    };
  };
  return { daysSince, n, tooEarly: n < VERDICT_MIN_DAYS, ...(n > 0 ? { before: window(before), after: window(after) } : {}) };
}

/** The effects of the completed jobs in `requests` (by gap id) and the period's open gaps, from `lake`. */
export async function readFixedJobs(lake: LakeFiles, requests: ReadonlyMap<string, readonly GapRequest[]>, scope: FixesScope): Promise<Fixes> {
  // No job was ever made for a gap: nothing to show, and nothing read.
  if (requests.size === 0) return { effects: [], open: [] };
  const effects = await readEffects(lake, requests, scope);
  const open = await openGaps(lake, requests, scope);
  return { effects, open };
}

/**
 * The effect and verdict of each completed job in `requests` (by gap id) of the scope's projects,
 * latest completion first, from `lake` (its days: `lookbackDays`).
 */
export async function readEffects(
  lake: LakeFiles,
  requests: ReadonlyMap<string, readonly GapRequest[]>,
  scope: Pick<FixesScope, 'projects' | 'now' | 'warehouse'>,
): Promise<GapEffect[]> {
  const completed = completedJobs(requests, scope);
  const effects = await measure(lake, completed, requests, formatDay(scope.now), scope.warehouse);
  // Latest completion first; a day's jobs by verdict (what a lead acts on first), then by gap id: one order on every run.
  const order = (e: GapEffect) => verdictOrder(e.judged.verdict);
  return effects.sort(
    (a, b) =>
      (a.completedDay < b.completedDay ? 1 : a.completedDay > b.completedDay ? -1 : 0) ||
      order(a) - order(b) ||
      (a.gapId < b.gapId ? -1 : a.gapId > b.gapId ? 1 : 0),
  );
}

/** The order verdicts are listed in: what a lead acts on first. */
export const VERDICTS_FIRST: readonly Verdict[] = ['fixed', 'worse', 'no_change', 'inconclusive', 'too_little_data'];

/** A verdict's place in VERDICTS_FIRST; a job not measured (null) after every verdict. */
export function verdictOrder(verdict: Verdict | null): number {
  return verdict === null ? VERDICTS_FIRST.length : VERDICTS_FIRST.indexOf(verdict);
}

/**
 * The days of the gap tables `readFixedJobs` reads besides `scope.days`: the 90 days before the
 * first completed job and the days since (none when no job completed), so that a caller can
 * load them with its own (`scope.warehouse`).
 */
export function lookbackDays(requests: ReadonlyMap<string, readonly GapRequest[]>, scope: Pick<FixesScope, 'projects' | 'now'>): string[] {
  return lookback(completedJobs(requests, scope), formatDay(scope.now));
}

type DoneRequest = GapRequest & { readonly finishedAt: number; readonly projectId: string };
type CompletedJob = { readonly gapId: string; readonly request: DoneRequest; readonly later: readonly DoneRequest[] };

/**
 * The completed job of each gap, of the scope's projects: the earliest completed is the fix (a
 * later job for the same gap cannot take its credit); the later ones are named beside it.
 */
function completedJobs(requests: ReadonlyMap<string, readonly GapRequest[]>, scope: Pick<FixesScope, 'projects'>): CompletedJob[] {
  const wanted = new Set(scope.projects);
  return [...requests.entries()].flatMap(([gapId, made]) => {
    const done = made
      .filter((r): r is DoneRequest => r.state === 'done' && r.status === 'completed' && r.finishedAt !== undefined && r.projectId !== undefined)
      .sort((a, b) => a.finishedAt - b.finishedAt || (a.requestId < b.requestId ? -1 : a.requestId > b.requestId ? 1 : 0));
    const [first, ...later] = done;
    return first !== undefined && (wanted.size === 0 || wanted.has(first.projectId)) ? [{ gapId, request: first, later }] : [];
  });
}

/** Why a completed job is not measured (its scope check said not in scope, or its pull request is not merged); undefined: measured. */
export function notMeasured(request: Pick<GapRequest, 'scope' | 'prLink' | 'mergedAt'>): string | undefined {
  if (request.scope === 'out_of_scope' || request.scope === 'unknown') return 'out of scope: not measured';
  if (request.scope === 'in_scope' && request.prLink !== undefined && request.mergedAt === undefined) return 'not merged: not measured';
  return undefined;
}

function lookback(completed: readonly CompletedJob[], today: string): string[] {
  if (completed.length === 0) return [];
  const first = [...completed.map((c) => formatDay(c.request.finishedAt))].sort()[0] as string;
  const days: string[] = [];
  for (let day = addDays(first, -LOOKBACK_DAYS); day < today; day = addDays(day, 1)) days.push(day);
  return days;
}

async function measure(
  lake: LakeFiles,
  completed: readonly CompletedJob[],
  requests: ReadonlyMap<string, readonly GapRequest[]>,
  today: string,
  warehouse: LoadedWarehouse | undefined,
): Promise<GapEffect[]> {
  if (completed.length === 0) return [];
  const days = lookback(completed, today);
  const projects = [...new Set(completed.map((c) => c.request.projectId))].sort();
  const tables = await effectTables(lake, { days, projects }, warehouse);
  try {
    const ranked = tables.files > 0 ? rankGaps(await evidenceOf(tables), requests, days.length) : [];
    const found = new Map(ranked.map((gap) => [gap.gapId, gap]));
    const known = completed.flatMap((c) => {
      const gap = found.get(c.gapId);
      return gap && notMeasured(c.request) === undefined ? [{ gapId: c.gapId, kind: gap.kind, projectId: gap.projectId, key: gap.key }] : [];
    });
    const candidates = controlCandidates(ranked, known);
    const figures = await dailyFigures(tables, known);
    const { rates, refused } = await dailyRates(tables, [...known, ...candidates], lake);
    const exported = await exportedDays(lake, days, known);
    return completed.map(({ gapId, request, later }): GapEffect => {
      const completedDay = formatDay(request.finishedAt);
      const mergedDay = request.mergedAt === undefined ? undefined : formatDay(request.mergedAt);
      const startDay = mergedDay !== undefined && mergedDay > completedDay ? mergedDay : completedDay;
      const gap = found.get(gapId);
      const shown = gap ? exported.get(`${gap.projectId}\u0000${gap.kind}`) : undefined;
      const windows = effectWindows(startDay, today, figures.get(gapId) ?? new Map<string, number>(), shown);
      const unmeasured = notMeasured(request);
      return {
        gapId,
        projectId: request.projectId,
        ...(gap ? { gap: { kind: gap.kind, key: gap.key, title: gap.title } } : {}),
        requestId: request.requestId,
        ...(request.jobId ? { jobId: request.jobId } : {}),
        ...(request.prLink ? { prLink: request.prLink } : {}),
        completedDay,
        ...(mergedDay !== undefined ? { mergedDay } : {}),
        startDay,
        laterJobs: later.map((r) => ({ requestId: r.requestId, ...(r.jobId ? { jobId: r.jobId } : {}), completedDay: formatDay(r.finishedAt) })),
        ...windows,
        judged:
          unmeasured !== undefined
            ? notJudged(unmeasured, startDay, today)
            : judgeGap(gap, startDay, today, rates, candidates, { ...(shown ? { exported: shown } : {}), refused: refused.get(gapId) }),
      };
    });
  } finally {
    tables.close();
  }
}

/** A gap whose rate is read: what its id hashes, and the id. */

/** The gaps that may be controls of the fixed ones: of the same project and kind, with no request made for them, the highest ranked first. */
function controlCandidates(ranked: readonly Gap[], fixed: readonly RateGap[]): RateGap[] {
  const wanted = new Set(fixed.map((g) => `${g.projectId}\u0000${g.kind}`));
  const taken = new Map<string, number>();
  const out: RateGap[] = [];
  for (const gap of ranked) {
    const group = `${gap.projectId}\u0000${gap.kind}`;
    if (!wanted.has(group) || gap.requests.length > 0) continue;
    const n = taken.get(group) ?? 0;
    if (n >= CONTROL_CANDIDATES) continue;
    taken.set(group, n + 1);
    out.push({ gapId: gap.gapId, kind: gap.kind, projectId: gap.projectId, key: gap.key });
  }
  return out;
}

async function openGaps(lake: LakeFiles, requests: ReadonlyMap<string, readonly GapRequest[]>, scope: FixesScope): Promise<Gap[]> {
  const tables = await gapTables(lake, { days: scope.days, projects: scope.projects }, scope.warehouse);
  try {
    if (tables.files === 0) return [];
    const ranked = rankGaps(await evidenceOf(tables), requests, scope.days.length);
    return ranked.filter((gap) => !gap.requests.some((r) => r.state === 'done' && r.status === 'completed')).slice(0, scope.openLimit ?? 10);
  } finally {
    tables.close();
  }
}

/** The gap tables of `scope` in `warehouse` when given, else in a session of their own. */
function gapTables(lake: LakeFiles, scope: GapScope, warehouse: LoadedWarehouse | undefined): Promise<GapTables> {
  return warehouse === undefined ? openGapTables(lake, scope) : gapTablesIn(warehouse, lake, scope);
}

/** The effect tables (the gap tables and views_pages) of `scope` in `warehouse` when given, else in a session of their own. */
async function effectTables(lake: LakeFiles, scope: GapScope, warehouse: LoadedWarehouse | undefined): Promise<GapTables> {
  if (warehouse !== undefined) return gapTablesIn(warehouse, lake, scope);
  const own = await loadWarehouse(lake, { days: scope.days, projects: scope.projects, tables: EFFECT_TABLES });
  const tables = await gapTablesIn(own, lake, scope);
  return { ...tables, close: () => own.close() };
}

// The verdict on one fixed gap from the warehouse's day counts (pure but for `exportedDays`): its
// sides (`effectDays`, the days never exported left out), its controls chosen and pooled, then
// verdict.ts. bench/effects.ts runs `judgeGap` on planted effects.

/**
 * The verdict on one fixed gap, from day counts (pure): its rate's N days a side, and its
 * controls — the `candidates` of its project and kind whose rate before is within CONTROL_BAND×
 * of its own, with exposure on both sides, the CONTROL_MAX nearest — pooled per day.
 * bench/effects.ts runs it on planted effects.
 */
export function judgeGap(
  gap: RateGap | undefined,
  startDay: string,
  today: string,
  rates: ReadonlyMap<string, ReadonlyMap<string, DayCount>>,
  candidates: readonly RateGap[],
  options: {
    readonly dispersion?: 'quasi-poisson' | 'poisson';
    /** The days exported of the gap's kind and project: the others are left out of both sides (absent: every day counts). */
    readonly exported?: ReadonlySet<string>;
    /** A file of the gap's days holding a count that is not a whole number ≥ 0: refused, and no verdict. */
    readonly refused?: string | undefined;
  } = {},
): VerdictResult {
  const all = effectDays(startDay, today);
  const { daysSince } = all;
  const kept = (days: readonly string[]) => (options.exported === undefined ? days : days.filter((day) => options.exported?.has(day)));
  const before = kept(all.before);
  const after = kept(all.after);
  const tooLittle = (reason: string): VerdictResult => {
    const side = { days: before.length, signals: 0, exposure: 0, rate: 0 };
    return {
      verdict: 'too_little_data',
      reason,
      before: side,
      after: { ...side, days: after.length },
      control: { gaps: 0, ratio: null },
      effect: { ratio: null, low: null, high: null },
      detectable: null,
      daysToVerdict: null,
    };
  };
  if (gap === undefined) {
    return tooLittle(`the gap was not found in the warehouse in the ${LOOKBACK_DAYS} days before the job completed and the days since: nothing to measure`);
  }
  if (options.refused !== undefined) return tooLittle(options.refused);
  const series = (id: string, days: readonly string[]) => days.map((day) => rates.get(id)?.get(day) ?? NONE);
  const sum = (list: readonly DayCount[]) => list.reduce((t, d) => ({ signal: t.signal + d.signal, exposure: t.exposure + d.exposure }), NONE);
  const fixedBefore = sum(series(gap.gapId, before));
  const rate = fixedBefore.exposure > 0 ? fixedBefore.signal / fixedBefore.exposure : 0;
  const controls =
    rate > 0
      ? candidates
          .filter((c) => c.projectId === gap.projectId && c.kind === gap.kind)
          .map((c) => ({ c, b: sum(series(c.gapId, before)), a: sum(series(c.gapId, after)) }))
          .filter(({ b, a }) => b.signal > 0 && b.exposure > 0 && a.exposure > 0)
          .map((x) => ({ ...x, distance: Math.abs(Math.log(x.b.signal / x.b.exposure / rate)) }))
          .filter((x) => x.distance <= Math.log(CONTROL_BAND))
          .sort((x, y) => x.distance - y.distance)
          .slice(0, CONTROL_MAX)
      : [];
  const pooled = (days: readonly string[]) => days.map((day) => sum(controls.map(({ c }) => rates.get(c.gapId)?.get(day) ?? NONE)));
  return judgeEffect({
    daysSince,
    before: series(gap.gapId, before),
    after: series(gap.gapId, after),
    ...(controls.length > 0 ? { control: { gaps: controls.length, before: pooled(before), after: pooled(after) } } : {}),
    words: RATE_WORDS[gap.kind],
    ...(options.dispersion ? { dispersion: options.dispersion } : {}),
    // As days pass both sides grow to EFFECT_MAX_DAYS (their exported share of them): daysToVerdict's pace.
    maxDays: { before: grownTo(before.length, all.before.length), after: grownTo(after.length, all.after.length) },
  });
}

/** The days a side of `kept` exported days out of `all` holds once it has grown to EFFECT_MAX_DAYS. */
function grownTo(kept: number, all: number): number {
  return all === 0 ? EFFECT_MAX_DAYS : Math.max(kept, Math.round((EFFECT_MAX_DAYS * kept) / all));
}

/** A job given no verdict, for `reason`: its sides empty, every figure null. */
export function notJudged(reason: string, startDay: string, today: string): Judged {
  const { before, after } = effectDays(startDay, today);
  const side = { days: before.length, signals: 0, exposure: 0, rate: 0 };
  return {
    verdict: null,
    reason,
    before: side,
    after: { ...side, days: after.length },
    control: { gaps: 0, ratio: null },
    effect: { ratio: null, low: null, high: null },
    detectable: null,
    daysToVerdict: null,
  };
}
