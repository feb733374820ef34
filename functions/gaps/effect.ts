/**
 * Whether a fix made a difference: for every completed job made for a gap (a followup_outcomes
 * record with `gap_id` and status `completed`), the gap's own figure per day over the N days
 * before the job completed and the N days after, N = min(28, whole days since). Before / after,
 * not cause and effect: a figure also moves with traffic, seasons and releases.
 *
 * The day the job completed belongs to neither side (part of it was before the fix). "Whole
 * days since" are the UTC days after that one that have ended by `now`; under 7 it is too early
 * to tell. The gap is found again from its id by running the gap questions over the 90 days
 * before the job completed and the days since (an id is a hash: it names a gap, it does not
 * spell it).
 */
import { addDays, dayStart, formatDay } from '../shared/dates.js';
import { DAY_MS } from '../shared/time.js';
import { rankGaps, type Gap, type GapKind, type GapRequest } from './gaps.js';
import type { LoadedWarehouse } from '../warehouse/session.js';
import { dailyFigures, evidenceOf, gapTablesIn, openGapTables, type GapScope, type GapTables } from './read.js';

/** Days compared at most on each side. */
export const EFFECT_MAX_DAYS = 28;
/** Fewer whole days since the job completed than this: too early to tell. */
export const EFFECT_MIN_DAYS = 7;
/** How far before a job's completion its gap is looked for. */
const LOOKBACK_DAYS = 90;

