/**
 * Deterministic, lazily generated views: content-view events per page path, the visitors
 * model (visitors.ts) with its own per-day counts and more traffic over the same catalogue
 * of paths (same site), sized by the project's `rows.views`. Views are events, each by a
 * human or an AI: `total` = human + ai on every page and in the site totals, as the
 * dashboard's export defines total views (visitors' `total` is a distinct count instead).
 */
import type { SitePages } from './pages.js';
import type { ProjectRegistry } from './projects.js';
import { PageCountData } from './visitors.js';

/** How the views data differs from the visitors data: its salt, traffic factor, size and kind of `total` (see `PageCountOptions`). */
const VIEWS_DATA_OPTIONS = { salt: 0x71e35, scale: 2.5, dataset: 'views', total: 'sum' } as const;

/** The views data of the sandbox's projects. */
export function createViewsData(registry: ProjectRegistry, pages: SitePages): PageCountData {
  return new PageCountData(registry, pages, VIEWS_DATA_OPTIONS);
}
