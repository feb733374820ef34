/**
 * Did the fix work: the verdict on one completed job made for a gap, from day counts alone (pure,
 * no warehouse). A gap's **rate** is its signal over its exposure (thumbs down ÷ human views of
 * the page; searches of the term on days nobody clicked ÷ searches of the term; unanswered ÷
 * asked over the questions of the topic). The **control** is the pooled day counts of the same project's gaps of
 * the same kind that got no job, with a similar rate before (chosen by effect.ts). The effect is
 * a difference in differences on the log scale: (the fixed gap's after ÷ before rate ratio) ÷
 * (the controls' ratio).
 *
 * The interval is quasi-Poisson: a score interval for the difference in differences (score-interval.ts),
 * its variance the Poisson one (1/signals before + 1/signals after, for the gap and for its
 * pooled controls, at the counts refitted under each effect tested) times a dispersion φ
 * estimated from the days themselves (Pearson's χ² over the days of both sides ÷ its degrees of
 * freedom, never below 1), and Student's t on those degrees of freedom. Real day counts are
 * overdispersed (a release, a link from elsewhere, a weekday): a Poisson interval alone is too
 * narrow and calls chance a fix (bench/effects.ts measures both); a bootstrap over 28 days a side
 * would give a coarser and random interval for the same correction. docs/follow-ups.md says why
 * in full.
 *
 * `no_change` is a claim too: it is given only when the whole interval lies inside the
 * equivalence margin (a change, if any, of less than 30 % either way); an interval that holds 1
 * but leaves the margin is `inconclusive`, and says what the counts could have seen (power.ts:
 * the smallest fall found with 80 % power, and the days until a 30 % fall is).
 */
import { scoreInterval, type Pearson } from './score-interval.js';
import { studentQuantile } from './student.js';
import { daysUntilDetectable, DAYS_TO_VERDICT_MAX, detectableFall, positive, TARGET_FALL, VERDICT_ALPHA, normalQuantile, type EffectCounts } from './power.js';

/**
 * A verdict: `fixed` (the interval below 1), `worse` (above 1), `no_change` (the whole interval
 * inside the equivalence margin), `inconclusive` (anything else: it holds 1 and leaves the
 * margin), `too_little_data` (too early, no control, or too little exposure for an interval).
 */
export const VERDICTS = ['fixed', 'worse', 'no_change', 'inconclusive', 'too_little_data'] as const;
export type Verdict = (typeof VERDICTS)[number];

/** Whole days since the job completed below this: too early to tell. */
export const VERDICT_MIN_DAYS = 7;
/** Two-sided confidence of the interval (a `fixed` with no true effect at most half of 1 − this). */
export const VERDICT_CONFIDENCE = 0.95;
/** `no_change` only when the whole interval lies in [EQUIVALENCE_MARGIN, 1 / EQUIVALENCE_MARGIN]: if it changed at all, by less than 30 %. */
export const EQUIVALENCE_MARGIN = 0.7;
/**
 * A side needs exposure enough that, at the rate before (× the controls' change), this many
 * signals were expected on it: below it the rate there is not measured (a fix that moved its
 * page leaves a handful of views after) and no interval is given.
 */
export const VERDICT_MIN_EXPECTED = 1;
/** z of VERDICT_CONFIDENCE. */
const Z = normalQuantile(1 - VERDICT_ALPHA);

/** One UTC day of a gap (or of its pooled controls): its signal and its exposure. */
export interface DayCount {
  readonly signal: number;
  readonly exposure: number;
}

/** One side (before or after the job) summed. */
export interface SideTotals {
  readonly days: number;
  readonly signals: number;
  readonly exposure: number;
  /** signals ÷ exposure; 0 when there was no exposure. */
  readonly rate: number;
}

