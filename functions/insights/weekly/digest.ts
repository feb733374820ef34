/**
 * The weekly digest: the message published with the weekly report, made from the report's own
 * figures (functions/report/figures.ts: the same numbers the page shows) — a subject with the
 * headline change, then a plain-text body: the headline figures (this week, last week, change,
 * and whether the change is better or worse by the figure's meaning, as the page colours it),
 * the biggest movers per project, data health, the verdicts on the fixes made for gaps (one line
 * each, `fixed` and `worse` first: the report's "Fixes and their effect") and the link to the page.
 * A figure is compared as the page compares it (warehouse/compare.ts's rule): totals only where
 * both weeks have at least 80 % of their days exported for its dataset; per day, and never judged,
 * where one has fewer; not at all where one has none. A mover is only ever drawn from totals that compare.
 */
import { formatChange, formatCount } from '../../shared/format.js';
import { type Comparison, MIN_COVERAGE, moversBy, relativeChange } from '../../warehouse/compare.js';
import { FIGURE_LABEL, FIGURE_MEANINGS, FIGURES, type Meaning, toneOf } from '../../warehouse/figure-names.js';
import type { PageLink } from './link.js';
import { changeBeyondChance, type Figures } from '../../report/figures.js';
import { comparisonFor, type Headline, REPORT_DATASETS, type ReportDataset } from '../../report/headline.js';
import { describeLeftOut } from '../../report/coverage.js';
import { FIGURE_DATASET } from '../../warehouse/figure-names.js';
import type { HealthState } from '../../report/health.js';
import type { InsightMessage } from '../publish.js';
import { verdictOrder, type GapEffect } from '../../gaps/effect.js';
import { GAP_KIND_WORDS, portfolioEffectOf, portfolioOf } from '../../gaps/portfolio.js';
import { scopeLines, type ScopedJob } from '../../scope/summary.js';
import { displayText } from '../../shared/display.js';

/** The figures of the headline, in the order the body lists them: each a figure of the table of figures (warehouse/figure-names.ts), named by its label. */
export const DIGEST_FIGURES = (
  ['human', 'ai', 'views', 'searches', 'questions', 'unanswered', 'thumbsDown'] as const satisfies readonly (keyof Headline)[]
).map((key) => ({ key, label: FIGURE_LABEL[key], sentenceLabel: FIGURES[key].sentenceLabel }));

export type DigestFigure = (typeof DIGEST_FIGURES)[number]['key'];

/** Characters of the change column before its word (`+100 %`, `new`). */
const CHANGE_WIDTH = 7;

/** Movers listed. */
export const MOVERS = 5;
/** A project's figure below this last week is too small for a percentage to mean much: not a mover. */
export const MOVER_MIN_BASE = 20;

export interface Mover {
  readonly projectId: string;
  readonly figure: DigestFigure;
  readonly current: number;
  readonly previous: number;
  /** current ÷ previous − 1, each per day exported when the weeks' days differ. */
  readonly change: number;
  /** The days each week has exported of the figure's dataset, when they differ. */
  readonly days?: { readonly current: number; readonly previous: number };
}

/** Units of the week by state, over every project and dataset. */
export type HealthCounts = Readonly<Record<Exclude<HealthState, 'complete' | 'provisional'>, number>>;

export interface DigestInput {
  readonly figures: Figures;
  /** `2026-W47` (or the period's first and last day for another length). */
  readonly week: string;
  /** The signed link to the week's page and when it stops working; or, with no link, */
  readonly link?: PageLink | undefined;
  /** the page's place in the bucket (`s3://…`). */
  readonly place?: string | undefined;
  /** The completed jobs made for gaps and their verdicts, as the report shows them (BuiltReport.fixes). */
  readonly fixes?: readonly GapEffect[] | undefined;
  /** The week's checked pull requests, as the report shows them (BuiltReport.scope). */
  readonly scope?: readonly ScopedJob[] | undefined;
}

/** Verdict lines listed at most; the rest are counted and left to the page. */
export const DIGEST_VERDICTS = 10;

/**
 * The fixes made for gaps, led by the portfolio — one line per project and gap kind: do its fixes
 * work on average (gaps/portfolio.ts) — then one line per completed job and its verdict, `fixed`
 * and `worse` first, then `no_change`, `inconclusive`, `too_little_data` and the jobs not measured
 * (latest completion first within each): the same verdicts and reasons as the report's "Fixes and
 * their effect".
 */
