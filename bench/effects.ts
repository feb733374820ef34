/**
 * `effects`: the verdicts on planted effects. Hundreds of synthetic fixed gaps, each with 30
 * candidate controls of its kind and project (no job), their day counts drawn here and judged by
 * the code `effects` runs (gaps/effect.ts `judgeGap`: the controls chosen and pooled, then
 * gaps/verdict.ts), N = 28 days a side. Reported: the share of each verdict per scenario.
 *
 * A gap's day: exposure = its views × the site's traffic (a weekday pattern, and in "rising"
 * scenarios +50 % from the day after the job, every gap alike) × a lognormal day wobble; signals
 * ~ Poisson(exposure × rate × the effect after the job × a gamma day factor). The gamma factor
 * (shape 4, CV 0.5: a release, a link from a forum, a bad day) makes the counts overdispersed, as
 * real day counts are; "poisson" scenarios leave it out. Each scenario is judged twice: with the
 * quasi-Poisson interval `effects` uses, and with a naive Poisson one (φ = 1), side by side.
 *
 * Goals (DESIGN, "Did the fix work"): ≥ 90 % `fixed` for true 30 % reductions with ≥ 30 signals a
 * side over 28 days; ≤ 10 % `fixed` or `worse` with no effect, also with the site's traffic +50 %.
 */
import { addDays } from '../functions/shared/dates.js';
import { judgeGap, type RateGap } from '../functions/gaps/effect.js';
import type { DayCount, Verdict } from '../functions/gaps/verdict.js';
import { info, judged, progress, type BenchResult, type Figures } from './lib/figures.js';
import { seededRandom } from './lib/memory-store.js';

const TRIALS = 400;
const CONTROLS = 30;
const DONE = '2026-06-01';
/** 30 whole days since DONE: N = 28. */
const TODAY = addDays(DONE, 31);
const FIRST = addDays(DONE, -28);
const PROJECT = 'proj_bench';

interface Scenario {
  readonly name: string;
  /** The fixed gap's rate after ÷ before, truly. */
  readonly effect: number;
  /** Expected signals of the fixed gap in the 28 days before (each trial draws around it when a range). */
  readonly signals: number | readonly [number, number];
  readonly traffic: 'flat' | 'rising';
  readonly counts: 'overdispersed' | 'poisson';
}

const SCENARIOS: readonly Scenario[] = [
  ...([30, 60, 120, 250] as const).map((s) => ({ name: `true30.s${s}`, effect: 0.7, signals: s, traffic: 'flat' as const, counts: 'overdispersed' as const })),
  { name: 'true30.s30-500', effect: 0.7, signals: [30, 500], traffic: 'flat', counts: 'overdispersed' },
  { name: 'true30.s30-500.rising', effect: 0.7, signals: [30, 500], traffic: 'rising', counts: 'overdispersed' },
  { name: 'true60.s30', effect: 0.4, signals: 30, traffic: 'flat', counts: 'overdispersed' },
  { name: 'none.s30-500', effect: 1, signals: [30, 500], traffic: 'flat', counts: 'overdispersed' },
  { name: 'none.s30-500.rising', effect: 1, signals: [30, 500], traffic: 'rising', counts: 'overdispersed' },
  { name: 'none.s250.rising', effect: 1, signals: 250, traffic: 'rising', counts: 'overdispersed' },
  { name: 'none.s30-500.poisson', effect: 1, signals: [30, 500], traffic: 'flat', counts: 'poisson' },
  { name: 'true30.s30-500.poisson', effect: 0.7, signals: [30, 500], traffic: 'flat', counts: 'poisson' },
  { name: 'true30.s250.poisson', effect: 0.7, signals: 250, traffic: 'flat', counts: 'poisson' },
  { name: 'true30.s30.poisson', effect: 0.7, signals: 30, traffic: 'flat', counts: 'poisson' },
];

export async function benchEffects(): Promise<BenchResult> {
  const figures: Figures = {};
  const details: Record<string, unknown> = {};
  const random = seededRandom(45);
  for (const scenario of SCENARIOS) {
    progress(`effects: ${scenario.name}, ${TRIALS} trials`);
    const shares = { quasi: tally(), poisson: tally() };
    for (let t = 0; t < TRIALS; t++) {
      const trial = plant(scenario, random);
      shares.quasi[judgeGap(trial.fixed, DONE, TODAY, trial.rates, trial.candidates).verdict] += 1;
      shares.poisson[judgeGap(trial.fixed, DONE, TODAY, trial.rates, trial.candidates, { dispersion: 'poisson' }).verdict] += 1;
    }
    const share = (counts: Record<Verdict, number>, verdicts: readonly Verdict[]) => (100 * verdicts.reduce((n, v) => n + counts[v], 0)) / TRIALS;
    details[`effects.${scenario.name}`] = { scenario, quasi: shares.quasi, poisson: shares.poisson };
    const key = `effects.${scenario.name}`;
    if (scenario.effect < 1) {
      const fixed = share(shares.quasi, ['fixed']);
      const goal = scenario.name === 'true30.s30-500' || scenario.name === 'true30.s30-500.rising';
      figures[`${key}.fixed_pct`] = goal
        ? judged(fixed, '%', '>=', 90, describe(scenario, 'fixed (quasi-Poisson, what effects uses)'))
        : info(fixed, '%', describe(scenario, 'fixed (quasi-Poisson)'));
      figures[`${key}.fixed_pct_naive`] = info(share(shares.poisson, ['fixed']), '%', describe(scenario, 'fixed (naive Poisson)'));
    } else {
      const wrong = share(shares.quasi, ['fixed', 'worse']);
      figures[`${key}.fixed_or_worse_pct`] = judged(wrong, '%', '<=', 10, describe(scenario, 'fixed or worse (quasi-Poisson, what effects uses)'));
      figures[`${key}.fixed_or_worse_pct_naive`] = info(share(shares.poisson, ['fixed', 'worse']), '%', describe(scenario, 'fixed or worse (naive Poisson)'));
    }
    figures[`${key}.too_little_pct`] = info(share(shares.quasi, ['too_little_data']), '%', describe(scenario, 'too_little_data'));
  }
  return { figures, details };
}

