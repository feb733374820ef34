/**
 * The weekly digest: the message published with the weekly report, made from the report's own
 * figures (functions/report/figures.ts: the same numbers the page shows) — a subject with the
 * headline change, then a plain-text body: the headline figures (this week, last week, change,
 * and whether the change is better or worse by the figure's meaning, as the page colours it),
 * the biggest movers per project, data health and the link to the page.
 */
import { formatChange, formatCount } from '../../shared/format.js';
import { moversBy, relativeChange } from '../../warehouse/compare.js';
import { FIGURE_MEANINGS, type Meaning, toneOf } from '../../warehouse/figure-names.js';
import type { PageLink } from './link.js';
import type { Figures, Headline, HealthState } from '../../report/figures.js';
import type { InsightMessage } from '../publish.js';

/** The figures of the headline, in the order the body lists them. */
export const DIGEST_FIGURES = [
  { key: 'human', label: 'Human visitors' },
  { key: 'ai', label: 'AI visitors' },
  { key: 'views', label: 'Page views' },
  { key: 'searches', label: 'Searches' },
  { key: 'questions', label: 'Assistant questions' },
  { key: 'unanswered', label: 'Unanswered questions' },
  { key: 'thumbsDown', label: 'Thumbs down' },
] as const satisfies readonly { key: keyof Headline; label: string }[];

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
  /** current ÷ previous − 1. */
  readonly change: number;
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
}

/** The digest writes plain text: its changes take the ASCII minus, as it writes `->` and `x` (the page writes `−`). */
const ASCII_MINUS = '-';

/**
 * The projects' figures that moved most (relative change, either way), over a base large enough
 * to mean something: warehouse/compare.ts's rule with the digest's parameters.
 */
export function digestMovers(figures: Figures, limit = MOVERS): Mover[] {
  const changes = figures.byProject.flatMap((project) =>
    DIGEST_FIGURES.map(({ key }) => ({ projectId: project.projectId, figure: key, current: project.current[key], previous: project.previous[key] })),
  );
  // A mover's base is at least MOVER_MIN_BASE: its relative change is never undefined.
  return moversBy(changes, { by: 'relative', direction: 'either', minBase: MOVER_MIN_BASE, limit }).map((m) => ({ ...m, change: relativeChange(m) ?? 0 }));
}

/**
 * What a change of `figure` means, in words (the digest has no colour): `better` or `worse` by
 * FIGURE_MEANINGS, the table the report colours by; '' for no change or a figure judged neither way.
 */
export function judgement(figure: DigestFigure, current: number, previous: number): '' | 'better' | 'worse' {
  const tone = toneOf(current - previous, FIGURE_MEANINGS[figure]);
  return tone === 'good' ? 'better' : tone === 'bad' ? 'worse' : '';
}

/** A label inside a sentence: `searches`, `AI visitors` (an acronym keeps its capitals). */
function inSentence(label: string): string {
  return /^.[A-Z]/.test(label) ? label : `${label.charAt(0).toLowerCase()}${label.slice(1)}`;
}

/** `a`, `a or b`, `a, b and c`. */
function listed(words: readonly string[], last: 'and' | 'or'): string {
  return words.length < 2 ? words.join('') : `${words.slice(0, -1).join(', ')} ${last} ${words[words.length - 1]}`;
}

/** The line under the headline table saying what `better` and `worse` mean, from the same table. */
function judgementNote(): string {
  const labels = (meaning: Meaning) => DIGEST_FIGURES.filter((f) => FIGURE_MEANINGS[f.key] === meaning).map((f) => inSentence(f.label));
  const neutral = labels('neutral');
  const unjudged = neutral.length === 0 ? '' : `; ${listed(neutral, 'and')} ${neutral.length === 1 ? 'is' : 'are'} not judged`;
  return `better / worse: by what the figure means (more ${listed(labels('more-is-bad'), 'or')} is worse)${unjudged}.`;
}

/** Units (day × dataset × project) of the week that are not complete, or complete with drift. */
export function healthCounts(figures: Figures): HealthCounts {
  const counts = { drift: 0, partial: 0, missing: 0, failed: 0 };
  for (const cell of figures.health) {
    // A provisional unit (exported before its day was due) is complete for the week's figures.
    for (const project of cell.projects) if (project.state !== 'complete' && project.state !== 'provisional') counts[project.state] += 1;
  }
  return counts;
}

/** The digest: subject (< 100 characters, the headline change) and plain-text body. */
export function digestOf(input: DigestInput): InsightMessage {
  const { figures, week } = input;
  const { current, previous } = figures.headline;
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
      const change = formatChange(current[key], previous[key], ASCII_MINUS);
      const word = judgement(key, current[key], previous[key]);
      const cells = `${name.padEnd(width)}  ${formatCount(current[key]).padStart(11)}  ${formatCount(previous[key]).padStart(11)}  `;
      return word === '' ? `${cells}${change}` : `${cells}${change.padEnd(CHANGE_WIDTH)}  ${word}`;
    }),
    judgementNote(),
    '',
    'Biggest movers:',
    ...(movers.length === 0
      ? [`  none (no project's figure of at least ${MOVER_MIN_BASE} last week changed)`]
      : movers.map((m) => {
          const word = judgement(m.figure, m.current, m.previous);
          return `  ${m.projectId}: ${label(m.figure).toLowerCase()} ${formatCount(m.previous)} -> ${formatCount(m.current)} (${formatChange(m.current, m.previous, ASCII_MINUS)}${word === '' ? '' : `, ${word}`})`;
        })),
    '',
    'Data health (units of the week, day x dataset x project):',
    `  missing ${health.missing}, failed ${health.failed}, partial ${health.partial}, drifted ${health.drift}`,
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
    subject: `Docs ${week}: human visitors ${formatCount(current.human)} (${formatChange(current.human, previous.human, ASCII_MINUS)}), views ${formatCount(current.views)} (${formatChange(current.views, previous.views, ASCII_MINUS)})`,
    body: lines.join('\n'),
  };
}
