/**
 * The run log: one JSON record per export run — hourly Lambda, manual invoke or CLI — under
 * `<dest>/export_runs/dt=YYYY-MM-DD/<runId>.json` (the day the run started), written when the
 * run ends and also when it fails. With the `export_runs` Glue table it answers "did the last
 * runs land, and if not why" next to the data, without reading logs.
 */
import { randomUUID } from 'node:crypto';
import type { Destination } from '../shared/storage/destination.js';
import { describeError, scrubText } from '../shared/errors.js';
import { EXPORT_RUNS, partitionKey } from '../warehouse/tables.js';
import type { IcebergSummary } from './iceberg/sync.js';
import type { Unit } from './unit-id.js';

export type RunTrigger = 'schedule' | 'manual' | 'cli';

/** One row of `export_runs`; keys exactly its columns (tables.ts). */
export interface RunRecord {
  readonly run_id: string;
  readonly trigger: RunTrigger;
  /** ISO 8601, UTC. */
  readonly started_at: string;
  readonly finished_at: string;
  readonly units_done: number;
  readonly units_partial: number;
  readonly units_failed: number;
  readonly units_skipped: number;
  readonly requests: number;
  readonly retries: number;
  readonly rate_limited: number;
  readonly budget_wait_ms: number;
  readonly backlog_requests: number;
  readonly failures: readonly RunFailure[];
  /** Units completed whose answers held fields or values this version does not know. */
  readonly units_drift: number;
  /** Of `requests`: those spent on units that failed. */
  readonly failed_requests: number;
  /** Each statement the run ran on the Iceberg tables; null without Iceberg tables (`tableFormat=hive`). Older records lack it. */
  readonly iceberg_statements: readonly IcebergStatementRecord[] | null;
}

/** One statement on an Iceberg table, as the run log keeps it (iceberg/sync.ts `IcebergStatementLog`). */
export interface IcebergStatementRecord {
  readonly kind: string;
  /** The Hive table whose Iceberg table it changed. */
  readonly table_name: string;
  /** A MERGE: its first and last day and how many; null otherwise. */
  readonly first_day: string | null;
  readonly last_day: string | null;
  readonly days: number | null;
  /** Athena's query execution id; null when it could not be started. */
  readonly query_id: string | null;
  readonly state: string;
  /** Rows inserted, updated or deleted (Athena's UpdateCount); null when not said. */
  readonly changed_rows: number | null;
  readonly bytes_scanned: number;
  /** Why it failed, scrubbed and cut to 500 characters; null when it succeeded. */
  readonly error: string | null;
}

/** The run log's form of a run's Iceberg statements; null when the run has no Iceberg tables. */
export function icebergRecords(summary: IcebergSummary | undefined): IcebergStatementRecord[] | null {
  if (summary === undefined) return null;
  return summary.statements.map((statement) => ({
    kind: statement.kind,
    table_name: statement.table,
    first_day: statement.days?.first ?? null,
    last_day: statement.days?.last ?? null,
    days: statement.days?.count ?? null,
    query_id: statement.queryId ?? null,
    state: statement.state,
    changed_rows: statement.rows ?? null,
    bytes_scanned: statement.bytesScanned,
    error: statement.error !== undefined ? scrubText(statement.error, { maxLength: 500 }) : null,
  }));
}

export interface RunFailure {
  /** Null when the run itself failed rather than one unit. */
  readonly dataset: string | null;
  readonly project_id: string | null;
  readonly date: string | null;
  readonly error: string;
}

/** `2026-11-23T02-05-00Z-1a2b3c4d`: sorts by start time, unique per run. */
export function newRunId(startedAt: number): string {
  return `${new Date(startedAt).toISOString().slice(0, 19).replace(/:/g, '-')}Z-${randomUUID().slice(0, 8)}`;
}

export function runRecordKey(record: Pick<RunRecord, 'run_id' | 'started_at'>): string {
  return partitionKey(EXPORT_RUNS, record.started_at.slice(0, 10), `${record.run_id}.json`);
}

/** What a run's record is made of: its counters and its units (run.ts's `RunSummary` extends it). */
export interface RunTotals {
  readonly completed: number;
  readonly partial: number;
  readonly failed: number;
  readonly skipped: number;
  readonly pending: number;
  /** Analytics requests started in this run (every attempt). */
  readonly requests: number;
  /** 429s received. */
  readonly rateLimited: number;
  readonly budgetWaitMs: number;
  /** Requests the units left to do are expected to need. */
  readonly backlogRequests: number;
  /** Units completed in this run whose answers held fields or values this version does not know. */
  readonly driftUnits: number;
  /** Requests spent on units that failed (every attempt, this run). */
  readonly failedRequests: number;
  readonly units: readonly (Unit &
    ({ readonly status: 'failed'; readonly error: string } | { readonly status: 'complete' | 'partial' | 'skipped' | 'pending' }))[];
}

