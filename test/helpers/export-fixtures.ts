/**
 * Shared factories for the export's tests: temp folders, a fake clock whose sleep advances
 * its time, an API client with tiny backoffs behind a generous in-memory request budget, the
 * dependencies and settings of a run (`exportDeps`, `testSettings`), units, reading an
 * exported day back with DuckDB and comparing it with the sandbox's own data, schedule events
 * and Lambda contexts, and a destination wrapper that fails in the middle of a write.
 */
import { CreateTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { randomBytes } from 'node:crypto';
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
import type { Sandbox } from '../../sandbox/index.js';
import { fakeClock, type FakeClock } from './clock.js';

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
