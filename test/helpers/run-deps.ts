/**
 * Role: building a run in this process and reading its result. The dependencies of the
 * export's `runExport`/`runUnits` — a real client over HTTP with tiny backoffs, a budget gate
 * over an in-memory ledger, leases, everything on one fake clock — its settings and units, the
 * manifest or error of a unit's result, a logger that keeps every line, and a destination
 * that fails in the middle of a write. And the dependencies and settings of one follow-up
 * message (`processMessage`) against the sandbox and the emulators, on short intervals.
 */
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { expect } from 'vitest';
import type { PlannedUnit } from '../../functions/export/plan.js';
import type { ExportPolicy } from '../../functions/export/policy.js';
import type { RunDeps, RunEvent, RunSummary, UnitResult } from '../../functions/export/run-units.js';
import type { Unit } from '../../functions/export/unit-id.js';
import type { Manifest } from '../../functions/export/manifest.js';
import { createSqsDeadLetter } from '../../functions/follow-up/dead-letter.js';
import { createOutcomeSink } from '../../functions/follow-up/outcome.js';
import type { FollowUpDeps } from '../../functions/follow-up/types.js';
import type { FollowUpSettings } from '../../functions/follow-up/settings.js';
import type { StateStore } from '../../functions/follow-up/state.js';
import { createApiClient, type ApiClientOptions, type MintlifyClient } from '../../functions/shared/api/index.js';
import { createBudgetGate, createBudgetLedger, type BudgetGate } from '../../functions/shared/pacing/budget.js';
import type { BudgetSpec } from '../../functions/shared/pacing/budget-spec.js';
import type { DatasetName } from '../../functions/warehouse/catalog.js';
import type { Destination, PendingWrite } from '../../functions/shared/storage/destination.js';
import { openDestination } from '../../functions/shared/storage/destinations.js';
import { createLeases } from '../../functions/shared/pacing/leases.js';
import type { AppLogger } from '../../functions/shared/logger.js';
import { createMemoryStore, type SharedStore } from '../../functions/shared/storage/shared-store.js';
import type { Sandbox } from '../../sandbox/index.js';
import { fakeClock, type FakeClock } from './clock.js';
import type { S3Sqs } from '../../scripts/lib/s3-sqs.js';
import { fixedPersonalDataKey } from '../../functions/shared/personal-data/index.js';
import { keyIdOf } from '../../functions/shared/personal-data/index.js';
import { resolvePolicy } from '../../functions/warehouse/column-policy.js';
import type { Privacy } from '../../functions/export/privacy.js';

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
  /** Shared by the run, the client, the budget gate and the leases. @default fakeClock(start) */
  readonly clock?: FakeClock;
  /** Epoch ms the run's fake clock starts at (its `exported_at`), when no `clock` is given. @default 2026-01-01T00:00:00Z */
  readonly start?: number;
  /** Client options over `fastApiClient`'s (its clock and gate are always the run's); `logger` here sees the client's lines. */
  readonly client?: Partial<Omit<ApiClientOptions, 'now' | 'sleep' | 'budget'>>;
  /** @default GENEROUS_BUDGET */
  readonly budget?: BudgetSpec;
  /** Ledger, leases and backlog. @default a fresh memory store */
  readonly store?: SharedStore;
  readonly logger?: AppLogger;
  readonly onEvent?: (event: RunEvent) => void;
  /** Lease owner. @default a random one per call: two `exportDeps` are two runs */
  readonly owner?: string;
  /** @default TEST_PERSONAL_DATA_KEY */
  readonly personalDataKey?: string;
}

/** The personal-data key of the tests (a test that computes an HMAC independently uses it). */
export const TEST_PERSONAL_DATA_KEY = 'test-personal-data-key-0123456789abcdef';

/**
 * The client options of the dataset tests (issue 9): a longer per-request timeout for their
 * larger pages, and 2 retries after the first attempt.
 */
export const DATASET_CLIENT = { timeoutMs: 5_000, maxRetries: 2 } as const;

/** The dependencies of `runExport`/`runUnits`, every one on the same clock. */
export function exportDeps(options: ExportDepsOptions): RunDeps & { readonly clock: FakeClock; readonly api: MintlifyClient } {
  const clock = options.clock ?? fakeClock(options.start ?? Date.parse('2026-01-01T00:00:00Z'));
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
    personalDataKey: fixedPersonalDataKey(options.personalDataKey ?? TEST_PERSONAL_DATA_KEY),
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.onEvent ? { onEvent: options.onEvent } : {}),
  };
}

/** The export policy of a test: visitors only (unless `datasets` says otherwise), no heal window, no refresh, the default caps. */
export function testSettings(overrides: Partial<ExportPolicy> = {}): ExportPolicy {
  return {
    projectIds: [],
    datasets: ['visitors'],
    healDays: 0,
    refreshDays: 0,
    settleHours: 2,
    maxPages: 10_000,
    personalData: resolvePolicy({}),
    checkpointMaxAgeMs: 24 * 3_600_000,
    ...overrides,
  };
}

