/**
 * Names that both the functions (which publish) and the infra (alarms, dashboard) use, kept
 * in one place so a widget or an alarm can never watch a metric nobody publishes.
 */

/** CloudWatch namespace of every EMF metric. */
export const METRICS_NAMESPACE = 'MintlifyExporter';

/** Powertools service names (a metric's `service` dimension). */
export const EXPORT_SERVICE = 'mintlify-export';
export const FOLLOWUP_SERVICE = 'mintlify-followup';

/** Metrics the export function publishes once per run (unit: Count unless noted). */
export const EXPORT_METRICS = {
  /** Analytics requests started in this run (every attempt). */
  requests: 'AnalyticsRequests',
  /** 429s received (someone else spent the budget). */
  rateLimited: 'RateLimited',
  /** 429s that asked for a wait longer than the budget window (cut to the window): a problem, not waiting. */
  rateLimitWaitsCut: 'RateLimitWaitsCut',
  /** Times the run waited for budget, and how long in total (Milliseconds). */
  budgetWaits: 'BudgetWaits',
  budgetWaitMs: 'BudgetWaitMs',
  /** Requests still needed by the units left to do (estimate). */
  backlogRequests: 'BacklogRequests',
  unitsCompleted: 'UnitsCompleted',
  /** Units left with a checkpoint (budget or time ran out): not a failure. */
  unitsPartial: 'UnitsPartial',
  unitsFailed: 'UnitsFailed',
  /** Units of the heal window that are due and still have no manifest. */
  missingDays: 'MissingDays',
  /**
   * Units completed whose answers held fields or values this version does not know: kept in
   * `unknown_fields` and as sent, nothing lost (low severity; docs/operations.md).
   */
  schemaDrift: 'SchemaDrift',
  /**
   * Glue partitions of committed days that could not be registered in this run (with
   * `EXPORT_GLUE_DATABASE`): kept and tried again by the next run (functions/warehouse/partitions.ts).
   */
  partitionsFailed: 'GluePartitionsFailed',
  /**
   * Iceberg statements (MERGE, DELETE, OPTIMIZE, VACUUM) that failed in this run (with
   * `EXPORT_ATHENA_WORKGROUP`): a MERGE or retention DELETE is kept and run again by the next run
   * (functions/export/iceberg/sync.ts).
   */
  icebergFailed: 'IcebergStatementsFailed',
} as const;

/** Metrics the follow-up consumer publishes (unit: Count). */
export const FOLLOWUP_METRICS = {
  /** Prompts accepted by the API (at most once per request). */
  sent: 'PromptsSent',
  /** Prompts put back for later (job active, 429): never lost, not a failure. */
  deferred: 'PromptsDeferred',
  /** Prompts whose send may or may not have reached the job (never re-sent). */
  uncertain: 'PromptsUncertain',
  /** Outcome records written (any status). */
  outcomes: 'OutcomesRecorded',
  /** Messages moved to the dead-letter queue (malformed, rejected, uncertain). */
  deadLettered: 'MessagesDeadLettered',
  /** Outcome records published to the outcomes topic (FOLLOWUP_OUTCOMES_TOPIC_ARN). */
  notified: 'OutcomesNotified',
  /** Publishes to the outcomes topic that failed (each is retried with a redelivery). */
  notifyFailures: 'OutcomeNotifyFailures',
} as const;

/** Service of the insights functions (the hourly checks and the weekly report). */
export const INSIGHTS_SERVICE = 'mintlify-insights';

/** Metrics the insights functions publish (unit: Count). */
export const INSIGHTS_METRICS = {
  /** Anomalies found and published (a day's figure far from the same weekday of the 4 weeks before). */
  anomalies: 'Anomalies',
  /** Datasets of a project that became stale (no complete day newer than settle hours + 24 h). */
  staleDatasets: 'StaleDatasets',
  /** Weekly reports written and published. */
  weeklyReports: 'WeeklyReports',
} as const;

/**
 * Who publishes each group of metrics: the Powertools service (the `service` dimension, the only
 * one the functions set) whose functions publish it. The cost estimate counts the metrics the
 * code publishes through this (scripts/cost-estimate.ts).
 */
export const METRIC_PUBLISHERS = [
  { group: 'EXPORT_METRICS', service: EXPORT_SERVICE, metrics: EXPORT_METRICS },
  { group: 'FOLLOWUP_METRICS', service: FOLLOWUP_SERVICE, metrics: FOLLOWUP_METRICS },
  { group: 'INSIGHTS_METRICS', service: INSIGHTS_SERVICE, metrics: INSIGHTS_METRICS },
] as const;

/** The dimension naming the organisation of a metric (a deployment for many organisations). */
export const ORGANISATION_DIMENSION = 'Organisation';

/** Metrics of the organisations' dispatcher and workers (unit: Count). */
export const ORGS_METRICS = {
  /** Organisations the dispatcher sent a message for in one run. */
  dispatched: 'OrganisationsDispatched',
  /** Secrets under the organisations' prefix that could not be an organisation (a bad id): named in the log. */
  refused: 'OrganisationsRefused',
  /** Organisations whose run failed (a batch item failure: their message goes to the dead-letter queue). */
  failed: 'OrganisationRunsFailed',
} as const;