/** What a verdict is made of: the gap's days and its pooled controls' days, each side in order. */
export interface VerdictInput {
  /** Whole UTC days since the day the job completed (or its PR merged), by today. */
  readonly daysSince: number;
  readonly before: readonly DayCount[];
  readonly after: readonly DayCount[];
  /** The controls' day counts, pooled (summed per day); absent: no control. */
  readonly control?: { readonly gaps: number; readonly before: readonly DayCount[]; readonly after: readonly DayCount[] } | undefined;
  /** Words for the reason: the signal (`thumbs down`), the exposure (`views`), the rate (`thumbs down per view`). */
  readonly words: { readonly signal: string; readonly exposure: string; readonly rate: string };
  /** How the interval is made: `quasi-poisson` (φ from the days, at least 1) or `poisson` (φ = 1, the benchmark's naive arm). @default 'quasi-poisson' */
  readonly dispersion?: 'quasi-poisson' | 'poisson';
  /** Days each side holds at most as days pass (`daysToVerdict` grows them at their pace up to these). @default the sides' own lengths */
  readonly maxDays?: { readonly before: number; readonly after: number };
}

export interface VerdictResult {
  readonly verdict: Verdict;
  /** One sentence a docs lead reads. */
  readonly reason: string;
  readonly before: SideTotals;
  readonly after: SideTotals;
  /** The controls' number and their pooled after ÷ before rate ratio (null when there is none or it cannot be made). */
  readonly control: { readonly gaps: number; readonly ratio: number | null };
  /** (gap's ratio) ÷ (controls' ratio) and its interval; nulls when it cannot be made. */
  readonly effect: { readonly ratio: number | null; readonly low: number | null; readonly high: number | null };
  /** The smallest fall (a share) these counts find with 80 % power at the verdict's one-sided 2.5 %; null when none can be. */
  readonly detectable: number | null;
  /** For `inconclusive`: whole days, at the current pace, until `detectable` reaches 0.30; null otherwise or beyond 90 days. */
  readonly daysToVerdict: number | null;
}

export function totalsOf(days: readonly DayCount[]): SideTotals {
  let signals = 0;
  let exposure = 0;
  for (const day of days) {
    signals += day.signal;
    exposure += day.exposure;
  }
  return { days: days.length, signals, exposure, rate: exposure > 0 ? signals / exposure : 0 };
}

/**
 * Pearson's sums of squares of day counts against a constant rate per side: Σ (y − E)² ÷ E over
 * each side's days with exposure, and their degrees of freedom (those days − 2).
 */
export function pearsonOf(before: readonly DayCount[], after: readonly DayCount[]): Pearson {
  const sums = { before: 0, after: 0 };
  let used = 0;
  for (const [name, side] of [
    ['before', before],
    ['after', after],
  ] as const) {
    const { rate } = totalsOf(side);
    for (const day of side) {
      const expected = day.exposure * rate;
      if (expected <= 0) continue;
      sums[name] += (day.signal - expected) ** 2 / expected;
      used += 1;
    }
  }
  return { ...sums, df: used - 2 };
}

/** Pearson's dispersion of day counts against a constant rate per side: their χ² ÷ (days with exposure − 2). NaN when there are too few days to say. */
export function dispersionOf(before: readonly DayCount[], after: readonly DayCount[]): number {
  const { before: b, after: a, df } = pearsonOf(before, after);
  return df > 0 ? (b + a) / df : Number.NaN;
}

