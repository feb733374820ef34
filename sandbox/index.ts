/**
 * The local API sandbox: every analytics endpoint and the agent follow-up endpoints on
 * 127.0.0.1 with seeded data, the follow-up state machine, fault injection and an optional
 * request budget. Used by tests, benchmarks, `npm start` and `mintlify-exporter sandbox`.
 */
export { startSandbox, type Sandbox, type SandboxOptions } from './server.js';
export { SANDBOX_API_KEY } from './auth.js';
export type { RequestLogEntry } from './http.js';
export { ANALYTICS_ROUTES, type AnalyticsRoute, type SandboxRoute } from './routes.js';
export { DEFAULT_PROJECTS, MAX_SYNTH_PATHS, type ProjectSeed } from './data.js';
export {
  createSandboxData,
  FEEDBACK_BY_PAGE_MAX,
  type DatasetDayTypes,
  type DatasetRowTypes,
  type SandboxData,
  type SandboxDataOptions,
} from './datasets.js';
export { parseBudgetOptions, type BudgetOptions, type BudgetState } from './budget.js';
export { parseFaultRule, type FaultKind, type FaultMatch, type FaultRoute, type FaultRule, type FaultSpec } from './faults.js';
export type { JobRecord, JobState, RunScript } from './agent.js';
export { DEFAULT_RANGE_DAYS, MAX_RANGE_DAYS } from './query.js';
export type { SearchRow } from './data-searches.js';
export {
  FEEDBACK_SOURCES,
  FEEDBACK_STATUSES,
  type FeedbackByPageRow,
  type FeedbackRow,
  type FeedbackSource,
  type FeedbackStatus,
} from './data-feedback.js';
export type { CallerStats, ConversationTurn } from './data-assistant.js';
export type { PageViews, ViewCounts, ViewsPageBody } from './views.js';
export type { SearchesPageBody } from './searches.js';
export type { FeedbackPageBody } from './feedback.js';
export type { FeedbackByPageBody } from './feedback-by-page.js';
export type { AssistantPageBody } from './assistant.js';
