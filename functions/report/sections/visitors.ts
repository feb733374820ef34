/** Human and AI visitors per day, the previous period as faint lines beside them. */
import { type ChartMark, COLORS, isDrawn, lineChart, type LineSeries } from '../charts.js';
import type { Figures } from '../figures.js';
import { chart, empty, note, section } from '../page/parts.js';
import { html, type SafeHtml } from '../page/template.js';
import { FIGURE_LABEL } from '../../warehouse/figure-names.js';

export function visitorsSection(figures: Figures): SafeHtml {
  const days = figures.visitorsPerDay;
  const before = figures.previousVisitorsPerDay;
  const previousLines: LineSeries[] = [
    { name: 'Human, previous period', color: COLORS.human, values: before.map((d) => d.human), faint: true },
    { name: 'AI, previous period', color: COLORS.ai, values: before.map((d) => d.ai), faint: true },
  ];
  // A previous period with no two neighbouring days draws no line: neither drawn nor named.
  const hasBefore = previousLines.some((line) => isDrawn(line, days.length));
  const body = days.some((d) => d.human !== null)
    ? html`${chart(
        lineChart(
          days.map((d) => d.day.slice(5)),
          [
            { name: FIGURE_LABEL.human, color: COLORS.human, values: days.map((d) => d.human) },
            { name: FIGURE_LABEL.ai, color: COLORS.ai, values: days.map((d) => d.ai) },
            ...previousLines,
          ],
          320,
          // Each pull request merged in the period (followup_outcomes `merged_at`): a dotted line on its day.
          mergeMarks(figures),
        ),
        'Human and AI visitors per day',
      )}${hasBefore ? note('Dashed: the same weekday position in the previous period.') : ''}${gapNote(figures)}`
    : empty('No visitors data was exported for this period.');
  return section(
    'visitors',
    'Human and AI visitors per day',
    'A dip on one day that the previous period does not show is worth a look at that day’s release or outage.',
    body,
  );
}

/** One mark per day a fix's pull request was merged: `merged` (`merged ×2` for two). */
function mergeMarks(figures: Figures): ChartMark[] {
  const byDay = new Map<string, number>();
  for (const merge of figures.merges) byDay.set(merge.day, (byDay.get(merge.day) ?? 0) + 1);
  return [...byDay].map(([day, n]) => ({ category: day.slice(5), label: n === 1 ? 'merged' : `merged ×${n}` }));
}

function gapNote(figures: Figures): SafeHtml | '' {
  const gaps = figures.visitorsPerDay.filter((d) => d.human === null).map((d) => d.day);
  if (gaps.length === 0) return '';
  const named = gaps.length > 6 ? `${gaps.slice(0, 6).join(', ')} and ${gaps.length - 6} more` : gaps.join(', ');
  return note(`No visitors data for ${named}: the lines break there (see Export health).`);
}
