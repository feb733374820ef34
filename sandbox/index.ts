/**
 * The local API sandbox: every analytics endpoint and the agent follow-up endpoints on
 * 127.0.0.1 with seeded data, the follow-up state machine, fault injection and an optional
 * request budget. Used by tests, benchmarks, `npm start` and `mintlify-exporter sandbox`.
 *
 * Its folders, by role (imports go one way: server → endpoints → generators):
 * - `generators/`: the seeded data, one generator per dataset (`generators/<dataset>.ts`),
 *   over the projects (`projects.ts`) and the site's pages (`pages.ts`); every generator is a
 *   `WindowedRows` (`windowed.ts`), listed by dataset name in `generators/registry.ts`, which is
 *   also the public `SandboxData` that tests read expected rows from.
 * - `endpoints/`: one module per analytics endpoint (`endpoints/<dataset>.ts`: validation,
 *   the page, its own fault kinds), over the shared query validation, offset and cursor
 *   paging, listed by dataset name in `endpoints/registry.ts`.
 * - `server/`: the HTTP server (`start.ts`), routes, auth, the request log, the control API,
 *   fault rules and the answers they share, the request budget, drift mode and the state
 *   they share.
 * - `agent.ts`, `agent-routes.ts`: the agent jobs and their routes.
 *
 * A new analytics dataset (after its entry in functions/warehouse/catalog.ts) takes one file for
 * its data (`generators/<dataset>.ts`, a `DatasetGenerator`) and one for its endpoint
 * (`endpoints/<dataset>.ts`), each named once in its folder's registry; the compiler asks for
 * both.
 */
export { startSandbox, type Sandbox, type SandboxOptions } from './server/start.js';
export { SANDBOX_API_KEY } from './server/auth.js';
export type { RequestLogEntry } from './server/http.js';
export { ANALYTICS_ROUTES, type AnalyticsRoute, type SandboxRoute } from './server/routes.js';
export { DEFAULT_PROJECTS, MAX_SYNTH_PATHS, type ProjectSeed } from './generators/projects.js';
export {
  createSandboxData,
  type DatasetDayTypes,
  type DatasetRowTypes,
  type SandboxData,
  type SandboxDataOptions,
} from './generators/registry.js';
export { FEEDBACK_BY_PAGE_MAX, type FeedbackByPageBody, type FeedbackByPageRow } from './generators/feedback-by-page.js';
export { parseBudgetOptions, type BudgetOptions, type BudgetState } from './server/budget.js';
export { parseFaultRule, type FaultKind, type FaultMatch, type FaultRoute, type FaultRule, type FaultSpec } from './server/faults.js';
export type { JobRecord, JobState, RunScript } from './agent.js';
export { PLANTED_DAYS_AGO, PLANTED_FALL, type PlantedFix } from './generators/planted-fixes.js';
export { DEFAULT_RANGE_DAYS, MAX_RANGE_DAYS } from './endpoints/query.js';
export type { SearchRow } from './generators/searches.js';
export { FEEDBACK_SOURCES, FEEDBACK_STATUSES, type FeedbackSource, type FeedbackStatus } from '../functions/shared/api-enums.js';
export type { FeedbackRow } from './generators/feedback.js';
export type { ConversationTurn } from './generators/assistant.js';
export type { CallerStats } from './generators/caller-stats.js';
export type { PageViews, ViewCounts, ViewsPageBody } from './endpoints/views.js';
export type { SearchesPageBody } from './endpoints/searches.js';
export type { FeedbackPageBody } from './endpoints/feedback.js';
export type { AssistantPageBody } from './endpoints/assistant.js';
