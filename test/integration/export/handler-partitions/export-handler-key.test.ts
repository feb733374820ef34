/**
 * The export Lambda's API key after a rotation: the handler in process, its key in a Secrets
 * Manager stand-in on 127.0.0.1 (read by the real SDK client through Powertools Parameters),
 * the sandbox over HTTP, the state table in dynalite. A warm instance must not keep failing
 * with 401 once the secret holds the new key.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createExportDeps } from '../../../../functions/export/deps.js';
import { createHandler } from '../../../../functions/export/handler.js';
import type { RunResult } from '../../../../functions/export/run.js';
import { loadConfig } from '../../../../functions/settings/config.js';
import { startSandbox, type Sandbox } from '../../../../sandbox/index.js';
import { createStateTable, startDynamo, type Dynamo } from '../../../helpers/emulators.js';
import { TEST_REGION } from '../../../../scripts/lib/s3-sqs.js';
import { exportFunctionEnv } from '../../../helpers/env.js';
import { makeTempDir, removeTempDirs } from '../../../helpers/files.js';
import { lambdaContext, scheduledEvent } from '../../../helpers/lambda-events.js';

const API_KEY = 'mint_keytest_S3CR3T_0a1b2c3d4e5f';
const OLD_KEY = 'mint_keytest_REVOKED_9f8e7d6c5b4a';
const SECRET_ARN = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:mintlify-key-test-AbCdEf';
const EVENT_TIME = '2026-03-01T02:30:00Z';

type Handler = (event: unknown, context: ReturnType<typeof lambdaContext>) => Promise<RunResult>;

let sandbox: Sandbox;
let dynamo: Dynamo;
let secrets: Server;
let secretsEndpoint: string;
/** What the stand-in's secret holds now; a test changes it the way `put-secret-value` does. */
let secretString = OLD_KEY;
const secretsClients: SecretsManagerClient[] = [];

beforeAll(async () => {
  [sandbox, dynamo] = await Promise.all([startSandbox({ apiKey: API_KEY, projects: [{ id: 'proj_a', paths: 40, exact: true }] }), startDynamo()]);
  secrets = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      response.setHeader('content-type', 'application/x-amz-json-1.1');
      response.end(JSON.stringify({ ARN: SECRET_ARN, Name: 'mintlify-key-test', SecretString: secretString, VersionId: 'v1' }));
    });
  });
  secrets.listen(0, '127.0.0.1');
  await once(secrets, 'listening');
  secretsEndpoint = `http://127.0.0.1:${(secrets.address() as AddressInfo).port}`;
});

afterEach(async () => {
  for (const client of secretsClients.splice(0)) client.destroy();
  await removeTempDirs();
});

afterAll(async () => {
  secrets?.closeAllConnections();
  await Promise.all([sandbox?.close(), dynamo?.close(), new Promise((resolve) => secrets?.close(resolve))]);
});

/** The handler as deployed, its key in the stand-in's secret, read by a real SDK client. */
async function loadHandler(): Promise<Handler> {
  const destination = await makeTempDir('key-rotation');
  const stateTable = await createStateTable(dynamo.client);
  const config = loadConfig(
    exportFunctionEnv({ apiUrl: sandbox.url, projectIds: 'proj_a', destination, stateTable }, { MINTLIFY_API_KEY_SECRET_ARN: SECRET_ARN }),
  );
  const secrets = new SecretsManagerClient({ endpoint: secretsEndpoint, region: TEST_REGION, credentials: { accessKeyId: 'test', secretAccessKey: 'test' } });
  secretsClients.push(secrets);
  return createHandler(createExportDeps(config, { dynamo: () => dynamo.client, secrets }));
}

describe('the export Lambda after a key rotation', () => {
  it('uses the new key on the next run of the same warm instance, without waiting for the cache to expire', async () => {
    secretString = OLD_KEY;
    const handler = await loadHandler();
    await expect(handler(scheduledEvent(EVENT_TIME), lambdaContext())).rejects.toMatchObject({ name: 'ExportIncompleteError' });

    secretString = API_KEY;
    const result = await handler(scheduledEvent(EVENT_TIME), lambdaContext());

    expect(result).toMatchObject({ ok: true, failed: 0, completed: 1 });
  });
});
