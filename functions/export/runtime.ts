/**
 * Wiring shared by the Lambda handler and the CLI: where the state every run shares lives
 * (the budget ledger, unit leases, the backlog), and the run settings read from `Config`.
 * In AWS that state is a DynamoDB table (`EXPORT_STATE_TABLE`); on a laptop, files in a local
 * folder (`EXPORT_STATE_DIR`, default `<local destination>/.state`) that two CLI runs share.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import path from 'node:path';
import { createBudgetLedger, type BudgetLedger } from '../shared/budget.js';
import type { Config } from '../shared/config.js';
import type { SharedStore } from '../shared/shared-store.js';
import { createDynamoStore } from '../shared/shared-store-dynamo.js';
import { createLocalStore } from '../shared/shared-store-local.js';
import type { RunSettings } from './run.js';

/** Where the CLI keeps its state when there is no table: beside a local destination, else `./data`. */
export function localStateDir(config: Pick<Config, 'stateDir' | 'destination'>, out?: string): string {
  if (config.stateDir !== undefined) return config.stateDir;
  const destination = out ?? config.destination;
  return path.join(destination.startsWith('s3://') ? './data' : destination, '.state');
}

/** The shared store: the DynamoDB table when configured, else a local folder. */
export function openSharedStore(
  config: Pick<Config, 'stateTable' | 'stateDir' | 'destination'>,
  options: { readonly dynamo?: () => DynamoDBClient; readonly out?: string },
): SharedStore {
  if (config.stateTable !== undefined) {
    if (!options.dynamo) throw new Error('a DynamoDB client is needed for EXPORT_STATE_TABLE');
    return createDynamoStore({ tableName: config.stateTable, client: options.dynamo() });
  }
  return createLocalStore(localStateDir(config, options.out));
}

export function openLedger(config: Pick<Config, 'budget'>, store: SharedStore, now: () => number): BudgetLedger {
  return createBudgetLedger(store, config.budget, { now });
}

/** The settings of a run, from the configuration. */
export function runSettings(config: Config, extra: { readonly deadline?: number } = {}): RunSettings {
  return {
    projectIds: config.projectIds,
    datasets: config.datasets,
    healDays: config.healDays,
    refreshDays: config.refreshDays,
    settleHours: config.settleHours,
    maxPages: config.maxPages,
    ...(config.pageLimit !== undefined ? { pageLimit: config.pageLimit } : {}),
    feedbackContact: config.feedbackContact,
    checkpointMaxAgeMs: config.checkpointMaxAgeHours * 3_600_000,
    ...(extra.deadline !== undefined ? { deadline: extra.deadline } : {}),
  };
}
