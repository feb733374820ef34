/**
 * The local folder of the shared state when there is no table. The run's policy is policy.ts;
 * the rest of the wiring is deps.ts.
 */
import path from 'node:path';
import type { Config } from '../settings/config.js';

/** Where the CLI keeps its state when there is no table: beside a local destination, else `./data`. */
export function localStateDir(config: Pick<Config, 'stateDir' | 'destination'>, out?: string): string {
  if (config.stateDir !== undefined) return config.stateDir;
  const destination = out ?? config.destination;
  return path.join(destination.startsWith('s3://') ? './data' : destination, '.state');
}
