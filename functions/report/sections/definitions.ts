/**
 * How each figure on the page is counted: one footnote per figure, linked from where it is shown
 * (no hover needed); a figure of the table of figures (warehouse/figure-names.ts) is titled by it.
 */
import { html, type SafeHtml } from '../page/template.js';
import { FIGURE_LABEL, FIGURES } from '../../warehouse/figure-names.js';

export const DEFINITIONS = {
  human: [
    FIGURE_LABEL.human,
    "The API's unique human visitors of each day (visitors_totals.human), summed over the days and projects: a person who came on three days counts three times. Pages are never summed into it.",
  ],
  ai: [FIGURE_LABEL.ai, "The API's unique AI visitors (crawlers, assistants) of each day (visitors_totals.ai), summed like human visitors."],
  aiShare: [FIGURES.aiShare.term, 'AI visitors ÷ (human + AI visitors).'],
  visitorsTotal: [
    'Visitors (deduplicated)',
    "visitors_totals.total as the API sends it: a visitor seen as both human and AI is counted once, so it can be less than human + AI. The report's own visitor figures are human and AI.",
  ],
  views: [FIGURE_LABEL.views, "views_totals.total of each day, summed: the API's own total of the site's page views."],
  pageViews: [
    'Views of a page',
    "views_pages.total of the page, summed over the days: the API's total of its views; human and AI are its two kinds as the API counts them.",
  ],
  searches: [FIGURE_LABEL.searches, 'searches_totals.total_searches of each day, summed.'],
  questions: [FIGURE_LABEL.questions, 'Rows of assistant_conversations: each question asked of the assistant.'],
  unansweredShare: [FIGURE_LABEL.unansweredShare, "Questions with resolution_status = 'unanswered' ÷ all questions."],
  unanswered: [FIGURE_LABEL.unanswered, "Questions with resolution_status = 'unanswered', by the category the service gave them."],
  thumbsDown: [FIGURE_LABEL.thumbsDown, 'Feedback items with helpful = false, from every item exported (feedback_by_page keeps at most 100 pages a day).'],
  thumbsDownRate: ['Thumbs-down rate', "A page's thumbs down ÷ (thumbs down + thumbs up) in the period."],
  unclicked: [
    FIGURE_LABEL.searchesWithoutClick,
    'Terms (case-insensitively) whose results were never clicked on any day of the period — no day has a top clicked page — by how often they were searched; days = days the term was searched.',
  ],
  change: [
    'Change',
    'Against the previous period, as long as this one and ending where it starts; "new": not there before. Shown only where both periods have at least 80 % of their days exported for the figure\'s dataset; otherwise blank (the section says why).',
  ],
  requests: ['API requests', 'Analytics requests the export runs spent (export_runs.requests), by the UTC day each run started.'],
} as const satisfies Record<string, readonly [string, string]>;

export type DefinitionId = keyof typeof DEFINITIONS;

export function definitionText(id: DefinitionId): string {
  return DEFINITIONS[id][1];
}

export function definitionsSection(): SafeHtml {
  return html`<section id="definitions"><h2>How each figure is counted</h2><dl class="definitions">${Object.entries(DEFINITIONS).map(
    ([id, [title, text]]) => html`<dt id="def-${id}">${title}</dt><dd>${text}</dd>`,
  )}</dl><p class="note">Every number is read from the Parquet warehouse by the questions in <code>queries/</code> (the same SQL as the Athena saved queries); the report sent no API request.</p></section>`;
}
