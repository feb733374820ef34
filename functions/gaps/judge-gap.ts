/**
 * The verdict on one fixed gap from the warehouse's day counts (pure but for `exportedDays`): its
 * sides (gaps/effect.ts `effectDays`, the days never exported left out), its controls chosen and
 * pooled, then verdict.ts. bench/effects.ts runs `judgeGap` on planted effects.
 */
import type { LakeFiles } from '../warehouse/lake.js';
import { ASSISTANT_CONVERSATIONS, FEEDBACK, SEARCHES, VIEWS_PAGES, type TableDef } from '../warehouse/tables.js';
import { CONTROL_BAND, CONTROL_MAX, EFFECT_MAX_DAYS, effectDays, LOOKBACK_DAYS, NONE, RATE_WORDS, type Judged, type RateGap } from './effect.js';
import type { GapKind } from './gaps.js';
import { tableFiles } from './read.js';
import { judgeFix, type DayCount, type VerdictResult } from './verdict.js';

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
  return judgeFix({
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

/** The tables whose file for a project and day says the day was exported, per gap kind: where its signal and exposure come from. */
const EXPORT_TABLES: Readonly<Record<GapKind, readonly TableDef[]>> = {
  thumbs_down_page: [FEEDBACK, VIEWS_PAGES],
  search_without_clicks: [SEARCHES],
  unanswered_topic: [ASSISTANT_CONVERSATIONS],
};

/** `project\u0000kind → the days of `days` with a file of one of the kind's tables for the project` (an exported day). */
export async function exportedDays(lake: LakeFiles, days: readonly string[], gaps: readonly RateGap[]): Promise<Map<string, Set<string>>> {
  const out = new Map<string, Set<string>>();
  for (const group of new Set(gaps.map((g) => `${g.projectId}\u0000${g.kind}`))) {
    const [projectId, kind] = group.split('\u0000') as [string, GapKind];
    const found = new Set<string>();
    for (const table of EXPORT_TABLES[kind]) for (const f of await tableFiles(lake, table, days)) if (f.projectId === projectId) found.add(f.day);
    out.set(group, found);
  }
  return out;
}
