/** Unanswered assistant questions by category (queries/unanswered-assistant-questions.sql), with examples and what moved. */
import type { Figures } from '../figures.js';
import { daysExported } from '../figures-headline.js';
import { formatCount } from '../../shared/format.js';
import { userText } from '../html.js';
import { bars, changeCell, empty, moversBlock, section, table, type SectionContext } from '../page/parts.js';
import { html, type SafeHtml } from '../page/template.js';
import { comparisonNotes } from './comparison.js';
import { FIGURE_MEANINGS } from '../../warehouse/figure-names.js';

const categoryLabel = (category: string) => (category === '' ? '(no category)' : userText(category, 60));

export function assistantSection(figures: Figures, context: SectionContext): SafeHtml {
  const categories = figures.unansweredByCategory;
  const name = (c: { projectId: string; category: string }) => `${categoryLabel(c.category)}${context.many ? ` (${c.projectId})` : ''}`;
  const body =
    categories.length > 0
      ? html`${bars(
          'Unanswered questions by category',
          categories.map((c) => ({ label: name(c), value: c.unanswered, note: formatCount(c.unanswered) })),
          'ai',
        )}${table(
          'unanswered',
          [{ title: 'Category' }, { title: 'Unanswered', numeric: true, def: 'unanswered' }, { title: 'Change', numeric: true, def: 'change' }],
          categories.map((c) => [
            name(c),
            formatCount(c.unanswered),
            changeCell(c.unanswered, c.previous, FIGURE_MEANINGS.unanswered, 'new', daysExported(figures, c.projectId, 'assistant')),
          ]),
        )}<h3>Examples (the latest questions of each category)</h3><ul class="examples">${categories
          .slice(0, 6)
          .map(
            (c) => html`<li><strong>${name(c)}</strong><ul>${c.examples.map((q) => html`<li class="quote">${userText(q)}</li>`)}</ul></li>`,
          )}</ul>${moversBlock(figures.movers.categories, (m) => `${categoryLabel(m.label)}${context.many ? ` (${m.projectId})` : ''}`, 'unanswered', FIGURE_MEANINGS.unanswered)}${comparisonNotes(figures, ['assistant'], context.exportCommand)}`
      : empty('The assistant answered every question of this period (or no conversation was exported).');
  return section(
    'assistant',
    'Questions the assistant could not answer, by category',
    'Each category is a topic the docs do not cover well enough: write or extend the page its examples ask about.',
    body,
  );
}
