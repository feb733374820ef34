/**
 * Whether the fixes work on average: per project and gap kind, the completed jobs' effects
 * pooled into one, with its interval and its own verdict by the rules of one fix (verdict.ts
 * `verdictOf`: below 1, above 1, inside the equivalence margin, or inconclusive). Pure.
 *
 * Each fix gives its log effect and that log's variance (from its 95 % interval). They are pooled
 * by inverse variance with a between-fix variance τ² (random effects: fixes differ — pages,
 * writers, what the agent changed — so one fix's luck must not pass for the portfolio's):
 * - τ² by **Paule–Mandel** (the τ² at which the weighted squares of the fixes about their mean
 *   equal their degrees of freedom, k − 1), which Veroniki et al. (2016) and the Cochrane
 *   handbook recommend over DerSimonian–Laird: DL's moment estimate is biased low with few fixes;
 * - the interval by **Hartung–Knapp–Sidik–Jonkman** (a t quantile with k − 1 degrees of freedom
 *   on the fixes' own spread about the mean, never narrower than the inverse-variance one): with
 *   a handful of fixes a normal interval is too narrow and calls chance a portfolio that works.
 * A single fix is its own portfolio (its interval as it is). docs/follow-ups.md says why.
 */
import type { GapEffect } from './effect.js';
import type { GapKind } from './gaps.js';
import { DETECTABLE_POWER, normalQuantile, VERDICT_ALPHA } from './power.js';
import { studentQuantile } from './student.js';
import { EQUIVALENCE_MARGIN, pct, verdictOf, type Verdict } from './verdict.js';

/** One fix as the portfolio takes it: its log effect and that log's variance. */
export interface PooledInput {
  readonly logEffect: number;
  readonly variance: number;
}

export interface Pooled {
  /** The pooled log effect and its interval (log scale). */
  readonly log: number;
  readonly low: number;
  readonly high: number;
  /** Between-fix variance (Paule–Mandel). */
  readonly tau2: number;
  /** The smallest fall (a share) this pool finds with 80 % power at one-sided 2.5 %; null when none can be. */
  readonly detectable: number | null;
}

/** One line of `effects --json` "portfolio": a project's and kind's fixes pooled. */
export interface PortfolioEntry {
  readonly projectId: string;
  readonly kind: GapKind;
  /** Fixes pooled (those with an interval). */
  readonly fixes: number;
  readonly verdict: Verdict;
  readonly reason: string;
  readonly effect: { readonly ratio: number | null; readonly low: number | null; readonly high: number | null };
  readonly detectable: number | null;
}

/** What a fix brings to the portfolio: its project, kind and verdict's effect (entries with a null verdict are left out). */
export interface PortfolioEffect {
  readonly projectId: string;
  readonly kind: GapKind | null;
  readonly verdict: Verdict | null;
  readonly effect: { readonly ratio: number | null; readonly low: number | null; readonly high: number | null };
}

const Z = normalQuantile(1 - VERDICT_ALPHA);

/** A gap kind's fixes in words (the portfolio's lines in the report and the digest). */
export const GAP_KIND_WORDS: Readonly<Record<GapKind, string>> = {
  thumbs_down_page: 'pages with thumbs down',
  search_without_clicks: 'searches without a click',
  unanswered_topic: 'unanswered topics',
};

/** What a measured job (gaps/effect.ts) brings to the portfolio. */
export function portfolioEffectOf(effect: GapEffect): PortfolioEffect {
  return { projectId: effect.projectId, kind: effect.gap?.kind ?? null, verdict: effect.judged.verdict, effect: effect.judged.effect };
}

/**
 * A fix's log effect and variance from its ratio and 95 % interval (the score interval is not
 * symmetric on the log scale: its width is taken; one that starts at 0 — no signal after — gives
 * its upper half); undefined when it has none.
 */
export function pooledInputOf(effect: PortfolioEffect['effect']): PooledInput | undefined {
  const { ratio, low, high } = effect;
  if (ratio === null || low === null || high === null || !(ratio > 0 && low >= 0 && high > Math.max(low, ratio))) return undefined;
  const variance = low > 0 ? ((Math.log(high) - Math.log(low)) / (2 * Z)) ** 2 : ((Math.log(high) - Math.log(ratio)) / Z) ** 2;
  return Number.isFinite(variance) && variance > 0 ? { logEffect: Math.log(ratio), variance } : undefined;
}

/** Paule–Mandel τ²: Σ wᵢ(yᵢ − μ)² = k − 1 with wᵢ = 1/(vᵢ + τ²); 0 when the fixes spread no more than chance. */
export function pauleMandel(fixes: readonly PooledInput[]): number {
  const k = fixes.length;
  if (k < 2) return 0;
  const q = (tau2: number) => {
    const w = fixes.map((f) => 1 / (f.variance + tau2));
    const sw = w.reduce((a, b) => a + b, 0);
    const mu = fixes.reduce((a, f, i) => a + (w[i] as number) * f.logEffect, 0) / sw;
    return fixes.reduce((a, f, i) => a + (w[i] as number) * (f.logEffect - mu) ** 2, 0);
  };
  if (q(0) <= k - 1) return 0;
  let low = 0;
  let high = 1;
  while (q(high) > k - 1 && high < 1e6) high *= 2;
  for (let i = 0; i < 100; i++) {
    const mid = (low + high) / 2;
    if (q(mid) > k - 1) low = mid;
    else high = mid;
  }
  return (low + high) / 2;
}

