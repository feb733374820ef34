/**
 * The service's resources (spec/service-api.md) and the client the jobs use. The
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
}
