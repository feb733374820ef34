/**
 * No idle worker (issue 53), in process against real parts on loopback with a fake sleep: an
 * organisation whose budget (2 an hour) is spent after its first requests does not wait in the
 * worker — its run checkpoints, the worker ends and its message is handed back on the queue
 * (fauxqs, with the deployment's redrive) until the ledger's next free slot. The handback is no
 * failure: the message comes back instead of going to the dead-letter queue, and once the slot
 * has come it is received again. A failed organisation's message is
 * dead-lettered by the worker, with why.
 */
import { ChangeMessageVisibilityCommand, GetQueueAttributesCommand, ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganisationsWorker, orgsConfig, type OrganisationsConfig } from '../../../functions/organisations/handlers.js';
import { MAX_IDLE_WAIT_MS, type WorkerRecord } from '../../../functions/organisations/worker.js';
import { ORG_QUEUE_MAX_RECEIVES } from '../../../infra/constructs/organisations.js';
import { startSandbox, type Sandbox } from '../../../sandbox/index.js';
import { createStateTable, startDynamo, type Dynamo } from '../../helpers/emulators.js';
import { startS3Sqs, TEST_REGION, type S3Sqs } from '../../../scripts/lib/s3-sqs.js';
import { exportFunctionEnv } from '../../helpers/env.js';
import { lambdaContext } from '../../helpers/lambda-events.js';
import { analyticsRequests } from '../../helpers/request-log.js';
import { startFakeSecretsManager, type FakeSecretsManager } from '../../helpers/secrets-manager.js';

const PREFIX = 'handback/orgs/';
const KEYS = { acme: 'mint_acme_handback_0123456789', gone: 'mint_gone_handback_0123456789' } as const;
const EVENT_TIME = '2026-03-01T02:30:00.000Z';

let sandbox: Sandbox;
let aws: S3Sqs;
let dynamo: Dynamo;
let stand: FakeSecretsManager;
let secrets: SecretsManagerClient;
let config: OrganisationsConfig;
let queueUrl: string;
let deadLetterUrl: string;
/** Every sleep of the runs (a fake one: nothing waits): none may be a wait for budget over a minute. */
const slept: number[] = [];

beforeAll(async () => {
  [sandbox, aws, dynamo] = await Promise.all([startSandbox({ apiKey: KEYS.acme }), startS3Sqs(), startDynamo()]);
  stand = await startFakeSecretsManager({
    [`${PREFIX}acme`]: JSON.stringify({ apiKey: KEYS.acme, projectIds: ['proj_synth_300'] }),
    [`${PREFIX}gone`]: JSON.stringify({ apiKey: KEYS.gone, projectIds: ['proj_synth_100'] }),
  });
  secrets = new SecretsManagerClient({ endpoint: stand.endpoint, region: TEST_REGION, credentials: { accessKeyId: 'test', secretAccessKey: 'test' } });
  deadLetterUrl = await aws.createQueue();
  const { Attributes } = await aws.sqs.send(new GetQueueAttributesCommand({ QueueUrl: deadLetterUrl, AttributeNames: ['QueueArn'] }));
  queueUrl = await aws.createQueue(undefined, {
    RedrivePolicy: JSON.stringify({ deadLetterTargetArn: Attributes?.['QueueArn'], maxReceiveCount: String(ORG_QUEUE_MAX_RECEIVES) }),
  });
  config = orgsConfig(
    exportFunctionEnv(
      { apiUrl: sandbox.url, projectIds: '', destination: `s3://${await aws.createBucket()}/mintlify`, stateTable: await createStateTable(dynamo.client) },
      { EXPORT_ORGS_SECRET_PREFIX: PREFIX, ANALYTICS_BUDGET: '2/1h', EXPORT_HEAL_DAYS: '3' },
    ),
  );
}, 60_000);

afterAll(async () => {
  secrets?.destroy();
  await Promise.all([sandbox?.close(), aws?.close(), dynamo?.close(), stand?.close()]);
});

/** The visibility timeouts the worker set (s). */
const visibilities: number[] = [];
const sqsSpy = {
  send: (command: unknown) => {
    if (command instanceof ChangeMessageVisibilityCommand) visibilities.push(command.input.VisibilityTimeout ?? -1);
    return aws.sqs.send(command as never);
  },
};

