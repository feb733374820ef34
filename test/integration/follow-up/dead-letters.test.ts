/**
 * `dead-letters list` and `redrive` on loopback — fauxqs for SQS and S3, dynalite for the
 * follow-up state, the sandbox API — with the consumer's loop running in this process: what each
 * command leaves on the queues, which request a moved message carries (a redriven prompt is the
 * same request, never a second job), and that a redrive ends while the consumer dead-letters
 * again what it moves.
 */
import { randomBytes } from 'node:crypto';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import {
  ChangeMessageVisibilityBatchCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { runConsumer, type ConsumerStats } from '../../../functions/cli/consumer.js';
import { listDeadLetters, redriveDeadLetters } from '../../../functions/cli/dead-letter-queue.js';
import { processMessage } from '../../../functions/follow-up/process-message.js';
import { resolveSettings } from '../../../functions/follow-up/settings.js';
import { NEXT_CREATED_JOB } from '../../../sandbox/agent.js';
import { runCliInProcess } from '../../helpers/cli.js';
import { useFollowUpFixture } from '../../helpers/follow-up-fixture.js';
import { waitUntil } from '../../helpers/cli.js';

const fixture = useFollowUpFixture({ agent: { activeMs: 300 } });
const PROJECT = fixture.project;

/** A queue whose redrive policy names a dead-letter queue (FIFO both, as the stack makes them, or standard both). */
async function queueWithDeadLetters(options: { readonly fifo: boolean; readonly maxReceiveCount?: number }) {
  const tag = randomBytes(4).toString('hex');
  const suffix = options.fifo ? '.fifo' : '';
  const attributes: Record<string, string> = options.fifo ? { FifoQueue: 'true' } : {};
  const deadLetterUrl = await fixture.aws.createQueue(`dl-${tag}-dlq${suffix}`, attributes);
  const redrive = JSON.stringify({
    deadLetterTargetArn: `arn:aws:sqs:us-east-1:000000000000:dl-${tag}-dlq${suffix}`,
    maxReceiveCount: options.maxReceiveCount ?? 1,
  });
  const queueUrl = await fixture.aws.createQueue(`dl-${tag}${suffix}`, { ...attributes, RedrivePolicy: redrive });
  return { queueUrl, deadLetterUrl };
}

/** Sends `body` to the standard queue `queueUrl`, as `aws sqs send-message` would. */
async function sendPlain(queueUrl: string, body: string): Promise<string> {
  const sent = await fixture.aws.sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: body }));
  return sent.MessageId ?? '';
}

/**
 * An SQS client that, once, hands the messages of a receive out again at once (SQS delivers at
 * least once: a standard queue may return a message a second time under a new receipt handle).
 */
function deliveringTwiceOnce(sqs: SQSClient): Pick<SQSClient, 'send'> {
  let done = false;
  const send = async (command: unknown, options?: unknown) => {
    const output: unknown = await sqs.send(command as never, options as never);
    const messages = (output as { Messages?: { ReceiptHandle?: string }[] }).Messages ?? [];
    if (!done && command instanceof ReceiveMessageCommand && messages.length > 0) {
      done = true;
      const entries = messages.map((message, i) => ({ Id: `m${i}`, ReceiptHandle: message.ReceiptHandle ?? '', VisibilityTimeout: 0 }));
      await sqs.send(new ChangeMessageVisibilityBatchCommand({ QueueUrl: command.input.QueueUrl, Entries: entries }));
    }
    return output;
  };
  return { send } as unknown as Pick<SQSClient, 'send'>;
}

/** An SQS client whose queue counts lag: every count reads 0 (SQS's counts are approximate and eventually consistent). */
function countsLagging(sqs: SQSClient): Pick<SQSClient, 'send'> {
  const send = async (command: unknown, options?: unknown) => {
    const output: unknown = await sqs.send(command as never, options as never);
    if (!(command instanceof GetQueueAttributesCommand)) return output;
    const { Attributes = {} } = output as { Attributes?: Record<string, string> };
    const lagging = Object.fromEntries(Object.entries(Attributes).map(([name, value]) => [name, name.startsWith('Approximate') ? '0' : value]));
    return { ...(output as object), Attributes: lagging };
  };
  return { send } as unknown as Pick<SQSClient, 'send'>;
}

