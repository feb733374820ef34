/**
 * A stand-in export's manifests: written or removed as the export's commit does
 * (functions/export/manifest.ts), its mark in the index of units first (warehouse/lake/unit-marks.ts),
 * for the test files that build a lake by hand with DuckDB and must change its units as the
 * export, `forget` and retention do.
 */
import type { Destination } from '../../functions/shared/storage/destination.js';
import type { DatasetName } from '../../functions/warehouse/catalog.js';
import { manifestKey } from '../../functions/warehouse/keys.js';
import { markUnit } from '../../functions/warehouse/lake/unit-marks.js';

/** Writes `manifest` (any JSON object) as `dataset`'s manifest of `day` and `projectId`, marked first. */
export async function putManifest(
  destination: Pick<Destination, 'put'>,
  dataset: DatasetName,
  day: string,
  projectId: string,
  manifest: object,
): Promise<void> {
  await markUnit(destination, { dataset, day, projectId });
  await destination.put(manifestKey(dataset, day, projectId), JSON.stringify(manifest), { durable: false });
}

/** Removes `dataset`'s manifest of `day` and `projectId`, marked first. */
export async function dropManifest(destination: Pick<Destination, 'put' | 'delete'>, dataset: DatasetName, day: string, projectId: string): Promise<void> {
  await markUnit(destination, { dataset, day, projectId });
  await destination.delete(manifestKey(dataset, day, projectId));
}
