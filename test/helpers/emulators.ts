/**
 * Role: the servers integration tests talk to, on loopback. Real AWS-API emulators — fauxqs
 * (S3 + SQS + SNS) and dynalite (DynamoDB) — with SDK clients wired to them, queue, topic and
 * table set-up; the API sandbox for a test file (`useSandbox`); and a tiny stand-in API for
 * what the sandbox cannot serve. Each start makes a fresh, empty, in-memory server on
 * 127.0.0.1 with a random port. Start one per test file (`beforeAll`) and `close()` it in
 * `afterAll`.
 *
 * ```ts
 * let aws: S3Sqs;
 * beforeAll(async () => { aws = await startS3Sqs(); });
 * afterAll(() => aws.close());
 * it('…', async () => { const bucket = await aws.createBucket(); … });
 * ```
 *
 * Known emulator limits (measured on this project's machines): fauxqs caps single PUT bodies at 11 MiB (multipart
 * is fine), ignores `IfNoneMatch`, has no ListMultipartUploads; FIFO receives return one
 * message per group per call. dynalite ignores TTL and has no TransactWriteItems.
 */
import { CreateTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { CreateTopicCommand, SNSClient, SubscribeCommand } from '@aws-sdk/client-sns';
import { CreateQueueCommand, DeleteMessageCommand, GetQueueAttributesCommand, ReceiveMessageCommand, SQSClient, type Message } from '@aws-sdk/client-sqs';
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { followUpTableStore } from '../../functions/follow-up/open-state-store.js';
import { createStateStore, type StateStore } from '../../functions/follow-up/state.js';
import { startSandbox, type Sandbox, type SandboxOptions } from '../../sandbox/index.js';
import { removeTempDirs } from './files.js';

/** The region every emulator client uses. */
export const TEST_REGION = 'us-east-1';

/** Dummy keys: the emulators accept any signature; real credentials are never read. */
const TEST_CREDENTIALS = { accessKeyId: 'test', secretAccessKey: 'test' } as const;

export interface S3Sqs {
  /** `http://127.0.0.1:PORT`, for code under test that builds its own clients. */
  readonly endpoint: string;
  readonly region: string;
  /** Path-style, dummy credentials, checksums only where required (see below). */
  readonly s3: S3Client;
  /** Explicit endpoint: fauxqs queue URLs may name hosts that do not resolve. */
  readonly sqs: SQSClient;
  /** SNS on the same endpoint. */
  readonly sns: SNSClient;
  /** Creates a bucket (a unique name by default) and returns its name. */
  createBucket(name?: string): Promise<string>;
  /** Creates a queue (a unique name by default) and returns its URL. */
  createQueue(name?: string, attributes?: Record<string, string>): Promise<string>;
  /** Creates a topic with one new SQS queue subscribed (filtered by `filterPolicy` if given), as a caller would set it up. */
  createTopicWithSubscriber(filterPolicy?: object): Promise<{ readonly topicArn: string; readonly subscriber: string }>;
  /** Every message of a queue, taken off it (a FIFO group gives its next message once the one before is deleted). */
  takeAll(queueUrl: string): Promise<Message[]>;
  /** How many messages a queue holds: visible, and in flight (received, not yet deleted). */
  queueCounts(queueUrl: string): Promise<{ readonly visible: number; readonly inFlight: number }>;
  /** Destroys the clients and stops the server. */
  close(): Promise<void>;
}

/** Options for the S3 client of `startS3Sqs`, the same ones code under test should use. */
export function emulatorS3Config(endpoint: string) {
  return {
    endpoint,
    region: TEST_REGION,
    credentials: TEST_CREDENTIALS,
    forcePathStyle: true,
    // The SDK's default CRC32 checksums on streamed bodies have corrupted uploads on some
    // emulators; checksums only where S3 requires them keeps bodies byte-exact.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  } as const;
}

/** Options for an SQS client talking to the emulator at `endpoint`. */
export function emulatorSqsConfig(endpoint: string) {
  return { endpoint, region: TEST_REGION, credentials: TEST_CREDENTIALS } as const;
}

/** Starts fauxqs (S3 and SQS on one port) on 127.0.0.1. */
export async function startS3Sqs(): Promise<S3Sqs> {
  // fauxqs is ESM only. buildApp + listen on 127.0.0.1: startFauxqs() binds 0.0.0.0.
  const { buildApp } = await import('fauxqs');
  const app = buildApp({ logger: false, defaultRegion: TEST_REGION });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as AddressInfo;
  const endpoint = `http://127.0.0.1:${port}`;
  const s3 = new S3Client(emulatorS3Config(endpoint));
  const sqs = new SQSClient(emulatorSqsConfig(endpoint));
  const sns = new SNSClient(emulatorSqsConfig(endpoint));
  const createQueue = async (name = uniqueName('queue'), attributes?: Record<string, string>) => {
    const queueName = attributes?.['FifoQueue'] === 'true' && !name.endsWith('.fifo') ? `${name}.fifo` : name;
    const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: queueName, ...(attributes ? { Attributes: attributes } : {}) }));
    if (!QueueUrl) throw new Error(`fauxqs returned no URL for queue ${queueName}`);
    return QueueUrl;
  };

  return {
    endpoint,
    region: TEST_REGION,
    s3,
    sqs,
    sns,
    async createBucket(name = uniqueName('bucket')) {
      await s3.send(new CreateBucketCommand({ Bucket: name }));
      return name;
    },
    createQueue,
    async createTopicWithSubscriber(filterPolicy) {
      const { TopicArn } = await sns.send(new CreateTopicCommand({ Name: uniqueName('topic') }));
      if (!TopicArn) throw new Error('fauxqs returned no topic ARN');
      const subscriber = await createQueue();
      const { Attributes } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: subscriber, AttributeNames: ['QueueArn'] }));
      await sns.send(
        new SubscribeCommand({
          TopicArn,
          Protocol: 'sqs',
          Endpoint: Attributes?.['QueueArn'],
          ...(filterPolicy ? { Attributes: { FilterPolicy: JSON.stringify(filterPolicy) } } : {}),
        }),
      );
      return { topicArn: TopicArn, subscriber };
    },
    async takeAll(queueUrl) {
      const all: Message[] = [];
      for (;;) {
        const { Messages = [] } = await sqs.send(
          new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0, MessageSystemAttributeNames: ['All'] }),
        );
        if (Messages.length === 0) return all;
        all.push(...Messages);
        for (const message of Messages) await sqs.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: message.ReceiptHandle }));
      }
    },
    async queueCounts(queueUrl) {
      const { Attributes } = await sqs.send(
        new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'] }),
      );
      return {
        visible: Number(Attributes?.['ApproximateNumberOfMessages'] ?? Number.NaN),
        inFlight: Number(Attributes?.['ApproximateNumberOfMessagesNotVisible'] ?? Number.NaN),
      };
    },
    async close() {
      s3.destroy();
      sqs.destroy();
      sns.destroy();
      await app.close();
    },
  };
}

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

