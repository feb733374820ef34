/**
 * What a verdict could have seen (pure arithmetic, no warehouse): the normal distribution's
 * function and quantile, the variance of a difference in differences of log rates, and from it
 * the **smallest detectable fall** — the fall this gap's counts would find with 80 % power at
 * the verdict's one-sided 2.5 % — and the whole days, at the current pace, until that fall is
 * 30 %. bench/effects.ts computes the same with the true counts and dispersion (the analytic
 * figures its goals compare with); verdict.ts with the counts the warehouse holds.
 *
 * The variance under a fall d is the quasi-Poisson one the interval uses, with the gap's count
 * after taken as the one expected had its rate fallen by d (its rate before × its exposure after
 * × the controls' change × (1 − d)): a fall leaves fewer signals after, and a wider interval.
 */

/** Φ(x), the standard normal distribution function (Cody-style erfc approximation, error < 1.2e-7). */
export function normalCdf(x: number): number {
  const z = Math.abs(x) / Math.SQRT2;
  const t = 1 / (1 + 0.5 * z);
  const erfc =
    t *
    Math.exp(
      -z * z -
        1.26551223 +
        t *
          (1.00002368 +
            t *
              (0.37409196 +
                t * (0.09678418 + t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))),
    );
  return x >= 0 ? 1 - erfc / 2 : erfc / 2;
}

/** Φ⁻¹(p) for 0 < p < 1 (Acklam's rational approximation, relative error < 1.2e-9). */
export function normalQuantile(p: number): number {
  if (!(p > 0 && p < 1)) return p <= 0 ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY;
  const a = [-3.969683028665376e1, 2.209460984245205e2, -2.759285104469687e2, 1.38357751867269e2, -3.066479806614716e1, 2.506628277459239];
  const b = [-5.447609879822406e1, 1.615858368580409e2, -1.556989798598866e2, 6.680131188771972e1, -1.328068155288572e1];
  const c = [-7.784894002430293e-3, -3.223964580411365e-1, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783];
  const d = [7.784695709041462e-3, 3.224671290700398e-1, 2.445134137142996, 3.754408661907416];
  const low = 0.02425;
  const tail = (q: number) =>
    ((((((c[0] as number) * q + (c[1] as number)) * q + (c[2] as number)) * q + (c[3] as number)) * q + (c[4] as number)) * q + (c[5] as number)) /
    (((((d[0] as number) * q + (d[1] as number)) * q + (d[2] as number)) * q + (d[3] as number)) * q + 1);
  if (p < low) return tail(Math.sqrt(-2 * Math.log(p)));
  if (p > 1 - low) return -tail(Math.sqrt(-2 * Math.log(1 - p)));
  const q = p - 0.5;
  const r = q * q;
  return (
    (((((((a[0] as number) * r + (a[1] as number)) * r + (a[2] as number)) * r + (a[3] as number)) * r + (a[4] as number)) * r + (a[5] as number)) * q) /
    ((((((b[0] as number) * r + (b[1] as number)) * r + (b[2] as number)) * r + (b[3] as number)) * r + (b[4] as number)) * r + 1)
  );
}

/** A verdict's one-sided false-`fixed` rate (and false-`worse`): the 95 % interval's each tail. */
export const VERDICT_ALPHA = 0.025;
/** The power `detectable` is the smallest fall found with. */
export const DETECTABLE_POWER = 0.8;
/** The fall `daysToVerdict` waits for `detectable` to reach. */
export const TARGET_FALL = 0.3;
/** `daysToVerdict` looks this many days ahead at most (null beyond). */
export const DAYS_TO_VERDICT_MAX = 90;

/** The counts a difference in differences of log rates is made of, with each side's dispersion. */
export interface EffectCounts {
  /** The gap's signals before. */
  readonly before: number;
  /** The gap's signals expected after with no change: its rate before × its exposure after × the controls' change. */
  readonly expectedAfter: number;
  /** The controls' pooled signals before and after. */
  readonly controlBefore: number;
  readonly controlAfter: number;
  /** Dispersion of the gap's days and of the controls' (1: Poisson). */
  readonly phi: number;
  readonly phiControl: number;
}

/** A count in a log ratio's variance: 0 takes 0.5 (Haldane), so a gap whose signal vanished still has an interval. */
export const positive = (count: number): number => (count > 0 ? count : 0.5);

