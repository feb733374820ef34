/** Role: typed figures for the read side's unit tests — a headline of zeros over a week with data every day. */
import { COUNT_FIGURES, type Headline, REPORT_DATASETS } from '../../functions/report/headline.js';

/**
 * Every count 0, no shares, seven days of data, every dataset exported every day (its periods
 * compare as totals): tests spread the counts they need over it.
 */
export const ZERO_HEADLINE: Headline = {
  human: 0,
  ai: 0,
  aiShare: null,
  views: 0,
  searches: 0,
  questions: 0,
  unanswered: 0,
  unansweredShare: null,
  thumbsDown: 0,
  daysWithData: 7,
  coverage: Object.fromEntries(REPORT_DATASETS.map((dataset) => [dataset, { exported: 7, days: 7 }])) as unknown as Headline['coverage'],
  perDay: Object.fromEntries(COUNT_FIGURES.map((figure) => [figure, 0])) as unknown as Headline['perDay'],
};
