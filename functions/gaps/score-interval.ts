/**
 * The interval of a fix's effect (pure arithmetic): a quasi-Poisson **score** interval for the
 * interaction of a 2 × 2 table — the gap and its pooled controls, before and after — each count
 * with its exposure, each row with its dispersion. An effect θ is inside when the score test of
 * "the effect is θ" does not reject it: the four counts refitted with the effect held at θ (the
 * rows' totals kept, the columns balanced with each row weighted by 1/φ: the quasi-likelihood's
 * equations), then the observed count after against its refit, over its standard error at the
 * refit — and that standard error's dispersion too is taken at the refit (each side's Pearson
 * sum of squares divided by the refit's expected counts, not the observed ones).
 *
 * Why not the Wald interval (log effect ± t × √(φ̂·Σ 1/count)): both its variance and its φ̂
 * come from the observed counts, so a count before that is high by chance — the very thing that
 * makes chance look like a fall — also narrows the interval (1/count is smaller, and so is each
 * day's Pearson term, divided by a rate estimated too high). Side by side on the same planted
 * no-effect fixes (bench/README.md, `effects`) its false `fixed` ran above its false `worse` in
 * 11 of 15 cells, 2.1 against 1.9 % on average; taken at the refit, 2.0 and 2.0 %. A count of
 * 0 after needs no 0.5 either: the interval then starts at 0. docs/follow-ups.md says why in full.
 */

/** One cell of the table: its signals and exposure. */
export interface Cell {
  readonly signals: number;
  readonly exposure: number;
}

/** One row's Pearson sums of squares per side (Σ (y − E)² ÷ E over its days, E from the side's own rate) and their degrees of freedom. */
export interface Pearson {
  readonly before: number;
  readonly after: number;
  /** Days with exposure − 2. */
  readonly df: number;
}

/** The gap's and its pooled controls' two sides, and each row's Pearson sums (absent: Poisson, φ = 1). */
export interface Table2x2 {
  readonly gapBefore: Cell;
  readonly gapAfter: Cell;
  readonly controlBefore: Cell;
  readonly controlAfter: Cell;
  readonly pearson?: { readonly gap: Pearson; readonly control: Pearson } | undefined;
}

/** A row's dispersion from its Pearson sums with each side's expected counts `before` and `after`: never below 1; 1 without days to say. */
export function dispersionAt(pearson: Pearson | undefined, observed: { before: number; after: number }, expected: { before: number; after: number }): number {
  if (pearson === undefined || pearson.df <= 0) return 1;
  // Σ (y − E)² ÷ E', E' = E × expected ÷ observed: each side's sum rescaled from the observed rate's expectation to the refit's.
  const side = (sum: number, seen: number, refit: number) => (seen > 0 ? (sum * seen) / refit : 0);
  const phi = (side(pearson.before, observed.before, expected.before) + side(pearson.after, observed.after, expected.after)) / pearson.df;
  return Number.isFinite(phi) ? Math.max(1, phi) : 1;
}

/** The score statistic of the refit whose gap count after is `x`, and the θ that refit holds. */
interface Refit {
  readonly theta: number;
  /** (observed − refit gap count after) ÷ its standard error at the refit. */
  readonly z: number;
}

/**
 * The refit where the gap's expected count after is `x`: the rows keep their totals, the columns
 * balance their residuals weighted by 1/φ of each row (`ratio` = φ_control ÷ φ_gap, from the
 * observed fit), and θ is what the four counts imply. The log effect's variance at the refit is
 * φ(1/m_gb + 1/m_ga) + φc(1/m_cb + 1/m_ca); the quasi-score (n − m)/φ has variance 1/that.
 */
function refitAt(table: Table2x2, ratio: number, x: number): Refit {
  const { gapBefore, gapAfter, controlBefore, controlAfter, pearson } = table;
  const gb = gapBefore.signals + gapAfter.signals - x;
  const cb = controlBefore.signals + ratio * (x - gapAfter.signals);
  const ca = controlAfter.signals - ratio * (x - gapAfter.signals);
  const exposures = gapAfter.exposure / gapBefore.exposure / (controlAfter.exposure / controlBefore.exposure);
  const phi = dispersionAt(pearson?.gap, { before: gapBefore.signals, after: gapAfter.signals }, { before: gb, after: x });
  const phiControl = dispersionAt(pearson?.control, { before: controlBefore.signals, after: controlAfter.signals }, { before: cb, after: ca });
  const variance = phi * (1 / gb + 1 / x) + phiControl * (1 / cb + 1 / ca);
  return { theta: (x * cb) / (gb * ca) / exposures, z: ((gapAfter.signals - x) / phi) * Math.sqrt(variance) };
}

/**
 * The effects θ whose score statistic lies within ±`quantile`: `low` 0 when even a vanishing
 * effect is not rejected (no signal after, or so few that a refit near 0 leaves their scatter
 * unexplained), `high` Infinity (or huge) when no rise is. The refit's gap
 * count after moves θ monotonically from 0 to infinity over the range where every refit count is
 * positive, and z is 0 at the observed count, so each end is found by halving that count.
 */
export function scoreInterval(table: Table2x2, quantile: number): { readonly low: number; readonly high: number } {
  // The columns' weights: each row's dispersion at its own observed fit.
  const same = { before: 1, after: 1 };
  const ratio = dispersionAt(table.pearson?.control, same, same) / dispersionAt(table.pearson?.gap, same, same);
  const a = table.gapAfter.signals;
  const range = {
    low: Math.max(0, a - table.controlBefore.signals / ratio),
    high: Math.min(table.gapBefore.signals + a, a + table.controlAfter.signals / ratio),
  };
  // From x = a (z = 0, inside) towards an end of the range (|z| infinite, outside).
  const end = (toward: number): number => {
    let inside = Math.min(Math.max(a, range.low), range.high);
    let outside = toward;
    for (let i = 0; i < 60; i++) {
      const mid = (inside + outside) / 2;
      if (Math.abs(refitAt(table, ratio, mid).z) <= quantile) inside = mid;
      else outside = mid;
    }
    return inside;
  };
  const theta = (x: number) => (x <= range.low ? 0 : x >= range.high ? Number.POSITIVE_INFINITY : refitAt(table, ratio, x).theta);
  return { low: a <= range.low ? 0 : theta(end(range.low)), high: theta(end(range.high)) };
}
