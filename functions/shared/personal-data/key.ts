/**
 * Where the key of the `hmac` columns comes from (docs/privacy.md, "The key"):
 * `PERSONAL_DATA_KEY` when set; else the secret `PERSONAL_DATA_KEY_SECRET_ARN` (the stack
 * creates it for the Lambda); else — on a laptop — a random key generated once into the state
 * folder (`personal-data.key`, mode 0600) and said once. The key is read once per process and
 * never written anywhere else: manifests and erasure records name its id (`keyIdOf`).
 *
 * A run for an organisation (`EXPORT_ORG`, set by the CLI per organisation of
 * `MINTLIFY_ORGS_FILE` and by the organisations' worker) hashes with that organisation's own
 * key, derived from the deployment's (`organisationKey`); without one the deployment's key is
 * used as it is.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { awsClientConfig } from '../aws-clients.js';

import { ConfigError, NetworkError } from '../errors.js';
import { keyIdOf, organisationKey, validatePersonalDataKey } from './identity.js';

/** The key file's name inside the state folder. */
export const KEY_FILE_NAME = 'personal-data.key';

export interface PersonalDataKey {
  readonly key: string;
  readonly keyId: string;
  /**
   * For an organisation: the deployment's key itself, which the organisation's lake was written
   * with before keys were per organisation (round seven). `forget` also removes rows hashed with
   * it, and a person erased under it stays out of later exports.
   */
  readonly deploymentKey?: { readonly key: string; readonly keyId: string };
}

/** The key of `org` (derived from `key`), or `key` itself without an organisation. */
export function keyFor(key: string, org: string | undefined): PersonalDataKey {
  if (org === undefined) return { key, keyId: keyIdOf(key) };
  const derived = organisationKey(key, org);
  return { key: derived, keyId: keyIdOf(derived), deploymentKey: { key, keyId: keyIdOf(key) } };
}

/** The key, read (or made) on first use and kept for the process. */
export interface PersonalDataKeySource {
  get(): Promise<PersonalDataKey>;
}

export interface PersonalDataKeyOptions {
  /** The CLI's state folder: where a key is generated when none is configured. Absent (Lambda): no key is generated. */
  readonly stateDir?: string;
  /** Called once when a key was generated, with the file it is in. */
  readonly onGenerated?: (file: string) => void;
  /** @default a `SecretsManagerClient` from the environment */
  readonly secrets?: SecretsManagerClient;
  /**
   * Whether a missing key file is generated. `forget` reads a key and never makes one: a new
   * key matches no row of a lake written with another. @default true
   */
  readonly generate?: boolean;
}

/** A key given as it is (tests, PERSONAL_DATA_KEY). */
export function fixedPersonalDataKey(key: string): PersonalDataKeySource {
  const value = { key, keyId: keyIdOf(key) };
  return { get: async () => value };
}

export function createPersonalDataKeySource(
  config: { readonly personalDataKey?: string | undefined; readonly personalDataKeySecretArn?: string | undefined; readonly org?: string | undefined },
  options: PersonalDataKeyOptions = {},
): PersonalDataKeySource {
  if (config.personalDataKey !== undefined) {
    const value = keyFor(config.personalDataKey, config.org);
    return { get: async () => value };
  }
  let pending: Promise<PersonalDataKey> | undefined;
  const read = async (): Promise<PersonalDataKey> => {
    const key =
      config.personalDataKeySecretArn !== undefined
        ? await readSecretKey(config.personalDataKeySecretArn, options.secrets)
        : options.stateDir !== undefined
          ? await readOrCreateKeyFile(options.stateDir, options.onGenerated, options.generate ?? true)
          : fail();
    return keyFor(key, config.org);
  };
  return {
    get() {
      pending ??= read();
      pending.catch(() => (pending = undefined));
      return pending;
    },
  };
}

function fail(): never {
  throw new ConfigError(
    'no personal-data key: set PERSONAL_DATA_KEY_SECRET_ARN (Lambda; the stack sets it) or PERSONAL_DATA_KEY (at least 16 random characters)',
  );
}

/** The key file of `stateDir`, made (32 random bytes, hex, mode 0600) when it does not exist yet. */
async function readOrCreateKeyFile(stateDir: string, onGenerated: ((file: string) => void) | undefined, generate: boolean): Promise<string> {
  const file = path.join(stateDir, KEY_FILE_NAME);
  const existing = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw new ConfigError(`cannot read the personal-data key ${file} (${error.code ?? error.message}): fix its permissions, or set PERSONAL_DATA_KEY`);
  });
  if (existing !== undefined) return validatePersonalDataKey(existing, file);
  if (!generate) throw new ConfigError(`no personal-data key: ${file} does not exist and PERSONAL_DATA_KEY is not set; give the key the lake was written with`);
  await mkdir(stateDir, { recursive: true, mode: 0o700 });
  const key = randomBytes(32).toString('hex');
  try {
    // `wx`: two first runs at once do not each make a key; the second reads the first's.
    await writeFile(file, `${key}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return validatePersonalDataKey(await readFile(file, 'utf8'), file);
    throw new ConfigError(`cannot write the personal-data key ${file} (${(error as NodeJS.ErrnoException).code}): set PERSONAL_DATA_KEY or EXPORT_STATE_DIR`);
  }
  onGenerated?.(file);
  return key;
}

/** The key in the secret: its string, or the `key` field of a JSON secret (what the stack generates). */
async function readSecretKey(arn: string, client: SecretsManagerClient | undefined): Promise<string> {
  const { GetSecretValueCommand, SecretsManagerClient: Client } = await import('@aws-sdk/client-secrets-manager');
  let value: string | undefined;
  try {
    value = (await (client ?? new Client(awsClientConfig())).send(new GetSecretValueCommand({ SecretId: arn }))).SecretString;
  } catch (error) {
    const name = error instanceof Error ? error.name : 'Error';
    if (name === 'ThrottlingException' || name === 'InternalServiceError' || name === 'TimeoutError') {
      throw new NetworkError(`could not read the personal-data key secret ${arn} (${name}): try again`, true, { cause: error });
    }
    throw new ConfigError(
      `could not read the personal-data key secret ${arn} (${name}): check that it exists and that the role may call secretsmanager:GetSecretValue on it`,
      { cause: error },
    );
  }
  if (value === undefined || value.trim() === '')
    throw new ConfigError(`the secret ${arn} holds no personal-data key: put one (a string of 16+ characters) in it`);
  const text = value.trim();
  if (!text.startsWith('{')) return validatePersonalDataKey(text, `the secret ${arn}`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ConfigError(`the secret ${arn} looks like JSON but does not parse: store {"key": "…"} or the bare key`);
  }
  const key = (parsed as { key?: unknown } | null)?.key;
  if (typeof key !== 'string') throw new ConfigError(`the secret ${arn} is JSON without a string "key" field: store {"key": "…"} or the bare key`);
  return validatePersonalDataKey(key, `the secret ${arn}`);
}