describe('dead-letters list', () => {
  it('leaves every message visible at exit, one SQS handed out twice included', async () => {
    // Prepare: three messages on a standard dead-letter queue; the first receive's come back at once
    const { queueUrl, deadLetterUrl } = await queueWithDeadLetters({ fifo: false });
    for (let i = 0; i < 3; i++) await sendPlain(deadLetterUrl, JSON.stringify({ projectId: PROJECT, jobId: `job_${i}`, prompt: 'x', requestId: `r-${i}` }));

    // Act
    const listing = await listDeadLetters(deliveringTwiceOnce(fixture.aws.sqs), queueUrl, deadLetterUrl);

    // Assess
    expect(listing.messages.map((message) => message.requestId).sort()).toEqual(['r-0', 'r-1', 'r-2']);
    expect(await fixture.aws.queueCounts(deadLetterUrl)).toEqual({ visible: 3, inFlight: 0 });
  });
});

/** The consumer's loop (`consume`) in this process against `queueUrl`, until `stop()`. */
function startConsumer(queueUrl: string, deadLetterUrl: string, settings: { readonly pollBudgetMs: number }) {
  const controller = new AbortController();
  const deps = fixture.deps(deadLetterUrl);
  const resolved = resolveSettings({ ...fixture.settings, ...settings });
  const silent = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };
  const done = runConsumer({
    queueUrl,
    sqs: fixture.aws.sqs,
    logger: silent,
    stop: controller.signal,
    waitTimeSeconds: 1,
    messageBudgetMs: resolved.pollBudgetMs,
    process: (message, options) => processMessage(message, deps, resolved, options),
  });
  return {
    stop(): Promise<ConsumerStats> {
      controller.abort();
      return done;
    },
  };
}

/** `dead-letters <verb> --queue-url URL --json [...more]` in this process, against fauxqs. */
async function deadLetters(verb: 'list' | 'redrive', queueUrl: string, more: readonly string[] = []) {
  const run = await runCliInProcess(['dead-letters', verb, '--queue-url', queueUrl, '--json', ...more], {
    env: {},
    now: Date.now,
    extra: { clients: { sqs: fixture.aws.sqs } },
  });
  return {
    ...run,
    json:
      run.stdout === ''
        ? undefined
        : (JSON.parse(run.stdout) as Record<string, unknown> & { moved: Record<string, unknown>[]; skipped: Record<string, unknown>[] }),
  };
}

/** The outcome records under the bucket's warehouse prefix, by key. */
async function outcomeKeys(): Promise<string[]> {
  const listed = await fixture.aws.s3.send(new ListObjectsV2Command({ Bucket: fixture.bucket, Prefix: 'warehouse/followup_outcomes/' }));
  return (listed.Contents ?? []).map((object) => object.Key ?? '');
}

function creations(): number {
  return fixture.sandbox.requests.filter((request) => request.route === 'agent-create').length;
}

