/**
 * The export engine wired for a benchmark the way the Lambda handler and the CLI wire it
 * (functions/export/handler.ts, functions/cli/export.ts): a budget ledger on a shared store, the budget
 * gate in front of every analytics request, the API client, unit leases, and `runUnits` over
 * planned units. Only what a benchmark must control is a parameter: the clock (a simulated
 * one for the budget figures), the budget, the destination and the client's backoff.
 *
 * Imports nothing from test/ or sandbox/: bench/child/export.ts bundles it like a Lambda.
 */
import type { PlannedUnit } from '../../functions/export/plan.js';
import { exportPolicy, type ExportPolicy } from '../../functions/export/policy.js';
import { runUnits, type RunDeps, type RunSummary, type UnitResult } from '../../functions/export/run-units.js';
import type { Unit } from '../../functions/export/unit-id.js';
import type { Manifest } from '../../functions/export/manifest.js';
import { createApiClient, type ApiClientOptions, type MintlifyClient } from '../../functions/shared/api/index.js';
import { createBudgetGate, createBudgetLedger, type BudgetGate, type BudgetWait } from '../../functions/shared/pacing/budget.js';
import type { BudgetSpec } from '../../functions/shared/pacing/budget-spec.js';
import { loadConfig } from '../../functions/settings/config.js';
import type { DatasetName } from '../../functions/warehouse/catalog.js';
import type { Destination } from '../../functions/shared/storage/destination.js';
import { createLeases } from '../../functions/shared/pacing/leases.js';
import { sleep as realSleep, type Sleep } from '../../functions/shared/time.js';
import { createMemoryStore, type SharedStore } from '../../functions/shared/storage/shared-store.js';
import { fixedPersonalDataKey } from '../../functions/shared/personal-data/index.js';

/** Time as the engine sees it: `now` and a `sleep` (real, or one that advances a simulated clock). */
export interface Clock {
  readonly now: () => number;
  readonly sleep: Sleep;
}

export const REAL_CLOCK: Clock = { now: Date.now, sleep: realSleep };

/**
 * A budget no benchmark comes near, for figures that are not about the budget: the gate still
 * sits in front of every request (its cost is part of the export), it just never waits.
 */
export const UNLIMITED_BUDGET: BudgetSpec = { requests: 1_000_000, windowMs: 3_600_000, text: '1000000/1h' };

/** Production defaults of a run (EXPORT_MAX_PAGES, checkpoint age, …), from `loadConfig` with no variable set. */
export function defaultSettings(overrides: Partial<ExportPolicy> = {}): ExportPolicy {
  return { ...exportPolicy(loadConfig({})), ...overrides };
}

export interface EngineOptions {
  readonly apiUrl: string;
  readonly apiKey: string;
  readonly destination: Destination;
  /** @default REAL_CLOCK */
  readonly clock?: Clock;
  /** @default UNLIMITED_BUDGET */
  readonly budget?: BudgetSpec;
  /** Ledger, leases and backlog. @default a fresh memory store */
  readonly store?: SharedStore;
  /** Client options (backoff, timeout); its clock and gate are always the engine's. */
  readonly client?: Partial<Omit<ApiClientOptions, 'baseUrl' | 'apiKey' | 'now' | 'sleep' | 'budget'>>;
  readonly onWait?: (wait: BudgetWait) => void;
}

export interface Engine {
  readonly deps: RunDeps & { readonly api: MintlifyClient; readonly gate: BudgetGate };
  /** Runs `units` in order with `settings` (default: production defaults). */
  run(units: readonly Unit[], settings?: ExportPolicy): Promise<RunSummary>;
}

export function createEngine(options: EngineOptions): Engine {
  const clock = options.clock ?? REAL_CLOCK;
  const store = options.store ?? createMemoryStore();
  const ledger = createBudgetLedger(store, options.budget ?? UNLIMITED_BUDGET, { now: clock.now });
  const gate = createBudgetGate(ledger, { now: clock.now, sleep: clock.sleep, ...(options.onWait ? { onWait: options.onWait } : {}) });
  const api = createApiClient({
    baseUrl: options.apiUrl,
    apiKey: options.apiKey,
    ...options.client,
    now: clock.now,
    sleep: clock.sleep,
    budget: gate,
  });
  const deps = {
    api,
    gate,
    destination: options.destination,
    leases: createLeases(store, { owner: `bench:${process.pid}`, now: clock.now }),
    store,
    now: clock.now,
    personalDataKey: fixedPersonalDataKey('bench-personal-data-key-0123456789'),
  };
  return {
    deps,
    run: (units, settings = defaultSettings()) => runUnits({ units: units.map(planned), policy: settings, deps }),
  };
}

/** A unit as the planner hands out a requested one. */
export function planned(unit: Unit): PlannedUnit {
  return { ...unit, reason: 'requested', estimate: 1, force: true };
}

/** One (dataset, project, day). */
export function unitOf(dataset: DatasetName, projectId: string, day: string): Unit {
  return { dataset, projectId, day };
}

/** The manifest of a complete unit; throws with the unit's status and error otherwise. */
export function manifestOf(result: UnitResult | undefined): Manifest {
  if (result?.status === 'complete') return result.manifest;
  const why = result === undefined ? 'not run' : result.status === 'failed' ? `failed: ${result.error}` : result.status;
  throw new Error(`${result ? `${result.dataset} ${result.projectId} ${result.day}` : 'unit'} did not complete (${why})`);
}
