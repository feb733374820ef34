/**
 * Factories for the integration tests of every analytics dataset (issue 9): the table
 * contract written out on its own (so a drift in tables.ts fails a test), the rows a correct
 * export of a (dataset, project, day) must hold — computed from `sandbox.data`, not from the
 * export's own row mapping —, reading a unit's files back through any destination with
 * DuckDB, the sandbox's request log per unit, the fewest requests paging allows, the
 * dependencies of a run on a fake clock, a logger that records every line, and a tiny API
 * on 127.0.0.1 that serves an empty visitors day (the sandbox cannot: every project has at
 * least one path).
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'vitest';
import { main, type CliIo } from '../../functions/cli.js';
import type { PlannedUnit } from '../../functions/export/plan.js';
import type { RunDeps, RunSettings, UnitResult } from '../../functions/export/run.js';
import type { Manifest } from '../../functions/export/unit.js';
import { createApiClient, type MintlifyClient } from '../../functions/shared/api-client.js';
import { createBudgetGate, createBudgetLedger } from '../../functions/shared/budget.js';
import type { DatasetName } from '../../functions/shared/catalog.js';
import type { Destination } from '../../functions/shared/destination.js';
import { createLeases } from '../../functions/shared/leases.js';
import type { AppLogger } from '../../functions/shared/logger.js';
import { createMemoryStore } from '../../functions/shared/shared-store.js';
import { fakeClock, type FakeClock } from './clock.js';
import { makeTempDir } from './files.js';
import { ALL_DATASETS } from './layout.js';

/** The manifest of a unit result, failing the test with the result when it is not complete. */
export function completeManifest(result: UnitResult | undefined): Manifest {
  expect(result).toMatchObject({ status: 'complete' });
  return (result as Extract<UnitResult, { status: 'complete' }>).manifest;
}

/** The error text of a unit result, failing the test with the result when it did not fail. */
export function failureOf(result: UnitResult | undefined): string {
  expect(result).toMatchObject({ status: 'failed' });
  return (result as Extract<UnitResult, { status: 'failed' }>).error;
}

// --- a run on a fake clock (export-fixtures' fakeClock) ----------------------------------

export interface DatasetRunOptions {
  /** The API: the sandbox's `url` and `apiKey`, or another server's. */
  readonly api: { readonly url: string; readonly apiKey: string };
  readonly destination: Destination;
  /** Epoch ms the run starts at (its `exported_at`). */
  readonly start: number;
  /** Given to the run and to the API client, so every line either writes is seen. */
  readonly logger?: AppLogger;
  /** Client retries after the first attempt. @default 2 */
  readonly maxRetries?: number;
}

/**
 * The dependencies of `runUnits`/`runExport`: a real client over HTTP with tiny backoffs, a
 * budget gate far above what a test spends over an in-memory ledger, leases in the same
 * store, everything on one fake clock.
 */
export function datasetRunDeps(options: DatasetRunOptions): RunDeps & { readonly api: MintlifyClient; readonly clock: FakeClock } {
  const clock = fakeClock(options.start);
  const store = createMemoryStore();
  const ledger = createBudgetLedger(store, { requests: 1_000_000, windowMs: 3_600_000, text: '1000000/1h' }, { now: clock.now });
  const gate = createBudgetGate(ledger, { now: clock.now, sleep: clock.sleep });
  const api = createApiClient({
    baseUrl: options.api.url,
    apiKey: options.api.apiKey,
    timeoutMs: 5_000,
    minDelayMs: 1,
    maxDelayMs: 5,
    maxRetries: options.maxRetries ?? 2,
    now: clock.now,
    sleep: clock.sleep,
    budget: gate,
    ...(options.logger ? { logger: options.logger } : {}),
  });
  return {
    api,
    gate,
    destination: options.destination,
    leases: createLeases(store, { owner: `datasets-test-${randomBytes(4).toString('hex')}`, now: clock.now }),
    store,
    now: clock.now,
    clock,
    ...(options.logger ? { logger: options.logger } : {}),
  };
}

