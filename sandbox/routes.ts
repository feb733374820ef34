/** The API routes of the sandbox, by the names the request log and fault rules use. */

/** Every analytics endpoint; they share the request budget. */
export const ANALYTICS_ROUTES = [
  'visitors',
  'views',
  'searches',
  'feedback',
  'feedback-by-page',
  'assistant',
  'caller-stats',
] as const;
export type AnalyticsRoute = (typeof ANALYTICS_ROUTES)[number];

export const AGENT_ROUTES = ['agent-message', 'agent-get'] as const;
export type AgentRoute = (typeof AGENT_ROUTES)[number];

/** A route a fault rule can target. */
export type ApiRoute = AnalyticsRoute | AgentRoute;

/** Routes of the request log; `other` is anything unknown (404/405). */
export type SandboxRoute = ApiRoute | 'other';

/** Path segment(s) after `/v1/analytics/{projectId}/` of each analytics route. */
export const ANALYTICS_PATHS: Readonly<Record<string, AnalyticsRoute>> = {
  visitors: 'visitors',
  views: 'views',
  searches: 'searches',
  feedback: 'feedback',
  'feedback/by-page': 'feedback-by-page',
  assistant: 'assistant',
  'assistant/caller-stats': 'caller-stats',
};

export function isAnalyticsRoute(route: string): route is AnalyticsRoute {
  return (ANALYTICS_ROUTES as readonly string[]).includes(route);
}
