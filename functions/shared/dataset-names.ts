/**
 * The analytics datasets, by the names used in configuration (`EXPORT_DATASETS`), the CLI
 * (`--dataset`), manifests (`_manifests/<dataset>/…`), staging and the request ledger. A
 * dataset is one analytics endpoint exported per (project, UTC day); a *unit* is one
 * (dataset, project, day).
 */
export const DATASET_NAMES = [
  'visitors',
  'views',
  'searches',
  'feedback',
  'feedback_by_page',
  'assistant',
  'caller_stats',
] as const;

export type DatasetName = (typeof DATASET_NAMES)[number];

export function isDatasetName(value: string): value is DatasetName {
  return (DATASET_NAMES as readonly string[]).includes(value);
}
