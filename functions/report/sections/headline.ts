/**
 * The period at a glance: eight cards, each with its change against the previous period when
 * its dataset's periods compare (warehouse/compare.ts): totals when both are covered, per day
 * (uncoloured, marked so) when one is not, nothing when one has no day of it.
 */
import type { Comparison } from '../../warehouse/compare.js';
import { changeBeyondChance, type Figures } from '../figures.js';
import { type CountFigure, COUNT_FIGURES, type Headline, hasData, REPORT_DATASETS, type ReportDataset } from '../headline.js';
import { FIGURE_DATASET } from '../../warehouse/figure-names.js';
import { formatCount, formatShare, signed } from '../../shared/format.js';
import { lastDayOf } from '../../warehouse/period.js';
import { defined, note, section } from '../page/parts.js';
import { html, type SafeHtml } from '../page/template.js';
import { comparisonNotes, DATASET_WORDS } from './comparison.js';
import { definitionText, type DefinitionId } from './definitions.js';
import { FIGURE_LABEL, FIGURE_MEANINGS, FIGURES, toneOf } from '../../warehouse/figure-names.js';

export interface Metric {
  readonly key: keyof Headline & DefinitionId;
  readonly title: string;
  readonly kind: 'count' | 'share';
}

/** The headline's cards, in order: each a figure of the table of figures (warehouse/figure-names.ts), titled by its label. */
export const METRICS: readonly Metric[] = (['human', 'ai', 'aiShare', 'views', 'searches', 'questions', 'unansweredShare', 'thumbsDown'] as const).map(
  (key) => ({ key, title: FIGURE_LABEL[key], kind: FIGURES[key].kind }),
);

export function metricValue(headline: Headline, metric: Metric): string {
  const value = headline[metric.key] as number | null;
  return metric.kind === 'share' ? formatShare(value) : formatCount(value ?? 0);
}

const isCount = (key: Metric['key']): key is CountFigure => (COUNT_FIGURES as readonly string[]).includes(key);

/** `+1,234 (+5.2 %) vs 23,456`; per day (`per day: 6,912 vs 6,850 (+0.9 %)`, never coloured) when the periods compare only so. */
function change(
  current: Headline,
  previous: Headline,
  metric: Metric,
  comparison: Comparison,
): { text: string; tone: 'good' | 'bad' | 'flat'; perDay: boolean } | undefined {
  if (comparison === 'none') return undefined;
  if (comparison === 'per-day') {
    if (!isCount(metric.key)) {
      // A share is a ratio, comparable whatever the days: shown, never coloured from a barely covered period.
      const text = change(current, previous, metric, 'totals')?.text;
      return text === undefined ? undefined : { text, tone: 'flat', perDay: true };
    }
    const now = current.perDay[metric.key];
    const before = previous.perDay[metric.key];
    if (now === null || before === null) return undefined;
    const delta = now - before;
    const relative = before === 0 ? '' : ` (${signed(delta, `${((delta / before) * 100).toFixed(1)} %`)})`;
    const perDay = (value: number) => formatCount(value, { oneDecimal: true });
    return { text: `per day: ${perDay(now)} vs ${perDay(before)}${relative}`, tone: 'flat', perDay: true };
  }
  const now = current[metric.key] as number | null;
  const before = previous[metric.key] as number | null;
  if (now === null || before === null) return { text: `previous: ${metricValue(previous, metric)}`, tone: 'flat', perDay: false };
  const delta = now - before;
  // Coloured by what a rise of the figure means (FIGURE_MEANINGS, the table the digest words by),
  // and only when the change is beyond chance at its counts (warehouse/noise.ts).
  const tone = changeBeyondChance(current, previous, metric.key) ? toneOf(delta, FIGURE_MEANINGS[metric.key]) : 'flat';
  if (metric.kind === 'share') return { text: `${signed(delta, `${(delta * 100).toFixed(1)} pts`)} vs ${formatShare(before)}`, tone, perDay: false };
  const relative = before === 0 ? '' : ` (${signed(delta, `${((delta / before) * 100).toFixed(1)} %`)})`;
  return { text: `${signed(delta, formatCount(Math.abs(delta)))}${relative} vs ${formatCount(before)}`, tone, perDay: false };
}

/** How the datasets retention deleted days of cover the period: ` Searches and feedback cover 19 of the 30 day(s): 11 expired (retention) …`; '' when none expired. */
export function expiredNote(figures: Figures): string {
  const total = figures.period.days.length;
  const stories = new Map<number, ReportDataset[]>();
  for (const dataset of REPORT_DATASETS) {
    const expired = figures.comparisons[dataset].leftOut.current.filter((d) => d.state === 'expired').length;
    if (expired > 0) stories.set(expired, [...(stories.get(expired) ?? []), dataset]);
  }
  return [...stories]
    .map(([expired, datasets]) => {
      const names = datasets.map((d) => DATASET_WORDS[d]);
      const listed = names.length < 2 ? names.join('') : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
      return ` ${listed.charAt(0).toUpperCase()}${listed.slice(1)} cover ${total - expired} of the ${total} day(s): ${expired} expired (retention), their personal data deleted after PERSONAL_DATA_RETENTION_DAYS; the figures above leave them out.`;
    })
    .join('');
}

export function headlineSection(figures: Figures, exportCommand?: (from: string, to: string) => string): SafeHtml {
  const { current, previous } = figures.headline;
  const compared = hasData(previous);
  const cards = METRICS.map((metric) => {
    const delta = compared ? change(current, previous, metric, figures.comparisons[FIGURE_DATASET[metric.key]].comparison) : undefined;
    return html`<div class="card" title="${definitionText(metric.key)}"><div class="label">${metric.title}${defined(metric.key)}</div><div class="value" data-figure="${metric.key}">${metricValue(current, metric)}</div>${
      delta
        ? html`<div class="delta ${delta.tone}${delta.perDay ? ' per-day' : ''}" data-comparison="${delta.perDay ? 'per-day' : 'totals'}">${delta.text}</div>`
        : ''
    }</div>`;
  });
  const before = `${figures.previous.from} to ${lastDayOf(figures.previous)}`;
  return section(
    'headline',
    'The period at a glance',
    undefined,
    html`<div class="cards">${cards}</div>${note(
      `${formatCount(current.unanswered)} of ${formatCount(current.questions)} assistant question(s) unanswered. Visitors data for ${current.daysWithData} of ${figures.period.days.length} day(s).${expiredNote(figures)} ${
        compared
          ? `Compared with ${before} (visitors data for ${previous.daysWithData} day(s)).`
          : `Nothing was exported for the ${figures.previous.days.length} day(s) before (${before}): the changes appear once those days are exported.`
      }`,
    )}${compared ? comparisonNotes(figures, [...new Set(METRICS.map((m) => FIGURE_DATASET[m.key]))], exportCommand) : ''}`,
  );
}
