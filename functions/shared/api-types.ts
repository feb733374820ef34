/**
 * The service's resources (docs/design.md §1) and the client the jobs use. The
 * implementation lives in api-client.ts; the domain code depends only on `ApiClient`.
 */

export interface VisitorCounts {
  readonly human: number;
  readonly ai: number;
  /** Deduplicated across human and AI: never assume total === human + ai. */
  readonly total: number;
}

export interface PageVisitors extends VisitorCounts {
  readonly path: string;
}

/** One page of `GET /v1/analytics/{projectId}/visitors`, validated. */
export interface VisitorsPage {
  readonly totals: VisitorCounts;
  readonly visitors: readonly PageVisitors[];
  readonly hasMore: boolean;
}

/**
 * One page of `GET /v1/analytics/{projectId}/views`, validated: content-view events, same
 * shape and offset paging as visitors. `totals` is site-wide whatever the offset.
 */
export interface ViewsPage {
  readonly totals: VisitorCounts;
  readonly views: readonly PageVisitors[];
  readonly hasMore: boolean;
}

/** One distinct search term (case-insensitive) over the window. */
export interface SearchRow {
  readonly searchQuery: string;
  readonly hits: number;
  /** Click-through rate exactly as sent: its scale (0–1 or 0–100) is undocumented. */
  readonly ctr: number;
  readonly topClickedPage: string | null;
  /** Epoch ms (UTC); null when the API leaves it out or sends null. */
  readonly lastSearchedAt: number | null;
}

/** One page of `GET /v1/analytics/{projectId}/searches` (cursor paging, no `hasMore`). */
export interface SearchesPage {
  readonly searches: readonly SearchRow[];
  /** Search events in the window (the sum of hits, not the number of terms). */
  readonly totalSearches: number;
  /** Non-empty opaque cursor of the next page; null on the last page. */
  readonly nextCursor: string | null;
}

export const FEEDBACK_SOURCES = ['code_snippet', 'contextual', 'agent', 'thumbs_only'] as const;
export type FeedbackSource = (typeof FEEDBACK_SOURCES)[number];

export const FEEDBACK_STATUSES = ['pending', 'in_progress', 'resolved', 'dismissed'] as const;
export type FeedbackStatus = (typeof FEEDBACK_STATUSES)[number];

/**
 * One feedback item. The source-specific fields (`helpful`, `contact` for `contextual`;
 * `code`, `filename`, `lang` for `code_snippet`) are null when absent.
 */
export interface FeedbackRow {
  readonly id: string;
  readonly path: string;
  readonly comment: string | null;
  /** Epoch ms (UTC), or null. */
  readonly createdAt: number | null;
  readonly source: FeedbackSource;
  readonly status: FeedbackStatus;
  readonly helpful: boolean | null;
  /** An e-mail address: personal data, exported only when `EXPORT_FEEDBACK_CONTACT=true`. */
  readonly contact: string | null;
  readonly code: string | null;
  readonly filename: string | null;
  readonly lang: string | null;
}

/** One page of `GET /v1/analytics/{projectId}/feedback` (cursor paging). */
export interface FeedbackPage {
  readonly feedback: readonly FeedbackRow[];
  readonly nextCursor: string | null;
  /** null when the API leaves the field out: then `nextCursor` alone decides. */
  readonly hasMore: boolean | null;
}

/** Feedback counts of one page over the window. */
export interface FeedbackByPageRow {
  readonly path: string;
  readonly thumbsUp: number;
  readonly thumbsDown: number;
  readonly code: number;
  readonly total: number;
}

/**
 * `GET /v1/analytics/{projectId}/feedback/by-page`: one request, no paging. `hasMore` true
 * means rows were left out and cannot be fetched.
 */
export interface FeedbackByPage {
  readonly feedback: readonly FeedbackByPageRow[];
  readonly hasMore: boolean;
}

export interface AssistantSource {
  readonly title: string;
  readonly url: string;
}

export const ASSISTANT_RESPONSE_TYPES = ['answer', 'clarifying_question'] as const;
export type AssistantResponseType = (typeof ASSISTANT_RESPONSE_TYPES)[number];

export const RESOLUTION_STATUSES = ['answered', 'unanswered'] as const;
export type ResolutionStatus = (typeof RESOLUTION_STATUSES)[number];

/**
 * One user turn with the assistant. `id` is the conversation's id and repeats on every turn
 * of it: the row key is (`id`, `timestamp`).
 */
export interface AssistantTurn {
  readonly id: string;
  /** When the user asked, epoch ms (UTC). */
  readonly timestamp: number;
  readonly query: string;
  readonly response: string;
  readonly responseType: 'answer' | 'clarifying_question';
  readonly sources: readonly AssistantSource[];
  readonly resolutionStatus: 'answered' | 'unanswered';
  readonly queryCategory: string | null;
  readonly pageUrl: string | null;
}

/** One page of `GET /v1/analytics/{projectId}/assistant` (cursor paging; order undocumented). */
export interface AssistantPage {
  readonly conversations: readonly AssistantTurn[];
  readonly nextCursor: string | null;
  /** null when the API leaves the field out: then `nextCursor` alone decides. */
  readonly hasMore: boolean | null;
}

/** `GET /v1/analytics/{projectId}/assistant/caller-stats`: assistant queries by caller. */
export interface CallerStats {
  readonly web: number;
  readonly api: number;
  readonly other: number;
  /** Documented as web + api + other; kept as sent, never checked. */
  readonly total: number;
}

export interface VisitorsQuery {
  /** `YYYY-MM-DD`, inclusive. */
  readonly dateFrom: string;
  /** `YYYY-MM-DD`, exclusive. */
  readonly dateTo: string;
  /** 1–250. */
  readonly limit: number;
  /** ≥ 0. */
  readonly offset: number;
}

/** Every job status of the spec; `active` is the only one that is not terminal. */
export const JOB_STATUSES = ['active', 'completed', 'archived', 'failed'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

/** An agent job record, validated. Fields the spec leaves unsure are optional. */
export interface AgentJob {
  readonly id: string;
  readonly status: JobStatus;
  readonly source?: { readonly repository?: string; readonly ref?: string };
  readonly model?: string;
  readonly prLink: string | null;
  readonly createdAt?: string;
  readonly archivedAt?: string | null;
}

/** Per-call options. */
export interface CallOptions {
  /**
   * Epoch ms after which no new attempt starts and no backoff sleep may end (e.g. the
   * Lambda's deadline minus a safety margin). Default: no deadline beyond the retry count.
   */
  readonly deadline?: number;
  readonly signal?: AbortSignal;
}

export interface ApiClient {
  /** One page of visitors. Retried on 429/5xx/network/timeout/malformed body. */
  getVisitors(projectId: string, query: VisitorsQuery, options?: CallOptions): Promise<VisitorsPage>;
  /**
   * Sends a follow-up prompt. Retried ONLY where the service cannot have acted on it (429,
   * or a connection that failed before the request was sent). A timeout, a reset after
   * sending, or a 5xx throws `SendUncertainError`; 429s beyond the retry budget/deadline throw
   * `RateLimitedError` (safe to defer and send later).
   */
  sendMessage(projectId: string, jobId: string, prompt: string, options?: CallOptions): Promise<AgentJob>;
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