const worker = () =>
  createOrganisationsWorker(
    config,
    { secrets, dynamo: dynamo.client, s3: aws.s3, sqs: sqsSpy as never },
    {
      sleep: async (ms) => {
        slept.push(ms);
      },
      queueUrlOf: async () => queueUrl,
    },
  );

async function receive(url: string): Promise<WorkerRecord[]> {
  const { Messages = [] } = await aws.sqs.send(
    new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10, WaitTimeSeconds: 0, MessageAttributeNames: ['All'] }),
  );
  return Messages.map((m) => ({ messageId: m.MessageId ?? '', body: m.Body ?? '', receiptHandle: m.ReceiptHandle ?? '' }));
}

describe('an organisation whose budget is spent', () => {
  it('is not waited for: its message is handed back until the next free slot, and comes back (not dead-lettered)', async () => {
    await aws.sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify({ org: 'acme', time: EVENT_TIME }) }));
    const [record] = await receive(queueUrl);
    expect(record).toBeDefined();
    const first = await worker()({ Records: [record as WorkerRecord] }, lambdaContext());
    // Handed back: a batch item failure after the visibility change, no sleep over a minute.
    expect(first.batchItemFailures).toEqual([{ itemIdentifier: record?.messageId }]);
    expect(slept.filter((ms) => ms > MAX_IDLE_WAIT_MS)).toEqual([]);
    expect(analyticsRequests(sandbox.requests)).toHaveLength(2);
    expect(await receive(queueUrl)).toEqual([]);
    expect(await aws.queueCounts(queueUrl)).toMatchObject({ inFlight: 1 });
    // Until the ledger's next free slot: the rest of the hour its two starts opened.
    expect(visibilities).toHaveLength(1);
    expect(visibilities[0]).toBeGreaterThan(60);
    expect(visibilities[0]).toBeLessThanOrEqual(3_600);

    // SQS's delay cut short by hand: the message is delivered again, not dead-lettered, and handed back again.
    await aws.sqs.send(new ChangeMessageVisibilityCommand({ QueueUrl: queueUrl, ReceiptHandle: record?.receiptHandle, VisibilityTimeout: 0 }));
    const [again] = await receive(queueUrl);
    expect(again?.messageId).toBe(record?.messageId);
    expect(await receive(deadLetterUrl)).toEqual([]);
    const second = await worker()({ Records: [again as WorkerRecord] }, lambdaContext());
    expect(second.batchItemFailures).toEqual([{ itemIdentifier: record?.messageId }]);
    expect(analyticsRequests(sandbox.requests)).toHaveLength(2);
    expect(await receive(deadLetterUrl)).toEqual([]);
    expect(slept.filter((ms) => ms > MAX_IDLE_WAIT_MS)).toEqual([]);
  }, 60_000);

  it('ends a second message of the organisation while one is handed back, rather than have both wait for one budget', async () => {
    await aws.sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify({ org: 'acme', time: EVENT_TIME }) }));
    const [record] = await receive(queueUrl);
    const result = await worker()({ Records: [record as WorkerRecord] }, lambdaContext());
    expect(result.batchItemFailures).toEqual([]);
    expect(analyticsRequests(sandbox.requests)).toHaveLength(2);
  }, 60_000);
});

describe('a failed organisation', () => {
  it('is dead-lettered by the worker with why, and its message handled', async () => {
    await aws.sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify({ org: 'gone', time: EVENT_TIME }) }));
    const [record] = await receive(queueUrl);
    const result = await worker()({ Records: [record as WorkerRecord] }, lambdaContext());
    expect(result.batchItemFailures).toEqual([]);
    const { Messages = [] } = await aws.sqs.send(
      new ReceiveMessageCommand({ QueueUrl: deadLetterUrl, MaxNumberOfMessages: 10, MessageAttributeNames: ['All'] }),
    );
    expect(Messages.map((m) => JSON.parse(m.Body ?? '{}').org)).toEqual(['gone']);
    expect(Messages[0]?.MessageAttributes?.['reason']?.StringValue).toMatch(/^organisation "gone": /);
  }, 60_000);
});
