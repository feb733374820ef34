/**
 * The run settings read from `Config`, and the local folder of the shared state when there is
 * no table. The rest of the wiring is deps.ts.
 */
import path from 'node:path';
import type { Config, ConfigOf } from '../shared/config.js';
import { HOUR_MS } from '../shared/time.js';
import type { RunSettings } from './run.js';

/** Where the CLI keeps its state when there is no table: beside a local destination, else `./data`. */
export function localStateDir(config: Pick<Config, 'stateDir' | 'destination'>, out?: string): string {
  if (config.stateDir !== undefined) return config.stateDir;
  const destination = out ?? config.destination;
  return path.join(destination.startsWith('s3://') ? './data' : destination, '.state');
}

/** The settings of a run, from the configuration. */
export function runSettings(config: ConfigOf<'export'>, extra: { readonly deadline?: number } = {}): RunSettings {
  return {
    projectIds: config.projectIds,
    datasets: config.datasets,
    healDays: config.healDays,
    refreshDays: config.refreshDays,
    settleHours: config.settleHours,
    maxPages: config.maxPages,
    ...(config.pageLimit !== undefined ? { pageLimit: config.pageLimit } : {}),
    feedbackContact: config.feedbackContact,
    checkpointMaxAgeMs: config.checkpointMaxAgeHours * HOUR_MS,
    ...(extra.deadline !== undefined ? { deadline: extra.deadline } : {}),
  };
}
