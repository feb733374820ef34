/**
 * Real AWS-API emulators on loopback for integration tests: fauxqs (S3 + SQS) and dynalite
 * (DynamoDB). Each call starts a fresh, empty, in-memory server on 127.0.0.1 with a random
 * port, and SDK clients wired to it. Start one per test file (`beforeAll`) and `close()` it
 * in `afterAll`.
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
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { CreateQueueCommand, SQSClient } from '@aws-sdk/client-sqs';
import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';

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
  /** Creates a bucket (a unique name by default) and returns its name. */
  createBucket(name?: string): Promise<string>;
  /** Creates a queue (a unique name by default) and returns its URL. */
  createQueue(name?: string, attributes?: Record<string, string>): Promise<string>;
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

  return {
    endpoint,
    region: TEST_REGION,
    s3,
    sqs,
    async createBucket(name = uniqueName('bucket')) {
      await s3.send(new CreateBucketCommand({ Bucket: name }));
      return name;
    },
    async createQueue(name = uniqueName('queue'), attributes) {
      const queueName = attributes?.['FifoQueue'] === 'true' && !name.endsWith('.fifo') ? `${name}.fifo` : name;
      const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: queueName, ...(attributes ? { Attributes: attributes } : {}) }));
      if (!QueueUrl) throw new Error(`fauxqs returned no URL for queue ${queueName}`);
      return QueueUrl;
    },
    async close() {
      s3.destroy();
      sqs.destroy();
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

function uniqueName(kind: string): string {
  return `test-${kind}-${randomBytes(4).toString('hex')}`;
}
