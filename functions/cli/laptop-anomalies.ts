/**
 * A laptop's `export` runs the deployment's anomaly check (insights/check.ts `markAnomalies`)
 * over the days it completed and writes the same marks, so `status` and the report show them
 * there too. Nothing is published (a laptop has no topic); a check that cannot run is a
 * warning, never a failed export. DuckDB is loaded only when a unit of a figure completed.
 */
import type { S3Client } from '@aws-sdk/client-s3';
import { completeUnits, unitKey, type RunResult } from '../export/index.js';
import type { Destination } from '../shared/storage/destination.js';
import type { LakeTarget } from '../warehouse/lake/target.js';
import { formatCount } from '../shared/format.js';
import { DATASET_NAMES } from '../warehouse/catalog.js';
import { FIGURE_DATASET, FIGURE_NAMES, FIGURES } from '../warehouse/figure-names.js';

export interface LaptopAnomalyInput {
  readonly result: RunResult;
  readonly destination: Destination;
  /** The destination, parsed at the door (`--out` or EXPORT_DESTINATION): what the lake opens. */
  readonly target: LakeTarget;
  readonly thresholds: { readonly drop: number; readonly rise: number };
  readonly s3Client?: S3Client;
}

/** The lines to show: one per anomaly found in the days the run completed. */
export async function checkLaptopAnomalies(input: LaptopAnomalyInput): Promise<string[]> {
  const completed = new Map<string, Set<string>>();
  for (const unit of input.result.units) {
    if (unit.status !== 'complete') continue;
    const key = `${unit.projectId}\u0000${unit.day}`;
    completed.set(key, (completed.get(key) ?? new Set()).add(unit.dataset));
  }
  const newDays = [...completed].flatMap(([key, datasets]) => {
    const [projectId, day] = key.split('\u0000') as [string, string];
    const figures = FIGURE_NAMES.filter((figure) => datasets.has(FIGURE_DATASET[figure]));
    return figures.length > 0 ? [{ projectId, day, figures }] : [];
  });
  if (newDays.length === 0 || input.destination.list === undefined) return [];
  const { markAnomalies } = await import('../insights/check.js');
  const { openLake } = await import('../warehouse/lake.js');
  const destination = input.destination;
  const complete = new Set((await Promise.all(DATASET_NAMES.map((dataset) => completeUnits(destination, dataset)))).flat().map(unitKey));
  const found = await markAnomalies(newDays, complete, input.thresholds, {
    destination: input.destination,
    openLake: (scope) => openLake(input.target, scope, input.s3Client ? { s3Client: input.s3Client } : {}),
  });
  return found.map(
    (a) =>
      `! anomaly ${a.day} ${a.projectId}: ${FIGURES[a.figure].sentenceLabel} ${formatCount(a.value)} vs usual ${formatCount(a.usual)} (the same weekday of the ${a.compared.length} weeks before; marked for status and the report)`,
  );
}
