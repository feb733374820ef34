/**
 * Where the API key comes from: `MINTLIFY_API_KEY` (CLI, local) or a Secrets Manager secret
 * (Lambda). The secret is read once per process (cold start) and cached: the key rarely
 * changes, and a read per invocation would cost latency and money for nothing. After a
 * rotation, new execution environments pick the new key up; a 401 tells the operator what to do.
 */
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { Config } from './config.js';
import { validateApiKey } from './config.js';
import { ConfigError, NetworkError } from './errors.js';

export interface SecretsDeps {
  /** Defaults to a `SecretsManagerClient` with the environment's region and credentials. */
  readonly secrets?: Pick<SecretsManagerClient, 'send'>;
}

/** Promises by secret ARN; a failed read is removed so the next call tries again. */
const cache = new Map<string, Promise<string>>();

/** Forgets cached keys (tests; or after a 401 that a rotation may explain). */
export function clearApiKeyCache(): void {
  cache.clear();
}

/**
 * The admin key to call the API with: `config.apiKey` when set, else the secret named by
 * `config.apiKeySecretArn` (SecretString holding the raw key or `{"apiKey": "mint_…"}`).
 * @throws ConfigError when neither is configured, or the secret is missing, empty or not a key.
 */
export async function resolveApiKey(config: Pick<Config, 'apiKey' | 'apiKeySecretArn'>, deps: SecretsDeps = {}): Promise<string> {
  if (config.apiKey !== undefined) return validateApiKey(config.apiKey);
  const arn = config.apiKeySecretArn;
  if (arn === undefined) {
    throw new ConfigError(
      'no API key configured: set MINTLIFY_API_KEY (CLI) or MINTLIFY_API_KEY_SECRET_ARN (Lambda) to an admin key (mint_…)',
    );
  }
  let pending = cache.get(arn);
  if (!pending) {
    pending = readKeyFromSecret(arn, deps);
    cache.set(arn, pending);
    pending.catch(() => cache.delete(arn));
  }
  return pending;
}

const NOT_CONFIG = new Set(['ThrottlingException', 'InternalServiceError', 'TimeoutError', 'RequestTimeout']);

async function readKeyFromSecret(arn: string, deps: SecretsDeps): Promise<string> {
  const { GetSecretValueCommand, SecretsManagerClient } = await import('@aws-sdk/client-secrets-manager');
  const client = deps.secrets ?? new SecretsManagerClient({});
  let secretString: string | undefined;
  let hasBinary = false;
  try {
    const output = await client.send(new GetSecretValueCommand({ SecretId: arn }));
    secretString = output.SecretString;
    hasBinary = output.SecretBinary !== undefined;
  } catch (error) {
    const name = error instanceof Error ? error.name : 'Error';
    if (NOT_CONFIG.has(name) || name === 'Error') {
      throw new NetworkError(`could not read the API key secret ${arn} (${name}): try again`, false, { cause: error });
    }
    throw new ConfigError(
      `could not read the API key secret ${arn} (${name}): check that it exists and that the function's role may call secretsmanager:GetSecretValue on it`,
      { cause: error },
    );
  }
  const source = `the secret ${arn}`;
  if (secretString === undefined) {
    throw new ConfigError(
      hasBinary
        ? `${source} is stored as binary: store the admin key as a secret string`
        : `${source} has no value: put the admin key (mint_…) in it`,
    );
  }
  return validateApiKey(extractKey(secretString, source), source);
}

/** The raw key, or the `apiKey` field of a JSON secret. Never echoes the content. */
function extractKey(secretString: string, source: string): string {
  const text = secretString.trim();
  if (text === '') throw new ConfigError(`${source} is empty: put the admin key (mint_…) in it`);
  if (!text.startsWith('{')) return text;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ConfigError(`${source} looks like JSON but does not parse: store {"apiKey": "mint_…"} or the bare key`);
  }
  const apiKey = (parsed as { apiKey?: unknown } | null)?.apiKey;
  if (typeof apiKey !== 'string') {
    throw new ConfigError(`${source} is JSON without a string "apiKey" field: store {"apiKey": "mint_…"} or the bare key`);
  }
  return apiKey;
}
