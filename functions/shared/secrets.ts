/**
 * Where the API key comes from: `MINTLIFY_API_KEY` (CLI, local) or a Secrets Manager secret
 * (Lambda). The secret is read through Powertools Parameters (`SecretsProvider`) and cached for
 * `maxAgeSeconds` (5 minutes by default): a read per request would cost latency and money, and
 * a key cached for the life of a warm Lambda kept failing with 401 after a rotation until the
 * instance died. Within that age a rotation is picked up at the latest after `maxAgeSeconds`,
 * and at once by the API client: after a 401 it asks `refresh()` for the key again and, if it
 * changed, sends the request once more.
 */
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';

import { validateApiKey } from './validators.js';
import { ConfigError, NetworkError } from './errors.js';
import { awsClientConfig } from './aws-clients.js';

/** The key the API client sends, and a way to read it again after a 401. */
export interface ApiKeySource {
  /** The key; from the cache while it is younger than the source's maximum age. */
  get(): Promise<string>;
  /** The key read again now, whatever the cache holds (the secret may have been rotated). */
  refresh(): Promise<string>;
}

/** A key that never changes (MINTLIFY_API_KEY, a test's key): reading it again gives the same key. */
export function fixedKey(key: string): ApiKeySource {
  return { get: async () => key, refresh: async () => key };
}

export interface SecretsDeps {
  /**
   * Passed to Powertools' `SecretsProvider` as its `awsSdkV3Client` (it must be an SDK client).
   * @default a `SecretsManagerClient` with the environment's region, credentials and endpoint
   */
  readonly secrets?: SecretsManagerClient;
  /** How long a key read from the secret is used before it is read again, seconds. @default 300 */
  readonly maxAgeSeconds?: number;
}

/** @see SecretsDeps.maxAgeSeconds */
export const DEFAULT_KEY_MAX_AGE_SECONDS = 300;

const NO_KEY_MESSAGE = 'no API key configured: set MINTLIFY_API_KEY (CLI) or MINTLIFY_API_KEY_SECRET_ARN (Lambda) to an admin key (mint_…)';

/** Where the API key comes from (`MINTLIFY_API_KEY`, `MINTLIFY_API_KEY_SECRET_ARN`: the settings table's values). */
export interface ApiKeySettings {
  readonly apiKey?: string | undefined;
  readonly apiKeySecretArn?: string | undefined;
}

/**
 * The key source for `config`: `config.apiKey` when set (it never changes, so `refresh()`
 * returns it as is), else the secret named by `config.apiKeySecretArn` (a SecretString holding
 * the raw key or `{"apiKey": "mint_…"}`). Reads nothing yet.
 * @throws ConfigError for a bad `maxAgeSeconds`; `get()` throws it when no key is configured or
 * the secret is missing, empty or not an admin key, and `NetworkError` (before sending) when
 * Secrets Manager could not be reached or throttled.
 */
export function createApiKeyProvider(config: ApiKeySettings, deps: SecretsDeps = {}): ApiKeySource {
  const maxAge = deps.maxAgeSeconds ?? DEFAULT_KEY_MAX_AGE_SECONDS;
  if (!Number.isInteger(maxAge) || maxAge < 1) throw new ConfigError(`maxAgeSeconds must be a whole number ≥ 1 (got ${maxAge})`);
  if (config.apiKey !== undefined) {
    const key = validateApiKey(config.apiKey);
    return { get: async () => key, refresh: async () => key };
  }
  const arn = config.apiKeySecretArn;
  if (arn === undefined) {
    const fail = async (): Promise<string> => {
      throw new ConfigError(NO_KEY_MESSAGE);
    };
    return { get: fail, refresh: fail };
  }

  let provider: Promise<SecretsReader> | undefined;
  const reader = (): Promise<SecretsReader> => {
    provider ??= createReader(deps.secrets);
    provider.catch(() => (provider = undefined));
    return provider;
  };
  /** One read at a time per kind: callers asking together share it. */
  let pendingGet: Promise<string> | undefined;
  let pendingRefresh: Promise<string> | undefined;
  const read = async (forceFetch: boolean): Promise<string> => {
    const value = await readSecret(await reader(), arn, maxAge, forceFetch);
    return keyFrom(value, arn);
  };
  return {
    get() {
      pendingGet ??= read(false).finally(() => (pendingGet = undefined));
      return pendingGet;
    },
    refresh() {
      pendingRefresh ??= read(true).finally(() => (pendingRefresh = undefined));
      return pendingRefresh;
    },
  };
}

