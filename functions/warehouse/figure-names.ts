/**
 * The five figures an anomaly is judged on, their datasets and how messages name them, and what
 * a rise of each figure the report and the digest show means: a module of names only, so
 * `status` and the infra read them without loading DuckDB.
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

/**
 * What a rise of a figure means for the docs' readers: more page views is good; more unanswered
 * questions, searches nobody clicked or thumbs down is bad, whatever the sign; more AI visitors,
 * searches or questions is neither. The report colours each change by it and the digest writes
 * "better" or "worse" by it: the sign of a change never says which.
 */
export type Meaning = 'more-is-good' | 'more-is-bad' | 'neutral';

/** Every figure whose change the report or the digest shows, by its name in the report's headline (and rankings). */
export const FIGURE_MEANINGS = {
  human: 'more-is-good',
  ai: 'neutral',
  aiShare: 'neutral',
  views: 'more-is-good',
  searches: 'neutral',
  questions: 'neutral',
  unanswered: 'more-is-bad',
  unansweredShare: 'more-is-bad',
  thumbsDown: 'more-is-bad',
  /** The ranking of searches nobody clicked a result of. */
  searchesWithoutClick: 'more-is-bad',
} as const satisfies Readonly<Record<string, Meaning>>;

/** The judgement of a change by `meaning`: `good`, `bad`, or `flat` (no change, or a figure judged neither way). */
export function toneOf(delta: number, meaning: Meaning): 'good' | 'bad' | 'flat' {
  if (delta === 0 || meaning === 'neutral') return 'flat';
  return delta > 0 === (meaning === 'more-is-good') ? 'good' : 'bad';
}