/** The personal-data policy, key and erasures of a test's units (the defaults, TEST_PERSONAL_DATA_KEY, nobody forgotten). */
export function testPrivacy(overrides: Partial<Privacy> = {}): Privacy {
  return { policy: resolvePolicy({}), key: TEST_PERSONAL_DATA_KEY, keyId: keyIdOf(TEST_PERSONAL_DATA_KEY), erased: new Set(), ...overrides };
}

/** A unit (visitors unless said otherwise). */
export function unitOf(projectId: string, day: string, dataset: Unit['dataset'] = 'visitors'): Unit {
  return { dataset, projectId, day };
}

/** A planned unit as `plan.ts` makes them for a manual request: requested, forced, one request expected, unless overridden. */
export function plannedUnit(unit: Unit & Partial<Pick<PlannedUnit, 'reason' | 'estimate' | 'force'>>): PlannedUnit {
  return { reason: 'requested', estimate: 1, force: true, ...unit };
}

/** Units as the planner makes them for a manual request. */
export function plannedUnits(datasets: readonly DatasetName[], projectIds: readonly string[], day: string): PlannedUnit[] {
  return projectIds.flatMap((projectId) => datasets.map((dataset) => plannedUnit({ dataset, projectId, day })));
}

/** The manifest of a unit result, failing the test with the result when it is not complete. */
export function manifestOf(result: UnitResult | undefined): Manifest {
  expect(result).toMatchObject({ status: 'complete' });
  return (result as Extract<UnitResult, { status: 'complete' }>).manifest;
}

/** The error text of a unit result, failing the test with the result when it did not fail. */
export function failureOf(result: UnitResult | undefined): string {
  expect(result).toMatchObject({ status: 'failed' });
  return (result as Extract<UnitResult, { status: 'failed' }>).error;
}

/** `status` of each unit of a run, as `<dataset> <project> <day> <status>`. */
export function statuses(summary: Pick<RunSummary, 'units'>): string[] {
  return summary.units.map((u) => `${u.dataset} ${u.projectId} ${u.day} ${u.status}`);
}

/** One line a `recordingLogger` kept. */
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

/** A logger that keeps every line, to look for a message or for a leak. */
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

/**
 * Wraps a destination so that streamed writes to keys matching `keyPattern` fail once
 * `afterBytes` bytes have gone through: the stream errors like a disk or network failure
 * in the middle of a file. Everything else is passed through.
 */
export function failingDestination(inner: Destination, options: { keyPattern: RegExp; afterBytes: number }): Destination & { failures: string[] } {
  const failures: string[] = [];
  const list = inner.list?.bind(inner);
  return {
    url: inner.url,
    failures,
    ...(list ? { list } : {}),
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

// --- a follow-up message ----------------------------------------------------------------------

/** Follow-up settings for `projectIds` on short intervals (50 ms polls, a 400 ms grace), so a file runs in seconds. */
export function fastFollowUpSettings(projectIds: readonly string[]): FollowUpSettings {
  return {
    projectIds,
    pollBudgetMs: 3_000,
    schedule: { minIntervalMs: 50, fraction: 0.1, maxIntervalMs: 500, jitter: 0.05 },
    grace: { ms: 400, reads: 3 },
    activeDeferMs: 100,
    leaseMs: 5_000,
  };
}

const silent = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

export interface FollowUpDepsOptions {
  readonly sandbox: Pick<Sandbox, 'url' | 'apiKey'>;
  readonly aws: Pick<S3Sqs, 's3' | 'sqs'>;
  readonly store: StateStore;
  /** Outcome records are written under `s3://<bucket>/warehouse`. */
  readonly bucket: string;
  readonly deadLetterUrl: string;
  /** Given to the message's processing and to its API client. @default a silent logger, none for the client */
  readonly logger?: FollowUpDeps['logger'];
  /** API client options over the defaults (2 s timeout, 10–50 ms backoffs). */
  readonly client?: Partial<ApiClientOptions>;
}

/** The dependencies of `processMessage`: a real client on the sandbox, outcomes in S3 and the dead-letter queue on fauxqs, the real clock; `extra` over them. */
export function followUpDeps(options: FollowUpDepsOptions, extra: Partial<FollowUpDeps> = {}): FollowUpDeps {
  return {
    api: createApiClient({
      baseUrl: options.sandbox.url,
      apiKey: options.sandbox.apiKey,
      timeoutMs: 2_000,
      minDelayMs: 10,
      maxDelayMs: 50,
      ...(options.logger ? { logger: options.logger } : {}),
      ...options.client,
    }),
    store: options.store,
    outcomes: createOutcomeSink(openDestination(`s3://${options.bucket}/warehouse`, { s3Client: options.aws.s3 })),
    deadLetter: createSqsDeadLetter({ sqs: options.aws.sqs, queueUrl: options.deadLetterUrl }),
    logger: options.logger ?? silent,
    metrics: { count: () => undefined },
    now: Date.now,
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    owner: 'it',
    ...extra,
  };
}
