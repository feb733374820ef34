/**
 * What a follow-up's end tells the outside world, end to end on loopback: the sandbox API
 * (real HTTP), dynalite for the state table, fauxqs for SQS (the dead-letter queue, the
 * subscriber's queue), SNS (the outcomes topic) and S3 (outcome records).
 * Notifications: one message per outcome, with its attributes, never two across redeliveries.
 * Credits: a 402 on the POST ends the request `rejected` at once.
 */
import { GetObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { ReceiveMessageCommand, type Message } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { createSnsNotifier, type OutcomeNotifier } from '../../../functions/follow-up/notify.js';
import type { FollowUpOutcome } from '../../../functions/follow-up/outcome.js';
import { processMessage } from '../../../functions/follow-up/process-message.js';
import { FOLLOWUP_METRICS } from '../../../functions/shared/metric-names.js';
import { useFollowUpFixture } from '../../helpers/follow-up-fixture.js';

const fixture = useFollowUpFixture({ agent: { activeMs: 200 } });
const { project: PROJECT, settings: SETTINGS } = fixture;

let jobCounter = 0;

/** The SNS envelopes that reached a subscriber queue (everything there now). */
async function notifications(queueUrl: string): Promise<{ message: FollowUpOutcome; attributes: Record<string, string> }[]> {
  const all: Message[] = [];
  for (let batch = await drain(queueUrl); batch.length > 0; batch = await drain(queueUrl)) all.push(...batch);
  return all.map((m) => {
    const envelope = JSON.parse(m.Body ?? '{}') as { Message: string; MessageAttributes?: Record<string, { Value: string }> };
    return {
      message: JSON.parse(envelope.Message) as FollowUpOutcome,
      attributes: Object.fromEntries(Object.entries(envelope.MessageAttributes ?? {}).map(([name, value]) => [name, value.Value])),
    };
  });
}

/** Counts metrics by name. */
function countingMetrics() {
  const counts = new Map<string, number>();
  return { counts, count: (name: string, value = 1) => void counts.set(name, (counts.get(name) ?? 0) + value) };
}

function newJob(): string {
  const id = `job_out_${++jobCounter}`;
  fixture.sandbox.createJob(PROJECT, { id, status: 'completed', prLink: null });
  return id;
}

async function outcomeOf(requestId: string): Promise<FollowUpOutcome | undefined> {
  const listed = await fixture.aws.s3.send(new ListObjectsV2Command({ Bucket: fixture.bucket, Prefix: 'warehouse/followup_outcomes/' }));
  const key = listed.Contents?.find((object) => object.Key?.endsWith(`/${requestId}.json`))?.Key;
  if (!key) return undefined;
  const object = await fixture.aws.s3.send(new GetObjectCommand({ Bucket: fixture.bucket, Key: key }));
  return JSON.parse(await object.Body!.transformToString()) as FollowUpOutcome;
}

async function drain(queueUrl: string) {
  const received = await fixture.aws.sqs.send(
    new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0, MessageAttributeNames: ['All'] }),
  );
  return received.Messages ?? [];
}

function postsTo(jobId: string): number {
  return fixture.sandbox.requests.filter((entry) => entry.route === 'agent-message' && entry.jobId === jobId).length;
}

