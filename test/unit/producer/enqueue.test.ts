/**
 * The batching and re-send rules of the producer, against a scripted SQS `send` (a narrow
 * stand-in: the emulator cannot be told to throttle one entry). The real queue is exercised in
 * test/integration/follow-up/cli-enqueue.test.ts and producer-module.test.ts.
 */
import { GetQueueAttributesCommand, SendMessageBatchCommand, type SendMessageBatchCommandInput, type SendMessageBatchCommandOutput } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { enqueuePrompts, type EnqueueOptions } from '../../../functions/producer/enqueue.js';
import { InvalidPromptsError } from '../../../functions/producer/prompts.js';
import { ConfigError } from '../../../functions/shared/errors.js';

type Entry = NonNullable<SendMessageBatchCommandInput['Entries']>[number];
type Failure = { Code: string; SenderFault: boolean };

/** An SQS stand-in: a FIFO queue (or not) whose entries fail as `failOnce`/`failAlways` say. */
function fakeSqs(
  options: { fifo?: boolean; maxBytes?: number; failOnce?: Record<string, Failure>; failAlways?: Record<string, Failure>; throwFirst?: number } = {},
) {
  const batches: Entry[][] = [];
  const queued: Entry[] = [];
  const failedOnce = new Set<string>();
  let throws = options.throwFirst ?? 0;
  const send = async (command: unknown): Promise<unknown> => {
    if (command instanceof GetQueueAttributesCommand) {
      return { Attributes: { ...(options.fifo === false ? {} : { FifoQueue: 'true' }), MaximumMessageSize: String(options.maxBytes ?? 262_144) } };
    }
    if (!(command instanceof SendMessageBatchCommand)) throw new Error('unexpected command');
    if (throws-- > 0) throw Object.assign(new Error('socket hang up'), { name: 'TimeoutError' });
    const entries = command.input.Entries ?? [];
    batches.push(entries);
    const out: Pick<SendMessageBatchCommandOutput, 'Successful' | 'Failed'> = { Successful: [], Failed: [] };
    for (const entry of entries) {
      const key = entry.MessageDeduplicationId ?? '';
      const failure = options.failAlways?.[key] ?? (failedOnce.has(key) ? undefined : options.failOnce?.[key]);
      if (failure) {
        failedOnce.add(key);
        out.Failed!.push({ Id: entry.Id, ...failure, Message: `${failure.Code} (test)` });
      } else {
        queued.push(entry);
        out.Successful!.push({ Id: entry.Id, MessageId: `m-${key}`, MD5OfMessageBody: '' });
      }
    }
    return out;
  };
  return { sqs: { send } as unknown as NonNullable<EnqueueOptions['sqs']>, batches, queued };
}

const prompt = (jobId: string, requestId: string) => ({ projectId: 'proj_a', jobId, prompt: `do ${requestId}`, requestId });
const noWait = async () => undefined;

