/**
 * What `export`, `plan` and `status` share: their io, the flags that choose units (days,
 * projects, datasets, destination) and what those resolve to, and the input of the probe
 * every one of them runs first (probe.ts: a mistake is one line, exit 2, before any request).
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { S3Client } from '@aws-sdk/client-s3';
import { InvalidArgumentError, type Command } from 'commander';
import { localStateDir, type ExportOverrides, type GlueSend } from '../export/index.js';
import { DATASET_NAMES, isDatasetName, type DatasetName } from '../warehouse/catalog.js';
import { manifestsOf, parseManifestKey } from '../warehouse/keys.js';
import type { Config } from '../settings/config.js';
import { PROJECT_ID_PATTERN } from '../shared/validators.js';
import type { Destination } from '../shared/storage/destination.js';
import { ConfigError } from '../shared/errors.js';
import type { CliIo } from './io.js';
import type { PlantedFix } from '../../sandbox/index.js';

/** What `export`, `plan` and `status` need from the CLI. */
export interface ExportCommandIo extends CliIo {
  /** Where API calls go (the real service, or the embedded sandbox when no key is set). */
  resolveApiTarget(config: Config): Promise<{
    readonly baseUrl: string;
    readonly apiKey: string;
    readonly defaultProjects: readonly string[];
    /** The embedded sandbox, when there is no key; its planted past fixes (sandbox-fixes.ts). */
    readonly sandbox?: { readonly plantedFixes?: readonly PlantedFix[] };
    close(): Promise<void>;
  }>;
  /** Projects of the embedded sandbox (plan/status without a key and without MINTLIFY_PROJECT_IDS). */
  readonly sandboxProjects: readonly string[];
  setExitCode(code: number): void;
  /** Test hooks. */
  readonly clients?: { readonly s3?: S3Client; readonly dynamo?: DynamoDBClient; readonly glue?: GlueSend };
  /** Time limit of the configuration probe, ms. @default PROBE_TIMEOUT_MS */
  readonly probeTimeoutMs?: number;
}

export interface ScopeFlags {
  readonly date?: string;
  readonly from?: string;
  readonly to?: string;
  readonly project: string[];
  readonly dataset: string[];
  readonly out?: string;
  readonly json?: boolean;
}

function collectProject(value: string, previous: string[]): string[] {
  if (!PROJECT_ID_PATTERN.test(value)) {
    throw new InvalidArgumentError('a project id is letters, digits, "_" and "-" (copy it from the dashboard)');
  }
  return [...previous, value];
}

function collectDataset(value: string, previous: string[]): string[] {
  if (!isDatasetName(value)) throw new InvalidArgumentError(`use one of ${DATASET_NAMES.join(', ')}`);
  return [...previous, value];
}

/** Adds the scope flags (`--date`, `--from`, `--to`, `--project`, `--dataset`, `--out`, `--json`). */
export function scopeOptions(command: Command): Command {
  return command
    .option('--date <YYYY-MM-DD>', 'this one day')
    .option('--from <YYYY-MM-DD>', 'first day (inclusive)')
    .option('--to <YYYY-MM-DD>', 'day after the last one (exclusive)')
    .option('--project <id>', 'project (repeatable; default MINTLIFY_PROJECT_IDS)', collectProject, [])
    .option('--dataset <name>', `dataset (repeatable; default EXPORT_DATASETS: ${DATASET_NAMES.join(', ')})`, collectDataset, [])
    .option('--out <dest>', 'directory or s3://bucket/prefix (default EXPORT_DESTINATION or ./data)')
    .option('--json', 'print one JSON object on stdout');
}

export function datasetsOf(flags: { dataset: string[] }, config: Config): readonly DatasetName[] {
  return flags.dataset.length > 0 ? [...new Set(flags.dataset as DatasetName[])] : config.datasets;
}

/** Projects for plan/status: flags, else the configured ones, else (no key) the sandbox's. */
export function projectsOf(flags: { project: string[] }, config: Config, io: Pick<ExportCommandIo, 'sandboxProjects'>): readonly string[] {
  if (flags.project.length > 0) return flags.project;
  if (config.projectIds.length > 0) return config.projectIds;
  if (config.apiKey === undefined) return io.sandboxProjects;
  throw new ConfigError('no project given: pass --project ID or set MINTLIFY_PROJECT_IDS');
}

/** The test hooks' clients as `createExportDeps` overrides; the rest comes from the environment. */
export function clientOverrides(io: ExportCommandIo, out: string | undefined): ExportOverrides {
  const { s3, dynamo, glue } = io.clients ?? {};
  return {
    ...(s3 ? { s3 } : {}),
    ...(glue ? { glue } : {}),
    ...(dynamo ? { dynamo: () => dynamo } : {}),
    ...(out !== undefined ? { out } : {}),
    now: io.now,
    ...(io.sleep ? { sleep: io.sleep } : {}),
  };
}

/** What the probe checks: the destination, and the local state folder when the run uses one. */
export function probeInput(config: Config, io: ExportCommandIo, out: string | undefined, destination: Destination, usesState: boolean) {
  const state =
    usesState && config.stateTable === undefined
      ? {
          dir: localStateDir(config, out),
          source: config.stateDir !== undefined ? 'EXPORT_STATE_DIR' : 'the state folder (the default beside the destination; EXPORT_STATE_DIR moves it)',
        }
      : undefined;
  return {
    destination,
    source: out === undefined ? 'EXPORT_DESTINATION' : '--out',
    ...(state ? { state } : {}),
    ...(io.probeTimeoutMs !== undefined ? { timeoutMs: io.probeTimeoutMs } : {}),
  };
}

/**
 * Projects of `projects` of which nothing was ever exported to `destination` while other projects
 * were: what a mistyped id looks like to `plan` and `status`, which send no request and so cannot
 * ask the API. None when the destination holds no export yet (a first run: every project is
 * new) or cannot be listed.
 */
export async function unexportedProjects(destination: Destination, projects: readonly string[]): Promise<string[]> {
  const list = destination.list?.bind(destination);
  if (!list) return [];
  const seen = new Set<string>();
  for (const dataset of DATASET_NAMES) {
    const keys = await list(manifestsOf(dataset)).catch(() => [] as string[]);
    for (const key of keys) {
      const named = parseManifestKey(dataset, key);
      if (named) seen.add(named.projectId);
    }
  }
  if (seen.size === 0) return [];
  return projects.filter((project) => !seen.has(project));
}

/** The one warning line for `unexportedProjects`, naming where the ids came from. */
export function unexportedWarning(projects: readonly string[], flags: { readonly project: readonly string[] }, destination: string): string {
  const source = flags.project.length > 0 ? '--project' : 'MINTLIFY_PROJECT_IDS';
  const named = projects.map((p) => JSON.stringify(p)).join(', ');
  return `warning: nothing of project${projects.length === 1 ? '' : 's'} ${named} was ever exported to ${destination} (other projects were): if that is a typo, check ${source}; this command sends no request, so only export can ask the API\n`;
}