describe('outcome notifications', () => {
  it('publishes each outcome once, the record as the message with status, projectId and jobId as attributes', async () => {
    const dlq = await fixture.aws.createQueue(undefined, {});
    const { topicArn, subscriber } = await fixture.aws.createTopicWithSubscriber();
    const metrics = countingMetrics();
    const jobId = newJob();
    const body = JSON.stringify({ projectId: PROJECT, jobId, prompt: 'Add a FAQ page', requestId: `req_${jobId}` });

    const result = await processMessage(
      { messageId: 'm-1', body },
      fixture.deps(dlq, { notify: createSnsNotifier({ sns: fixture.aws.sns, topicArn }), metrics }),
      SETTINGS,
    );

    expect(result).toMatchObject({ action: 'handled', status: 'completed' });
    const received = await notifications(subscriber);
    expect(received).toHaveLength(1);
    expect(received[0]?.message).toEqual(await outcomeOf(`req_${jobId}`));
    expect(received[0]?.attributes).toEqual({ status: 'completed', kind: 'follow_up', projectId: PROJECT, jobId });
    expect(metrics.counts.get(FOLLOWUP_METRICS.notified)).toBe(1);
    expect(await fixture.store.get(`req_${jobId}`)).toMatchObject({ phase: 'done', notified: true });
  });

  it('retries a failed publish on the redelivery, without writing the outcome again, and never publishes twice', async () => {
    const dlq = await fixture.aws.createQueue(undefined, {});
    const { topicArn, subscriber } = await fixture.aws.createTopicWithSubscriber();
    const metrics = countingMetrics();
    const real = createSnsNotifier({ sns: fixture.aws.sns, topicArn });
    let failures = 1;
    const flaky: OutcomeNotifier = async (outcome) => {
      if (failures-- > 0) throw new Error('SNS unavailable');
      await real(outcome);
    };
    const jobId = newJob();
    const requestId = `req_${jobId}`;
    const body = JSON.stringify({ projectId: PROJECT, jobId, prompt: 'Document the CLI', requestId });
    const d = fixture.deps(dlq, { notify: flaky, metrics });

    const first = await processMessage({ messageId: 'm-1', body, deliveries: 1 }, d, SETTINGS);
    const written = await outcomeOf(requestId);
    const second = await processMessage({ messageId: 'm-1', body, deliveries: 2 }, d, SETTINGS);
    const third = await processMessage({ messageId: 'm-1', body, deliveries: 3 }, d, SETTINGS);

    expect(first).toMatchObject({ action: 'defer', cause: 'storage', sent: true });
    expect(written).toMatchObject({ status: 'completed' });
    expect(second).toMatchObject({ action: 'handled', status: 'completed' });
    expect(third).toMatchObject({ action: 'handled', status: 'duplicate' });
    const received = await notifications(subscriber);
    expect(received.map((n) => n.message)).toEqual([written]);
    expect(await outcomeOf(requestId)).toEqual(written);
    expect(postsTo(jobId)).toBe(1);
    expect(metrics.counts.get(FOLLOWUP_METRICS.notifyFailures)).toBe(1);
    expect(metrics.counts.get(FOLLOWUP_METRICS.notified)).toBe(1);
    expect(metrics.counts.get(FOLLOWUP_METRICS.outcomes)).toBe(1);
  });

  it('lets a subscription filter on status: only failed, uncertain and rejected reach it', async () => {
    const dlq = await fixture.aws.createQueue(undefined, {});
    const { topicArn, subscriber } = await fixture.aws.createTopicWithSubscriber({ status: ['failed', 'uncertain', 'rejected'] });
    const d = fixture.deps(dlq, { notify: createSnsNotifier({ sns: fixture.aws.sns, topicArn }) });
    const ok = newJob();
    const bad = newJob();
    fixture.sandbox.scriptNextRun(PROJECT, bad, { outcome: 'failed', activeMs: 100 });

    await processMessage({ messageId: 'm-1', body: JSON.stringify({ projectId: PROJECT, jobId: ok, prompt: 'fine', requestId: `req_${ok}` }) }, d, SETTINGS);
    await processMessage(
      { messageId: 'm-2', body: JSON.stringify({ projectId: PROJECT, jobId: bad, prompt: 'breaks', requestId: `req_${bad}` }) },
      d,
      SETTINGS,
    );

    const received = await notifications(subscriber);
    expect(received.map((n) => n.attributes)).toEqual([{ status: 'failed', kind: 'follow_up', projectId: PROJECT, jobId: bad }]);
  });
});

describe('credits', () => {
  it('rejects a prompt the API refuses for lack of credits (402) at once, dead-letters it with the reason, and never sends it again', async () => {
    const dlq = await fixture.aws.createQueue(undefined, {});
    const jobId = newJob();
    fixture.sandbox.addFault({ kind: 'insufficient-credits', route: 'agent-message', projectId: PROJECT, times: 1 });
    const { topicArn, subscriber } = await fixture.aws.createTopicWithSubscriber();
    const d = fixture.deps(dlq, { notify: createSnsNotifier({ sns: fixture.aws.sns, topicArn }) });
    const body = JSON.stringify({ projectId: PROJECT, jobId, prompt: 'Add a page on SSO', requestId: `req_${jobId}` });

    const first = await processMessage({ messageId: 'm-1', body }, d, SETTINGS);
    const again = await processMessage({ messageId: 'm-2', body }, d, SETTINGS);

    expect(first).toMatchObject({ action: 'handled', status: 'rejected' });
    expect(again).toMatchObject({ action: 'handled', status: 'duplicate' });
    expect(postsTo(jobId)).toBe(1);
    expect(fixture.sandbox.getJobState(PROJECT, jobId)?.prompts).toHaveLength(0);
    const outcome = await outcomeOf(`req_${jobId}`);
    expect(outcome).toMatchObject({ status: 'rejected', attempts: 1, sent_at: null });
    expect(outcome?.detail).toMatch(/credits/i);
    const dead = await drain(dlq);
    expect(dead).toHaveLength(1);
    expect(dead[0]?.MessageAttributes?.['reason']?.StringValue).toMatch(/^rejected: .*credits/i);
    const received = await notifications(subscriber);
    expect(received).toHaveLength(1);
    expect(received[0]?.attributes).toEqual({ status: 'rejected', kind: 'follow_up', projectId: PROJECT, jobId });
    expect(received[0]?.message).toEqual(outcome);
  });

  it('treats another 4xx whose error names credits the same way', async () => {
    const dlq = await fixture.aws.createQueue(undefined, {});
    const jobId = newJob();
    fixture.sandbox.addFault({
      kind: 'status',
      status: 403,
      error: 'Your organization has no agent credits left',
      route: 'agent-message',
      projectId: PROJECT,
      times: 1,
    });
    const body = JSON.stringify({ projectId: PROJECT, jobId, prompt: 'Fix the typo', requestId: `req_${jobId}` });

    const result = await processMessage({ messageId: 'm-1', body }, fixture.deps(dlq), SETTINGS);

    expect(result).toMatchObject({ action: 'handled', status: 'rejected' });
    expect(postsTo(jobId)).toBe(1);
    expect((await outcomeOf(`req_${jobId}`))?.detail).toMatch(/credits/i);
  });
});
