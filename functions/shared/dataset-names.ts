/**
 * @deprecated The dataset names live in the catalog (`catalog.ts`) with the rest of what
 * defines a dataset; import them from there. This re-export only keeps code written against
 * the old module compiling.
 */
export { DATASET_NAMES, isDatasetName, type DatasetName } from './catalog.js';
