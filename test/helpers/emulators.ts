/**
 * Role: the servers integration tests talk to on loopback, beside fauxqs (S3, SQS and SNS:
 * scripts/lib/s3-sqs.ts, which the benchmarks start too): dynalite (DynamoDB) with a client
 * and the state table's shape; the API sandbox for a test file (`useSandbox`); and a tiny
 * stand-in API for what the sandbox cannot serve. Each start makes a fresh, empty, in-memory
 * server on 127.0.0.1 with a random port. Start one per test file (`beforeAll`) and `close()`
 * it in `afterAll`. dynalite ignores TTL and has no TransactWriteItems.
 */
import { CreateTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { startSandbox, type Sandbox, type SandboxOptions } from '../../sandbox/index.js';
import { removeTempDirs } from './files.js';
import { TEST_CREDENTIALS, TEST_REGION, uniqueName } from '../../scripts/lib/s3-sqs.js';

export interface Dynamo {
  /** `http://127.0.0.1:PORT`. */
  readonly endpoint: string;
  readonly region: string;
  readonly client: DynamoDBClient;
  /** Destroys the client and stops the server. */
  close(): Promise<void>;
}

/** Options for a DynamoDB client talking to the emulator at `endpoint`. */
export function emulatorDynamoConfig(endpoint: string) {
  return { endpoint, region: TEST_REGION, credentials: TEST_CREDENTIALS } as const;
}

type DynaliteFactory = (options: { createTableMs: number; deleteTableMs: number; updateTableMs: number }) => Server;

/** Starts dynalite (in-memory DynamoDB; tables are ACTIVE at once) on 127.0.0.1. */
export async function startDynamo(): Promise<Dynamo> {
  // dynalite is CommonJS without types.
  const dynalite = createRequire(import.meta.url)('dynalite') as DynaliteFactory;
  const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new DynamoDBClient(emulatorDynamoConfig(endpoint));

  return {
    endpoint,
    region: TEST_REGION,
    client,
    async close() {
      client.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    },
  };
}

/** Creates a DynamoDB table shaped like the state tables (`pk` string key); returns its name. */
export async function createStateTable(client: DynamoDBClient, name = uniqueName('state')): Promise<string> {
  await client.send(
    new CreateTableCommand({
      TableName: name,
      KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
      AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
      BillingMode: 'PAY_PER_REQUEST',
    }),
  );
  return name;
}

// --- the API sandbox ----------------------------------------------------------------------------

export interface SandboxHooks {
  /** Clear the sandbox's faults and request log after each test. @default false */
  readonly clearAfterEach?: boolean;
  /** Remove the `makeTempDir` folders after each test instead of after all. @default false */
  readonly removeTempDirsAfterEach?: boolean;
}

/**
 * The API sandbox for the test file (or `describe` block) that calls this: started with
 * `options` in `beforeAll` and handed to `use`, closed in `afterAll`, where the `makeTempDir`
 * folders are removed too (unless `hooks` say after each test).
 *
 * ```ts
 * let sandbox: Sandbox;
 * useSandbox({ apiKey: API_KEY }, (started) => (sandbox = started), { clearAfterEach: true });
 * ```
 */
export function useSandbox(options: SandboxOptions, use: (sandbox: Sandbox) => void, hooks: SandboxHooks = {}): void {
  let sandbox: Sandbox | undefined;
  beforeAll(async () => {
    sandbox = await startSandbox(options);
    use(sandbox);
  });
  if (hooks.clearAfterEach || hooks.removeTempDirsAfterEach) {
    afterEach(async () => {
      if (hooks.clearAfterEach) {
        sandbox?.clearFaults();
        sandbox?.clearRequests();
      }
      if (hooks.removeTempDirsAfterEach) await removeTempDirs();
    });
  }
  afterAll(async () => {
    await sandbox?.close();
    await removeTempDirs();
  });
}

// --- a stand-in API ------------------------------------------------------------------------------

export interface EmptyVisitorsApi {
  readonly url: string;
  readonly apiKey: string;
  /** Query of every request, in order. */
  readonly requests: { readonly path: string; readonly query: Readonly<Record<string, string>> }[];
  close(): Promise<void>;
}

/**
 * A minimal API on 127.0.0.1 whose visitors endpoint answers every day as empty, the way the
 * service does for a site without traffic: `{totals: 0s, visitors: [], hasMore: false}`. The
 * sandbox cannot serve such a day (its projects have at least one path), yet the contract
 * says a complete empty day still gets its files. Anything else is a 404.
 */
export async function startEmptyVisitorsApi(apiKey: string): Promise<EmptyVisitorsApi> {
  const requests: { path: string; query: Record<string, string> }[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    requests.push({ path: url.pathname, query: Object.fromEntries(url.searchParams) });
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    if (req.headers.authorization !== `Bearer ${apiKey}`) return send(401, { error: 'invalid API key' });
    if (!/^\/v1\/analytics\/[^/]+\/visitors$/.test(url.pathname)) return send(404, { error: 'no such endpoint' });
    return send(200, { totals: { human: 0, ai: 0, total: 0 }, visitors: [], hasMore: false });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    apiKey,
    requests,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
