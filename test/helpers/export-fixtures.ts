/**
 * Shared factories for the export's integration tests: temp folders, an API client with
 * tiny backoffs and a recorded (not slept) clock, reading an exported day back with DuckDB
 * and comparing it with the sandbox's own data, schedule events and Lambda contexts, and a
 * destination wrapper that fails in the middle of a write.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { expect } from 'vitest';
import { createApiClient, type ApiClientOptions } from '../../functions/shared/api-client.js';
import type { ApiClient } from '../../functions/shared/api-types.js';
import type { Destination, PendingWrite } from '../../functions/shared/destination.js';
import { manifestKey } from '../../functions/shared/tables.js';
import type { RequestLogEntry, Sandbox } from '../../sandbox/index.js';
import { readParquet, readParquetBytes, type ParquetContents } from './duckdb.js';

/** The types a warehouse must see, in column order (DESIGN.md "Warehouse layout"). */
export const PAGES_COLUMNS = [
  { name: 'project_id', type: 'VARCHAR' },
  { name: 'date', type: 'DATE' },
  { name: 'path', type: 'VARCHAR' },
  { name: 'human', type: 'BIGINT' },
  { name: 'ai', type: 'BIGINT' },
  { name: 'total', type: 'BIGINT' },
  { name: 'exported_at', type: 'TIMESTAMP' },
];
export const TOTALS_COLUMNS = [
  { name: 'project_id', type: 'VARCHAR' },
  { name: 'date', type: 'DATE' },
  { name: 'human', type: 'BIGINT' },
  { name: 'ai', type: 'BIGINT' },
  { name: 'total', type: 'BIGINT' },
  { name: 'pages', type: 'BIGINT' },
  { name: 'exported_at', type: 'TIMESTAMP' },
];

/** Temp folders made by `makeTempDir`, removed by `removeTempDirs`. */
const tempDirs: string[] = [];

export async function makeTempDir(label = 'export'): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), `mintlify-${label}-`));
  tempDirs.push(dir);
  return dir;
}

export async function removeTempDirs(): Promise<void> {
  await Promise.all(tempDirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
}

/** Every file under `root` (hidden temp files included), as sorted relative POSIX paths. */
export async function listFiles(root: string): Promise<string[]> {
  let entries;
  try {
    entries = await readdir(root, { recursive: true, withFileTypes: true });
  } catch {
    return [];
  }
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(root, path.join(entry.parentPath, entry.name)).split(path.sep).join('/'))
    .sort();
}

/** Files under `root` whose bytes contain `needle` (e.g. the API key). */
export async function filesContaining(root: string, needle: string): Promise<string[]> {
  const hits: string[] = [];
  for (const file of await listFiles(root)) {
    const bytes = await readFile(path.join(root, file));
    if (bytes.includes(needle)) hits.push(file);
  }
  return hits;
}

/** The waits the client asked for, recorded instead of slept (a fake clock for backoff). */
export interface RecordedSleeps {
  readonly sleep: (ms: number) => Promise<void>;
  readonly waits: number[];
}

export function recordingSleep(): RecordedSleeps {
  const waits: number[] = [];
  return {
    waits,
    sleep: async (ms: number) => {
      waits.push(ms);
    },
  };
}

/**
 * A client on the sandbox with tiny backoffs and a short per-request timeout, so a retried
 * fault costs milliseconds. Waits go to `sleeps` when given (then nothing really sleeps).
 */
export function fastApiClient(
  sandbox: Pick<Sandbox, 'url' | 'apiKey'>,
  overrides: Partial<ApiClientOptions> = {},
): ApiClient {
  return createApiClient({
    baseUrl: sandbox.url,
    apiKey: sandbox.apiKey,
    timeoutMs: 2_000,
    minDelayMs: 1,
    maxDelayMs: 5,
    maxRetries: 4,
    ...overrides,
  });
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
      exported_at: exportedAt,
    })),
  );
  expect(exported.totals.rows).toEqual([
    {
      project_id: projectId,
      date: day,
      human: expected.totals.human,
      ai: expected.totals.ai,
      total: expected.totals.total,
      pages: expected.visitors.length,
      exported_at: exportedAt,
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

/** Visitors requests the sandbox logged, optionally for one project and/or day. */
export function visitorRequests(sandbox: Pick<Sandbox, 'requests'>, filter: { projectId?: string; day?: string } = {}): RequestLogEntry[] {
  return sandbox.requests.filter(
    (entry) =>
      entry.route === 'visitors' &&
      (filter.projectId === undefined || entry.projectId === filter.projectId) &&
      (filter.day === undefined || entry.query['dateFrom'] === filter.day),
  );
}

/** Offsets of the successful (200, unfaulted) visitors requests, in request order. */
export function successfulOffsets(entries: readonly RequestLogEntry[]): number[] {
  return entries.filter((entry) => entry.status === 200 && entry.fault === undefined).map((entry) => Number(entry.query['offset']));
}

/** An EventBridge scheduled event as the nightly rule sends it. */
export function scheduledEvent(time: string) {
  return {
    version: '0',
    id: 'c0ffee00-0000-4000-8000-000000000000',
    'detail-type': 'Scheduled Event',
    source: 'aws.events',
    account: '123456789012',
    time,
    region: 'us-east-1',
    resources: ['arn:aws:events:us-east-1:123456789012:rule/mintlify-nightly-export'],
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
