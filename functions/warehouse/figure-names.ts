/**
 * Every figure the report, the weekly digest and the anomaly check name, one row each: the
 * dataset it comes from, how the page and the digest title it, how a sentence names it, whether it
 * is a count or a share, and what a rise of it means. The report's cards (`METRICS`), the digest's
 * table (`DIGEST_FIGURES`), the page's definitions, the visitors chart and the anomalies' messages
 * select from it. A module of names only, so `status` and the infra read them without loading DuckDB.
 */
import type { DatasetName } from './catalog.js';

/**
 * What a rise of a figure means for the docs' readers: more page views is good; more unanswered
 * questions, searches nobody clicked or thumbs down is bad, whatever the sign; more AI visitors,
 * searches or questions is neither. The report colours each change by it and the digest writes
 * "better" or "worse" by it: the sign of a change never says which.
 */
export type Meaning = 'more-is-good' | 'more-is-bad' | 'neutral';

/** One figure: its name in the report's headline (and rankings), and everything said of it. */
export interface FigureRow {
  readonly name: string;
  /** The dataset whose unit holds it: the figure of a day counts once that unit is complete, and its coverage decides how two periods compare. */
  readonly dataset: DatasetName;
  /** How the page's cards, charts and definitions and the digest's table title it. */
  readonly label: string;
  /** How a sentence names it (`human visitors 50 vs usual 505`): the label in lower case, an acronym kept. */
  readonly sentenceLabel: string;
  /** The definition's shorter term where the page's definitions do not use `label`. @default label */
  readonly term?: string;
  readonly kind: 'count' | 'share';
  readonly meaning: Meaning;
}

/** The figures, in the order the page and the digest list them. */
export const FIGURE_TABLE = [
  { name: 'human', dataset: 'visitors', label: 'Human visitors', sentenceLabel: 'human visitors', kind: 'count', meaning: 'more-is-good' },
  { name: 'ai', dataset: 'visitors', label: 'AI visitors', sentenceLabel: 'AI visitors', kind: 'count', meaning: 'neutral' },
  {
    name: 'aiShare',
    dataset: 'visitors',
    label: 'AI share of visitors',
    sentenceLabel: 'AI share of visitors',
    term: 'AI share',
    kind: 'share',
    meaning: 'neutral',
  },
  { name: 'views', dataset: 'views', label: 'Page views', sentenceLabel: 'page views', kind: 'count', meaning: 'more-is-good' },
  { name: 'searches', dataset: 'searches', label: 'Searches', sentenceLabel: 'searches', kind: 'count', meaning: 'neutral' },
  { name: 'questions', dataset: 'assistant', label: 'Assistant questions', sentenceLabel: 'assistant questions', kind: 'count', meaning: 'neutral' },
  { name: 'unanswered', dataset: 'assistant', label: 'Unanswered questions', sentenceLabel: 'unanswered questions', kind: 'count', meaning: 'more-is-bad' },
  {
    name: 'unansweredShare',
    dataset: 'assistant',
    label: 'Unanswered by the assistant',
    sentenceLabel: 'share of questions unanswered by the assistant',
    kind: 'share',
    meaning: 'more-is-bad',
  },
  { name: 'thumbsDown', dataset: 'feedback', label: 'Thumbs down', sentenceLabel: 'thumbs down', kind: 'count', meaning: 'more-is-bad' },
  /** The ranking of searches nobody clicked a result of. */
  {
    name: 'searchesWithoutClick',
    dataset: 'searches',
    label: 'Searches nobody clicked',
    sentenceLabel: 'searches nobody clicked',
    kind: 'count',
    meaning: 'more-is-bad',
  },
] as const satisfies readonly FigureRow[];

export type FigureKey = (typeof FIGURE_TABLE)[number]['name'];

/** The row of figure `K`, with its literal values. */
export type FigureOf<K extends FigureKey> = Extract<(typeof FIGURE_TABLE)[number], { readonly name: K }>;

/** The table by name: `FIGURES.human.label`. */
export const FIGURES = Object.fromEntries(FIGURE_TABLE.map((row) => [row.name, row])) as unknown as { readonly [K in FigureKey]: FigureOf<K> };

/** One column of the table, by figure. */
function column<C extends keyof FigureRow & keyof FigureOf<FigureKey>>(name: C): { readonly [K in FigureKey]: FigureOf<K>[C] } {
  return Object.fromEntries(FIGURE_TABLE.map((row) => [row.name, row[name]])) as unknown as { readonly [K in FigureKey]: FigureOf<K>[C] };
}

/** The dataset of each figure (its coverage decides how it is compared; an anomaly's unit). */
export const FIGURE_DATASET = column('dataset');

/** How the page and the digest title each figure (a column of the table, so a page reads a fixed name, never a row's field). */
export const FIGURE_LABEL = column('label');

/** What a rise of each figure means: the report colours by it, the digest words by it. */
export const FIGURE_MEANINGS = column('meaning');

/** The five figures an anomaly is judged on, in the order messages list them. */
export const FIGURE_NAMES = ['human', 'views', 'searches', 'questions', 'thumbsDown'] as const satisfies readonly FigureKey[];
export type FigureName = (typeof FIGURE_NAMES)[number];

/** The judgement of a change by `meaning`: `good`, `bad`, or `flat` (no change, or a figure judged neither way). */
export function toneOf(delta: number, meaning: Meaning): 'good' | 'bad' | 'flat' {
  if (delta === 0 || meaning === 'neutral') return 'flat';
  return delta > 0 === (meaning === 'more-is-good') ? 'good' : 'bad';
}
