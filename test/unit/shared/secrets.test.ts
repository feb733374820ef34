/**
 * The API key from MINTLIFY_API_KEY or from Secrets Manager. The secret is read by the real SDK
 * client (through Powertools Parameters) from a stand-in for Secrets Manager on 127.0.0.1, whose
 * answer a test can change the way a rotation does; the cache's clock is faked with vitest.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { ConfigError, NetworkError } from '../../../functions/shared/errors.js';
import { clearApiKeyCache, createApiKeyProvider, resolveApiKey } from '../../../functions/shared/secrets.js';

const KEY = 'mint_Zq8xSecretTestKey1234567890';
const ROTATED = 'mint_Zq8xRotatedTestKey0987654321';
const ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:mintlify-admin-key-AbCdEf';

/** What the stand-in answers to GetSecretValue: a secret's fields, or an error's `__type`. */
type Answer = { SecretString?: string; SecretBinary?: string } | { error: string };

let server: Server;
let endpoint: string;
let answer: Answer = { SecretString: KEY };
const reads: unknown[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      reads.push(JSON.parse(body));
      response.setHeader('content-type', 'application/x-amz-json-1.1');
      if ('error' in answer) {
        response.statusCode = 400;
        response.end(JSON.stringify({ __type: answer.error, message: 'refused by the stand-in' }));
        return;
      }
      response.end(JSON.stringify({ ARN, Name: 'mintlify-admin-key', VersionId: 'v1', ...answer }));
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
  clearApiKeyCache();
  answer = { SecretString: KEY };
  reads.length = 0;
});

afterEach(() => {
  vi.useRealTimers();
});

/** A real SDK client for the stand-in: no retries, so a refusal is seen once. */
function secretsClient(): SecretsManagerClient {
  return new SecretsManagerClient({
    endpoint,
    region: 'eu-west-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    maxAttempts: 1,
  });
}

const fromSecret = { apiKeySecretArn: ARN };

describe('resolveApiKey', () => {
  it('prefers MINTLIFY_API_KEY and never reads the secret', async () => {
    await expect(resolveApiKey({ apiKey: KEY, apiKeySecretArn: ARN }, { secrets: secretsClient() })).resolves.toBe(KEY);
    expect(reads).toHaveLength(0);
  });

  it('reads a raw key from the secret', async () => {
    answer = { SecretString: `${KEY}\n` };
    await expect(resolveApiKey(fromSecret, { secrets: secretsClient() })).resolves.toBe(KEY);
    expect(reads).toEqual([{ SecretId: ARN }]);
  });

  it('reads the apiKey field of a JSON secret', async () => {
    answer = { SecretString: JSON.stringify({ apiKey: KEY }) };
    await expect(resolveApiKey(fromSecret, { secrets: secretsClient() })).resolves.toBe(KEY);
  });

  it('reuses the key read from the secret while it is younger than maxAgeSeconds', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const secrets = secretsClient();
    await resolveApiKey(fromSecret, { secrets, maxAgeSeconds: 60 });
    vi.advanceTimersByTime(59_000);
    await resolveApiKey(fromSecret, { secrets, maxAgeSeconds: 60 });
    expect(reads).toHaveLength(1);
  });

  it('reads the secret again once maxAgeSeconds have passed, so a rotated key is picked up', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const secrets = secretsClient();
    await resolveApiKey(fromSecret, { secrets, maxAgeSeconds: 60 });
    answer = { SecretString: ROTATED };
    vi.advanceTimersByTime(61_000);
    await expect(resolveApiKey(fromSecret, { secrets, maxAgeSeconds: 60 })).resolves.toBe(ROTATED);
    expect(reads).toHaveLength(2);
  });

  it('tries the secret again after a failed read', async () => {
    answer = { error: 'ThrottlingException' };
    await expect(resolveApiKey(fromSecret, { secrets: secretsClient() })).rejects.toThrow('ThrottlingException');
    answer = { SecretString: KEY };
    await expect(resolveApiKey(fromSecret, { secrets: secretsClient() })).resolves.toBe(KEY);
  });

  it('reports a throttled read as a failure before anything was sent to the API, worth trying again', async () => {
    answer = { error: 'ThrottlingException' };
    const error = await resolveApiKey(fromSecret, { secrets: secretsClient() }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as NetworkError).beforeSend).toBe(true);
  });

  it('explains an access problem as a configuration error', async () => {
    answer = { error: 'AccessDeniedException' };
    const error = await resolveApiKey(fromSecret, { secrets: secretsClient() }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toContain('GetSecretValue');
  });

  it('fails clearly when neither the key nor the secret is configured', async () => {
    const error = await resolveApiKey({}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toContain('MINTLIFY_API_KEY_SECRET_ARN');
  });

  it('fails clearly when the secret is blank', async () => {
    answer = { SecretString: '  ' };
    await expect(resolveApiKey(fromSecret, { secrets: secretsClient() })).rejects.toThrow('is empty');
  });

  it('fails clearly when the secret is stored as binary', async () => {
    answer = { SecretBinary: Buffer.from(KEY).toString('base64') };
    await expect(resolveApiKey(fromSecret, { secrets: secretsClient() })).rejects.toThrow('binary');
  });

  it('refuses an assistant key stored in the secret without echoing it', async () => {
    const assistantKey = 'mint_dsc_Zq8xStoredAssistant';
    answer = { SecretString: JSON.stringify({ apiKey: assistantKey }) };
    const error = await resolveApiKey(fromSecret, { secrets: secretsClient() }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toContain('assistant key');
    expect((error as Error).message).not.toContain(assistantKey);
  });

  it('refuses JSON without an apiKey field without echoing the secret', async () => {
    answer = { SecretString: JSON.stringify({ key: KEY }) };
    const error = await resolveApiKey(fromSecret, { secrets: secretsClient() }).catch((e: unknown) => e);
    expect((error as Error).message).toContain('"apiKey"');
    expect((error as Error).message).not.toContain(KEY);
  });
});

describe('createApiKeyProvider', () => {
  it('reads the secret again at once on refresh, whatever its age', async () => {
    const keys = createApiKeyProvider(fromSecret, { secrets: secretsClient(), maxAgeSeconds: 3_600 });
    await expect(keys.get()).resolves.toBe(KEY);
    answer = { SecretString: ROTATED };
    await expect(keys.refresh()).resolves.toBe(ROTATED);
    await expect(keys.get()).resolves.toBe(ROTATED);
    expect(reads).toHaveLength(2);
  });

  it('shares one read between callers that ask at the same time', async () => {
    const keys = createApiKeyProvider(fromSecret, { secrets: secretsClient() });
    await Promise.all([keys.get(), keys.get(), keys.get()]);
    expect(reads).toHaveLength(1);
  });

  it('refreshes MINTLIFY_API_KEY to itself: there is nothing to read again', async () => {
    const keys = createApiKeyProvider({ apiKey: KEY });
    await expect(keys.refresh()).resolves.toBe(KEY);
  });

  it.each([0, -1, 1.5])('refuses a maxAgeSeconds of %s', (maxAgeSeconds) => {
    expect(() => createApiKeyProvider(fromSecret, { maxAgeSeconds })).toThrow(ConfigError);
  });
});