/** Settings of a run over the given datasets: the engine's defaults otherwise. */
export function datasetSettings(overrides: Partial<RunSettings> = {}): RunSettings {
  return {
    projectIds: [],
    datasets: [...ALL_DATASETS],
    healDays: 0,
    refreshDays: 0,
    settleHours: 2,
    maxPages: 10_000,
    feedbackContact: false,
    checkpointMaxAgeMs: 24 * 3_600_000,
    ...overrides,
  };
}

/** Units as the planner makes them for a manual request. */
export function plannedUnits(datasets: readonly DatasetName[], projectIds: readonly string[], day: string): PlannedUnit[] {
  return projectIds.flatMap((projectId) =>
    datasets.map((dataset): PlannedUnit => ({ dataset, projectId, day, reason: 'requested', estimate: 1, force: true })),
  );
}

// --- a logger that keeps every line ------------------------------------------------------

export interface LogLine {
  readonly level: 'debug' | 'info' | 'warn' | 'error';
  readonly message: string;
  /** The whole line as JSON (errors with name, message, stack and cause). */
  readonly text: string;
}

export interface RecordingLogger extends AppLogger {
  readonly lines: LogLine[];
}

/** Errors keep their message, stack and cause in JSON (JSON.stringify alone drops them). */
function jsonReplacer(_key: string, value: unknown): unknown {
  if (value instanceof Error) {
    return { name: value.name, message: value.message, stack: value.stack, cause: value.cause };
  }
  return value;
}

export function recordingLogger(): RecordingLogger {
  const lines: LogLine[] = [];
  const record =
    (level: LogLine['level']) =>
    (input: unknown, ...extra: unknown[]): void => {
      const message = typeof input === 'string' ? input : JSON.stringify(input, jsonReplacer);
      lines.push({ level, message, text: JSON.stringify({ level, input, extra }, jsonReplacer) });
    };
  return { lines, debug: record('debug'), info: record('info'), warn: record('warn'), error: record('error') };
}

// --- an API with an empty visitors day ---------------------------------------------------

export interface EmptyVisitorsApi {
  readonly url: string;
  readonly apiKey: string;
  /** Query of every request, in order. */
  readonly requests: { readonly path: string; readonly query: Readonly<Record<string, string>> }[];
  close(): Promise<void>;
}

/**
 * A minimal API on 127.0.0.1 whose visitors endpoint answers every day as empty, the way the
 * service does for a site without traffic: `{totals: 0s, visitors: [], hasMore: false}`. The
 * sandbox cannot serve such a day (its projects have at least one path), yet the contract
 * says a complete empty day still gets its files. Anything else is a 404.
 */
export async function startEmptyVisitorsApi(apiKey: string): Promise<EmptyVisitorsApi> {
  const requests: { path: string; query: Record<string, string> }[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    requests.push({ path: url.pathname, query: Object.fromEntries(url.searchParams) });
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    if (req.headers.authorization !== `Bearer ${apiKey}`) return send(401, { error: 'invalid API key' });
    if (!/^\/v1\/analytics\/[^/]+\/visitors$/.test(url.pathname)) return send(404, { error: 'no such endpoint' });
    return send(200, { totals: { human: 0, ai: 0, total: 0 }, visitors: [], hasMore: false });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    apiKey,
    requests,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

// --- the CLI in process ----------------------------------------------------------------------

export interface CliRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * `main(argv)` in this process against `api` (the sandbox), as cli-export.test.ts runs it:
 * the clock stands at `now`, sleeps return at once, the budget is far above what a test
 * spends, and the ledger lives in a fresh state folder. `env` adds or overrides variables.
 */
export async function runCliAt(
  api: { readonly url: string; readonly apiKey: string },
  argv: readonly string[],
  options: { readonly now: number; readonly env?: Record<string, string> },
): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text), isTTY: false },
    env: {
      MINTLIFY_API_URL: api.url,
      MINTLIFY_API_KEY: api.apiKey,
      API_TIMEOUT_MS: '5000',
      ANALYTICS_BUDGET: '100000/1h',
      EXPORT_STATE_DIR: await makeTempDir('datasets-state'),
      ...options.env,
    },
    now: () => options.now,
    sleep: async () => undefined,
    stopSignal: new Promise<void>(() => undefined),
  };
  const code = await main(argv, io);
  return { code, stdout, stderr };
}
