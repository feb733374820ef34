/**
 * Did the fix work: the verdict on one completed job made for a gap, from day counts alone (pure,
 * no warehouse). A gap's **rate** is its signal over its exposure (thumbs down ÷ human views of
 * the page; searches of the term on days nobody clicked ÷ searches of the term; unanswered ÷
 * asked over the questions of the topic). The **control** is the pooled day counts of the same project's gaps of
 * the same kind that got no job, with a similar rate before (chosen by effect.ts). The effect is
 * a difference in differences on the log scale: (the fixed gap's after ÷ before rate ratio) ÷
 * (the controls' ratio).
 *
 * The interval is quasi-Poisson: the log rate ratio's Poisson variance (1/signals before +
 * 1/signals after, for the gap and for its pooled controls) times a dispersion φ estimated from
 * the days themselves (Pearson's χ² over the days of both sides ÷ its degrees of freedom, never
 * below 1). Real day counts are overdispersed (a release, a link from elsewhere, a weekday):
 * a Poisson interval alone is too narrow and calls chance a fix (bench/effects.ts measures both);
 * a bootstrap over 28 days a side would give a coarser and random interval for the same
 * correction. docs/follow-ups.md says why in full.
 */

/** A verdict; `too_little_data` when the counts cannot tell. */
export const VERDICTS = ['fixed', 'worse', 'no_change', 'too_little_data'] as const;
export type Verdict = (typeof VERDICTS)[number];

/** Whole days since the job completed below this: too early to tell. */
export const VERDICT_MIN_DAYS = 7;
/** Signals before the job below this: too few to tell. */
export const VERDICT_MIN_SIGNALS = 30;
/** Two-sided confidence of the interval (a `fixed` with no true effect at most half of 1 − this). */
export const VERDICT_CONFIDENCE = 0.95;
/** z of VERDICT_CONFIDENCE. */
const Z = 1.959963984540054;

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
  /** Whole UTC days since the day the job completed, by today. */
  readonly daysSince: number;
  readonly before: readonly DayCount[];
  readonly after: readonly DayCount[];
  /** The controls' day counts, pooled (summed per day); absent: no control. */
  readonly control?: { readonly gaps: number; readonly before: readonly DayCount[]; readonly after: readonly DayCount[] } | undefined;
  /** Words for the reason: the signal (`thumbs down`), the exposure (`views`), the rate (`thumbs down per view`). */
  readonly words: { readonly signal: string; readonly exposure: string; readonly rate: string };
  /** How the interval is made: `quasi-poisson` (φ from the days, at least 1) or `poisson` (φ = 1, the benchmark's naive arm). @default 'quasi-poisson' */
  readonly dispersion?: 'quasi-poisson' | 'poisson';
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
 * Pearson's dispersion of day counts against a constant rate per side: Σ (y − E)² ÷ E over the
 * days with exposure, ÷ (those days − 2). NaN when there are too few days to say.
 */
export function dispersionOf(before: readonly DayCount[], after: readonly DayCount[]): number {
  let chi2 = 0;
  let used = 0;
  for (const side of [before, after]) {
    const { rate } = totalsOf(side);
    for (const day of side) {
      const expected = day.exposure * rate;
      if (expected <= 0) continue;
      chi2 += (day.signal - expected) ** 2 / expected;
      used += 1;
    }
  }
  return used > 2 ? chi2 / (used - 2) : Number.NaN;
}

/** A count in a log ratio's variance: 0 takes 0.5 (Haldane), so a gap whose signal vanished still has an interval. */
const positive = (count: number) => (count > 0 ? count : 0.5);

