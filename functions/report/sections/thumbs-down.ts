/** Pages with thumbs down (queries/pages-with-negative-feedback.sql): count, rate, the latest comments, what moved. */
import type { Figures } from '../figures.js';
import { daysExported } from '../figures-headline.js';
import { formatCount, formatShare } from '../../shared/format.js';
import { userText } from '../html.js';
import { bars, changeCell, empty, moversBlock, note, pageLink, section, table, type SectionContext } from '../page/parts.js';
import { html, type SafeHtml } from '../page/template.js';
import { comparisonNotes } from './comparison.js';
import { FIGURE_LABEL, FIGURE_MEANINGS, FIGURES } from '../../warehouse/figure-names.js';

export function thumbsDownSection(figures: Figures, context: SectionContext): SafeHtml {
  const pages = figures.thumbsDownPages;
  const label = (p: { projectId: string; path: string }) =>
    html`${pageLink(p.path, context, 70)}${context.many ? html` <span class="muted">(${p.projectId})</span>` : ''}`;
  const body =
    pages.length > 0
      ? html`${bars(
          'Pages with the most thumbs down',
          pages.map((p) => ({ label: label(p), value: p.thumbsDown, note: `${formatCount(p.thumbsDown)} · ${formatShare(p.rate)}` })),
          'bad',
        )}${table(
          'thumbs-down',
          [
            { title: 'Page' },
            { title: FIGURE_LABEL.thumbsDown, numeric: true, def: 'thumbsDown' },
            { title: 'Thumbs up', numeric: true },
            { title: 'Rate', numeric: true, def: 'thumbsDownRate' },
            { title: 'Change', numeric: true, def: 'change' },
            { title: 'Latest comments', wide: true },
          ],
          pages.map((p) => [
            label(p),
            formatCount(p.thumbsDown),
            formatCount(p.thumbsUp),
            formatShare(p.rate),
            changeCell(p.thumbsDown, p.previous, FIGURE_MEANINGS.thumbsDown, 'new', daysExported(figures, p.projectId, 'feedback')),
            p.comments.length > 0
              ? html`<ul class="comments">${p.comments.map((c) => html`<li class="quote">${userText(c, 200)}</li>`)}</ul>`
              : html`<span class="muted">none</span>`,
          ]),
        )}${moversBlock(figures.movers.thumbsDown, (m) => pageLink(m.label, context, 60), FIGURES.thumbsDown.sentenceLabel, FIGURE_MEANINGS.thumbsDown)}${note(
          'Counted from every feedback item (feedback, helpful = false), not from feedback_by_page, which holds at most 100 pages a day.',
        )}${comparisonNotes(figures, ['feedback'], context.exportCommand)}`
      : empty('No page got a thumbs down in this period (or no feedback was exported).');
  return section(
    'thumbs-down',
    'Pages with the most thumbs down',
    'Read the comments, fix what they point at, and watch the rate fall in the next report.',
    body,
  );
}