describe('enqueuePrompts', () => {
  it('sends batches of 10 with the job as the group and the request id as the deduplication id', async () => {
    const aws = fakeSqs();
    const prompts = Array.from({ length: 12 }, (_, i) => prompt(`job_${i}`, `req-${i}`));

    const report = await enqueuePrompts(prompts, { queueUrl: 'q', sqs: aws.sqs });

    expect(aws.batches.map((b) => b.length)).toEqual([10, 2]);
    expect(aws.queued[3]).toMatchObject({ MessageGroupId: 'job_3', MessageDeduplicationId: 'req-3', MessageBody: JSON.stringify(prompts[3]) });
    expect(report.enqueued.map((p) => p.line)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
    expect(report.notSent).toEqual([]);
  });

  it("puts one job's prompts in separate batches, so a refused one cannot be overtaken by the next", async () => {
    const aws = fakeSqs();
    await enqueuePrompts([prompt('job_a', 'r1'), prompt('job_b', 'r2'), prompt('job_a', 'r3'), prompt('job_a', 'r4')], { queueUrl: 'q', sqs: aws.sqs });
    expect(aws.batches.map((b) => b.map((e) => e.MessageDeduplicationId))).toEqual([['r1', 'r2'], ['r3'], ['r4']]);
  });

  it('sends a throttled entry again, and a whole batch whose call failed', async () => {
    const aws = fakeSqs({ failOnce: { r2: { Code: 'ThrottlingException', SenderFault: true } }, throwFirst: 1 });
    const waits: number[] = [];

    const report = await enqueuePrompts([prompt('job_a', 'r1'), prompt('job_b', 'r2')], {
      queueUrl: 'q',
      sqs: aws.sqs,
      sleep: async (ms) => void waits.push(ms),
    });

    expect(report.notSent).toEqual([]);
    expect(aws.queued.map((e) => e.MessageDeduplicationId)).toEqual(['r1', 'r2']);
    expect(waits).toEqual([200, 400]);
  });

  it("names the prompts not sent, holds back the same job's later prompts, and sends the others", async () => {
    const aws = fakeSqs({ failAlways: { r1: { Code: 'InvalidParameterValue', SenderFault: true } } });

    const report = await enqueuePrompts([prompt('job_a', 'r1'), prompt('job_b', 'r2'), prompt('job_a', 'r3')], { queueUrl: 'q', sqs: aws.sqs, sleep: noWait });

    expect(report.enqueued.map((p) => p.requestId)).toEqual(['r2']);
    expect(report.notSent).toEqual([
      expect.objectContaining({ line: 1, requestId: 'r1', reason: 'InvalidParameterValue: InvalidParameterValue (test)' }),
      expect.objectContaining({ line: 3, requestId: 'r3', reason: expect.stringContaining('earlier prompt to job job_a on line 1 was not sent') }),
    ]);
  });

  it('gives up on an entry that keeps failing for SQS reasons after the attempts', async () => {
    const aws = fakeSqs({ failAlways: { r1: { Code: 'InternalError', SenderFault: false } } });
    const report = await enqueuePrompts([prompt('job_a', 'r1')], { queueUrl: 'q', sqs: aws.sqs, sleep: noWait, maxAttempts: 3 });
    expect(aws.batches).toHaveLength(3);
    expect(report.notSent).toEqual([expect.objectContaining({ requestId: 'r1', reason: expect.stringMatching(/^InternalError/) })]);
  });

  it('refuses a queue that is not FIFO, before sending', async () => {
    const aws = fakeSqs({ fifo: false });
    await expect(enqueuePrompts([prompt('job_a', 'r1')], { queueUrl: 'q', sqs: aws.sqs })).rejects.toThrow(ConfigError);
    await expect(enqueuePrompts([prompt('job_a', 'r1')], { queueUrl: 'q', sqs: aws.sqs })).rejects.toThrow(/is not a FIFO queue: .*FollowUpQueueUrl/);
    expect(aws.batches).toEqual([]);
  });

  it("refuses a message larger than the queue's MaximumMessageSize, before sending any", async () => {
    const aws = fakeSqs({ maxBytes: 1_024 });
    const big = { ...prompt('job_b', 'r2'), prompt: 'é'.repeat(600) };
    await expect(enqueuePrompts([prompt('job_a', 'r1'), big], { queueUrl: 'q', sqs: aws.sqs })).rejects.toThrow(InvalidPromptsError);
    await expect(enqueuePrompts([prompt('job_a', 'r1'), big], { queueUrl: 'q', sqs: aws.sqs })).rejects.toThrow(
      /line 2: the message is \d+ bytes, more than the queue's MaximumMessageSize \(1024\)/,
    );
    expect(aws.batches).toEqual([]);
  });

  it('refuses every prompt when one is bad, before sending', async () => {
    const aws = fakeSqs();
    await expect(
      enqueuePrompts([prompt('job_a', 'r1'), { jobId: 'job_b', prompt: '' }], { queueUrl: 'q', sqs: aws.sqs, projectIds: ['proj_a'] }),
    ).rejects.toThrow('prompts refused, nothing was sent: line 2: prompt is empty');
    expect(aws.batches).toEqual([]);
  });
});
