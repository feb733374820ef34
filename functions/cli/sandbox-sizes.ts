/**
 * The embedded sandbox's sizes: how many pages a unit of it has, known before its first page
 * (sandbox/generators/projects.ts sizes each project's days from its `paths`, within a few per
 * cent by day). Without them a first plan of the sandbox counted every unit at its dataset's
 * typical day (export/estimates.ts): `npm start` planned about 1,050 requests and used 3,773,
 * since `proj_large` has 20,000 paths a day (80 pages of visitors and 80 of views), not the
 * typical 2,000. With them the plan is within a few per cent of what the run uses.
 */
import { baseRows, DEFAULT_PROJECTS, type ProjectSeed, synthProjectSeed } from '../../sandbox/generators/projects.js';
import type { Unit } from '../export/index.js';
import { DATASET_CATALOG } from '../warehouse/catalog.js';

/** The seed of a project the embedded sandbox serves, or undefined. */
function seedOf(projectId: string): ProjectSeed | undefined {
  return DEFAULT_PROJECTS.find((project) => project.id === projectId) ?? synthProjectSeed(projectId);
}

/** Pages of `unit` against the embedded sandbox: its rows a day over its dataset's page size; undefined for a project it does not serve. */
export function sandboxPages(unit: Unit): number | undefined {
  const seed = seedOf(unit.projectId);
  if (seed === undefined) return undefined;
  const entry = DATASET_CATALOG[unit.dataset];
  const rows =
    unit.dataset === 'visitors'
      ? seed.paths
      : unit.dataset === 'views' || unit.dataset === 'searches' || unit.dataset === 'feedback' || unit.dataset === 'assistant'
        ? baseRows(seed, unit.dataset).rows
        : undefined;
  // Feedback by page and caller stats: one request a day whatever the traffic.
  if (rows === undefined || entry.maxLimit === undefined) return 1;
  return Math.max(1, Math.ceil(rows / entry.maxLimit));
}
