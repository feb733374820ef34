/**
 * Role: the environments code under test reads — the CLI's (in process or spawned) and the
 * deployed export function's — pointing it at the sandbox and the emulators, and keeping this
 * machine's own setup (AWS files, instance metadata) out.
 */
import path from 'node:path';
import { TEST_REGION } from '../../scripts/lib/s3-sqs.js';
import { makeTempDir } from './files.js';
import { TEST_PERSONAL_DATA_KEY } from './run-deps.js';

type Api = { readonly url: string; readonly apiKey: string };

/** What a child process keeps of this machine's environment: PATH, and TMPDIR when set. */
export function hostEnv(): Record<string, string> {
  return { PATH: process.env['PATH'] ?? '', ...(process.env['TMPDIR'] ? { TMPDIR: process.env['TMPDIR'] } : {}) };
}

/** Nothing of this machine's AWS setup: config and credential files that do not exist (in `folder`), no instance metadata. */
export function noAwsSetup(folder: string): Record<string, string> {
  return {
    AWS_CONFIG_FILE: path.join(folder, 'no-aws-config'),
    AWS_SHARED_CREDENTIALS_FILE: path.join(folder, 'no-aws-credentials'),
    AWS_EC2_METADATA_DISABLED: 'true',
  };
}

/** A spawned CLI's AWS settings: the emulators at `endpoint` for SQS, SNS and S3, their region, dummy keys, and `noAwsSetup(folder)`. */
export function emulatorAwsEnv(endpoint: string, folder: string): Record<string, string> {
  return {
    ...noAwsSetup(folder),
    AWS_REGION: TEST_REGION,
    AWS_ACCESS_KEY_ID: 'test',
    AWS_SECRET_ACCESS_KEY: 'test',
    AWS_ENDPOINT_URL_SQS: endpoint,
    AWS_ENDPOINT_URL_SNS: endpoint,
    AWS_ENDPOINT_URL_S3: endpoint,
  };
}

/** The CLI's environment against `api` (the sandbox): its URL and key and a fresh state folder (`EXPORT_STATE_DIR`), then `extra`. */
export async function cliEnv(api: Api, extra: Record<string, string> = {}): Promise<Record<string, string>> {
  // The tests' personal-data key: no run generates one (and says so) unless a test unsets it (PERSONAL_DATA_KEY: '').
  return {
    MINTLIFY_API_URL: api.url,
    MINTLIFY_API_KEY: api.apiKey,
    EXPORT_STATE_DIR: await makeTempDir('cli-state'),
    PERSONAL_DATA_KEY: TEST_PERSONAL_DATA_KEY,
    ...extra,
  };
}

/**
 * The configuration of the deployed export function against `apiUrl`: visitors of `projectIds`
 * into `destination`, due two hours after a day ends, no heal or refresh window, its ledger in
 * the DynamoDB table `stateTable`, then `extra` (the key, or its secret).
 */
export function exportFunctionEnv(
  options: { readonly apiUrl: string; readonly projectIds: string; readonly destination: string; readonly stateTable: string },
  extra: Record<string, string | undefined> = {},
): Record<string, string | undefined> {
  return {
    MINTLIFY_API_URL: options.apiUrl,
    MINTLIFY_PROJECT_IDS: options.projectIds,
    EXPORT_DESTINATION: options.destination,
    EXPORT_DATASETS: 'visitors',
    EXPORT_SETTLE_HOURS: '2',
    EXPORT_HEAL_DAYS: '0',
    EXPORT_REFRESH_DAYS: '0',
    EXPORT_STATE_TABLE: options.stateTable,
    PERSONAL_DATA_KEY: TEST_PERSONAL_DATA_KEY,
    ANALYTICS_BUDGET: '1000/1h',
    ...extra,
  };
}

/** The sandbox's agent jobs end within a second: a consumer polls them every 0.2 s (FOLLOWUP_POLL_MIN_SECONDS), not the real API's 5 s. */
export const SANDBOX_POLLS: Readonly<Record<string, string>> = { FOLLOWUP_POLL_MIN_SECONDS: '0.2' };

/** Runs `run` with the lake's roll-ups read (the default) or not (`MINTLIFY_ROLLUPS=off`); the variable is unset again after. */
export async function withRollups<T>(rollups: boolean, run: () => Promise<T>): Promise<T> {
  if (rollups) delete process.env['MINTLIFY_ROLLUPS'];
  else process.env['MINTLIFY_ROLLUPS'] = 'off';
  try {
    return await run();
  } finally {
    delete process.env['MINTLIFY_ROLLUPS'];
  }
}
