/**
 * The table of what a day costs, per dataset, of docs/configuration.md, generated from the
 * dataset catalog (functions/warehouse/catalog.ts): the requests a day needs (rows in pages of
 * the endpoint's largest `limit`, or one request) and the typical day a unit is estimated at
 * when nothing of its dataset was exported yet — a guess, said so.
 */
import { CATALOG, typicalPagesPerDay, type DatasetName } from '../functions/warehouse/catalog.js';
import { blockMarkers, withBlock } from './generated-block.js';

export const COST_MARKERS = blockMarkers('cost-reference', 'functions/warehouse/catalog.ts');

/** What a row of each dataset is, in the table's words (plural). */
const ROWS: Readonly<Record<DatasetName, string>> = {
  visitors: 'paths visited',
  views: 'paths viewed',
  searches: 'search terms',
  feedback: 'feedback items',
  feedback_by_page: 'pages with feedback',
  assistant: 'assistant turns',
  caller_stats: 'row of totals',
};

/** The Markdown table: one row per dataset, then a typical day of all of them. */
export function costReference(): string {
  const rows = CATALOG.map((entry) => {
    const requests = entry.paging === 'single' || entry.maxLimit === undefined ? '1' : `⌈${ROWS[entry.name]} / ${entry.maxLimit}⌉`;
    return `| \`${entry.name}\` | ${requests} | ${entry.typicalRowsPerDay.toLocaleString('en-US')} ${ROWS[entry.name]} | ${typicalPagesPerDay(entry)} |`;
  });
  const total = CATALOG.reduce((sum, entry) => sum + typicalPagesPerDay(entry), 0);
  return [
    '| dataset | requests a day (each at least 1) | a typical day (a guess) | its requests |',
    '|---|---|---|---|',
    ...rows,
    `| every dataset | | | ${total} |`,
  ].join('\n');
}

/** docs/configuration.md with its table of what a day costs regenerated. */
export function withCostReference(doc: string): string {
  return withBlock(doc, COST_MARKERS, costReference());
}