export function verdictLines(fixes: readonly GapEffect[], limit = DIGEST_VERDICTS): string[] {
  if (fixes.length === 0) return [];
  const sorted = [...fixes].sort(
    (a, b) =>
      verdictOrder(a.judged.verdict) - verdictOrder(b.judged.verdict) || (a.completedDay < b.completedDay ? 1 : a.completedDay > b.completedDay ? -1 : 0),
  );
  const portfolio = portfolioOf(fixes.map(portfolioEffectOf)).map(
    (p) => `  on average, ${displayText(p.projectId)}, ${GAP_KIND_WORDS[p.kind]}: ${p.verdict} — ${p.reason}`,
  );
  const shown = sorted.slice(0, limit).map((e) => {
    const name = e.gap?.title ?? `gap ${displayText(e.gapId)} (not found in the warehouse)`;
    return `  ${e.judged.verdict ?? 'not measured'}: ${displayText(e.projectId)}, ${name} (job completed ${e.completedDay}) — ${e.judged.reason}`;
  });
  const more = sorted.length - shown.length;
  return [
    '',
    'Fixes and their effect (the rate against similar gaps without a job):',
    ...portfolio,
    ...shown,
    ...(more > 0 ? [`  and ${more} more: see "Fixes and their effect" in the report`] : []),
  ];
}

/** The digest writes plain text: its changes take the ASCII minus, as it writes `->` and `x` (the page writes `−`). */
const ASCII_MINUS = '-';

/**
 * The projects' figures that moved most (relative change, either way), over a base large enough
 * to mean something: warehouse/compare.ts's rule with the digest's parameters. Each week's figure
 * is per day it has exported of the figure's dataset (a week missing a day is never a fall of a
 * seventh), and only a change beyond chance at its counts moves (warehouse/noise.ts).
 */
export function digestMovers(figures: Figures, limit = MOVERS): Mover[] {
  const changes = figures.byProject.flatMap((project) =>
    DIGEST_FIGURES.filter(
      ({ key }) => comparisonFor(project, FIGURE_DATASET[key]) === 'totals' && changeBeyondChance(project.current, project.previous, key),
    ).map(({ key }) => {
      const days = { current: project.current.coverage[FIGURE_DATASET[key]].exported, previous: project.previous.coverage[FIGURE_DATASET[key]].exported };
      const perDay = days.current !== days.previous;
      return {
        projectId: project.projectId,
        figure: key,
        current: project.current[key],
        previous: project.previous[key],
        ...(perDay ? { days } : {}),
        // What the rule sizes: each week's figure per exported day (the totals when the days are the same).
        rate: {
          current: perDay ? project.current[key] / days.current : project.current[key],
          previous: perDay ? project.previous[key] / days.previous : project.previous[key],
        },
      };
    }),
  );
  const rates = changes.map((c) => ({ ...c, current: c.rate.current, previous: c.rate.previous, totals: c }));
  // A mover's base is at least MOVER_MIN_BASE a week: its relative change is never undefined.
  return moversBy(
    rates.filter((c) => c.totals.previous >= MOVER_MIN_BASE),
    { by: 'relative', direction: 'either', limit },
  ).map(({ totals: { rate, ...m }, current, previous }) => ({ ...m, change: relativeChange({ current, previous }) ?? 0 }));
}

/**
 * What a change of `figure` means, in words (the digest has no colour): `better` or `worse` by
 * FIGURE_MEANINGS, the table the report colours by; '' for no change or a figure judged neither way.
 */
export function judgement(figure: DigestFigure, current: number, previous: number): '' | 'better' | 'worse' {
  const tone = toneOf(current - previous, FIGURE_MEANINGS[figure]);
  return tone === 'good' ? 'better' : tone === 'bad' ? 'worse' : '';
}

/** `a`, `a or b`, `a, b and c`. */
function listed(words: readonly string[], last: 'and' | 'or'): string {
  return words.length < 2 ? words.join('') : `${words.slice(0, -1).join(', ')} ${last} ${words[words.length - 1]}`;
}

/** The line under the headline table saying what `better` and `worse` mean, from the same table. */
function judgementNote(): string {
  const labels = (meaning: Meaning) => DIGEST_FIGURES.filter((f) => FIGURE_MEANINGS[f.key] === meaning).map((f) => f.sentenceLabel);
  const neutral = labels('neutral');
  const unjudged = neutral.length === 0 ? '' : `; ${listed(neutral, 'and')} ${neutral.length === 1 ? 'is' : 'are'} not judged`;
  return `better / worse: by what the figure means (more ${listed(labels('more-is-bad'), 'or')} is worse)${unjudged}.`;
}

