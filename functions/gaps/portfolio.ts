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
export interface PortfolioFix {
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
export function portfolioFixOf(effect: GapEffect): PortfolioFix {
  return { projectId: effect.projectId, kind: effect.gap?.kind ?? null, verdict: effect.judged.verdict, effect: effect.judged.effect };
}

/** A fix's log effect and variance from its ratio and 95 % interval; undefined when it has none. */
export function pooledInputOf(effect: PortfolioFix['effect']): PooledInput | undefined {
  const { ratio, low, high } = effect;
  if (ratio === null || low === null || high === null || !(ratio > 0 && low > 0 && high > low)) return undefined;
  const variance = ((Math.log(high) - Math.log(low)) / (2 * Z)) ** 2;
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
export function poolFixes(fixes: readonly PooledInput[]): Pooled | undefined {
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
export function portfolioOf(fixes: readonly PortfolioFix[]): PortfolioEntry[] {
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
      const pool = poolFixes(pooled);
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

/** The Student t quantile of `p` with `df` degrees of freedom (bisection on the distribution function). */
export function studentQuantile(p: number, df: number): number {
  if (df <= 0) return Number.NaN;
  let low = -1e3;
  let high = 1e3;
  for (let i = 0; i < 200; i++) {
    const mid = (low + high) / 2;
    if (studentCdf(mid, df) < p) low = mid;
    else high = mid;
  }
  return (low + high) / 2;
}

/** The Student t distribution function: 1 − ½·I_{df/(df+t²)}(df/2, ½) for t ≥ 0. */
export function studentCdf(t: number, df: number): number {
  const tail = 0.5 * incompleteBeta(df / (df + t * t), df / 2, 0.5);
  return t >= 0 ? 1 - tail : tail;
}

/** The regularised incomplete beta I_x(a, b) (Lentz's continued fraction, Numerical Recipes' betacf). */
function incompleteBeta(x: number, a: number, b: number): number {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const front = Math.exp(logGamma(a + b) - logGamma(a) - logGamma(b) + a * Math.log(x) + b * Math.log(1 - x));
  if (x > (a + 1) / (a + b + 2)) return 1 - incompleteBeta(1 - x, b, a);
  const tiny = 1e-300;
  let c = 1;
  let d = 1 - ((a + b) * x) / (a + 1);
  if (Math.abs(d) < tiny) d = tiny;
  d = 1 / d;
  let h = d;
  for (let m = 1; m <= 300; m++) {
    const m2 = 2 * m;
    let aa = (m * (b - m) * x) / ((a + m2 - 1) * (a + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    h *= d * c;
    aa = (-(a + m) * (a + b + m) * x) / ((a + m2) * (a + m2 + 1));
    d = 1 + aa * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    const del = d * c;
    h *= del;
    if (Math.abs(del - 1) < 3e-16) break;
  }
  return (front * h) / a;
}

/** ln Γ(x) (Lanczos, g = 7). */
function logGamma(x: number): number {
  const g = [
    0.9999999999998099, 676.5203681218851, -1259.1392167224028, 771.3234287776531, -176.6150291621406, 12.507343278686905, -0.13857109526572012,
    9.984369578019572e-6, 1.5056327351493116e-7,
  ];
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
  const y = x - 1;
  let a = g[0] as number;
  const t = y + 7.5;
  for (let i = 1; i < 9; i++) a += (g[i] as number) / (y + i);
  return 0.5 * Math.log(2 * Math.PI) + (y + 0.5) * Math.log(t) - t + Math.log(a);
}
