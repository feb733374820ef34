/** Role: typed figures for the read side's unit tests — a headline of zeros over a week with data every day. */
import type { Headline } from '../../functions/report/figures.js';

/** Every count 0, no shares, seven days of data: tests spread the counts they need over it. */
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
};