/** The record of a run that ended (whatever its units' outcomes); `iceberg`: what it did to the Iceberg tables. */
export function recordOfRun(
  base: { readonly runId: string; readonly trigger: RunTrigger; readonly startedAt: number; readonly finishedAt: number; readonly retries: number },
  summary: RunTotals,
  iceberg?: IcebergSummary,
): RunRecord {
  return {
    ...header(base),
    units_done: summary.completed,
    units_partial: summary.partial,
    units_failed: summary.failed,
    units_skipped: summary.skipped + summary.pending,
    requests: summary.requests,
    retries: base.retries,
    rate_limited: summary.rateLimited,
    budget_wait_ms: summary.budgetWaitMs,
    backlog_requests: summary.backlogRequests,
    failures: summary.units.flatMap((unit) =>
      unit.status === 'failed' ? [{ dataset: unit.dataset, project_id: unit.projectId, date: unit.day, error: unit.error }] : [],
    ),
    units_drift: summary.driftUnits,
    failed_requests: summary.failedRequests,
    iceberg_statements: icebergRecords(iceberg),
  };
}

/** The record of a run that threw before it could summarise its units. */
export function recordOfFailedRun(
  base: { readonly runId: string; readonly trigger: RunTrigger; readonly startedAt: number; readonly finishedAt: number; readonly retries: number },
  counters: { readonly requests: number; readonly rateLimited: number; readonly budgetWaitMs: number },
  error: unknown,
  iceberg?: IcebergSummary,
): RunRecord {
  return {
    ...header(base),
    units_done: 0,
    units_partial: 0,
    units_failed: 0,
    units_skipped: 0,
    requests: counters.requests,
    retries: base.retries,
    rate_limited: counters.rateLimited,
    budget_wait_ms: counters.budgetWaitMs,
    backlog_requests: 0,
    failures: [{ dataset: null, project_id: null, date: null, error: describeError(error) }],
    units_drift: 0,
    failed_requests: 0,
    iceberg_statements: icebergRecords(iceberg),
  };
}

function header(base: { readonly runId: string; readonly trigger: RunTrigger; readonly startedAt: number; readonly finishedAt: number }) {
  return {
    run_id: base.runId,
    trigger: base.trigger,
    started_at: new Date(base.startedAt).toISOString(),
    finished_at: new Date(base.finishedAt).toISOString(),
  };
}

/** Writes the record as one line of JSON (the OpenX SerDe reads one object per line). */
export async function writeRunRecord(destination: Pick<Destination, 'put'>, record: RunRecord): Promise<string> {
  const key = runRecordKey(record);
  await destination.put(key, `${JSON.stringify(record)}\n`, { contentType: 'application/json' });
  return key;
}

/** What a reader of the log (the report) counts of one run: older records may lack a field. */
export interface RunCounts {
  readonly requests: number;
  readonly unitsFailed: number;
  /** When the run started and ended (epoch ms); undefined when the record has no readable time. */
  readonly startedAt?: number;
  readonly finishedAt?: number;
}

/**
 * The runs of one run-log file's text: one JSON object per line (a record is one line; a file
 * a tool concatenated holds several). A blank line, a line that is not JSON or a record without
 * a finite `requests` is not a run.
 */
export function parseRunRecords(text: string): RunCounts[] {
  const runs: RunCounts[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    let value: { requests?: unknown; units_failed?: unknown; started_at?: unknown; finished_at?: unknown };
    try {
      value = JSON.parse(line) as typeof value;
    } catch {
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    const requests = Number(value.requests);
    if (!Number.isFinite(requests)) continue;
    const unitsFailed = Number(value.units_failed);
    const startedAt = timeOf(value.started_at);
    const finishedAt = timeOf(value.finished_at);
    runs.push({
      requests,
      unitsFailed: Number.isFinite(unitsFailed) ? unitsFailed : 0,
      ...(startedAt !== undefined ? { startedAt } : {}),
      ...(finishedAt !== undefined ? { finishedAt } : {}),
    });
  }
  return runs;
}

/** An ISO time of a record as epoch ms; undefined when it is not one. */
function timeOf(value: unknown): number | undefined {
  const time = typeof value === 'string' ? Date.parse(value) : Number.NaN;
  return Number.isFinite(time) ? time : undefined;
}
