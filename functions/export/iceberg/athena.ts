/**
 * One statement on Athena's engine: started in the export's workgroup (whose configuration,
 * enforced, sets the engine version and where results go), polled until it ends, and its rows
 * (`UpdateCount`: inserted, updated and deleted by a MERGE or DELETE) and bytes scanned read.
 * Only the three calls the export's role is granted: StartQueryExecution, GetQueryExecution and
 * GetQueryResults, on the workgroup.
 */
import { GetQueryExecutionCommand, GetQueryResultsCommand, StartQueryExecutionCommand, type AthenaClient } from '@aws-sdk/client-athena';
import { describeError } from '../../shared/errors.js';
import type { Sleep } from '../../shared/time.js';

/** The Athena calls this module makes. */
export type AthenaSend = Pick<AthenaClient, 'send'>;

/** What one statement came to. */
export interface StatementOutcome {
  /** Athena's query execution id; absent when it could not even be started. */
  readonly queryId?: string;
  readonly state: 'SUCCEEDED' | 'FAILED';
  /** Rows inserted, updated or deleted (Athena's UpdateCount); absent when not said. */
  readonly rows?: number;
  /** Bytes the statement scanned (billed at Athena's price, 10 MB at least). */
  readonly bytesScanned: number;
  /** Why it failed, in words. */
  readonly error?: string;
}

export interface AthenaRunnerDeps {
  readonly athena: AthenaSend;
  /** The export's workgroup (`EXPORT_ATHENA_WORKGROUP`). */
  readonly workgroup: string;
  /** The Glue database the statements name (their default database too). */
  readonly database: string;
  readonly now: () => number;
  readonly sleep: Sleep;
  /**
   * How long to wait for one statement before leaving it (it may still finish: a replayed MERGE
   * changes nothing, so the next run's retry is harmless).
   * @default 300_000 (5 minutes)
   */
  readonly waitMs?: number;
}

/** The first poll's wait; each later one waits 1.5 times longer, at most {@link MAX_POLL_MS}. */
const FIRST_POLL_MS = 500;
const MAX_POLL_MS = 5_000;

/** Runs `sql` and waits for it to end (never throws: a failure is in the outcome). */
export async function runStatement(deps: AthenaRunnerDeps, sql: string): Promise<StatementOutcome> {
  const { athena, workgroup, database, now, sleep } = deps;
  const until = now() + (deps.waitMs ?? 300_000);
  let queryId: string | undefined;
  try {
    const started = await athena.send(
      new StartQueryExecutionCommand({ QueryString: sql, WorkGroup: workgroup, QueryExecutionContext: { Database: database } }),
    );
    queryId = started.QueryExecutionId;
    if (queryId === undefined) return { state: 'FAILED', bytesScanned: 0, error: 'Athena started no query (no QueryExecutionId)' };
    let wait = FIRST_POLL_MS;
    for (;;) {
      const { QueryExecution: execution } = await athena.send(new GetQueryExecutionCommand({ QueryExecutionId: queryId }));
      const state = execution?.Status?.State;
      const bytesScanned = execution?.Statistics?.DataScannedInBytes ?? 0;
      if (state === 'SUCCEEDED') {
        const results = await athena.send(new GetQueryResultsCommand({ QueryExecutionId: queryId, MaxResults: 1 }));
        return { queryId, state: 'SUCCEEDED', bytesScanned, ...(results.UpdateCount !== undefined ? { rows: results.UpdateCount } : {}) };
      }
      if (state === 'FAILED' || state === 'CANCELLED') {
        const reason = execution?.Status?.StateChangeReason ?? execution?.Status?.AthenaError?.ErrorMessage ?? 'no reason given';
        return { queryId, state: 'FAILED', bytesScanned, error: `${state.toLowerCase()}: ${reason}` };
      }
      if (now() + wait > until)
        return { queryId, state: 'FAILED', bytesScanned, error: `still ${state ?? 'unknown'} after ${deps.waitMs ?? 300_000} ms: left running` };
      await sleep(wait);
      wait = Math.min(MAX_POLL_MS, Math.round(wait * 1.5));
    }
  } catch (error) {
    return { ...(queryId !== undefined ? { queryId } : {}), state: 'FAILED', bytesScanned: 0, error: describeError(error) };
  }
}