/** Units (day × dataset × project) of the week that are not complete, or complete with drift. */
export function healthCounts(figures: Figures): HealthCounts {
  const counts = { drift: 0, expired: 0, partial: 0, missing: 0, failed: 0 };
  for (const cell of figures.health) {
    // A provisional unit (exported before its day was due) is complete for the week's figures.
    for (const project of cell.projects) if (project.state !== 'complete' && project.state !== 'provisional') counts[project.state] += 1;
  }
  return counts;
}

/** A figure of both weeks as they compare: the totals, each week's figure per exported day, or the period's total alone. */
interface Compared {
  readonly comparison: Comparison;
  readonly current: number;
  /** null: not compared. */
  readonly previous: number | null;
}

function comparedOf(headlines: Figures['headline'], key: DigestFigure): Compared {
  const comparison = comparisonFor(headlines, FIGURE_DATASET[key]);
  const { current, previous } = headlines;
  if (comparison === 'totals') return { comparison, current: current[key], previous: previous[key] };
  const now = current.perDay[key];
  const before = previous.perDay[key];
  if (comparison === 'per-day' && now !== null && before !== null) return { comparison, current: now, previous: before };
  return { comparison: 'none', current: current[key], previous: null };
}

/** `6,912.4/day` of a per-day figure (one decimal at most), the count of a total. */
function countOf(value: number, comparison: Comparison): string {
  return comparison === 'per-day' ? `${formatCount(value, { oneDecimal: true })}/day` : formatCount(value);
}

/** The change of a compared figure: `+12 %`, `new` from 0 (totals only), '' when not compared. */
function changeOf(compared: Compared): string {
  if (compared.previous === null) return '';
  if (compared.comparison === 'per-day' && compared.previous === 0) return '';
  return formatChange(compared.current, compared.previous, ASCII_MINUS);
}

/** `human visitors 1,300 (+29 %)`, `(+3 % per day)` where only days compare, no change where nothing does. */
function subjectPart(name: string, total: number, compared: Compared): string {
  const change = changeOf(compared);
  if (change === '') return `${name} ${formatCount(total)}`;
  return `${name} ${formatCount(total)} (${change}${compared.comparison === 'per-day' ? ' per day' : ''})`;
}

/** Why some figures are compared per day or not at all, in one line per story; none when every figure compares as totals. */
function coverageLines(figures: Figures): string[] {
  const percent = Math.round((100 * MIN_COVERAGE.exported) / MIN_COVERAGE.of);
  const unit = figures.projects.length > 1 ? 'project-day(s)' : 'day(s)';
  const lines: string[] = [];
  const told = new Set<string>();
  for (const { key, label } of DIGEST_FIGURES) {
    const dataset = FIGURE_DATASET[key];
    const comparison = comparisonFor(figures.headline, dataset);
    if (comparison === 'totals' || told.has(dataset)) continue;
    told.add(dataset);
    const { current, previous } = figures.headline;
    const how = comparison === 'per-day' ? 'per day (/day), not as totals' : 'not compared';
    lines.push(
      `${label} and the other ${dataset} figures: ${how} — this period has ${current.coverage[dataset].exported} of ${current.coverage[dataset].days} ${unit} exported, the one before ${previous.coverage[dataset].exported} of ${previous.coverage[dataset].days} (totals are compared only when both have at least ${percent} %).`,
    );
  }
  return lines;
}

/**
 * Which days each week's per-day figures left out, per dataset and why (`2026-11-20 missing`,
 * `2026-11-14 expired (retention)`), one line per story; none when every day is exported.
 */
function leftOutLines(figures: Figures): string[] {
  const stories = new Map<string, ReportDataset[]>();
  for (const dataset of REPORT_DATASETS) {
    const { leftOut } = figures.comparisons[dataset];
    if (leftOut.current.length + leftOut.previous.length === 0) continue;
    const story = [
      ...(leftOut.current.length > 0 ? [`this period ${describeLeftOut(leftOut.current)}`] : []),
      ...(leftOut.previous.length > 0 ? [`the one before ${describeLeftOut(leftOut.previous)}`] : []),
    ].join('; ');
    stories.set(story, [...(stories.get(story) ?? []), dataset]);
  }
  return [...stories].map(([story, datasets]) => `  Per-day figures and movers of ${datasets.join(', ')} leave out ${story}.`);
}