/** The verdict on one fix, with its reason in words. */
export function judgeFix(input: VerdictInput): VerdictResult {
  const before = totalsOf(input.before);
  const after = totalsOf(input.after);
  const { words } = input;
  const control = input.control;
  const cBefore = control ? totalsOf(control.before) : undefined;
  const cAfter = control ? totalsOf(control.after) : undefined;
  const controlRatio = cBefore && cAfter && cBefore.rate > 0 && cAfter.exposure > 0 ? cAfter.rate / cBefore.rate : null;
  const base = { before, after, control: { gaps: control?.gaps ?? 0, ratio: controlRatio } };
  const unknown = { ratio: null, low: null, high: null };
  const tooLittle = (reason: string): VerdictResult => ({ verdict: 'too_little_data', reason, ...base, effect: unknown });

  if (input.daysSince < VERDICT_MIN_DAYS) {
    return tooLittle(`only ${input.daysSince} whole day${input.daysSince === 1 ? '' : 's'} since the job completed: a verdict needs ${VERDICT_MIN_DAYS}`);
  }
  if (before.signals < VERDICT_MIN_SIGNALS) {
    return tooLittle(`only ${before.signals} ${words.signal} in the ${before.days} days before the job: a verdict needs ${VERDICT_MIN_SIGNALS}`);
  }
  if (before.exposure <= 0 || after.exposure <= 0) {
    const side = before.exposure <= 0 ? 'before' : 'after';
    return tooLittle(`no ${words.exposure} exported in the ${before.days} days ${side} the job: its rate cannot be measured`);
  }
  if (control === undefined || cBefore === undefined || cAfter === undefined || controlRatio === null || control.gaps === 0) {
    return tooLittle(`no control: no gap of the same kind and project without a job had a similar ${words.rate} before, and ${words.exposure} on both sides`);
  }
  const ratio = after.rate / before.rate;
  const effect = ratio / controlRatio;
  const poisson = input.dispersion === 'poisson';
  const phiGap = poisson ? 1 : Math.max(1, finiteOr(dispersionOf(input.before, input.after), 1));
  const phiControl = poisson ? 1 : Math.max(1, finiteOr(dispersionOf(control.before, control.after), 1));
  const variance =
    phiGap * (1 / positive(before.signals) + 1 / positive(after.signals)) + phiControl * (1 / positive(cBefore.signals) + 1 / positive(cAfter.signals));
  // The point estimate with a signal of 0 after is 0: its log takes the same 0.5 as the variance.
  const logEffect = Math.log(positive(after.signals) / after.exposure / before.rate / controlRatio);
  const half = Z * Math.sqrt(variance);
  const low = Math.exp(logEffect - half);
  const high = Math.exp(logEffect + half);
  const verdict: Verdict = high < 1 ? 'fixed' : low > 1 ? 'worse' : 'no_change';
  const against = `${control.gaps} similar gap${control.gaps === 1 ? '' : 's'} without a job (${times(controlRatio)})`;
  const interval = `${Math.round(VERDICT_CONFIDENCE * 100)} % interval ${round2(low)}–${round2(high)}`;
  const moved = `${words.rate} ${change(ratio)} (${before.signals} ${words.signal} in ${formatInt(before.exposure)} ${words.exposure} before, ${after.signals} in ${formatInt(after.exposure)} after)`;
  const reason =
    verdict === 'fixed'
      ? `${moved}: ${times(effect)} beyond the change of ${against}, ${interval}, below 1`
      : verdict === 'worse'
        ? `${moved}: ${times(effect)} beyond the change of ${against}, ${interval}, above 1`
        : `${moved}: ${times(effect)} against ${against}, ${interval}, which holds 1: no change told from chance`;
  return { verdict, reason, ...base, effect: { ratio: effect, low, high } };
}

function finiteOr(value: number, fallback: number): number {
  return Number.isFinite(value) ? value : fallback;
}

const round2 = (value: number) => (Math.round(value * 100) / 100).toFixed(2);
const times = (value: number) => `×${round2(value)}`;
const formatInt = (value: number) => Math.round(value).toLocaleString('en-US');

/** `fell 60 %`, `rose 12 %`, `did not move`. */
function change(ratio: number): string {
  const pct = Math.round((ratio - 1) * 100);
  return pct === 0 ? 'did not move' : pct < 0 ? `fell ${-pct} %` : `rose ${pct} %`;
}
