/**
 * What a follow-up's end tells the outside world, end to end on loopback: the sandbox API
 * (real HTTP), dynalite for the state table, fauxqs for SQS (the dead-letter queue) and S3
 * (outcome records). Credits: a 402 on the POST ends the request `rejected` at once.
 */
import { CreateTableCommand } from '@aws-sdk/client-dynamodb';
import { GetObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../sandbox/index.js';
import { createApiClient } from '../../functions/shared/api-client.js';
import { openDestination } from '../../functions/shared/destinations.js';
import { createSqsDeadLetter } from '../../functions/follow-up/dead-letter.js';
import { createOutcomeSink, type FollowUpOutcome } from '../../functions/follow-up/outcome.js';
import { processMessage, type FollowUpDeps, type FollowUpSettings } from '../../functions/follow-up/process-message.js';
import { createDynamoStateStore } from '../../functions/follow-up/state-dynamo.js';
import type { StateStore } from '../../functions/follow-up/state.js';
import { startDynamo, startS3Sqs, type Dynamo, type S3Sqs } from '../helpers/emulators.js';

const PROJECT = 'proj_small';
const SETTINGS: FollowUpSettings = {
  projectIds: [PROJECT],
  pollBudgetMs: 3_000,
  schedule: { minIntervalMs: 50, fraction: 0.1, maxIntervalMs: 500, jitter: 0.05 },
  grace: { ms: 400, reads: 3 },
  activeDeferMs: 100,
  leaseMs: 5_000,
};

let sandbox: Sandbox;
let aws: S3Sqs;
let dynamo: Dynamo;
let store: StateStore;
let bucket: string;
let jobCounter = 0;
const silent = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

beforeAll(async () => {
  [sandbox, aws, dynamo] = await Promise.all([startSandbox({ agent: { activeMs: 200 } }), startS3Sqs(), startDynamo()]);
  await dynamo.client.send(
    new CreateTableCommand({
      TableName: 'followup-state',
      KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
      AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
      BillingMode: 'PAY_PER_REQUEST',
    }),
  );
  store = createDynamoStateStore({ tableName: 'followup-state', client: dynamo.client });
  bucket = await aws.createBucket();
});

afterAll(async () => {
  await Promise.all([sandbox?.close(), aws?.close(), dynamo?.close()]);
});

function newJob(): string {
  const id = `job_out_${++jobCounter}`;
  sandbox.createJob(PROJECT, { id, status: 'completed', prLink: null });
  return id;
}

function deps(deadLetterUrl: string, extra: Partial<FollowUpDeps> = {}): FollowUpDeps {
  return {
    api: createApiClient({ baseUrl: sandbox.url, apiKey: sandbox.apiKey, timeoutMs: 2_000, minDelayMs: 10, maxDelayMs: 50 }),
    store,
    outcomes: createOutcomeSink(openDestination(`s3://${bucket}/warehouse`, { s3Client: aws.s3 })),
    deadLetter: createSqsDeadLetter({ sqs: aws.sqs, queueUrl: deadLetterUrl }),
    logger: silent,
    metrics: { count: () => undefined },
    now: Date.now,
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    owner: 'it',
    ...extra,
  };
}

async function outcomeOf(requestId: string): Promise<FollowUpOutcome | undefined> {
  const listed = await aws.s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: 'warehouse/followup_outcomes/' }));
  const key = listed.Contents?.find((object) => object.Key?.endsWith(`/${requestId}.json`))?.Key;
  if (!key) return undefined;
  const object = await aws.s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  return JSON.parse(await object.Body!.transformToString()) as FollowUpOutcome;
}

async function drain(queueUrl: string) {
  const received = await aws.sqs.send(
    new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0, MessageAttributeNames: ['All'] }),
  );
  return received.Messages ?? [];
}

function postsTo(jobId: string): number {
  return sandbox.requests.filter((entry) => entry.route === 'agent-message' && entry.jobId === jobId).length;
}

describe('credits', () => {
  it('rejects a prompt the API refuses for lack of credits (402) at once, dead-letters it with the reason, and never sends it again', async () => {
    const dlq = await aws.createQueue(undefined, {});
    const jobId = newJob();
    sandbox.addFault({ kind: 'insufficient-credits', route: 'agent-message', projectId: PROJECT, times: 1 });
    const body = JSON.stringify({ projectId: PROJECT, jobId, prompt: 'Add a page on SSO', requestId: `req_${jobId}` });

    const first = await processMessage({ messageId: 'm-1', body }, deps(dlq), SETTINGS);
    const again = await processMessage({ messageId: 'm-2', body }, deps(dlq), SETTINGS);

    expect(first).toMatchObject({ action: 'handled', status: 'rejected' });
    expect(again).toMatchObject({ action: 'handled', status: 'duplicate' });
    expect(postsTo(jobId)).toBe(1);
    expect(sandbox.getJobState(PROJECT, jobId)?.prompts).toHaveLength(0);
    const outcome = await outcomeOf(`req_${jobId}`);
    expect(outcome).toMatchObject({ status: 'rejected', attempts: 1, sent_at: null });
    expect(outcome?.detail).toMatch(/credits/i);
    const dead = await drain(dlq);
    expect(dead).toHaveLength(1);
    expect(dead[0]?.MessageAttributes?.['reason']?.StringValue).toMatch(/^rejected: .*credits/i);
  });

  it('treats another 4xx whose error names credits the same way', async () => {
    const dlq = await aws.createQueue(undefined, {});
    const jobId = newJob();
    sandbox.addFault({ kind: 'status', status: 403, error: 'Your organization has no agent credits left', route: 'agent-message', projectId: PROJECT, times: 1 });
    const body = JSON.stringify({ projectId: PROJECT, jobId, prompt: 'Fix the typo', requestId: `req_${jobId}` });

    const result = await processMessage({ messageId: 'm-1', body }, deps(dlq), SETTINGS);

    expect(result).toMatchObject({ action: 'handled', status: 'rejected' });
    expect(postsTo(jobId)).toBe(1);
    expect((await outcomeOf(`req_${jobId}`))?.detail).toMatch(/credits/i);
  });
});
