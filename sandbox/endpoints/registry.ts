/**
 * One endpoint module per analytics dataset, keyed by the catalog's dataset names
 * (functions/warehouse/catalog.ts), each over its own dataset's generator (generators/registry.ts). A
 * new dataset's endpoint is one line here (the compiler asks for one per catalog name).
 */
import { CATALOG, type CatalogRoute, type DatasetName } from '../../functions/warehouse/catalog.js';
import type { Datasets, Generators } from '../generators/registry.js';
import { createAssistantEndpoint } from './assistant.js';
import { createCallerStatsEndpoint } from './caller-stats.js';
import type { AnalyticsEndpoint } from './endpoint.js';
import { createFeedbackByPageEndpoint } from './feedback-by-page.js';
import { createFeedbackEndpoint } from './feedback.js';
import { createSearchesEndpoint } from './searches.js';
import { createViewsEndpoint } from './views.js';
import { createVisitorsEndpoint } from './visitors.js';

/** How each dataset's endpoint is made from its generator (and the data's seed, which its cursors carry). */
const ENDPOINTS: { readonly [D in DatasetName]: (data: Generators[D], seed: number) => AnalyticsEndpoint } = {
  visitors: createVisitorsEndpoint,
  views: createViewsEndpoint,
  searches: createSearchesEndpoint,
  feedback: createFeedbackEndpoint,
  feedback_by_page: createFeedbackByPageEndpoint,
  assistant: createAssistantEndpoint,
  caller_stats: createCallerStatsEndpoint,
};

/** Every analytics endpoint over `data`, by its route (the catalog's `route`). */
export function createEndpoints(data: Datasets): Readonly<Record<CatalogRoute, AnalyticsEndpoint>> {
  const make = <D extends DatasetName>(name: D): AnalyticsEndpoint => ENDPOINTS[name](data.generators[name], data.seed);
  return Object.fromEntries(CATALOG.map((entry) => [entry.route, make(entry.name)])) as Record<CatalogRoute, AnalyticsEndpoint>;
}
