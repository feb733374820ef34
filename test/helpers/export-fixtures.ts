/**
 * Shared factories for the export's tests: temp folders, a fake clock whose sleep advances
 * its time, an API client with tiny backoffs behind a generous in-memory request budget, the
 * dependencies and settings of a run (`exportDeps`, `testSettings`), units, reading an
 * exported day back with DuckDB and comparing it with the sandbox's own data, schedule events
 * and Lambda contexts, and a destination wrapper that fails in the middle of a write.
 */
import { CreateTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { Writable } from 'node:stream';
import { expect } from 'vitest';
import type { PlannedUnit } from '../../functions/export/plan.js';
import type { RunDeps, RunEvent, RunSettings, RunSummary, UnitResult } from '../../functions/export/run.js';
import type { Unit } from '../../functions/export/staging.js';
import type { Manifest } from '../../functions/export/unit.js';
import { createApiClient, type ApiClientOptions, type MintlifyClient } from '../../functions/shared/api-client.js';
import { createBudgetGate, createBudgetLedger, type BudgetGate } from '../../functions/shared/budget.js';
import type { BudgetSpec } from '../../functions/shared/budget-spec.js';
import type { Destination, PendingWrite } from '../../functions/shared/destination.js';
import { createLeases } from '../../functions/shared/leases.js';
import type { AppLogger } from '../../functions/shared/logger.js';
import { createMemoryStore, type SharedStore } from '../../functions/shared/shared-store.js';
import { manifestKey } from '../../functions/shared/tables.js';
import type { Sandbox } from '../../sandbox/index.js';
import { fakeClock, type FakeClock } from './clock.js';
import { readParquet, readParquetBytes, type ParquetContents } from './duckdb.js';

/** The types a warehouse must see, in column order (docs/design.md §2.3). */
export const PAGES_COLUMNS = [
  { name: 'project_id', type: 'VARCHAR' },
  { name: 'date', type: 'DATE' },
  { name: 'path', type: 'VARCHAR' },
  { name: 'human', type: 'BIGINT' },
  { name: 'ai', type: 'BIGINT' },
  { name: 'total', type: 'BIGINT' },
  { name: 'exported_at', type: 'TIMESTAMP' },
  { name: 'unknown_fields', type: 'VARCHAR' },
];
export const TOTALS_COLUMNS = [
  { name: 'project_id', type: 'VARCHAR' },
  { name: 'date', type: 'DATE' },
  { name: 'human', type: 'BIGINT' },
  { name: 'ai', type: 'BIGINT' },
  { name: 'total', type: 'BIGINT' },
  { name: 'pages', type: 'BIGINT' },
  { name: 'exported_at', type: 'TIMESTAMP' },
  { name: 'unknown_fields', type: 'VARCHAR' },
];

/**
 * The run log's layout (issue 11), written out here rather than imported so that a change of
 * it fails the tests: `<dest>/export_runs/dt=<UTC day the run started>/<runId>.json`, the run
 * id being the start time to the second (colons as dashes), `Z` and 8 hex digits.
 */
const RUN_LOG_FOLDER = 'export_runs';

/**
 * The key of a run's record under `prefix` (`''` or ending in `/`): the run that started at
 * `startedAt` (epoch ms), or without it any run whose folder day is the day of its id.
 */
export function runRecordPattern(startedAt?: number, prefix = ''): RegExp {
  const head = prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  if (startedAt === undefined) {
    return new RegExp(`^${head}${RUN_LOG_FOLDER}/dt=(\\d{4}-\\d{2}-\\d{2})/\\1T\\d{2}-\\d{2}-\\d{2}Z-[0-9a-f]{8}\\.json$`);
  }
  const iso = new Date(startedAt).toISOString();
  return new RegExp(`^${head}${RUN_LOG_FOLDER}/dt=${iso.slice(0, 10)}/${iso.slice(0, 19).replaceAll(':', '-')}Z-[0-9a-f]{8}\\.json$`);
}

/** An asymmetric matcher for the key of a run's record, for `toEqual` over a list of keys. */
export function aRunRecord(startedAt?: number, prefix = ''): unknown {
  return expect.stringMatching(runRecordPattern(startedAt, prefix));
}

/** The keys of `keys` under the run log (`<prefix>export_runs/`). */
export function runRecordsIn(keys: readonly string[], prefix = ''): string[] {
  return keys.filter((key) => key.startsWith(`${prefix}${RUN_LOG_FOLDER}/`));
}

/** The keys of `keys` outside the run log. */
export function withoutRunRecords(keys: readonly string[], prefix = ''): string[] {
  return keys.filter((key) => !key.startsWith(`${prefix}${RUN_LOG_FOLDER}/`));
}

/** A budget no test run comes near: a million requests an hour. */
export const GENEROUS_BUDGET: BudgetSpec = { requests: 1_000_000, windowMs: 3_600_000, text: '1000000/1h' };

/** A budget gate on an in-memory ledger (or `store`), on `clock`. */
export function budgetGate(clock: Pick<FakeClock, 'now' | 'sleep'>, options: { readonly spec?: BudgetSpec; readonly store?: SharedStore } = {}): BudgetGate {
  const ledger = createBudgetLedger(options.store ?? createMemoryStore(), options.spec ?? GENEROUS_BUDGET, { now: clock.now });
  return createBudgetGate(ledger, { now: clock.now, sleep: clock.sleep });
}

/**
 * A client on the sandbox with tiny backoffs and a short per-request timeout, so a retried
 * fault costs milliseconds. Unless `overrides` say otherwise it waits on a fake clock (nothing
 * really sleeps) and passes a generous in-memory budget gate on the same clock.
 */
export function fastApiClient(sandbox: Pick<Sandbox, 'url' | 'apiKey'>, overrides: Partial<ApiClientOptions> = {}): MintlifyClient {
  const clock = overrides.now && overrides.sleep ? { now: overrides.now, sleep: overrides.sleep } : fakeClock(Date.now());
  return createApiClient({
    baseUrl: sandbox.url,
    apiKey: sandbox.apiKey,
    timeoutMs: 2_000,
    minDelayMs: 1,
    maxDelayMs: 5,
    maxRetries: 4,
    now: clock.now,
    sleep: clock.sleep,
    budget: budgetGate(clock),
    ...overrides,
  });
}

export interface ExportDepsOptions {
  readonly sandbox: Pick<Sandbox, 'url' | 'apiKey'>;
  readonly destination: Destination;
  /** Shared by the run, the client, the budget gate and the leases. @default fakeClock(2026-01-01) */
  readonly clock?: FakeClock;
  /** Client options over `fastApiClient`'s (its clock and gate are always the run's). */
  readonly client?: Partial<Omit<ApiClientOptions, 'now' | 'sleep' | 'budget'>>;
  /** @default GENEROUS_BUDGET */
  readonly budget?: BudgetSpec;
  /** Ledger, leases and backlog. @default a fresh memory store */
  readonly store?: SharedStore;
  readonly logger?: AppLogger;
  readonly signal?: AbortSignal;
  readonly onEvent?: (event: RunEvent) => void;
  /** Lease owner. @default a random one per call: two `exportDeps` are two runs */
  readonly owner?: string;
}

/** The dependencies of `runExport`/`runUnits`, every one on the same clock. */
export function exportDeps(options: ExportDepsOptions): RunDeps & { readonly clock: FakeClock; readonly api: MintlifyClient } {
  const clock = options.clock ?? fakeClock(Date.parse('2026-01-01T00:00:00Z'));
  const store = options.store ?? createMemoryStore();
  const gate = budgetGate(clock, { store, ...(options.budget ? { spec: options.budget } : {}) });
  const api = fastApiClient(options.sandbox, { ...options.client, now: clock.now, sleep: clock.sleep, budget: gate });
  return {
    api,
    gate,
    destination: options.destination,
    leases: createLeases(store, { owner: options.owner ?? `test-run-${randomBytes(4).toString('hex')}`, now: clock.now }),
    store,
    now: clock.now,
    clock,
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.onEvent ? { onEvent: options.onEvent } : {}),
  };
}

