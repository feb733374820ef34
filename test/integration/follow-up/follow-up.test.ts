/**
 * The follow-up consumer end to end on loopback: the sandbox API (real HTTP), dynalite for
 * the state table, fauxqs for SQS (standard and FIFO, with a DLQ) and S3 (outcomes).
 * Intervals are shortened (50 ms polls, 0 s visibility delays) so the file runs in seconds.
 */
import { createHash } from 'node:crypto';
import { GetObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { beforeEach, describe, expect, it } from 'vitest';
import { runConsumer } from '../../../functions/cli/consumer.js';
import { createHandler } from '../../../functions/follow-up/handler.js';
import type { FollowUpOutcome } from '../../../functions/follow-up/outcome.js';
import { processMessage } from '../../../functions/follow-up/process-message.js';
import type { FollowUpDeps } from '../../../functions/follow-up/types.js';
import type { FollowUpSettings } from '../../../functions/follow-up/settings.js';
import type { StateStore } from '../../../functions/follow-up/state.js';
import { useFollowUpFixture } from '../../helpers/follow-up-fixture.js';
import { lambdaContext, recordFromMessage, sqsEvent } from '../../helpers/lambda-events.js';

const fixture = useFollowUpFixture({ agent: { activeMs: 300 } });
const { project: PROJECT, settings: SETTINGS } = fixture;
const PROMPT_MARKER = 'PROMPT-TEXT-MUST-NOT-LEAK';

let logs: string[];
let jobCounter = 0;

beforeEach(() => {
  logs = [];
});

function newJob(prLink: string | null = 'https://github.com/acme/docs/pull/1'): string {
  const id = `job_it_${++jobCounter}`;
  fixture.sandbox.createJob(PROJECT, { id, status: 'completed', prLink });
  return id;
}

function capture(level: string) {
  return (message: string, ...extra: Record<string, unknown>[]) => void logs.push(JSON.stringify({ level, message, extra }));
}
const logger = { debug: capture('debug'), info: capture('info'), warn: capture('warn'), error: capture('error') };

function deps(deadLetterUrl: string, options: { maxRetries?: number; owner?: string } = {}): FollowUpDeps {
  return fixture.deps(deadLetterUrl, options.owner === undefined ? {} : { owner: options.owner }, {
    logger,
    ...(options.maxRetries === undefined ? {} : { client: { maxRetries: options.maxRetries } }),
  });
}

async function queues(fifo: boolean) {
  const suffix = `${Date.now()}${Math.floor(Math.random() * 1e6)}`;
  const dlqAttributes: Record<string, string> = fifo ? { FifoQueue: 'true' } : {};
  const dlq = await fixture.aws.createQueue(`dlq${suffix}`, dlqAttributes);
  return { queue: await fixture.aws.createQueue(`q${suffix}`, fifo ? { FifoQueue: 'true', ContentBasedDeduplication: 'true' } : {}), dlq };
}

async function enqueue(queueUrl: string, body: object | string, groupId?: string) {
  await fixture.aws.sqs.send(
    new SendMessageCommand({
      QueueUrl: queueUrl,
      MessageBody: typeof body === 'string' ? body : JSON.stringify(body),
      ...(groupId ? { MessageGroupId: groupId } : {}),
    }),
  );
}

/** Runs the consumer until `done()` holds (checked after each batch) or the time is up. */
async function consumeUntil(
  queueUrl: string,
  deadLetterUrl: string,
  done: () => boolean | Promise<boolean>,
  timeoutMs = 15_000,
  overrides: { store?: StateStore; settings?: Partial<FollowUpSettings> } = {},
) {
  const stop = new AbortController();
  const timer = setTimeout(() => stop.abort(), timeoutMs);
  const d = { ...deps(deadLetterUrl), ...(overrides.store ? { store: overrides.store } : {}) };
  const settings = { ...SETTINGS, ...overrides.settings };
  const stats = await runConsumer({
    queueUrl,
    sqs: fixture.aws.sqs,
    logger,
    stop: stop.signal,
    waitTimeSeconds: 1,
    messageBudgetMs: 3_000,
    process: (message, options) => processMessage(message, d, settings, options),
    onBatch: () => {
      void Promise.resolve(done()).then((ok) => ok && stop.abort());
    },
  });
  clearTimeout(timer);
  return stats;
}

/** The state table, failing its first `failures` calls as an unreachable table does. */
function failingStore(failures: number): StateStore {
  let calls = 0;
  const maybeFail = () => {
    calls += 1;
    if (calls <= failures) throw new Error('ServiceUnavailable: the state table is not reachable');
  };
  return {
    get: async (requestId) => (maybeFail(), fixture.store.get(requestId)),
    put: async (draft, expectedVersion) => (maybeFail(), fixture.store.put(draft, expectedVersion)),
  };
}

async function deadLetters(url: string) {
  const out = await fixture.aws.sqs.send(
    new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10, MessageAttributeNames: ['All'], WaitTimeSeconds: 0 }),
  );
  return (out.Messages ?? []).map((m) => ({
    body: m.Body ?? '',
    reason: m.MessageAttributes?.['reason']?.StringValue ?? '',
    requestId: m.MessageAttributes?.['requestId']?.StringValue,
  }));
}

