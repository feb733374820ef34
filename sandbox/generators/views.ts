/**
 * Deterministic, lazily generated views: content-view events per page path, the visitors
 * model (visitors.ts) with its own per-day counts and more traffic over the same catalogue
 * of paths (same site), sized by the project's `rows.views`. `total` is deduplicated like
 * visitors' (`max(human, ai) ≤ total ≤ human + ai`).
 */
import type { SitePages } from './pages.js';
import type { ProjectRegistry } from './projects.js';
import { VisitorData } from './visitors.js';

/** Salt and traffic factor of the views data (see `VisitorData`). */
const VIEWS_DATA_OPTIONS = { salt: 0x71e35, scale: 2.5, dataset: 'views' } as const;

/** The views data of the sandbox's projects. */
export function createViewsData(registry: ProjectRegistry, pages: SitePages): VisitorData {
  return new VisitorData(registry, pages, VIEWS_DATA_OPTIONS);
}