describe("dead-letters redrive keeps each message's request", () => {
  it('a create message without requestId, moved by SQS while its job runs, is redriven as the same request: one job, one outcome', async () => {
    // Prepare: the FIFO queue of the stack; a producer's message with no requestId and no jobId
    const { queueUrl, deadLetterUrl } = await queueWithDeadLetters({ fifo: true, maxReceiveCount: 1 });
    fixture.sandbox.scriptNextRun(PROJECT, NEXT_CREATED_JOB, { outcome: 'completed', activeMs: 4_000 });
    const before = creations();
    const body = JSON.stringify({ projectId: PROJECT, prompt: `Document webhooks (${randomBytes(4).toString('hex')})` });
    const sent = await fixture.aws.sqs.send(
      new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: body, MessageGroupId: 'docs', MessageDeduplicationId: 'webhooks-1' }),
    );
    const originalId = sent.MessageId ?? '';
    // The consumer creates the job and defers the message between polls; its next receive is one too many.
    const consumer = startConsumer(queueUrl, deadLetterUrl, { pollBudgetMs: 1_500 });
    try {
      await waitUntil(async () => (await fixture.aws.queueCounts(deadLetterUrl)).visible === 1, 'SQS moved the message to the dead-letter queue', 20_000);
      const jobId = (await fixture.store.get(originalId))?.jobId as string;
      expect(creations() - before).toBe(1);
      await waitUntil(() => fixture.sandbox.getJobState(PROJECT, jobId)?.status === 'completed', 'the job completed', 20_000);

      // Act: redrive while the consumer runs
      const redrive = await deadLetters('redrive', queueUrl);
      await waitUntil(async () => (await fixture.store.get(originalId))?.phase === 'done', 'the first request is done', 20_000);

      // Assess
      expect(redrive.code, redrive.stderr).toBe(0);
      expect(redrive.json?.moved).toEqual([expect.objectContaining({ messageId: originalId, requestId: originalId, requestIdAdded: true })]);
      expect(creations() - before).toBe(1);
      expect(await fixture.store.get(originalId)).toMatchObject({ phase: 'done', outcome: 'completed', kind: 'create', jobId });
      expect((await outcomeKeys()).filter((key) => key.endsWith(`/${originalId}.json`))).toHaveLength(1);
      await waitUntil(async () => (await fixture.aws.queueCounts(queueUrl)).inFlight === 0, 'the redriven message is deleted');
      expect(await fixture.aws.queueCounts(queueUrl)).toEqual({ visible: 0, inFlight: 0 });
    } finally {
      await consumer.stop();
    }
  }, 60_000);

  it('moves a body that is not JSON unchanged, and lists it as such', async () => {
    const { queueUrl, deadLetterUrl } = await queueWithDeadLetters({ fifo: false });
    await sendPlain(deadLetterUrl, 'this is not JSON');

    const listed = await deadLetters('list', queueUrl);
    const redrive = await deadLetters('redrive', queueUrl, ['--include-rejected']);

    expect(listed.json?.['messages']).toEqual([expect.objectContaining({ body: 'this is not JSON', bodyIsJson: false })]);
    expect(listed.json?.['messages']).toEqual([expect.not.objectContaining({ requestId: expect.anything() })]);
    expect(redrive.json?.moved).toEqual([expect.objectContaining({ bodyIsJson: false })]);
    expect((await fixture.aws.takeAll(queueUrl)).map((message) => message.Body)).toEqual(['this is not JSON']);
  });

  it('names the request the body carries, not a requestId message attribute', async () => {
    const { queueUrl, deadLetterUrl } = await queueWithDeadLetters({ fifo: false });
    await fixture.aws.sqs.send(
      new SendMessageCommand({
        QueueUrl: deadLetterUrl,
        MessageBody: JSON.stringify({ projectId: PROJECT, jobId: 'job_a', prompt: 'x', requestId: 'from-the-body' }),
        MessageAttributes: { requestId: { DataType: 'String', StringValue: 'someone-else' } },
      }),
    );

    const listed = await deadLetters('list', queueUrl);

    expect(listed.json?.['messages']).toEqual([expect.objectContaining({ requestId: 'from-the-body' })]);
  });
});

describe("dead-letters redrive when SQS's count lags", () => {
  it('still moves the messages its first receive finds', async () => {
    const { queueUrl, deadLetterUrl } = await queueWithDeadLetters({ fifo: false });
    await sendPlain(deadLetterUrl, JSON.stringify({ projectId: PROJECT, jobId: 'job_lag', prompt: 'x', requestId: 'lagging-1' }));

    const report = await redriveDeadLetters(countsLagging(fixture.aws.sqs), queueUrl, deadLetterUrl);

    expect(report.moved.map((message) => message.requestId)).toEqual(['lagging-1']);
    expect(await fixture.aws.queueCounts(deadLetterUrl)).toEqual({ visible: 0, inFlight: 0 });
  });
});

