/**
 * The service's resources (docs/design.md §1) and the client the jobs use. The analytics
 * answers' types are inferred from their valibot schemas (`schemas.ts`), so a type and its
 * check cannot disagree; the implementation lives in api/.
 */
import type * as v from 'valibot';
import type {
  AssistantPageSchema,
  AssistantTurnSchema,
  CallerStatsSchema,
  FeedbackByPageRowSchema,
  FeedbackByPageSchema,
  FeedbackPageSchema,
  FeedbackRowSchema,
  PathCountsRowSchema,
  SearchesPageSchema,
  SearchRowSchema,
  TotalsSchema,
  ViewsPageSchema,
  VisitorsPageSchema,
} from './schemas.js';
import type { AgentJob } from './api-enums.js';

/** Site totals (visitors, views). `total` is deduplicated across human and AI: never assume total === human + ai. */
export type VisitorCounts = v.InferOutput<typeof TotalsSchema>;
/** One page's counts (visitors, views). */
export type PageVisitors = v.InferOutput<typeof PathCountsRowSchema>;
/** One page of `GET /v1/analytics/{projectId}/visitors`, validated. */
export type VisitorsPage = v.InferOutput<typeof VisitorsPageSchema>;
/** One page of `GET /v1/analytics/{projectId}/views`, validated (totals site-wide whatever the offset). */
export type ViewsPage = v.InferOutput<typeof ViewsPageSchema>;
/** One distinct search term over the window (timestamps as epoch ms, absent fields null). */
export type SearchRow = v.InferOutput<typeof SearchRowSchema>;
/** One page of `GET /v1/analytics/{projectId}/searches` (cursor paging, no `hasMore`). */
export type SearchesPage = v.InferOutput<typeof SearchesPageSchema>;
/** One feedback item (source-specific fields null when absent; `contact` is personal data). */
export type FeedbackRow = v.InferOutput<typeof FeedbackRowSchema>;
/** One page of `GET /v1/analytics/{projectId}/feedback` (cursor paging; `hasMore` null when left out). */
export type FeedbackPage = v.InferOutput<typeof FeedbackPageSchema>;
/** Feedback counts of one page over the window. */
export type FeedbackByPageRow = v.InferOutput<typeof FeedbackByPageRowSchema>;
/** `GET /v1/analytics/{projectId}/feedback/by-page`: one request; `hasMore` true means rows were left out. */
export type FeedbackByPage = v.InferOutput<typeof FeedbackByPageSchema>;
/** One user turn with the assistant; `id` repeats on every turn of a conversation (row key: `id`, `timestamp`). */
export type AssistantTurn = v.InferOutput<typeof AssistantTurnSchema>;
/** A source an assistant answer cites. */
export type AssistantSource = AssistantTurn['sources'][number];
/** One page of `GET /v1/analytics/{projectId}/assistant` (cursor paging; order undocumented). */
export type AssistantPage = v.InferOutput<typeof AssistantPageSchema>;
/** `GET /v1/analytics/{projectId}/assistant/caller-stats`: assistant queries by caller (`total` as sent). */
export type CallerStats = v.InferOutput<typeof CallerStatsSchema>;

/** Per-call options. */
export interface CallOptions {
  /**
   * Epoch ms after which no new attempt starts and no backoff sleep may end (e.g. the
   * Lambda's deadline minus a safety margin). Default: no deadline beyond the retry count.
   */
  readonly deadline?: number;
  /** Ends the call at once, a request in flight included (its page is lost). */
  readonly signal?: AbortSignal;
  /**
   * A gentle stop (a first Ctrl-C): no attempt starts and no wait (budget, backoff) goes on once
   * it fires, but an attempt already sent is left to finish, bounded by its timeout, so a page
   * that is paid for arrives. The call then ends with the stop's reason.
   */
  readonly stop?: AbortSignal;
}

/** The client's operations, as its log records (`operation`) and messages name them. */
export type ApiOperation = 'getAnalytics' | 'getJob' | 'sendMessage' | 'createJob';

/** The agent operations (the analytics reads are `AnalyticsApi`, api/analytics.ts). */
export interface ApiClient {
  /**
   * Sends a follow-up prompt. Retried ONLY where the service cannot have acted on it (429,
   * or a connection that failed before the request was sent). A timeout, a reset after
   * sending, or a 5xx throws `SendUncertainError`; 429s beyond the retry budget/deadline throw
   * `RateLimitedError` (safe to defer and send later).
   */
  sendMessage(projectId: string, jobId: string, prompt: string, options?: CallOptions): Promise<AgentJob>;
  /**
   * Creates a job with a prompt (201 with the job). The same rule as `sendMessage`: a repeat
   * could create a second job, so what may have been accepted throws `SendUncertainError`, an
   * answer without the new job's `id` included.
   */
  createJob(projectId: string, prompt: string, options?: CallOptions): Promise<AgentJob>;
  /** Reads a job. Retried freely (it is a read). 404 throws ApiError(404) at once. */
  getJob(projectId: string, jobId: string, options?: CallOptions): Promise<AgentJob>;
  /** Counters since the client was created (for manifests, metrics and benchmarks). */
  readonly stats: ApiStats;
}

export interface ApiStats {
  /** HTTP requests sent (every attempt). */
  requests: number;
  /** Attempts that were retried. */
  retries: number;
  /** Successful (2xx, valid) responses. */
  successes: number;
  /** Invalid UTF-8 sequences replaced by U+FFFD in 2xx bodies (absent: none). */
  invalidUtf8?: number;
}
