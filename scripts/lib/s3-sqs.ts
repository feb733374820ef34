/**
 * fauxqs (S3, SQS and SNS on one port) on 127.0.0.1 with SDK clients wired to it: buckets,
 * queues and topics made on demand. The tests and the benchmarks start one each (`startS3Sqs`)
 * and `close()` it; a fresh, empty, in-memory server on a random port each time.
 *
 * ```ts
 * let aws: S3Sqs;
 * beforeAll(async () => { aws = await startS3Sqs(); });
 * afterAll(() => aws.close());
 * it('…', async () => { const bucket = await aws.createBucket(); … });
 * ```
 *
 * Known emulator limits (measured on this project's machines): fauxqs caps single PUT bodies at
 * 11 MiB (multipart is fine), ignores `IfNoneMatch`, has no ListMultipartUploads; FIFO receives
 * return one message per group per call.
 */
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { CreateTopicCommand, SNSClient, SubscribeCommand } from '@aws-sdk/client-sns';
import { CreateQueueCommand, DeleteMessageCommand, GetQueueAttributesCommand, ReceiveMessageCommand, SQSClient, type Message } from '@aws-sdk/client-sqs';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';

/** The region every emulator client uses. */
export const TEST_REGION = 'us-east-1';

/** Dummy keys: the emulators accept any signature; real credentials are never read. */
export const TEST_CREDENTIALS = { accessKeyId: 'test', secretAccessKey: 'test' } as const;

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

/** A name no other test or run of this process uses: `test-<kind>-<8 hex>`. */
export function uniqueName(kind: string): string {
  return `test-${kind}-${randomBytes(4).toString('hex')}`;
}
