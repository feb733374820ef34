/** The most viewed pages, with their AI share and what moved. */
import type { Figures } from '../figures.js';
import { daysExported } from '../figures-headline.js';
import { formatCount, formatShare } from '../../shared/format.js';
import { bars, changeCell, empty, moversBlock, pageLink, section, table, type SectionContext } from '../page/parts.js';
import { html, type SafeHtml } from '../page/template.js';
import { comparisonNotes } from './comparison.js';
import { FIGURE_MEANINGS, FIGURES } from '../../warehouse/figure-names.js';

export function pagesSection(figures: Figures, context: SectionContext): SafeHtml {
  const pages = figures.topPages;
  const label = (p: { projectId: string; path: string }) =>
    html`${pageLink(p.path, context, 70)}${context.many ? html` <span class="muted">(${p.projectId})</span>` : ''}`;
  const body =
    pages.length > 0
      ? html`${bars(
          'Most viewed pages',
          pages.map((p) => ({ label: label(p), value: p.views, note: `${formatCount(p.views)} · ${formatShare(p.aiShare)} AI` })),
          'bar',
        )}${table(
          'top-pages',
          [
            { title: 'Page' },
            ...(context.many ? [{ title: 'Project' }] : []),
            { title: 'Views', numeric: true, def: 'pageViews' },
            { title: 'Human', numeric: true },
            { title: 'AI', numeric: true },
            { title: FIGURES.aiShare.term, numeric: true, def: 'aiShare' },
            { title: 'Change', numeric: true, def: 'change' },
          ],
          pages.map((p) => [
            pageLink(p.path, context),
            ...(context.many ? [p.projectId] : []),
            formatCount(p.views),
            formatCount(p.human),
            formatCount(p.ai),
            formatShare(p.aiShare),
            changeCell(p.views, p.previous, FIGURE_MEANINGS.views, 'new', daysExported(figures, p.projectId, 'views')),
          ]),
        )}${moversBlock(figures.movers.pages, (m) => pageLink(m.label, context, 60), 'views', FIGURE_MEANINGS.views)}${comparisonNotes(figures, ['views'], context.exportCommand)}`
      : empty('No page views were exported for this period.');
  return section(
    'pages',
    'Most viewed pages, with their AI share',
    'Keep these pages current first: they are what most readers see. A rising page may need a link from the navigation.',
    body,
  );
}