function uniqueName(kind: string): string {
  return `test-${kind}-${randomBytes(4).toString('hex')}`;
}

/** What a follow-up test file runs against: the sandbox API, fauxqs, dynalite and its state table, a bucket for outcomes. */
export interface FollowUpServers {
  readonly sandbox: Sandbox;
  readonly aws: S3Sqs;
  readonly dynamo: Dynamo;
  /** The follow-up state, in a fresh DynamoDB table. */
  readonly store: StateStore;
  readonly bucket: string;
}

/** Starts the servers of {@link FollowUpServers} before the file's tests, hands them to `use`, and closes them after. */
export function useFollowUpServers(options: SandboxOptions, use: (servers: FollowUpServers) => void): void {
  let servers: FollowUpServers | undefined;
  beforeAll(async () => {
    const [sandbox, aws, dynamo] = await Promise.all([startSandbox(options), startS3Sqs(), startDynamo()]);
    const store = createStateStore(followUpTableStore(await createStateTable(dynamo.client, 'followup-state'), dynamo.client));
    servers = { sandbox, aws, dynamo, store, bucket: await aws.createBucket() };
    use(servers);
  });
  afterAll(async () => {
    await Promise.all([servers?.sandbox.close(), servers?.aws.close(), servers?.dynamo.close()]);
  });
}
