/**
 * Role: a stand-in for Athena on loopback (neither fauxqs nor dynalite serves it): the JSON 1.1
 * protocol over HTTP on 127.0.0.1 (json-stand-in.ts), as the real `@aws-sdk/client-athena` speaks it
 * (`X-Amz-Target: AmazonAthena.StartQueryExecution`, `GetQueryExecution`, `GetQueryResults`),
 * for one workgroup: a query in another is refused (InvalidRequestException). Each query is
 * `RUNNING` for its first poll, then `SUCCEEDED` with `DataScannedInBytes` (100 bytes per
 * character of the statement) and `UpdateCount` (`rowsOf`, default 0); `failNext` scripts
 * failures. Every call and every statement is recorded. It runs no SQL (the MERGE runs on DuckDB
 * in test/integration/iceberg/iceberg-merge-duckdb.test.ts) and models no permission (iam.ts).
 */
import { ok, refused, startJsonStandIn, unknownOperation, type JsonAnswer } from './json-stand-in.js';

/** One statement the stand-in was asked to run. */
export interface StandInQuery {
  readonly id: string;
  readonly sql: string;
  readonly workgroup: string;
  readonly database: string | undefined;
  /** How it ends. */
  readonly state: 'SUCCEEDED' | 'FAILED';
  polls: number;
}

/** One call it answered. */
export interface AthenaCall {
  readonly target: string;
  readonly queryId?: string;
  readonly workgroup?: string;
}

export interface AthenaStandIn {
  readonly endpoint: string;
  readonly calls: AthenaCall[];
  readonly queries: StandInQuery[];
  /**
   * The next `times` statements fail: `'failed'` starts them and ends them FAILED (Athena's
   * answer to a statement it cannot run); `'unavailable'` answers the next `times`
   * StartQueryExecution calls HTTP 500 (InternalServerException) — 3 for the SDK's 3 attempts.
   */
  failNext(times: number, how: 'failed' | 'unavailable'): void;
  close(): Promise<void>;
}

export interface AthenaStandInOptions {
  /** The only workgroup queries may run in. */
  readonly workgroup: string;
  /** The UpdateCount of a statement. @default 0 */
  readonly rowsOf?: (sql: string) => number;
}

export async function startAthenaStandIn(options: AthenaStandInOptions): Promise<AthenaStandIn> {
  const calls: AthenaCall[] = [];
  const queries: StandInQuery[] = [];
  const failures: ('failed' | 'unavailable')[] = [];
  const invalid = (message: string) => refused('InvalidRequestException', message);
  const start = (target: string, body: QueryBody): JsonAnswer => {
    calls.push({ target, workgroup: body.WorkGroup ?? '' });
    if (body.WorkGroup !== options.workgroup) return invalid(`WorkGroup ${body.WorkGroup ?? '(none)'} is not found.`);
    if (failures[0] === 'unavailable') {
      failures.shift();
      return refused('InternalServerException', 'scripted failure', 500);
    }
    const failed = failures[0] === 'failed' ? failures.shift() : undefined;
    const query: StandInQuery = {
      id: `q-${String(queries.length + 1).padStart(4, '0')}`,
      sql: body.QueryString ?? '',
      workgroup: body.WorkGroup,
      database: body.QueryExecutionContext?.Database,
      state: failed ? 'FAILED' : 'SUCCEEDED',
      polls: 0,
    };
    queries.push(query);
    return ok({ QueryExecutionId: query.id });
  };
  const server = await startJsonStandIn<QueryBody>(({ target, body }) => {
    if (target === 'AmazonAthena.StartQueryExecution') return start(target, body);
    const query = queries.find((q) => q.id === body.QueryExecutionId);
    calls.push({ target, queryId: body.QueryExecutionId ?? '' });
    if (query === undefined) return invalid(`QueryExecution ${body.QueryExecutionId ?? ''} was not found`);
    if (target === 'AmazonAthena.GetQueryExecution') {
      query.polls += 1;
      const state = query.polls === 1 ? 'RUNNING' : query.state;
      return ok({
        QueryExecution: {
          QueryExecutionId: query.id,
          Query: query.sql,
          StatementType: 'DML',
          WorkGroup: query.workgroup,
          Status: { State: state, ...(state === 'FAILED' ? { StateChangeReason: 'ICEBERG_COMMIT_ERROR: scripted failure' } : {}) },
          Statistics: { DataScannedInBytes: state === 'RUNNING' ? 0 : query.sql.length * 100 },
        },
      });
    }
    if (target === 'AmazonAthena.GetQueryResults') {
      if (query.state !== 'SUCCEEDED' || query.polls < 2)
        return invalid(`Query has not yet finished. Current state: ${query.polls < 2 ? 'RUNNING' : 'FAILED'}`);
      return ok({ UpdateCount: options.rowsOf?.(query.sql) ?? 0, ResultSet: { Rows: [], ResultSetMetadata: { ColumnInfo: [] } } });
    }
    return unknownOperation(target);
  });
  return {
    ...server,
    calls,
    queries,
    failNext: (times, how) => failures.push(...Array.from({ length: times }, () => how)),
  };
}

/** The fields of a request the stand-in reads. */
interface QueryBody {
  readonly QueryString?: string;
  readonly WorkGroup?: string;
  readonly QueryExecutionContext?: { readonly Database?: string };
  readonly QueryExecutionId?: string;
}
