/**
 * The weekly digest: the message published with the weekly report, made from the report's own
 * figures (functions/report/figures.ts: the same numbers the page shows) — a subject with the
 * headline change, then a plain-text body: the headline figures (this week, last week, change),
 * the biggest movers per project, data health and the link to the page.
 */
import { formatChange as formatPercentChange, formatCount } from '../../shared/format.js';
import { moversBy, relativeChange } from '../../warehouse/compare.js';
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

/**
 * `+12 %`, `-40 %`, `new` (from 0), `0 %`: shared/format.ts's change with the ASCII minus, as
 * the rest of the plain-text digest writes `->` and `x` (the page writes `−`).
 */
export function formatChange(current: number, previous: number): string {
  return formatPercentChange(current, previous, '-');
}

/**
 * The projects' figures that moved most (relative change, either way), over a base large enough
 * to mean something: warehouse/compare.ts's rule with the digest's parameters.
 */
export function moversOf(figures: Figures, limit = MOVERS): Mover[] {
  const changes = figures.byProject.flatMap((project) =>
    DIGEST_FIGURES.map(({ key }) => ({ projectId: project.projectId, figure: key, current: project.current[key], previous: project.previous[key] })),
  );
  // A mover's base is at least MOVER_MIN_BASE: its relative change is never undefined.
  return moversBy(changes, { by: 'relative', direction: 'either', minBase: MOVER_MIN_BASE, limit }).map((m) => ({ ...m, change: relativeChange(m) ?? 0 }));
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
  const movers = moversOf(figures);
  const projects = figures.projects.length;
  const columns = figures.period.days.length === 7 ? (['This week', 'Last week'] as const) : (['This period', 'Before'] as const);

  const lines = [
    `Docs analytics, ${week}: ${figures.period.from} to ${last} (UTC), against ${figures.previous.from} to ${previousLast}.`,
    `${projects} project${projects === 1 ? '' : 's'}: ${figures.projects.join(', ')}.`,
    '',
    `${'Figure'.padEnd(width)}  ${columns[0].padStart(11)}  ${columns[1].padStart(11)}  Change`,
    ...DIGEST_FIGURES.map(
      ({ key, label: name }) =>
        `${name.padEnd(width)}  ${formatCount(current[key]).padStart(11)}  ${formatCount(previous[key]).padStart(11)}  ${formatChange(current[key], previous[key])}`,
    ),
    '',
    'Biggest movers:',
    ...(movers.length === 0
      ? [`  none (no project's figure of at least ${MOVER_MIN_BASE} last week changed)`]
      : movers.map(
          (m) =>
            `  ${m.projectId}: ${label(m.figure).toLowerCase()} ${formatCount(m.previous)} -> ${formatCount(m.current)} (${formatChange(m.current, m.previous)})`,
        )),
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
    subject: `Docs ${week}: human visitors ${formatCount(current.human)} (${formatChange(current.human, previous.human)}), views ${formatCount(current.views)} (${formatChange(current.views, previous.views)})`,
    body: lines.join('\n'),
  };
}