function describe(s: Scenario, what: string): string {
  const signals = typeof s.signals === 'number' ? `${s.signals}` : `${s.signals[0]}–${s.signals[1]} (log-uniform)`;
  const effect = s.effect === 1 ? 'no effect' : `a true ${Math.round((1 - s.effect) * 100)} % reduction`;
  return `${what}: ${effect}, ${signals} signals expected in the 28 days before, traffic ${s.traffic === 'rising' ? '+50 % after' : 'flat'}, ${s.counts} day counts, ${CONTROLS} candidate controls, ${TRIALS} trials`;
}

function tally(): Record<Verdict, number> {
  return { fixed: 0, worse: 0, no_change: 0, inconclusive: 0, too_little_data: 0 };
}

interface Trial {
  readonly fixed: RateGap;
  readonly candidates: readonly RateGap[];
  readonly rates: Map<string, Map<string, DayCount>>;
}

/** One fixed gap and its candidate controls, their day counts drawn from the scenario. */
function plant(s: Scenario, random: () => number): Trial {
  const expected = typeof s.signals === 'number' ? s.signals : Math.exp(Math.log(s.signals[0]) + random() * Math.log(s.signals[1] / s.signals[0]));
  const gap = (i: number): RateGap => ({ gapId: `gap_${i}`, kind: 'thumbs_down_page', projectId: PROJECT, key: `/docs/page-${i}` });
  const fixed = gap(0);
  const candidates = Array.from({ length: CONTROLS }, (_, i) => gap(i + 1));
  const rates = new Map<string, Map<string, DayCount>>();
  const days: string[] = [];
  for (let day = FIRST; day < TODAY; day = addDays(day, 1)) days.push(day);
  const viewsOfFixed = 150 + random() * 300;
  // Its rate makes `expected` signals in the 28 days before at its views.
  const rateOfFixed = expected / (28 * viewsOfFixed);
  [fixed, ...candidates].forEach((g, i) => {
    // Controls: views and rates of the same order (a rate within ×0.5–×2 of the fixed gap's).
    const views = i === 0 ? viewsOfFixed : 100 + random() * 400;
    const rate = i === 0 ? rateOfFixed : rateOfFixed * Math.exp((random() * 2 - 1) * Math.log(2));
    const series = new Map<string, DayCount>();
    days.forEach((day, d) => {
      const after = day > DONE;
      const weekday = [0.6, 1.1, 1.15, 1.1, 1.05, 1, 0.65][d % 7] as number;
      const traffic = s.traffic === 'rising' && after ? 1.5 : 1;
      const exposure = Math.max(0, Math.round(views * weekday * traffic * Math.exp(gauss(random) * 0.15)));
      const wobble = s.counts === 'overdispersed' ? gamma(4, random) / 4 : 1;
      const signal = poisson(exposure * rate * (i === 0 && after ? s.effect : 1) * wobble, random);
      series.set(day, { signal, exposure });
    });
    rates.set(g.gapId, series);
  });
  return { fixed, candidates, rates };
}

function gauss(random: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
}

/** Marsaglia–Tsang (shape ≥ 1). */
function gamma(shape: number, random: () => number): number {
  const d = shape - 1 / 3;
  const c = 1 / Math.sqrt(9 * d);
  for (;;) {
    const x = gauss(random);
    const v = (1 + c * x) ** 3;
    if (v <= 0) continue;
    if (Math.log(1 - random()) < 0.5 * x * x + d - d * v + d * Math.log(v)) return d * v;
  }
}

/** Knuth's method below 30, a rounded normal above (the day counts here are small). */
function poisson(lambda: number, random: () => number): number {
  if (lambda <= 0) return 0;
  if (lambda > 30) return Math.max(0, Math.round(lambda + Math.sqrt(lambda) * gauss(random)));
  const limit = Math.exp(-lambda);
  let k = 0;
  let p = random();
  while (p > limit) {
    k += 1;
    p *= random();
  }
  return k;
}