/** The fixes pooled: random effects (Paule–Mandel τ²), the Hartung–Knapp–Sidik–Jonkman interval; undefined for none. */
export function poolEffects(fixes: readonly PooledInput[]): Pooled | undefined {
  const k = fixes.length;
  const only = fixes[0];
  if (only === undefined) return undefined;
  if (k === 1) {
    const se = Math.sqrt(only.variance);
    return {
      log: only.logEffect,
      low: only.logEffect - Z * se,
      high: only.logEffect + Z * se,
      tau2: 0,
      detectable: fallSeen(se, Z, normalQuantile(DETECTABLE_POWER)),
    };
  }
  const tau2 = pauleMandel(fixes);
  const w = fixes.map((f) => 1 / (f.variance + tau2));
  const sw = w.reduce((a, b) => a + b, 0);
  const mu = fixes.reduce((a, f, i) => a + (w[i] as number) * f.logEffect, 0) / sw;
  const spread = fixes.reduce((a, f, i) => a + (w[i] as number) * (f.logEffect - mu) ** 2, 0) / (k - 1);
  // Hartung–Knapp's variance, never below the inverse-variance one (the "modified" HKSJ).
  const se = Math.sqrt(Math.max(1, spread) / sw);
  const t = studentQuantile(1 - VERDICT_ALPHA, k - 1);
  return { log: mu, low: mu - t * se, high: mu + t * se, tau2, detectable: fallSeen(se, t, studentQuantile(DETECTABLE_POWER, k - 1)) };
}

/** The smallest fall a log-scale standard error `se` finds: 1 − exp(−(z_α + z_power)·se). */
function fallSeen(se: number, zAlpha: number, zPower: number): number | null {
  const fall = 1 - Math.exp(-(zAlpha + zPower) * se);
  return Number.isFinite(fall) && fall < 0.999 ? fall : null;
}

/** Per project and gap kind, the fixes with an interval pooled and judged; a group whose fixes have none yet says so. */
export function portfolioOf(fixes: readonly PortfolioEffect[]): PortfolioEntry[] {
  const groups = new Map<string, { projectId: string; kind: GapKind; all: number; pooled: PooledInput[] }>();
  for (const fix of fixes) {
    if (fix.kind === null || fix.verdict === null) continue;
    const key = `${fix.projectId}\u0000${fix.kind}`;
    const group = groups.get(key) ?? { projectId: fix.projectId, kind: fix.kind, all: 0, pooled: [] };
    group.all += 1;
    const input = fix.verdict === 'too_little_data' ? undefined : pooledInputOf(fix.effect);
    if (input !== undefined) group.pooled.push(input);
    groups.set(key, group);
  }
  return [...groups.values()]
    .sort((a, b) => (a.projectId < b.projectId ? -1 : a.projectId > b.projectId ? 1 : a.kind < b.kind ? -1 : a.kind > b.kind ? 1 : 0))
    .map(({ projectId, kind, all, pooled }): PortfolioEntry => {
      const pool = poolEffects(pooled);
      if (pool === undefined) {
        return {
          projectId,
          kind,
          fixes: 0,
          verdict: 'too_little_data',
          reason: `none of its ${all} completed fix${all === 1 ? '' : 'es'} has an interval yet: nothing to pool`,
          effect: { ratio: null, low: null, high: null },
          detectable: null,
        };
      }
      const [ratio, low, high] = [pool.log, pool.low, pool.high].map(Math.exp) as [number, number, number];
      const verdict = verdictOf(low, high);
      const n = `${pooled.length} fix${pooled.length === 1 ? '' : 'es'}${all > pooled.length ? ` (of ${all}; the others have no interval yet)` : ''}`;
      const interval = `95 % interval ${ratio2(low)}–${ratio2(high)}`;
      const seen = pool.detectable === null ? 'they could not have seen any fall' : `they could have seen an average fall of ${pct(pool.detectable)} or more`;
      const words: Record<Exclude<Verdict, 'too_little_data'>, string> = {
        fixed: `on average the rate fell ${pct(1 - ratio)} beyond similar gaps without a job (×${ratio2(ratio)}, ${interval}, below 1)`,
        worse: `on average the rate rose ${pct(ratio - 1)} beyond similar gaps without a job (×${ratio2(ratio)}, ${interval}, above 1)`,
        no_change: `on average ×${ratio2(ratio)}, ${interval}, inside ${ratio2(EQUIVALENCE_MARGIN)}–${ratio2(1 / EQUIVALENCE_MARGIN)}: if they changed it at all, by less than ${pct(1 - EQUIVALENCE_MARGIN)}`,
        inconclusive: `on average ×${ratio2(ratio)}, ${interval}, which holds 1 and leaves ${ratio2(EQUIVALENCE_MARGIN)}–${ratio2(1 / EQUIVALENCE_MARGIN)}: too few or too small to tell yet`,
      };
      return {
        projectId,
        kind,
        fixes: pooled.length,
        verdict,
        reason: `${n} pooled (random effects): ${words[verdict]}; ${seen}`,
        effect: { ratio, low, high },
        detectable: pool.detectable,
      };
    });
}

const ratio2 = (value: number) => (Math.round(value * 100) / 100).toFixed(2);