describe('dead-letters redrive when a delete fails', () => {
  it('reports the message sent but left on the dead-letter queue, and stops there', async () => {
    const { queueUrl, deadLetterUrl } = await queueWithDeadLetters({ fifo: false });
    await sendPlain(deadLetterUrl, JSON.stringify({ projectId: PROJECT, jobId: 'job_del', prompt: 'x', requestId: 'undeleted-1' }));
    const refusingDeletes = {
      send: async (command: unknown, options?: unknown) => {
        if (command instanceof DeleteMessageCommand) throw new Error('AccessDenied: sqs:DeleteMessage');
        return fixture.aws.sqs.send(command as never, options as never);
      },
    } as unknown as Pick<SQSClient, 'send'>;

    const report = await redriveDeadLetters(refusingDeletes, queueUrl, deadLetterUrl);

    expect(report.moved.map((message) => message.requestId)).toEqual(['undeleted-1']);
    expect(report.failed).toMatchObject({ requestId: 'undeleted-1', error: expect.stringMatching(/not deleted from the dead-letter queue.*AccessDenied/) });
    expect(await fixture.aws.queueCounts(deadLetterUrl)).toEqual({ visible: 1, inFlight: 0 });
    expect(await fixture.aws.queueCounts(queueUrl)).toEqual({ visible: 1, inFlight: 0 });
  });
});

describe('dead-letters redrive ends', () => {
  /** 50 malformed messages the running consumer dead-lettered: 25 not JSON (one group), 25 with an empty prompt (a group per job). */
  async function fiftyMalformed(queueUrl: string, deadLetterUrl: string) {
    for (let i = 0; i < 50; i++) {
      const body = i % 2 === 0 ? `not JSON ${i}` : JSON.stringify({ projectId: PROJECT, jobId: `job_m${i}`, prompt: ' ', requestId: `empty-${i}` });
      await fixture.aws.sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: body, MessageGroupId: `g${i}`, MessageDeduplicationId: `d${i}` }));
    }
    await waitUntil(async () => (await fixture.aws.queueCounts(deadLetterUrl)).visible === 50, 'the consumer dead-lettered all 50', 30_000);
  }

  it('skips malformed messages and ends within seconds while the consumer runs; each is moved at most once', async () => {
    const { queueUrl, deadLetterUrl } = await queueWithDeadLetters({ fifo: true, maxReceiveCount: 5 });
    const consumer = startConsumer(queueUrl, deadLetterUrl, { pollBudgetMs: 1_000 });
    try {
      await fiftyMalformed(queueUrl, deadLetterUrl);

      const started = Date.now();
      const redrive = await deadLetters('redrive', queueUrl);
      const took = Date.now() - started;

      expect(redrive.code, redrive.stderr).toBe(0);
      expect(took).toBeLessThan(10_000);
      expect(redrive.json?.moved).toEqual([]);
      expect(redrive.json?.skipped.length).toBeGreaterThan(0);
      expect(redrive.json?.skipped).toContainEqual(expect.objectContaining({ reason: expect.stringMatching(/^malformed message: /) }));
      expect(redrive.stderr).toMatch(/--include-rejected/);
      expect(await fixture.aws.queueCounts(deadLetterUrl)).toEqual({ visible: 50, inFlight: 0 });
    } finally {
      await consumer.stop();
    }
  }, 60_000);

  it('with --include-rejected moves each malformed message exactly once and ends within seconds while the consumer dead-letters them again', async () => {
    const { queueUrl, deadLetterUrl } = await queueWithDeadLetters({ fifo: true, maxReceiveCount: 5 });
    const consumer = startConsumer(queueUrl, deadLetterUrl, { pollBudgetMs: 1_000 });
    try {
      await fiftyMalformed(queueUrl, deadLetterUrl);

      const started = Date.now();
      const redrive = await deadLetters('redrive', queueUrl, ['--include-rejected']);
      const took = Date.now() - started;

      expect(redrive.code, redrive.stderr).toBe(0);
      expect(took).toBeLessThan(10_000);
      const movedIds = (redrive.json?.moved ?? []).map((message) => message['messageId']);
      expect(movedIds).toHaveLength(50);
      expect(new Set(movedIds).size).toBe(50);
      expect(redrive.json?.skipped).toEqual([]);
    } finally {
      await consumer.stop();
    }
  }, 60_000);
});