/** The verdict on one fix, with its reason in words. */
export function judgeEffect(input: VerdictInput): VerdictResult {
  const before = totalsOf(input.before);
  const after = totalsOf(input.after);
  const { words } = input;
  const control = input.control;
  const cBefore = control ? totalsOf(control.before) : undefined;
  const cAfter = control ? totalsOf(control.after) : undefined;
  // The controls' change, their vanished signal after taking 0.5 as the gap's does: finite whenever both sides have exposure.
  const controlRatio =
    cBefore && cAfter && cBefore.signals > 0 && cBefore.exposure > 0 && cAfter.exposure > 0 ? positive(cAfter.signals) / cAfter.exposure / cBefore.rate : null;
  const base = { before, after, control: { gaps: control?.gaps ?? 0, ratio: controlRatio } };
  const tooLittle = (reason: string): VerdictResult => ({
    verdict: 'too_little_data',
    reason,
    ...base,
    effect: UNKNOWN,
    detectable: null,
    daysToVerdict: null,
  });
  const daysWord = (n: number) => `${n} day${n === 1 ? '' : 's'}`;

  if (input.daysSince < VERDICT_MIN_DAYS) {
    return tooLittle(`only ${daysWord(input.daysSince).replace('day', 'whole day')} since the job completed: a verdict needs ${VERDICT_MIN_DAYS}`);
  }
  if (before.exposure <= 0 || after.exposure <= 0) {
    const side = before.exposure <= 0 ? 'before' : 'after';
    const days = side === 'before' ? before.days : after.days;
    return tooLittle(`no ${words.exposure} exported in the ${daysWord(days)} ${side} the job: its rate cannot be measured`);
  }
  if (before.signals <= 0) {
    return tooLittle(`no ${words.signal} in the ${daysWord(before.days)} before the job: there was no rate to fall`);
  }
  if (control === undefined || cBefore === undefined || cAfter === undefined || controlRatio === null || control.gaps === 0) {
    return tooLittle(`no control: no gap of the same kind and project without a job had a similar ${words.rate} before, and ${words.exposure} on both sides`);
  }
  const expectedAfter = before.rate * after.exposure * controlRatio;
  if (expectedAfter < VERDICT_MIN_EXPECTED) {
    return tooLittle(
      `only ${formatInt(after.exposure)} ${words.exposure} in the ${daysWord(after.days)} after the job: at the rate before, ${round1(expectedAfter)} ${words.signal} were expected there, too few to measure its rate (did the fix move the page or rename the term?)`,
    );
  }
  const expectedControl = cBefore.rate * cAfter.exposure;
  if (expectedControl < VERDICT_MIN_EXPECTED) {
    return tooLittle(`the similar gaps without a job had only ${formatInt(cAfter.exposure)} ${words.exposure} after the job: their change cannot be measured`);
  }
  const ratio = positive(after.signals) / after.exposure / before.rate;
  const effect = ratio / controlRatio;
  const poisson = input.dispersion === 'poisson';
  const phi = poisson ? 1 : Math.max(1, finiteOr(dispersionOf(input.before, input.after), 1));
  const phiControl = poisson ? 1 : Math.max(1, finiteOr(dispersionOf(control.before, control.after), 1));
  const counts: EffectCounts = { before: before.signals, expectedAfter, controlBefore: cBefore.signals, controlAfter: cAfter.signals, phi, phiControl };
  // The interval: the score interval of the 2 × 2 table (score-interval.ts), φ from the days. φ estimated from 28 days or so:
  // the quantile is Student's t on its degrees of freedom (the gap's days used − 2), as a quasi-Poisson model's is.
  const pearson = poisson ? undefined : { gap: pearsonOf(input.before, input.after), control: pearsonOf(control.before, control.after) };
  const quantile = pearson === undefined ? Z : tQuantile(pearson.gap.df);
  const { low, high } = scoreInterval({ gapBefore: before, gapAfter: after, controlBefore: cBefore, controlAfter: cAfter, pearson }, quantile);
  if (![effect, low, high].every(Number.isFinite)) {
    return tooLittle(`the counts on one side are too small for a finite interval`);
  }
  const verdict = verdictOf(low, high);
  const detectable = detectableFall(counts);
  const daysToVerdict =
    verdict === 'inconclusive'
      ? daysUntilDetectable({
          daysBefore: before.days,
          daysAfter: after.days,
          counts,
          maxBefore: input.maxDays?.before ?? before.days,
          maxAfter: input.maxDays?.after ?? after.days,
        })
      : null;
  const against = `${control.gaps} similar gap${control.gaps === 1 ? '' : 's'} without a job (${times(controlRatio)})`;
  const interval = `${Math.round(VERDICT_CONFIDENCE * 100)} % interval ${round2(low)}–${round2(high)}`;
  const moved = `${words.rate} ${change(after.signals / after.exposure / before.rate)} (${formatInt(before.signals)} ${words.signal} in ${formatInt(before.exposure)} ${words.exposure} before, ${formatInt(after.signals)} in ${formatInt(after.exposure)} after)`;
  const could = detectable === null ? 'these counts could not have seen any fall' : `these counts could have seen a fall of ${pct(detectable)} or more`;
  const reason = {
    fixed: `${moved}: ${times(effect)} beyond the change of ${against}, ${interval}, below 1`,
    worse: `${moved}: ${times(effect)} beyond the change of ${against}, ${interval}, above 1`,
    no_change: `${moved}: ${times(effect)} against ${against}, ${interval}, inside ${round2(EQUIVALENCE_MARGIN)}–${round2(1 / EQUIVALENCE_MARGIN)}: if it changed at all, by less than ${pct(1 - EQUIVALENCE_MARGIN)}`,
    inconclusive: `${moved}: ${times(effect)} against ${against}, ${interval}, which holds 1 and leaves ${round2(EQUIVALENCE_MARGIN)}–${round2(1 / EQUIVALENCE_MARGIN)}: too small to tell yet — ${detectable === null ? 'these counts could not have seen any fall' : `could only have seen a fall of ${pct(detectable)} or more`}; ${
      daysToVerdict === null
        ? `at this pace, a ${pct(TARGET_FALL)} fall is not visible within ${DAYS_TO_VERDICT_MAX} days`
        : daysToVerdict === 0
          ? `a ${pct(TARGET_FALL)} fall is visible now`
          : `at this pace, a ${pct(TARGET_FALL)} fall is visible in about ${daysWord(daysToVerdict)}`
    }`,
  }[verdict];
  return {
    verdict,
    reason: verdict === 'inconclusive' ? reason : `${reason}; ${could}`,
    ...base,
    effect: { ratio: effect, low, high },
    detectable,
    daysToVerdict,
  };
}

