/** The API routes of the sandbox, by the names the request log and fault rules use, and the route a request's method and path find. */
import { CATALOG, type CatalogRoute } from '../../functions/warehouse/catalog.js';

/** Every analytics endpoint (the dataset catalog's routes); they share the request budget. */
export const ANALYTICS_ROUTES = CATALOG.map((entry) => entry.route) as readonly CatalogRoute[] as readonly [CatalogRoute, ...CatalogRoute[]];
export type AnalyticsRoute = CatalogRoute;

export const AGENT_ROUTES = ['agent-message', 'agent-get', 'agent-create'] as const;
export type AgentRoute = (typeof AGENT_ROUTES)[number];

/** A route a fault rule can target. */
export type ApiRoute = AnalyticsRoute | AgentRoute;

/** Routes of the request log; `other` is anything unknown (404/405). */
export type SandboxRoute = ApiRoute | 'other';

/** Path segment(s) after `/v1/analytics/{projectId}/` of each analytics route (the catalog's endpoints). */
const ANALYTICS_PATHS: Readonly<Record<string, AnalyticsRoute>> = Object.fromEntries(CATALOG.map((entry) => [entry.endpoint, entry.route]));

/** What a request's method and path name: an analytics or agent route with its ids, or a 404/405. */
export type RouteMatch =
  | { kind: 'analytics'; route: AnalyticsRoute; projectId: string; jobId?: undefined }
  | { kind: 'agent'; route: Exclude<AgentRoute, 'agent-create'>; projectId: string; jobId: string }
  | { kind: 'agent'; route: 'agent-create'; projectId: string; jobId?: undefined }
  | { kind: 'other'; route: 'other'; status: number; error: string; projectId?: string; jobId?: undefined };

/** The route of an API request (a path segment that is not valid URI encoding is a 404). */
export function matchRoute(method: string, pathname: string): RouteMatch {
  const decode = (segment: string): string | undefined => {
    try {
      return decodeURIComponent(segment);
    } catch {
      return undefined;
    }
  };
  const notFound: RouteMatch = { kind: 'other', route: 'other', status: 404, error: `no such endpoint: ${method} ${pathname}` };
  const wrongMethod = (allowed: string, projectId: string | undefined): RouteMatch => ({
    kind: 'other',
    route: 'other',
    status: 405,
    error: `method ${method} not allowed here: use ${allowed}`,
    ...(projectId !== undefined ? { projectId } : {}),
  });

  const analytics = /^\/v1\/analytics\/([^/]+)\/(.+?)\/?$/.exec(pathname);
  const route = analytics ? ANALYTICS_PATHS[analytics[2] as string] : undefined;
  if (analytics && route) {
    const projectId = decode(analytics[1] as string);
    if (projectId === undefined) return notFound;
    return method === 'GET' ? { kind: 'analytics', route, projectId } : wrongMethod('GET', projectId);
  }
  const create = /^\/v2\/agent\/([^/]+)\/job\/?$/.exec(pathname);
  if (create) {
    const projectId = decode(create[1] as string);
    if (projectId === undefined) return notFound;
    return method === 'POST' ? { kind: 'agent', route: 'agent-create', projectId } : wrongMethod('POST', projectId);
  }
  const agent = /^\/v2\/agent\/([^/]+)\/job\/([^/]+)(\/message)?\/?$/.exec(pathname);
  if (agent) {
    const projectId = decode(agent[1] as string);
    const jobId = decode(agent[2] as string);
    if (projectId === undefined || jobId === undefined) return notFound;
    if (agent[3]) return method === 'POST' ? { kind: 'agent', route: 'agent-message', projectId, jobId } : wrongMethod('POST', projectId);
    return method === 'GET' ? { kind: 'agent', route: 'agent-get', projectId, jobId } : wrongMethod('GET', projectId);
  }
  return notFound;
}