/** Run settings of a test: visitors only, no heal window, no refresh, the default caps. */
export function testSettings(overrides: Partial<RunSettings> = {}): RunSettings {
  return {
    projectIds: [],
    datasets: ['visitors'],
    healDays: 0,
    refreshDays: 0,
    settleHours: 2,
    maxPages: 10_000,
    feedbackContact: false,
    checkpointMaxAgeMs: 24 * 3_600_000,
    ...overrides,
  };
}

/** A unit (visitors unless said otherwise). */
export function unitOf(projectId: string, day: string, dataset: Unit['dataset'] = 'visitors'): Unit {
  return { dataset, projectId, day };
}

/** A planned unit as `plan.ts` makes them: requested, forced, one request expected, unless overridden. */
export function plannedUnit(unit: Unit & Partial<Pick<PlannedUnit, 'reason' | 'estimate' | 'force'>>): PlannedUnit {
  return { reason: 'requested', estimate: 1, force: true, ...unit };
}

/** The manifest of a unit result, failing the test with the result when it is not complete. */
export function manifestOf(result: UnitResult | undefined): Manifest {
  expect(result).toMatchObject({ status: 'complete' });
  return (result as Extract<UnitResult, { status: 'complete' }>).manifest;
}

/** `status` of each unit of a run, as `<dataset> <project> <day> <status>`. */
export function statuses(summary: Pick<RunSummary, 'units'>): string[] {
  return summary.units.map((u) => `${u.dataset} ${u.projectId} ${u.day} ${u.status}`);
}

