/**
 * New jobs (a queue message without `jobId`) end to end on loopback: the sandbox's
 * `POST /v2/agent/{projectId}/job` over real HTTP, dynalite for the state, fauxqs for SQS and
 * S3. Each test counts the creation POSTs the sandbox received: a job is created at most once
 * per requestId whatever is redelivered, killed or lost.
 */
import { GetObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { NEXT_CREATED_JOB } from '../../../sandbox/agent.js';
import { createSnsNotifier } from '../../../functions/follow-up/notify.js';
import type { FollowUpOutcome } from '../../../functions/follow-up/outcome.js';
import { processMessage } from '../../../functions/follow-up/process-message.js';
import type { FollowUpDeps } from '../../../functions/follow-up/types.js';
import { useFollowUpFixture } from '../../helpers/follow-up-fixture.js';
import { waitUntil } from '../../helpers/cli.js';

const fixture = useFollowUpFixture({ agent: { activeMs: 300 } });
const { project: PROJECT, settings: SETTINGS } = fixture;

let counter = 0;

/** A message's dependencies whose API client does not retry. */
function deps(dlq: string, extra: Partial<FollowUpDeps> = {}): FollowUpDeps {
  return fixture.deps(dlq, extra, { client: { maxRetries: 0 } });
}

/** A create message with its own request id and gap. */
function create(name: string) {
  const requestId = `new-${name}-${++counter}`;
  const body = JSON.stringify({ projectId: PROJECT, prompt: `Document ${name} (${requestId})`, requestId, gapId: `gap_${name}_${counter}` });
  return { requestId, gapId: `gap_${name}_${counter}`, body };
}

async function outcome(requestId: string): Promise<FollowUpOutcome | undefined> {
  const listed = await fixture.aws.s3.send(new ListObjectsV2Command({ Bucket: fixture.bucket, Prefix: 'warehouse/followup_outcomes/' }));
  const key = listed.Contents?.map((c) => c.Key ?? '').find((k) => k.endsWith(`/${requestId}.json`));
  if (!key) return undefined;
  const object = await fixture.aws.s3.send(new GetObjectCommand({ Bucket: fixture.bucket, Key: key }));
  return JSON.parse(await object.Body!.transformToString()) as FollowUpOutcome;
}

async function deadLetterQueue() {
  return fixture.aws.createQueue(`dlq${Date.now()}${Math.floor(Math.random() * 1e6)}`);
}

describe('a queue message without jobId creates a job (sandbox + dynalite + fauxqs)', () => {
  it('creates the job once, records its id before polling, polls it to completed and records kind, gap and pull request', async () => {
    const dlq = await deadLetterQueue();
    const { requestId, gapId, body } = create('happy');
    fixture.sandbox.scriptNextRun(PROJECT, NEXT_CREATED_JOB, { outcome: 'completed', activeMs: 800 });

    const first = await processMessage({ messageId: 'm1', body }, deps(dlq), { ...SETTINGS, pollBudgetMs: 200 });
    const recorded = await fixture.store.get(requestId);
    const second = await processMessage({ messageId: 'm1', body }, deps(dlq), SETTINGS);

    expect(first).toMatchObject({ action: 'defer', cause: 'polling', sent: true });
    expect(recorded).toMatchObject({ phase: 'sent', kind: 'create', gapId, jobId: expect.stringMatching(/^job_new_/) });
    expect(second).toMatchObject({ action: 'handled', status: 'completed' });
    const jobId = recorded?.jobId as string;
    expect(fixture.sandbox.getJobState(PROJECT, jobId)).toMatchObject({ status: 'completed', prompts: [expect.anything()] });
    expect(await outcome(requestId)).toMatchObject({
      kind: 'create',
      gap_id: gapId,
      job_id: jobId,
      status: 'completed',
      pr_link: expect.stringMatching(/^https:\/\/github\.com\/.+\/pull\/\d+$/),
      attempts: 1,
    });
  });

  it('creates one job when the same request is delivered twice', async () => {
    const dlq = await deadLetterQueue();
    const queue = await fixture.aws.createQueue(`dup${Date.now()}`);
    const { requestId, body } = create('dup');
    await fixture.aws.sqs.send(new SendMessageCommand({ QueueUrl: queue, MessageBody: body }));
    await fixture.aws.sqs.send(new SendMessageCommand({ QueueUrl: queue, MessageBody: body }));
    const before = createdCount();

    const received = await fixture.aws.sqs.send(new ReceiveMessageCommand({ QueueUrl: queue, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }));
    const results = [];
    for (const message of received.Messages ?? [])
      results.push(await processMessage({ messageId: message.MessageId ?? '', body: message.Body ?? '' }, deps(dlq), SETTINGS));

    expect(results.map((r) => r.action === 'handled' && r.status)).toEqual(['completed', 'duplicate']);
    expect(createdCount() - before).toBe(1);
    expect((await outcome(requestId))?.status).toBe('completed');
  });

  it('creates one job when the message comes back after its visibility timeout while the first delivery still polls', async () => {
    const dlq = await deadLetterQueue();
    const queue = await fixture.aws.createQueue(`vis${Date.now()}`, { VisibilityTimeout: '1' });
    const { requestId, body } = create('visibility');
    fixture.sandbox.scriptNextRun(PROJECT, NEXT_CREATED_JOB, { outcome: 'completed', activeMs: 2_500 });
    await fixture.aws.sqs.send(new SendMessageCommand({ QueueUrl: queue, MessageBody: body }));
    const before = createdCount();

    const firstDelivery = await fixture.aws.sqs.send(new ReceiveMessageCommand({ QueueUrl: queue, WaitTimeSeconds: 1 }));
    const first = processMessage({ messageId: firstDelivery.Messages?.[0]?.MessageId ?? '', body }, deps(dlq, { owner: 'first' }), SETTINGS);
    const redelivery = await fixture.aws.sqs.send(new ReceiveMessageCommand({ QueueUrl: queue, WaitTimeSeconds: 3, MessageSystemAttributeNames: ['All'] }));
    const again = redelivery.Messages?.[0];
    const second = await processMessage(
      { messageId: again?.MessageId ?? '', body: again?.Body ?? '', deliveries: 2 },
      deps(dlq, { owner: 'second' }),
      SETTINGS,
    );

    expect(again?.Attributes?.['ApproximateReceiveCount']).toBe('2');
    expect(second).toMatchObject({ action: 'defer', cause: 'held', sent: true });
    expect(await first).toMatchObject({ action: 'handled', status: 'completed' });
    expect(createdCount() - before).toBe(1);
    expect((await outcome(requestId))?.attempts).toBe(1);
  });

  it('records uncertain, without a second job, when the consumer died between the creation POST and recording it', async () => {
    const dlq = await deadLetterQueue();
    const { requestId, body } = create('killed');
    // The creation answers slowly; the first consumer is "killed" while it waits (its owner is gone).
    fixture.sandbox.addFault({ kind: 'slow', route: 'agent-create', delayMs: 1_200, times: 1 });
    const before = createdCount();
    const doomed = processMessage({ messageId: 'k', body }, deps(dlq, { owner: 'killed-consumer' }), SETTINGS);
    const posted = () => fixture.sandbox.requests.some((r) => r.route === 'agent-create' && r.fault === 'slow');
    await waitUntil(async () => posted() && (await fixture.store.get(requestId))?.phase === 'claimed', 'the first consumer claimed and posted', 5_000);

    const next = await processMessage(
      { messageId: 'k', body },
      deps(dlq, { owner: 'next', isOwnerGone: (owner) => owner.startsWith('killed-consumer') }),
      SETTINGS,
    );
    const late = await doomed;
    const redelivered = await processMessage({ messageId: 'k', body }, deps(dlq), SETTINGS);

    expect(next).toMatchObject({ action: 'handled', status: 'uncertain' });
    expect(late).toMatchObject({ action: 'handled', status: 'duplicate' });
    expect(redelivered).toMatchObject({ action: 'handled', status: 'duplicate' });
    expect(createdCount() - before).toBe(1);
    expect(await outcome(requestId)).toMatchObject({ kind: 'create', status: 'uncertain', job_id: null });
  });

  it.each([
    ['the connection drops after the job was created (a lost 201)', 'drop-after-accept'],
    ['the 201 does not name the new job', 'wrong-types'],
  ] as const)('records uncertain and never creates a second job when %s', async (_case, kind) => {
    const dlq = await deadLetterQueue();
    const { requestId, gapId, body } = create(kind);
    fixture.sandbox.addFault({ kind, route: 'agent-create', times: 1 });
    const before = createdCount();

    const first = await processMessage({ messageId: 'l', body }, deps(dlq), SETTINGS);
    const again = await processMessage({ messageId: 'l', body }, deps(dlq), SETTINGS);

    expect(first).toMatchObject({ action: 'handled', status: 'uncertain' });
    expect(again).toMatchObject({ action: 'handled', status: 'duplicate' });
    expect(createdCount() - before).toBe(1);
    expect(await outcome(requestId)).toMatchObject({ kind: 'create', gap_id: gapId, status: 'uncertain', job_id: null, attempts: 1 });
  });

  it('defers a rate-limited creation and creates the job once later', async () => {
    const dlq = await deadLetterQueue();
    const { requestId, body } = create('limited');
    fixture.sandbox.addFault({ kind: 'rate-limit', route: 'agent-create', retryAfter: 1, times: 1 });
    const before = createdCount();

    const first = await processMessage({ messageId: 'r', body }, deps(dlq), SETTINGS);
    const second = await processMessage({ messageId: 'r', body }, deps(dlq), SETTINGS);

    expect(first).toMatchObject({ action: 'defer', cause: 'rate-limited', delayMs: 1_000, sent: false });
    expect(second).toMatchObject({ action: 'handled', status: 'completed' });
    expect(createdCount() - before).toBe(1);
    expect((await outcome(requestId))?.attempts).toBe(2);
  });

  it('publishes the outcome with kind and gap_id, and its kind attribute lets a subscription take only new jobs', async () => {
    const dlq = await deadLetterQueue();
    const { topicArn, subscriber } = await fixture.aws.createTopicWithSubscriber({ kind: ['create'] });
    const notify = createSnsNotifier({ sns: fixture.aws.sns, topicArn });
    const { requestId, gapId, body } = create('published');
    fixture.sandbox.createJob(PROJECT, { id: `job_followed_${counter}`, status: 'completed', prLink: null });
    const followUp = JSON.stringify({ projectId: PROJECT, jobId: `job_followed_${counter}`, prompt: 'Tidy the intro', requestId: `fu-${counter}` });

    await processMessage({ messageId: 'p1', body }, deps(dlq, { notify }), SETTINGS);
    await processMessage({ messageId: 'p2', body: followUp }, deps(dlq, { notify }), SETTINGS);

    const received = await fixture.aws.takeAll(subscriber);
    expect(received).toHaveLength(1);
    const envelope = JSON.parse(received[0]?.Body ?? '{}') as { Message: string; MessageAttributes: Record<string, { Value: string }> };
    expect(JSON.parse(envelope.Message)).toEqual(await outcome(requestId));
    expect(JSON.parse(envelope.Message)).toMatchObject({ kind: 'create', gap_id: gapId, status: 'completed' });
    expect(envelope.MessageAttributes['kind']?.Value).toBe('create');
    expect((await outcome(`fu-${counter}`))?.kind).toBe('follow_up');
  });

  it('rejects a creation the API refuses (400) and dead-letters it', async () => {
    const dlq = await deadLetterQueue();
    const { requestId, body } = create('refused');
    fixture.sandbox.addFault({ kind: 'status', status: 400, error: 'prompt refused', route: 'agent-create', times: 1 });

    const result = await processMessage({ messageId: 'b', body }, deps(dlq), SETTINGS);

    expect(result).toMatchObject({ action: 'handled', status: 'rejected' });
    expect(await outcome(requestId)).toMatchObject({ kind: 'create', status: 'rejected', job_id: null, detail: expect.stringContaining('(400)') });
  });
});

/** Jobs the sandbox created over the API in the project, whatever became of the answers (their ids count up). */
function createdCount(): number {
  let n = 0;
  while (fixture.sandbox.getJobState(PROJECT, `job_new_${n + 1}`)) n++;
  return n;
}