/** The variance of the log effect when the gap's rate truly fell by `fall` (0 ≤ fall < 1). */
export function logEffectVariance(counts: EffectCounts, fall: number): number {
  const after = counts.expectedAfter * (1 - fall);
  return (
    counts.phi * (1 / positive(counts.before) + 1 / positive(after)) +
    counts.phiControl * (1 / positive(counts.controlBefore) + 1 / positive(counts.controlAfter))
  );
}

/** The probability that the verdict says `fixed` when the rate truly fell by `fall`, at one-sided `alpha`. */
export function powerOf(counts: EffectCounts, fall: number, alpha = VERDICT_ALPHA): number {
  if (fall <= 0) return alpha;
  return normalCdf(-Math.log(1 - fall) / Math.sqrt(logEffectVariance(counts, fall)) - normalQuantile(1 - alpha));
}

/**
 * The smallest fall (a share, 0–1) found with `power` at one-sided `alpha`: the smallest d with
 * −log(1 − d) ≥ (z₁₋α + z_power) × √variance(d). Null when no fall short of 99.9 % is (a gap
 * whose counts are too small for even a vanishing signal to show). The first root is found by a
 * scan of 1 % steps and bisection: for small counts the condition holds on an interval only
 * (a large fall leaves so few signals after that the interval widens again).
 */
export function detectableFall(counts: EffectCounts, alpha = VERDICT_ALPHA, power = DETECTABLE_POWER): number | null {
  const k = alpha === VERDICT_ALPHA && power === DETECTABLE_POWER ? K_DEFAULT : normalQuantile(1 - alpha) + normalQuantile(power);
  const seen = (fall: number) => -Math.log(1 - fall) >= k * Math.sqrt(logEffectVariance(counts, fall));
  let low = 0;
  let high = Number.NaN;
  for (const fall of SCAN) {
    if (seen(fall)) {
      high = fall;
      break;
    }
    low = fall;
  }
  if (Number.isNaN(high)) return null;
  while (high - low > 1e-9) {
    const mid = (low + high) / 2;
    if (seen(mid)) high = mid;
    else low = mid;
  }
  return high;
}

/** z₁₋α + z_power at the verdict's defaults. */
const K_DEFAULT = normalQuantile(1 - VERDICT_ALPHA) + normalQuantile(DETECTABLE_POWER);
/** The falls `detectableFall` scans for its first root: 2 % steps to 98 %, then finer to 99.9 %. */
const SCAN = [...Array.from({ length: 49 }, (_, i) => (i + 1) / 50), 0.99, 0.995, 0.999];

/** One side's pace: its days so far and its signals (the gap's, the controls') over them. */
export interface Pace {
  /** Days so far on each side. */
  readonly daysBefore: number;
  readonly daysAfter: number;
  /** The counts over those days. */
  readonly counts: EffectCounts;
  /** Days each side holds at most (the windows' caps: the before side stops growing at its cap). */
  readonly maxBefore: number;
  readonly maxAfter: number;
}

/**
 * Whole days from now until `detectableFall` reaches `target`, each side's counts growing at
 * their pace so far (signals per day × days, each side up to its cap); 0 when it already has;
 * null when not within `horizon` days.
 */
export function daysUntilDetectable(pace: Pace, target = TARGET_FALL, horizon = DAYS_TO_VERDICT_MAX): number | null {
  const { daysBefore, daysAfter, counts } = pace;
  if (daysBefore <= 0 || daysAfter <= 0) return null;
  const grown = (extra: number): EffectCounts => {
    const b = Math.min(pace.maxBefore, daysBefore + extra) / daysBefore;
    const a = Math.min(pace.maxAfter, daysAfter + extra) / daysAfter;
    return {
      ...counts,
      before: counts.before * b,
      expectedAfter: counts.expectedAfter * a,
      controlBefore: counts.controlBefore * b,
      controlAfter: counts.controlAfter * a,
    };
  };
  // Detectable at `target` ⇔ the power there reaches DETECTABLE_POWER (the falls below it are
  // harder still); the counts only grow with the days, so the first such day is found by halving.
  const seen = (extra: number) => powerOf(grown(extra), target) >= DETECTABLE_POWER;
  if (seen(0)) return 0;
  if (!seen(horizon)) return null;
  let low = 0;
  let high = horizon;
  while (high - low > 1) {
    const mid = Math.floor((low + high) / 2);
    if (seen(mid)) high = mid;
    else low = mid;
  }
  return high;
}
