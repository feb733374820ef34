/**
 * Whether a change of a count is beyond what chance gives at its counts — the one rule by which
 * the report colours a change, badges a thing `new` or "no longer clicked", and lists a mover,
 * and by which the weekly digest words a change better or worse and lists its movers
 * (docs/report.md, "Changes beyond noise").
 *
 * The test: two counts of events, `current` over an exposure `e1` (the days exported, or the
 * searches or questions a share is of) and `previous` over `e2`, each taken as Poisson. Given
 * their sum n, `current` is Binomial(n, e1 ÷ (e1 + e2)) when the two rates are equal (the
 * conditional, or two-Poisson, test). A change is beyond chance when its two-sided p-value is
 * below `NOISE.alpha` (1 %) and the two counts hold at least `NOISE.minCount` events together:
 * below that nothing a week can show is a trend. Exact for n ≤ 2,000, the normal approximation
 * with continuity correction above it (where the two agree to well under a point).
 *
 * A count is taken as Poisson: day-to-day swings larger than that (a launch, a holiday) pass the
 * test as real changes, which they are, just not caused by the docs.
 */

export const NOISE = {
  /** Two-sided p-value below which a change is beyond chance. */
  alpha: 0.01,
  /** Events in both periods together below which no change is beyond chance. */
  minCount: 10,
} as const;

/** What each count was counted over: days exported, or the searches or questions a share is of. @default 1 each */
export interface Exposures {
  readonly current: number;
  readonly previous: number;
}

/** Above this sum the normal approximation is used. */
const EXACT_UP_TO = 2_000;

/**
 * The two-sided p-value of `current` against `previous` (counts, over `exposures`); 1 when either
 * exposure is not positive or a count is not a finite non-negative number.
 */
export function changePValue(current: number, previous: number, exposures: Exposures = { current: 1, previous: 1 }): number {
  const x = Math.round(current);
  const n = x + Math.round(previous);
  if (!(Number.isFinite(n) && x >= 0 && n >= x && exposures.current > 0 && exposures.previous > 0)) return 1;
  if (n === 0) return 1;
  const p = exposures.current / (exposures.current + exposures.previous);
  if (n > EXACT_UP_TO) {
    const sd = Math.sqrt(n * p * (1 - p));
    const z = (Math.abs(x - n * p) - 0.5) / sd;
    return z <= 0 ? 1 : Math.min(1, 2 * upperNormal(z));
  }
  // P(X ≤ x) and P(X ≥ x) of Binomial(n, p), summed in log space from the pmf.
  const logPmf = (k: number) => logChoose(n, k) + k * Math.log(p) + (n - k) * Math.log1p(-p);
  let below = 0;
  let above = 0;
  for (let k = 0; k <= n; k += 1) {
    const mass = Math.exp(logPmf(k));
    if (k <= x) below += mass;
    if (k >= x) above += mass;
  }
  return Math.min(1, 2 * Math.min(below, above));
}

/** Whether `current` against `previous` is beyond chance (`NOISE`), over `exposures`. */
export function beyondChance(current: number, previous: number, exposures?: Exposures): boolean {
  if (current + previous < NOISE.minCount) return false;
  return changePValue(current, previous, exposures) < NOISE.alpha;
}

/** log C(n, k). */
function logChoose(n: number, k: number): number {
  return logFactorial(n) - logFactorial(k) - logFactorial(n - k);
}

const LOG_FACTORIALS: number[] = [0];

function logFactorial(n: number): number {
  for (let i = LOG_FACTORIALS.length; i <= n; i += 1) LOG_FACTORIALS.push((LOG_FACTORIALS[i - 1] as number) + Math.log(i));
  return LOG_FACTORIALS[n] as number;
}

/** P(Z > z) of the standard normal (Abramowitz & Stegun 7.1.26 on erfc, error < 1.5e-7). */
function upperNormal(z: number): number {
  const t = 1 / (1 + 0.3275911 * (z / Math.SQRT2));
  const poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))));
  return 0.5 * poly * Math.exp(-(z * z) / 2);
}