/** Creates a DynamoDB table shaped like the export's state table (`pk` string key); returns its name. */
export async function createStateTable(client: DynamoDBClient, name = `export-state-${randomBytes(4).toString('hex')}`): Promise<string> {
  await client.send(
    new CreateTableCommand({
      TableName: name,
      KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
      AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
      BillingMode: 'PAY_PER_REQUEST',
    }),
  );
  return name;
}

/** What DuckDB reads back from one exported day in a local destination. */
export interface ExportedDay {
  readonly pages: ParquetContents;
  readonly totals: ParquetContents;
}

export function dayFiles(root: string, projectId: string, day: string) {
  return {
    pages: path.join(root, 'visitors_pages', `dt=${day}`, `${projectId}.parquet`),
    totals: path.join(root, 'visitors_totals', `dt=${day}`, `${projectId}.parquet`),
    manifest: path.join(root, ...manifestKey('visitors', day, projectId).split('/')),
  };
}

export async function readLocalDay(root: string, projectId: string, day: string): Promise<ExportedDay> {
  const files = dayFiles(root, projectId, day);
  const [pages, totals] = await Promise.all([readParquet(files.pages), readParquet(files.totals)]);
  return { pages, totals };
}

/** Reads one exported day through any `Destination` (S3 included). */
export async function readDestinationDay(destination: Destination, projectId: string, day: string): Promise<ExportedDay> {
  const get = async (key: string) => {
    const bytes = await destination.get(key);
    if (bytes === undefined) throw new Error(`${key} is missing in ${destination.url}`);
    return readParquetBytes(bytes);
  };
  return {
    pages: await get(`visitors_pages/dt=${day}/${projectId}.parquet`),
    totals: await get(`visitors_totals/dt=${day}/${projectId}.parquet`),
  };
}

/**
 * Asserts that an exported day equals the sandbox's data value for value: every page row in
 * API order, the site totals, the page count, one `exported_at` for all rows, and the types.
 * Returns the `exported_at` the rows carry.
 */
