/** Searches nobody clicked (queries/searches-without-clicks.sql), with what moved. */
import type { Figures } from '../figures.js';
import { daysExported } from '../figures-headline.js';
import { formatCount } from '../../shared/format.js';
import { userText } from '../html.js';
import { changeCell, empty, moversBlock, section, table } from '../page/parts.js';
import { html, type SafeHtml } from '../page/template.js';
import { comparisonNotes } from './comparison.js';
import type { SectionContext } from '../page/parts.js';
import { FIGURE_LABEL, FIGURE_MEANINGS } from '../../warehouse/figure-names.js';

export function searchesSection(figures: Figures, context: SectionContext): SafeHtml {
  const searches = figures.unclickedSearches;
  const body =
    searches.length > 0
      ? html`${table(
          'unclicked',
          [
            { title: 'Search' },
            ...(context.many ? [{ title: 'Project' }] : []),
            { title: FIGURE_LABEL.searches, numeric: true, def: 'unclicked' },
            { title: 'Days searched', numeric: true },
            { title: 'Change', numeric: true, def: 'change' },
          ],
          searches.map((s) => [
            html`<span class="term">${userText(s.query, 90)}</span>`,
            ...(context.many ? [s.projectId] : []),
            formatCount(s.hits),
            formatCount(s.days),
            changeCell(
              s.hits,
              s.previous,
              FIGURE_MEANINGS.searchesWithoutClick,
              s.clickedBefore ? 'no longer clicked' : s.searchedBefore ? undefined : 'new',
              daysExported(figures, s.projectId, 'searches'),
            ),
          ]),
        )}${moversBlock(figures.movers.searches, (m) => userText(m.label, 60), 'searches', FIGURE_MEANINGS.searchesWithoutClick, 'No longer clicked')}${comparisonNotes(figures, ['searches'], context.exportCommand)}`
      : empty('Every search of this period had a result clicked (or no search was exported).');
  return section(
    'searches',
    'Searches nobody clicked a result for',
    'Each term is a page to write, a synonym to add to a page’s keywords, or a redirect to set up.',
    body,
  );
}