async function outcome(requestId: string): Promise<FollowUpOutcome | undefined> {
  const listed = await fixture.aws.s3.send(new ListObjectsV2Command({ Bucket: fixture.bucket, Prefix: 'warehouse/followup_outcomes/' }));
  const key = listed.Contents?.map((c) => c.Key ?? '').find((k) => k.endsWith(`/${requestId}.json`));
  if (!key) return undefined;
  const object = await fixture.aws.s3.send(new GetObjectCommand({ Bucket: fixture.bucket, Key: key }));
  return JSON.parse(await object.Body!.transformToString()) as FollowUpOutcome;
}

const sha = (text: string) => createHash('sha256').update(text).digest('hex');
const msg = (jobId: string, requestId: string, prompt = `Fix the intro ${PROMPT_MARKER} ${requestId}`) => ({ projectId: PROJECT, jobId, prompt, requestId });

describe('follow-up consumer (sandbox + dynalite + fauxqs)', () => {
  it('sends three prompts to one job one at a time, in order, each after the previous run ended', async () => {
    const { queue, dlq } = await queues(true);
    const jobId = newJob();
    for (const n of [1, 2, 3]) await enqueue(queue, msg(jobId, `order-${jobId}-${n}`, `step ${n} ${PROMPT_MARKER}`), jobId);

    await consumeUntil(queue, dlq, async () => (await outcome(`order-${jobId}-3`)) !== undefined, 20_000);

    const state = fixture.sandbox.getJobState(PROJECT, jobId);
    expect(state?.violations).toEqual([]);
    expect(state?.prompts.map((p) => p.promptSha256)).toEqual([1, 2, 3].map((n) => sha(`step ${n} ${PROMPT_MARKER}`)));
    for (const n of [1, 2, 3]) expect((await outcome(`order-${jobId}-${n}`))?.status).toBe('completed');
  });

  it('sends once when the same request is delivered twice', async () => {
    const { queue, dlq } = await queues(false);
    const jobId = newJob();
    await enqueue(queue, msg(jobId, `dup-${jobId}`));
    await enqueue(queue, msg(jobId, `dup-${jobId}`));

    const stats = await consumeUntil(queue, dlq, async () => (await outcome(`dup-${jobId}`)) !== undefined);

    expect(fixture.sandbox.getJobState(PROJECT, jobId)?.prompts).toHaveLength(1);
    expect(stats.received).toBeGreaterThanOrEqual(2);
  });

  it('sends once when two consumers race on one request', async () => {
    const { dlq } = await queues(false);
    const jobId = newJob();
    const body = JSON.stringify(msg(jobId, `race-${jobId}`));

    const results = await Promise.all([
      processMessage({ messageId: 'a', body }, deps(dlq, { owner: 'one' }), SETTINGS),
      processMessage({ messageId: 'b', body }, deps(dlq, { owner: 'two' }), SETTINGS),
    ]);

    expect(fixture.sandbox.getJobState(PROJECT, jobId)?.prompts).toHaveLength(1);
    expect(results.map((r) => r.action).sort()).toEqual(['defer', 'handled']);
  });

  it('records uncertain and never resends when the connection drops after the prompt was accepted', async () => {
    const { dlq } = await queues(false);
    const jobId = newJob();
    const body = JSON.stringify(msg(jobId, `drop-${jobId}`));
    fixture.sandbox.addFault({ kind: 'drop-after-accept', route: 'agent-message', times: 1 });

    const first = await processMessage({ messageId: 'm', body }, deps(dlq), SETTINGS);
    const again = await processMessage({ messageId: 'm', body }, deps(dlq), SETTINGS);

    expect(first).toMatchObject({ action: 'handled', status: 'uncertain' });
    expect(again).toMatchObject({ status: 'duplicate' });
    expect(fixture.sandbox.getJobState(PROJECT, jobId)?.prompts).toHaveLength(1);
    expect((await outcome(`drop-${jobId}`))?.status).toBe('uncertain');
    expect((await deadLetters(dlq))[0]).toMatchObject({ requestId: `drop-${jobId}`, reason: expect.stringMatching(/^uncertain/) });
  });

  it('resumes polling in a later Lambda invocation and records the outcome', async () => {
    const { queue, dlq } = await queues(true);
    const jobId = newJob();
    fixture.sandbox.scriptNextRun(PROJECT, jobId, { outcome: 'completed', activeMs: 1_200 });
    await enqueue(queue, msg(jobId, `long-${jobId}`), jobId);
    const handler = createHandler({ followUp: deps(dlq), settings: { ...SETTINGS, pollBudgetMs: 300 }, sqs: fixture.aws.sqs, queueUrlOf: () => queue });

    const responses = [];
    for (let i = 0; i < 20 && !(await outcome(`long-${jobId}`)); i++) {
      const received = await fixture.aws.sqs.send(
        new ReceiveMessageCommand({ QueueUrl: queue, MaxNumberOfMessages: 10, WaitTimeSeconds: 1, MessageSystemAttributeNames: ['All'] }),
      );
      if (!received.Messages?.length) continue;
      responses.push(await handler(sqsEvent(received.Messages.map((m) => recordFromMessage(m))), lambdaContext(30_000)));
    }

    expect(responses.length).toBeGreaterThan(1);
    expect(responses[0]?.batchItemFailures).toHaveLength(1);
    expect(responses.at(-1)?.batchItemFailures).toEqual([]);
    expect(await outcome(`long-${jobId}`)).toMatchObject({ status: 'completed', attempts: 1 });
    expect(fixture.sandbox.getJobState(PROJECT, jobId)?.prompts).toHaveLength(1);
  });

  it('defers a rate-limited prompt and sends it once later', async () => {
    const { dlq } = await queues(false);
    const jobId = newJob();
    const body = JSON.stringify(msg(jobId, `rl-${jobId}`));
    fixture.sandbox.addFault({ kind: 'rate-limit', route: 'agent-message', retryAfter: 1, times: 1 });
    const d = deps(dlq, { maxRetries: 0 });

    const first = await processMessage({ messageId: 'm', body }, d, SETTINGS);
    const second = await processMessage({ messageId: 'm', body }, d, SETTINGS);

    expect(first).toMatchObject({ action: 'defer', delayMs: 1_000, sent: false });
    expect(second).toMatchObject({ action: 'handled', status: 'completed' });
    expect(fixture.sandbox.getJobState(PROJECT, jobId)?.prompts).toHaveLength(1);
    expect((await outcome(`rl-${jobId}`))?.attempts).toBe(2);
  });

  it('does not mistake a stale read of the previous run for completion', async () => {
    const { dlq } = await queues(false);
    const jobId = newJob();
    fixture.sandbox.scriptNextRun(PROJECT, jobId, { outcome: 'failed', activeMs: 400, staleReads: 2 });

    const result = await processMessage({ messageId: 'm', body: JSON.stringify(msg(jobId, `stale-${jobId}`)) }, deps(dlq), SETTINGS);

    expect(result).toMatchObject({ action: 'handled', status: 'failed' });
  });

  it.each(['archived', 'failed'] as const)('records a job that ends %s', async (ending) => {
    const { dlq } = await queues(false);
    const jobId = newJob();
    fixture.sandbox.scriptNextRun(PROJECT, jobId, { outcome: ending });

    const result = await processMessage({ messageId: 'm', body: JSON.stringify(msg(jobId, `end-${jobId}`)) }, deps(dlq), SETTINGS);

    expect(result).toMatchObject({ action: 'handled', status: ending });
    expect((await outcome(`end-${jobId}`))?.status).toBe(ending);
  });

  it('dead-letters malformed JSON, an empty prompt and an unknown job while the rest of the batch succeeds', async () => {
    const { queue, dlq } = await queues(false);
    const jobId = newJob();
    await enqueue(queue, '{"jobId": ');
    await enqueue(queue, { projectId: PROJECT, jobId, prompt: '', requestId: `empty-${jobId}` });
    await enqueue(queue, msg('job_does_not_exist', `unknown-${jobId}`));
    await enqueue(queue, msg(jobId, `good-${jobId}`));

    await consumeUntil(queue, dlq, async () => (await outcome(`good-${jobId}`)) !== undefined);

    const reasons = (await deadLetters(dlq)).map((d) => d.reason).sort();
    expect(reasons).toEqual([
      'malformed message: body is not JSON',
      'malformed message: prompt is empty',
      expect.stringMatching(/^rejected: job not found \(404\)/),
    ]);
    expect((await outcome(`good-${jobId}`))?.status).toBe('completed');
  });

  it('defers a Lambda record by the failure backoff when the state table fails, so it comes back after that delay', async () => {
    const { queue, dlq } = await queues(true);
    const jobId = newJob();
    await enqueue(queue, msg(jobId, `table-down-${jobId}`), jobId);
    const handler = createHandler({
      followUp: { ...deps(dlq), store: failingStore(Infinity) },
      settings: { ...SETTINGS, failureBackoffMs: 1_000 },
      sqs: fixture.aws.sqs,
      queueUrlOf: () => queue,
    });
    const received = await fixture.aws.sqs.send(new ReceiveMessageCommand({ QueueUrl: queue, WaitTimeSeconds: 1, MessageSystemAttributeNames: ['All'] }));
    const messageId = received.Messages?.[0]?.MessageId;

    const response = await handler(sqsEvent((received.Messages ?? []).map((m) => recordFromMessage(m))), lambdaContext(30_000));
    const again = await fixture.aws.sqs.send(new ReceiveMessageCommand({ QueueUrl: queue, WaitTimeSeconds: 5, MessageSystemAttributeNames: ['All'] }));

    expect(messageId).toBeDefined();
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: messageId }]);
    expect(again.Messages?.map((m) => m.MessageId)).toEqual([messageId]);
    expect(fixture.sandbox.getJobState(PROJECT, jobId)?.prompts).toHaveLength(0);
  });

  it('consume defers a message by the failure backoff while the state table fails, and sends it once when the table is back', async () => {
    const { queue, dlq } = await queues(false);
    const jobId = newJob();
    await enqueue(queue, msg(jobId, `table-back-${jobId}`));

    const stats = await consumeUntil(queue, dlq, async () => (await outcome(`table-back-${jobId}`)) !== undefined, 15_000, {
      store: failingStore(2),
      settings: { failureBackoffMs: 1_000 },
    });

    expect(stats.outcomes.error).toBeUndefined();
    expect(stats.outcomes.deferred ?? 0).toBeGreaterThanOrEqual(2);
    expect((await outcome(`table-back-${jobId}`))?.status).toBe('completed');
    expect(fixture.sandbox.getJobState(PROJECT, jobId)?.prompts).toHaveLength(1);
  });

  it('never writes the API key or the prompt text to logs or outcome records', async () => {
    const { dlq } = await queues(false);
    const jobId = newJob();
    fixture.sandbox.addFault({ kind: 'server-error', route: 'agent-get', times: 1 });
    await processMessage({ messageId: 'm', body: JSON.stringify(msg(jobId, `secret-${jobId}`)) }, deps(dlq), SETTINGS);

    const record = await outcome(`secret-${jobId}`);
    const everything = JSON.stringify({ logs, record });
    expect(record?.status).toBe('completed');
    expect(logs.length).toBeGreaterThan(0);
    expect(everything).not.toContain(PROMPT_MARKER);
    expect(everything).not.toContain(fixture.sandbox.apiKey);
  });
});
