/**
 * Where the CLI's API calls go: the real service with a key, or a sandbox embedded in this
 * process without one — but only when nothing points at the real service. A URL of its own
 * (`MINTLIFY_API_URL`) or a project the sandbox does not serve (`MINTLIFY_PROJECT_IDS`) says the
 * user means the real API: without a key that is a configuration mistake (exit 2, no request),
 * not a cue to export the sandbox's data or to meet a 404 per unit.
 */
import { DEFAULT_PROJECTS, synthProjectSeed } from '../../sandbox/generators/projects.js';
import type { Config } from '../settings/config.js';
import { DEFAULT_API_URL, validateApiKey } from '../shared/validators.js';
import { ConfigError } from '../shared/errors.js';
import { formatDay } from '../shared/dates.js';
import type { CliIo, EmbeddedSandbox } from './io.js';
import { startEmbeddedSandbox } from './sandbox-thread.js';

/** Where the API calls go: the real service with a key, or the embedded sandbox without one. */
export interface ApiTarget {
  readonly baseUrl: string;
  readonly apiKey: string;
  /** Projects to use when the user names none. */
  readonly defaultProjects: readonly string[];
  /** The embedded sandbox (on a worker thread: sandbox-thread.ts), when there is no key. */
  readonly sandbox?: EmbeddedSandbox;
  close(): Promise<void>;
}

/** Whether the embedded sandbox serves `projectId` (its seeded projects and `proj_synth_<N>`). */
export function sandboxServes(projectId: string): boolean {
  return DEFAULT_PROJECTS.some((project) => project.id === projectId) || synthProjectSeed(projectId) !== undefined;
}

/**
 * Whether a CLI run with this configuration on `projects` runs against the embedded sandbox,
 * which is not paced: no `MINTLIFY_API_KEY` (nor its secret), no `ANALYTICS_BUDGET`, nothing
 * that points at a real deployment (`MINTLIFY_API_URL` at the service, no `EXPORT_STATE_TABLE`,
 * a deployment's ledger), and every project one the sandbox serves (none named: its own). Every
 * estimate of such a run needs no wait, and its pages' sizes are known (sandbox-sizes.ts).
 */
export function runsAgainstSandbox(
  config: Pick<Config, 'apiKey' | 'apiKeySecretArn' | 'budgetSet' | 'stateTable' | 'apiUrl'>,
  projects: readonly string[],
): boolean {
  return (
    config.apiKey === undefined &&
    config.apiKeySecretArn === undefined &&
    !config.budgetSet &&
    config.stateTable === undefined &&
    config.apiUrl === DEFAULT_API_URL &&
    projects.every(sandboxServes)
  );
}

/** What a missing key must be set to, said the same way in every line that asks for it. */
const SET_THE_KEY = "set MINTLIFY_API_KEY to your organisation's admin key (mint_…, from the dashboard's API keys)";

/**
 * The mistake of a run without a key that is meant for the real API, or undefined when the
 * embedded sandbox may answer: `MINTLIFY_API_URL` set (to another URL than the service's), or `projects` (from `source`) naming one
 * the sandbox does not serve.
 */
export function missingKeyError(config: Pick<Config, 'apiUrl'>, projects: readonly string[], source: string): ConfigError | undefined {
  // MINTLIFY_API_URL set to the service's own URL is the same as unset: both mean the service.
  if (config.apiUrl !== DEFAULT_API_URL) {
    return new ConfigError(`MINTLIFY_API_KEY is not set but MINTLIFY_API_URL is: ${SET_THE_KEY}, or unset MINTLIFY_API_URL to try the embedded sandbox`);
  }
  const unknown = projects.filter((project) => !sandboxServes(project));
  if (unknown.length === 0) return undefined;
  const named = unknown.length > 3 ? `${unknown.slice(0, 3).join(', ')} and ${unknown.length - 3} more` : unknown.join(', ');
  return new ConfigError(
    `MINTLIFY_API_KEY is not set, and ${source} names ${named}, which only the real API serves: ${SET_THE_KEY}, or ${source === '--project' ? 'pass a sandbox project (proj_small, proj_medium, proj_large)' : `unset ${source}`} to try the embedded sandbox`,
  );
}

/**
 * With MINTLIFY_API_KEY: the configured API (the key validated first). Without: a sandbox
 * started by this process (on a worker thread) on 127.0.0.1, so everything runs on a laptop with nothing else —
 * unless MINTLIFY_API_URL or MINTLIFY_PROJECT_IDS point at the real API (ConfigError, exit 2).
 */
export async function resolveApiTarget(config: Config, io: Pick<CliIo, 'stderr' | 'organisationsSandbox' | 'now'>): Promise<ApiTarget> {
  // An organisation of MINTLIFY_ORGS_FILE with no MINTLIFY_API_URL: the sandbox of every organisation, with its key as given.
  if (config.apiKey !== undefined && io.organisationsSandbox !== undefined && config.apiUrl === DEFAULT_API_URL) {
    const sandbox = await io.organisationsSandbox();
    return { baseUrl: sandbox.url, apiKey: config.apiKey, defaultProjects: config.projectIds, sandbox, close: async () => undefined };
  }
  if (config.apiKey !== undefined) {
    return {
      baseUrl: config.apiUrl,
      apiKey: validateApiKey(config.apiKey),
      defaultProjects: config.projectIds,
      close: async () => undefined,
    };
  }
  const mistake = missingKeyError(config, config.projectIds, 'MINTLIFY_PROJECT_IDS');
  if (mistake) throw mistake;
  // Its past fixes (completed jobs with a known effect) planted as of this run's day: `effects` has verdicts on the first day.
  const sandbox = await startEmbeddedSandbox(io, { fixesAsOf: formatDay(io.now()) });
  io.stderr.write(`No MINTLIFY_API_KEY set: using the embedded sandbox API at ${sandbox.url}\n`);
  return {
    baseUrl: sandbox.url,
    apiKey: sandbox.apiKey,
    defaultProjects: config.projectIds.length > 0 ? config.projectIds : sandbox.projectIds,
    sandbox,
    close: () => sandbox.close(),
  };
}