/** The digest: subject (< 100 characters, the headline change) and plain-text body. */
export function digestOf(input: DigestInput): InsightMessage {
  const { figures, week } = input;
  const { current } = figures.headline;
  const last = figures.period.days[figures.period.days.length - 1] ?? figures.period.from;
  const previousLast = figures.previous.days[figures.previous.days.length - 1] ?? figures.previous.from;
  const label = (key: DigestFigure) => DIGEST_FIGURES.find((f) => f.key === key)?.label ?? key;
  const width = Math.max(...DIGEST_FIGURES.map((f) => f.label.length));
  const health = healthCounts(figures);
  const movers = digestMovers(figures);
  const projects = figures.projects.length;
  const columns = figures.period.days.length === 7 ? (['This week', 'Last week'] as const) : (['This period', 'Before'] as const);

  const lines = [
    `Docs analytics, ${week}: ${figures.period.from} to ${last} (UTC), against ${figures.previous.from} to ${previousLast}.`,
    `${projects} project${projects === 1 ? '' : 's'}: ${figures.projects.join(', ')}.`,
    '',
    `${'Figure'.padEnd(width)}  ${columns[0].padStart(11)}  ${columns[1].padStart(11)}  Change`,
    ...DIGEST_FIGURES.map(({ key, label: name }) => {
      const compared = comparedOf(figures.headline, key);
      const change = changeOf(compared);
      // Judged only where the totals compare: never better or worse from a barely exported week.
      // And only beyond chance at its counts (warehouse/noise.ts).
      const word =
        compared.comparison === 'totals' && compared.previous !== null && changeBeyondChance(figures.headline.current, figures.headline.previous, key)
          ? judgement(key, compared.current, compared.previous)
          : '';
      const before = compared.previous === null ? '—' : countOf(compared.previous, compared.comparison);
      const cells = `${name.padEnd(width)}  ${countOf(compared.current, compared.comparison).padStart(11)}  ${before.padStart(11)}  `;
      return (word === '' ? `${cells}${change}` : `${cells}${change.padEnd(CHANGE_WIDTH)}  ${word}`).trimEnd();
    }),
    judgementNote(),
    ...coverageLines(figures),
    '',
    'Biggest movers:',
    ...(movers.length === 0
      ? [`  none (no project's figure of at least ${MOVER_MIN_BASE} last week changed beyond chance at its counts)`]
      : movers.map((m) => {
          const word = judgement(m.figure, m.current, m.previous);
          const [now, before] = m.days === undefined ? [m.current, m.previous] : [m.current / m.days.current, m.previous / m.days.previous];
          const change = formatChange(now, before, ASCII_MINUS);
          const figures =
            m.days === undefined
              ? `${formatCount(m.previous)} -> ${formatCount(m.current)}`
              : `${formatCount(m.previous / m.days.previous, { oneDecimal: true })}/day -> ${formatCount(m.current / m.days.current, { oneDecimal: true })}/day (${m.days.previous} and ${m.days.current} day(s) exported)`;
          return `  ${m.projectId}: ${label(m.figure).toLowerCase()} ${figures} (${change}${word === '' ? '' : `, ${word}`})`;
        })),
    '',
    'Data health (units of the week, day x dataset x project):',
    `  missing ${health.missing}, failed ${health.failed}, partial ${health.partial}, drifted ${health.drift}${health.expired > 0 ? `, expired (retention) ${health.expired}` : ''}`,
    ...(health.expired > 0
      ? ['  Expired (retention): days past PERSONAL_DATA_RETENTION_DAYS, deleted and never exported again; their figures are left out.']
      : []),
    ...leftOutLines(figures),
    ...(health.missing + health.failed + health.partial > 0
      ? ['  Figures of days with missing or failed units are incomplete: see the calendar in the report, or run mintlify-exporter status.']
      : []),
    ...(figures.unreadableFiles.length > 0
      ? [
          `  unreadable Parquet files left out of the figures (${figures.unreadableFiles.length}):`,
          ...figures.unreadableFiles.map((file) => `    ${file}`),
          '  Export their days again with --force to replace them.',
        ]
      : []),
    ...verdictLines(input.fixes ?? []),
    ...scopeLines(input.scope ?? []),
    '',
    ...(input.link
      ? [`The report: ${input.link.url}`, `(the link works until ${input.link.expiresAt}; the page stays in the bucket under reports/)`]
      : [
          `The report: ${input.place ?? 'in the bucket under reports/'}`,
          '(no link: the deployment has no report distribution; deploy with context reportLinkPublicKey, docs/deploy.md)',
        ]),
  ];
  return {
    kind: 'weekly-report',
    subject: `Docs ${week}: ${subjectPart(FIGURES.human.sentenceLabel, current.human, comparedOf(figures.headline, 'human'))}, ${subjectPart('views', current.views, comparedOf(figures.headline, 'views'))}`,
    body: lines.join('\n'),
  };
}
