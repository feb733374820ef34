/**
 * The check every command that calls AWS makes before its first call: the client has a region
 * and credentials. Without it the SDK fails each call on its own (`register-partitions` printed
 * one `Region is missing` per partition: 260 lines); with it the command stops in one line naming
 * what to set (ConfigError, exit 2). The credential lookup has a time limit: on a laptop the SDK's
 * chain ends at the instance metadata service, which may never answer.
 */
import { ConfigError } from '../shared/errors.js';

/** What the check reads of an SDK v3 client: its resolved region and credential provider. */
export interface AwsClientSettings {
  readonly config: { region(): Promise<string>; credentials(): Promise<unknown> };
}

/** How long the credential lookup may take before it counts as none, ms. */
export const CREDENTIALS_TIMEOUT_MS = 5_000;

/**
 * Throws ConfigError when `client` has no region or no credentials; `use` says what needs them
 * (`register-partitions writes to Glue`).
 */
export async function checkAwsAccess(client: AwsClientSettings, use: string, timeoutMs = CREDENTIALS_TIMEOUT_MS): Promise<void> {
  let region: string | undefined;
  try {
    region = await client.config.region();
  } catch {
    region = undefined;
  }
  if (region === undefined || region === '') {
    throw new ConfigError(`no AWS region: set AWS_REGION (or a region in the AWS profile) — ${use}`);
  }
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), timeoutMs);
    timer.unref?.();
  });
  try {
    const found = await Promise.race([client.config.credentials().then(() => 'found' as const), late]);
    if (found === 'late') throw new Error(`no answer within ${timeoutMs / 1000} s`);
  } catch (error) {
    const why = error instanceof Error ? error.message.split('\n')[0] : String(error);
    throw new ConfigError(`no AWS credentials (${why}): set AWS_PROFILE, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (region ${region}) — ${use}`, {
      cause: error,
    });
  } finally {
    clearTimeout(timer);
  }
}