/** The verdict of an interval (of one fix or of a portfolio): below 1, above 1, inside the margin, or none of these. */
export function verdictOf(low: number, high: number): Exclude<Verdict, 'too_little_data'> {
  if (high < 1) return 'fixed';
  if (low > 1) return 'worse';
  if (low >= EQUIVALENCE_MARGIN && high <= 1 / EQUIVALENCE_MARGIN) return 'no_change';
  return 'inconclusive';
}

const UNKNOWN = { ratio: null, low: null, high: null };

const T_QUANTILES = new Map<number, number>();
/** t₀.₉₇₅ on `df` degrees of freedom (cached); the normal's under 1 degree of freedom left or at 1,000 and more. */
function tQuantile(df: number): number {
  if (df < 1 || df >= 1000) return Z;
  const known = T_QUANTILES.get(df);
  if (known !== undefined) return known;
  const t = studentQuantile(1 - VERDICT_ALPHA, df);
  T_QUANTILES.set(df, t);
  return t;
}

function finiteOr(value: number, fallback: number): number {
  return Number.isFinite(value) ? value : fallback;
}

const round2 = (value: number) => (Math.round(value * 100) / 100).toFixed(2);
const round1 = (value: number) => (Math.round(value * 10) / 10).toFixed(1);
/** A share as a whole percentage: `55 %`. */
export const pct = (share: number) => `${Math.round(share * 100)} %`;
const times = (value: number) => `×${round2(value)}`;
const formatInt = (value: number) => Math.round(value).toLocaleString('en-US');

/** `fell 60 %`, `rose 12 %`, `did not move`. */
function change(ratio: number): string {
  const pct = Math.round((ratio - 1) * 100);
  return pct === 0 ? 'did not move' : pct < 0 ? `fell ${-pct} %` : `rose ${pct} %`;
}