export function expectDayMatches(exported: ExportedDay, sandbox: Pick<Sandbox, 'expectedDay'>, projectId: string, day: string): string {
  const expected = sandbox.expectedDay(projectId, day);
  exported = { pages: withoutPartition(exported.pages, day), totals: withoutPartition(exported.totals, day) };
  expect(exported.pages.columns).toEqual(PAGES_COLUMNS);
  expect(exported.totals.columns).toEqual(TOTALS_COLUMNS);
  const exportedAt = exported.totals.rows[0]?.['exported_at'];
  expect(typeof exportedAt).toBe('string');
  expect(exported.pages.rows.length).toBe(expected.visitors.length);
  expect(exported.pages.rows).toEqual(
    expected.visitors.map((row) => ({
      project_id: projectId,
      date: day,
      path: row.path,
      human: row.human,
      ai: row.ai,
      total: row.total,
      // A resumed unit's rows carry the time of the run that fetched their page: never later
      // than the run that committed the day (the totals row's).
      exported_at: expect.any(String),
      unknown_fields: null,
    })),
  );
  for (const row of exported.pages.rows) expect(String(row['exported_at']) <= String(exportedAt)).toBe(true);
  expect(exported.totals.rows).toEqual([
    {
      project_id: projectId,
      date: day,
      human: expected.totals.human,
      ai: expected.totals.ai,
      total: expected.totals.total,
      pages: expected.visitors.length,
      exported_at: exportedAt,
      unknown_fields: null,
    },
  ]);
  return exportedAt as string;
}

/**
 * DuckDB adds the Hive partition column `dt` on its own when a file's path has `dt=…`
 * folders: check it is the DATE of the day, then drop it so the table columns compare.
 */
function withoutPartition(contents: ParquetContents, day: string): ParquetContents {
  const partition = contents.columns.find((column) => column.name === 'dt');
  if (!partition) return contents;
  expect(partition.type).toBe('DATE');
  for (const row of contents.rows) expect(row['dt']).toBe(day);
  return {
    columns: contents.columns.filter((column) => column.name !== 'dt'),
    rows: contents.rows.map(({ dt: _dt, ...rest }) => rest),
  };
}

/** An EventBridge scheduled event as the hourly rule sends it. */
export function scheduledEvent(time: string) {
  return {
    version: '0',
    id: 'c0ffee00-0000-4000-8000-000000000000',
    'detail-type': 'Scheduled Event',
    source: 'aws.events',
    account: '123456789012',
    time,
    region: 'us-east-1',
    resources: ['arn:aws:events:us-east-1:123456789012:rule/mintlify-hourly-export'],
    detail: {},
  };
}

/** The part of a Lambda context the handler uses; `remainingMs` is fixed. */
export function lambdaContext(remainingMs = 900_000) {
  return { awsRequestId: 'test-request', getRemainingTimeInMillis: () => remainingMs };
}

/**
 * Wraps a destination so that streamed writes to keys matching `keyPattern` fail once
 * `afterBytes` bytes have gone through: the stream errors like a disk or network failure
 * in the middle of a file. Everything else is passed through.
 */
export function failingDestination(inner: Destination, options: { keyPattern: RegExp; afterBytes: number }): Destination & { failures: string[] } {
  const failures: string[] = [];
  return {
    url: inner.url,
    failures,
    put: (key, body, putOptions) => inner.put(key, body, putOptions),
    get: (key) => inner.get(key),
    exists: (key) => inner.exists(key),
    delete: (key) => inner.delete(key),
    probe: () => inner.probe(),
    async openWrite(key, writeOptions) {
      const pending = await inner.openWrite(key, writeOptions);
      if (!options.keyPattern.test(key)) return pending;
      let written = 0;
      const stream = new Writable({
        write(chunk: Buffer, _encoding, callback) {
          if (written + chunk.length > options.afterBytes) {
            failures.push(key);
            callback(new Error(`injected failure after ${written} bytes of ${key}`));
            return;
          }
          written += chunk.length;
          pending.stream.write(chunk, (error) => callback(error ?? null));
        },
        final(callback) {
          pending.stream.end(() => callback());
        },
      });
      const wrapped: PendingWrite = {
        stream,
        commit: () => pending.commit(),
        abort: (reason) => pending.abort(reason),
      };
      return wrapped;
    },
  };
}
