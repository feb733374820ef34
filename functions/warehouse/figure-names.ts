/**
 * The five figures an anomaly is judged on, their datasets and how messages name them: a module
 * of names only, so `status` and the infra read them without loading DuckDB.
 */
import type { DatasetName } from './catalog.js';

/** The figures compared, in the order messages list them. */
export const FIGURE_NAMES = ['human', 'views', 'searches', 'questions', 'thumbsDown'] as const;
export type FigureName = (typeof FIGURE_NAMES)[number];

/** The dataset whose unit holds each figure: the figure of a day counts once that unit is complete. */
export const FIGURE_DATASETS: Readonly<Record<FigureName, DatasetName>> = {
  human: 'visitors',
  views: 'views',
  searches: 'searches',
  questions: 'assistant',
  thumbsDown: 'feedback',
};

/** How messages name each figure. */
export const FIGURE_LABELS: Readonly<Record<FigureName, string>> = {
  human: 'human visitors',
  views: 'page views',
  searches: 'searches',
  questions: 'assistant questions',
  thumbsDown: 'thumbs down',
};
