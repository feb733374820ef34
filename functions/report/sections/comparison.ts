/**
 * Why a section's figures are compared per day or not at all (warehouse/compare.ts's rule: totals
 * only where both periods have at least 80 % of their days exported for the dataset), in a
 * sentence with the `export` that fills the missing days.
 */
import type { Figures } from '../figures.js';
import { describeLeftOut } from '../coverage.js';
import { hasData, type ReportDataset } from '../headline.js';
import { MIN_COVERAGE } from '../../warehouse/compare.js';
import { lastDayOf } from '../../warehouse/period.js';
import { html, type SafeHtml } from '../page/template.js';
import { FIGURES } from '../../warehouse/figure-names.js';

/** `mintlify-exporter export --from … --to …`, when the caller does not word it (the deployment's weekly page). */
const plainExportCommand = (from: string, to: string): string => `mintlify-exporter export --from ${from} --to ${to}`;

/** How a sentence names each dataset's figures. */
export const DATASET_WORDS: Readonly<Record<ReportDataset, string>> = {
  visitors: 'visitors',
  views: FIGURES.views.sentenceLabel,
  searches: 'searches',
  assistant: FIGURES.questions.sentenceLabel,
  feedback: 'feedback',
};

/**
 * Why `datasets` are compared per day or not at all (warehouse/compare.ts's rule), and which
 * `export` fills what is missing: one sentence per story (datasets with the same coverage share
 * one); nothing when they compare as totals, or when nothing at all was exported before (the
 * headline says so).
 */
export function comparisonNotes(
  figures: Figures,
  datasets: readonly ReportDataset[],
  exportCommand: (from: string, to: string) => string = plainExportCommand,
): SafeHtml | '' {
  if (!hasData(figures.headline.previous)) return '';
  const leftOut = leftOutNote(figures, datasets);
  const stories = new Map<string, ReportDataset[]>();
  for (const dataset of datasets) {
    const { comparison, current, previous } = figures.comparisons[dataset];
    if (comparison === 'totals') continue;
    const key = `${comparison} ${current.exported}/${current.days} ${previous.exported}/${previous.days}`;
    stories.set(key, [...(stories.get(key) ?? []), dataset]);
  }
  if (stories.size === 0) return leftOut;
  const unit = figures.projects.length > 1 ? 'project-day(s)' : 'day(s)';
  const percent = Math.round((100 * MIN_COVERAGE.exported) / MIN_COVERAGE.of);
  const sentences = [...stories.values()].map((group) => {
    const first = figures.comparisons[group[0] as ReportDataset];
    const names = group.map((d) => DATASET_WORDS[d]);
    const listed = names.length < 2 ? names.join('') : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
    const how = first.comparison === 'per-day' ? 'compared per day, not as totals' : 'not compared';
    const fills = group.map((d) => figures.comparisons[d].fill).filter((f) => f !== undefined);
    const from = fills.map((f) => f.from).sort()[0];
    const to = fills
      .map((f) => f.to)
      .sort()
      .at(-1);
    const fill = from === undefined || to === undefined ? '' : html` <code>${exportCommand(from, to)}</code> fills the missing days.`;
    return html`<span data-comparison="${first.comparison}">${listed.charAt(0).toUpperCase()}${listed.slice(1)}: ${how}. This period has ${first.current.exported} of ${first.current.days} ${unit} exported and the ${figures.previous.days.length} day(s) before it (${figures.previous.from} to ${lastDayOf(figures.previous)}) have ${first.previous.exported} of ${first.previous.days}; totals are compared only when both have at least ${percent} %.${fill}</span>`;
  });
  return html`<p class="note comparison">${sentences.map((s, i) => (i === 0 ? s : html` ${s}`))}</p>${leftOut}`;
}

/**
 * Which days the per-day figures and movers of `datasets` leave out (a day some project has not
 * exported, or retention deleted), in one sentence per story; nothing when every day is there.
 */
export function leftOutNote(figures: Figures, datasets: readonly ReportDataset[]): SafeHtml | '' {
  const stories = new Map<string, ReportDataset[]>();
  for (const dataset of datasets) {
    const { current, previous } = figures.comparisons[dataset].leftOut;
    if (current.length + previous.length === 0) continue;
    const parts = [
      ...(current.length > 0 ? [`this period leaves out ${describeLeftOut(current)}`] : []),
      ...(previous.length > 0 ? [`the one before ${describeLeftOut(previous)}`] : []),
    ];
    const story = parts.join('; ');
    stories.set(story, [...(stories.get(story) ?? []), dataset]);
  }
  if (stories.size === 0) return '';
  const sentences = [...stories].map(([story, group]) => {
    const names = group.map((d) => DATASET_WORDS[d]);
    const listed = names.length < 2 ? names.join('') : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
    return `${listed.charAt(0).toUpperCase()}${listed.slice(1)}: changes and movers are per day exported; ${story}.`;
  });
  return html`<p class="note left-out">${sentences.join(' ')}</p>`;
}