/** One side of the comparison: the figure summed over `days` days, and per day. */
export interface EffectWindow {
  readonly from: string;
  /** The last day (inclusive). */
  readonly last: string;
  readonly days: number;
  readonly total: number;
  /** total ÷ days, unrounded (the page rounds it). */
  readonly perDay: number;
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
  /** Whole days since then, by `now`. */
  readonly daysSince: number;
  /** min(28, daysSince). */
  readonly n: number;
  readonly tooEarly: boolean;
  /** Absent when n is 0. */
  readonly before?: EffectWindow | undefined;
  readonly after?: EffectWindow | undefined;
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

/** A fix's two sides by `today` (the UTC day of now): whole days since, N, and the windows (absent when N is 0). */
export type EffectWindows = Pick<GapEffect, 'daysSince' | 'n' | 'tooEarly' | 'before' | 'after'>;

/**
 * The windows of a job completed on `completedDay`, from its gap's figure per day (a day without
 * an entry counts 0): the N days before that day and the N days after it, N = min(28, whole days
 * since), the day itself on neither side. Pure.
 */
export function effectWindows(completedDay: string, today: string, perDay: ReadonlyMap<string, number>): EffectWindows {
  const daysSince = Math.max(0, Math.round((dayStart(today) - dayStart(completedDay)) / DAY_MS) - 1);
  const n = Math.min(EFFECT_MAX_DAYS, daysSince);
  const window = (from: string): EffectWindow => {
    let total = 0;
    for (let d = 0; d < n; d++) total += perDay.get(addDays(from, d)) ?? 0;
    return { from, last: addDays(from, n - 1), days: n, total, perDay: total / n };
  };
  return {
    daysSince,
    n,
    tooEarly: n < EFFECT_MIN_DAYS,
    ...(n > 0 ? { before: window(addDays(completedDay, -n)), after: window(addDays(completedDay, 1)) } : {}),
  };
}

/** The effects of the completed jobs in `requests` (by gap id) and the period's open gaps, from the warehouse under `root`. */
export async function readFixes(root: string, requests: ReadonlyMap<string, readonly GapRequest[]>, scope: FixesScope): Promise<Fixes> {
  // No job was ever made for a gap: nothing to show, and nothing read.
  if (requests.size === 0) return { effects: [], open: [] };
  const completed = completedJobs(requests, scope);
  const today = formatDay(scope.now);
  const effects = await measure(root, completed, today, scope.warehouse);
  const open = await openGaps(root, requests, scope);
  return { effects: effects.sort((a, b) => (a.completedDay < b.completedDay ? 1 : a.completedDay > b.completedDay ? -1 : 0)), open };
}

/**
 * The days of the gap tables `readFixes` reads besides `scope.days`: the 90 days before the
 * first completed job and the days since (none when no job completed), so that a caller can
 * load them with its own (`scope.warehouse`).
 */
export function lookbackDays(requests: ReadonlyMap<string, readonly GapRequest[]>, scope: FixesScope): string[] {
  return lookback(completedJobs(requests, scope), formatDay(scope.now));
}

type CompletedJob = { readonly gapId: string; readonly request: GapRequest & { readonly finishedAt: number; readonly projectId: string } };

/** The completed job of each gap, of the scope's projects. */
function completedJobs(requests: ReadonlyMap<string, readonly GapRequest[]>, scope: FixesScope): CompletedJob[] {
  const wanted = new Set(scope.projects);
  return [...requests.entries()]
    .map(([gapId, made]) => ({ gapId, request: made.find((r) => r.state === 'done' && r.status === 'completed' && r.finishedAt !== undefined) }))
    .filter((c): c is { gapId: string; request: GapRequest & { finishedAt: number; projectId: string } } => {
      const r = c.request;
      return r?.finishedAt !== undefined && r.projectId !== undefined && (wanted.size === 0 || wanted.has(r.projectId));
    });
}

function lookback(completed: readonly CompletedJob[], today: string): string[] {
  if (completed.length === 0) return [];
  const first = [...completed.map((c) => formatDay(c.request.finishedAt))].sort()[0] as string;
  const days: string[] = [];
  for (let day = addDays(first, -LOOKBACK_DAYS); day < today; day = addDays(day, 1)) days.push(day);
  return days;
}

async function measure(root: string, completed: readonly CompletedJob[], today: string, warehouse: LoadedWarehouse | undefined): Promise<GapEffect[]> {
  if (completed.length === 0) return [];
  const completedDays = completed.map((c) => formatDay(c.request.finishedAt));
  const days = lookback(completed, today);
  const projects = [...new Set(completed.map((c) => c.request.projectId))].sort();
  const tables = await gapTables(root, { days, projects }, warehouse);
  try {
    const found = new Map<string, { kind: GapKind; key: string; title: string; projectId: string }>();
    if (tables.files > 0) {
      for (const gap of rankGaps(await evidenceOf(tables), new Map(), days.length)) found.set(gap.gapId, gap);
    }
    const known = completed.flatMap((c) => {
      const gap = found.get(c.gapId);
      return gap ? [{ gapId: c.gapId, kind: gap.kind, projectId: gap.projectId, key: gap.key }] : [];
    });
    const figures = await dailyFigures(tables, known);
    return completed.map(({ gapId, request }, i): GapEffect => {
      const completedDay = completedDays[i] as string;
      const gap = found.get(gapId);
      return {
        gapId,
        projectId: request.projectId,
        ...(gap ? { gap: { kind: gap.kind, key: gap.key, title: gap.title } } : {}),
        requestId: request.requestId,
        ...(request.jobId ? { jobId: request.jobId } : {}),
        ...(request.prLink ? { prLink: request.prLink } : {}),
        completedDay,
        ...effectWindows(completedDay, today, figures.get(gapId) ?? new Map<string, number>()),
      };
    });
  } finally {
    tables.close();
  }
}

async function openGaps(root: string, requests: ReadonlyMap<string, readonly GapRequest[]>, scope: FixesScope): Promise<Gap[]> {
  const tables = await gapTables(root, { days: scope.days, projects: scope.projects }, scope.warehouse);
  try {
    if (tables.files === 0) return [];
    const ranked = rankGaps(await evidenceOf(tables), requests, scope.days.length);
    return ranked.filter((gap) => !gap.requests.some((r) => r.state === 'done' && r.status === 'completed')).slice(0, scope.openLimit ?? 10);
  } finally {
    tables.close();
  }
}

/** The gap tables of `scope` in `warehouse` when given, else in a session of their own. */
function gapTables(root: string, scope: GapScope, warehouse: LoadedWarehouse | undefined): Promise<GapTables> {
  return warehouse === undefined ? openGapTables(root, scope) : gapTablesIn(warehouse, root, scope);
}
