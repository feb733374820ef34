/**
 * A unit's identity — one (dataset, project, day) — its key and its label: the leaf of the unit
 * model, so the files that store a unit (staging.ts, manifest.ts) can name it without importing
 * the model that reads them. Import these from units.ts.
 */
import type { DatasetName } from '../warehouse/catalog.js';

/** One (dataset, project, day). */
export interface Unit {
  readonly dataset: DatasetName;
  readonly projectId: string;
  /** UTC day, `YYYY-MM-DD`. */
  readonly day: string;
}

/** `visitors/proj_a/2026-11-22`: the unit's key in leases, logs and state maps. */
export function unitKey(unit: Unit): string {
  return `${unit.dataset}/${unit.projectId}/${unit.day}`;
}

/** `visitors proj_a 2026-11-22`, for people. */
export function unitLabel(unit: Unit): string {
  return `${unit.dataset} ${unit.projectId} ${unit.day}`;
}

/** Every unit of days × projects × datasets, days oldest first. */
export function unitsOf(days: readonly string[], projects: readonly string[], datasets: readonly DatasetName[]): Unit[] {
  return days.flatMap((day) => projects.flatMap((projectId) => datasets.map((dataset) => ({ dataset, projectId, day }))));
}
