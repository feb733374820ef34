/** The API routes of the sandbox, by the names the request log and fault rules use. */
import { CATALOG, type CatalogRoute } from '../functions/shared/catalog.js';

/** Every analytics endpoint (the dataset catalog's routes); they share the request budget. */
export const ANALYTICS_ROUTES = CATALOG.map((entry) => entry.route) as readonly CatalogRoute[] as readonly [CatalogRoute, ...CatalogRoute[]];
export type AnalyticsRoute = CatalogRoute;

export const AGENT_ROUTES = ['agent-message', 'agent-get'] as const;
export type AgentRoute = (typeof AGENT_ROUTES)[number];

/** A route a fault rule can target. */
export type ApiRoute = AnalyticsRoute | AgentRoute;

/** Routes of the request log; `other` is anything unknown (404/405). */
export type SandboxRoute = ApiRoute | 'other';

/** Path segment(s) after `/v1/analytics/{projectId}/` of each analytics route (the catalog's endpoints). */
export const ANALYTICS_PATHS: Readonly<Record<string, AnalyticsRoute>> = Object.fromEntries(CATALOG.map((entry) => [entry.endpoint, entry.route]));

export function isAnalyticsRoute(route: string): route is AnalyticsRoute {
  return (ANALYTICS_ROUTES as readonly string[]).includes(route);
}