/** Key sources by secret ARN, so `resolveApiKey` calls of one process share one cache. */
const sources = new Map<string, ApiKeySource>();

/** Forgets the cached key sources of `resolveApiKey` (tests). */
export function clearApiKeyCache(): void {
  sources.clear();
}

/**
 * The admin key to call the API with, now: `config.apiKey` when set, else the secret (cached
 * for `maxAgeSeconds` per process). A client that should survive a rotation takes
 * `createApiKeyProvider(config)` as its `apiKey` instead of this string.
 * @throws see `createApiKeyProvider`.
 */
export async function resolveApiKey(config: ApiKeySettings, deps: SecretsDeps = {}): Promise<string> {
  if (config.apiKey !== undefined || config.apiKeySecretArn === undefined) return createApiKeyProvider(config, deps).get();
  const name = `${config.apiKeySecretArn}#${deps.maxAgeSeconds ?? DEFAULT_KEY_MAX_AGE_SECONDS}`;
  let source = sources.get(name);
  if (!source) {
    source = createApiKeyProvider(config, deps);
    sources.set(name, source);
  }
  return source.get();
}

/** The part of Powertools' `SecretsProvider` used here. */
interface SecretsReader {
  get(name: string, options: { maxAge: number; forceFetch: boolean }): Promise<unknown>;
}

/** Loaded on first use: the CLI never needs the SDK's Secrets Manager client. */
async function createReader(client: SecretsManagerClient | undefined): Promise<SecretsReader> {
  const { SecretsProvider } = await import('@aws-lambda-powertools/parameters/secrets');
  return new SecretsProvider(client ? { awsSdkV3Client: client } : { clientConfig: awsClientConfig() });
}

/** Failures of Secrets Manager itself (or of reaching it): worth trying again, not a configuration problem. */
const TRANSIENT = new Set(['ThrottlingException', 'InternalServiceError', 'TimeoutError', 'RequestTimeout', 'Error']);

async function readSecret(reader: SecretsReader, arn: string, maxAge: number, forceFetch: boolean): Promise<unknown> {
  try {
    return await reader.get(arn, { maxAge, forceFetch });
  } catch (error) {
    // Powertools wraps the SDK's error (GetParameterError) and keeps it as the cause.
    const sdkError = error instanceof Error && error.cause instanceof Error ? error.cause : error;
    const name = sdkError instanceof Error ? sdkError.name : 'Error';
    if (TRANSIENT.has(name) || (sdkError as { $retryable?: unknown } | undefined)?.$retryable) {
      // No API request was sent: a follow-up POST that waited for this key is still unsent.
      throw new NetworkError(`could not read the API key secret ${arn} (${name}): try again`, true, { cause: error });
    }
    throw new ConfigError(
      `could not read the API key secret ${arn} (${name}): check that it exists and that the function's role may call secretsmanager:GetSecretValue on it`,
      { cause: error },
    );
  }
}

/** The key in a secret's value (a string, or the bytes of a binary secret). Never echoes it. */
function keyFrom(value: unknown, arn: string): string {
  const source = `the secret ${arn}`;
  if (value instanceof Uint8Array) throw new ConfigError(`${source} is stored as binary: store the admin key as a secret string`);
  if (typeof value !== 'string') throw new ConfigError(`${source} has no value: put the admin key (mint_…) in it`);
  return validateApiKey(extractKey(value, source), source);
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
