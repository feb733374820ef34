/** What the follow-up core (process-message.ts) takes and returns. */
import type { AgentJob } from '../shared/api-enums.js';
import type { AgentApi } from './agent-api.js';
import type { DeadLetter } from './dead-letter.js';
import type { OutcomeNotifier } from './notify.js';
import type { OutcomeSink } from './outcome.js';
import type { FollowUpScope } from '../scope/follow-up.js';
import type { OutcomeStatus, StateStore } from './state.js';
import type { FOLLOWUP_METRICS } from '../shared/metric-names.js';

/** Metric names (Powertools Metrics, unit Count): the ones the alarms and the dashboard read. */
export type FollowUpMetric = (typeof FOLLOWUP_METRICS)[keyof typeof FOLLOWUP_METRICS];

export interface FollowUpMetrics {
  count(name: FollowUpMetric, value?: number): void;
}

/** The narrow logging surface used here (a Powertools Logger fits). */
export interface FollowUpLogger {
  debug(message: string, ...extra: Record<string, unknown>[]): void;
  info(message: string, ...extra: Record<string, unknown>[]): void;
  warn(message: string, ...extra: Record<string, unknown>[]): void;
  error(message: string, ...extra: Record<string, unknown>[]): void;
}

export interface FollowUpDeps {
  readonly api: AgentApi;
  readonly store: StateStore;
  readonly outcomes: OutcomeSink;
  readonly deadLetter: DeadLetter;
  /** Publishes each outcome record (the outcomes topic); absent: outcomes are only written. */
  readonly notify?: OutcomeNotifier | undefined;
  /**
   * Checks a completed job's pull request against the scope rules, and alerts on the insights
   * topic when it is out of scope (functions/scope/). Absent: pull requests are not checked.
   */
  readonly scope?: FollowUpScope | undefined;
  readonly logger: FollowUpLogger;
  readonly metrics: FollowUpMetrics;
  readonly now: () => number;
  readonly sleep: (ms: number) => Promise<void>;
  /** Jitter source for the poll schedule. Default: Math.random. */
  readonly random?: () => number;
  /** Identifies this process/invocation in leases (each call adds a unique suffix). */
  readonly owner?: string;
  /**
   * Whether the holder of a claim or polling lease is known to be gone: its lease is then free
   * at once instead of at its expiry. @default `isLocalProcessGone` (a process of this machine,
   * owner `<hostname>:<pid>`, that no longer exists — the export's leases use the same rule)
   */
  readonly isOwnerGone?: (owner: string) => boolean;
  /** Called with every job record read after the send (the CLI prints status changes). */
  readonly onJob?: (job: AgentJob, info: { readonly requestId: string; readonly polls: number }) => void;
}

export interface IncomingMessage {
  readonly messageId: string;
  readonly body: string;
  /**
   * Deliveries of this message so far, this one included (SQS `ApproximateReceiveCount`).
   * Spaces out the retries after a failure of our own storage, which cannot count them itself.
   * Default 1.
   */
  readonly deliveries?: number;
}

/** Why a message was deferred (`reason` says the same for people). */
export type DeferCause =
  /** The job is running: a prompt is never sent while it is `active`. */
  | 'job-active'
  /** The API answered 429. */
  | 'rate-limited'
  /** The API was never reached (connection refused, unknown host, TLS): nothing was sent; not counted. */
  | 'unreachable'
  /** A consumer failure, counted toward `maxFailures`. */
  | 'failure'
  /** The state store, the outcome destination or the dead-letter queue failed (not counted). */
  | 'storage'
  /** Another consumer holds the claim or the poll lease. */
  | 'held'
  /** Sent; the next poll is due later. */
  | 'polling'
  /** The consumer is stopping. */
  | 'stopping'
  /** The invocation has too little time left. */
  | 'no-time'
  /** The state record kept changing under this call. */
  | 'contention';

export type ProcessResult =
  | {
      readonly action: 'handled';
      readonly requestId: string;
      /** The request's final status, or `duplicate` (already done earlier). */
      readonly status: OutcomeStatus | 'duplicate';
      readonly prLink?: string | null;
      readonly polls?: number;
      readonly job?: AgentJob;
    }
  | {
      readonly action: 'defer';
      readonly requestId: string;
      readonly delayMs: number;
      readonly reason: string;
      readonly cause: DeferCause;
      /** The prompt has been sent and is being polled (the CLI's `--no-wait` stops here). */
      readonly sent: boolean;
      readonly polls?: number;
      readonly job?: AgentJob;
    };

export interface ProcessOptions {
  /** Epoch ms by which this call must have returned (e.g. Lambda deadline minus a margin). */
  readonly deadline?: number;
  /**
   * When aborted (SIGINT/SIGTERM, shutdown), job reads and their retries stop, polling stops
   * at its next wait, and the message is deferred. A POST in flight is not aborted.
   */
  readonly stopSignal?: AbortSignal;
}
