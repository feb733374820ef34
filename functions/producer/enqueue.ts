/**
 * Enqueueing follow-up prompts on the FIFO queue the consumer reads: every prompt checked
 * first (prompts.ts, all or nothing), then `SendMessageBatch` in batches of up to 10 with
 * `MessageGroupId` = the job id (one prompt per job at a time, in enqueue order; a new job's
 * own request id, message.ts `messageGroupOf`) and `MessageDeduplicationId` = the request id.
 *
 * Sending again is always safe: SQS drops a repeated deduplication id for five minutes, and the
 * consumer sends each request id at most once after that. So entries that failed for the
 * service's reasons (throttled, a server error) are sent again here, and a whole batch whose
 * call failed is sent again as it is. Once a prompt to a job is not sent, the later prompts to
 * that job are held back too, so the order of one job's prompts never changes.
 */
import { GetQueueAttributesCommand, SendMessageBatchCommand, SQSClient, type SendMessageBatchRequestEntry } from '@aws-sdk/client-sqs';
import { ConfigError, describeError } from '../shared/errors.js';
import { retry } from '../shared/pacing/retry.js';
import { checkPrompts, InvalidPromptsError, type CheckedPrompt, type CheckOptions, type FollowUpPrompt } from './prompts.js';
import { sqsClientConfig } from '../shared/aws-clients.js';

/** SQS's limit of entries per SendMessageBatch. */
export const MAX_BATCH_ENTRIES = 10;

/** Used when the queue does not say its MaximumMessageSize (SQS's long-standing default, bytes). */
const DEFAULT_MAX_MESSAGE_BYTES = 262_144;

export interface EnqueueOptions extends CheckOptions {
  /** The follow-up queue (stack output FollowUpQueueUrl); must be FIFO. */
  readonly queueUrl: string;
  /** @default a new SQSClient (region and credentials from the environment, as the AWS CLI finds them) */
  readonly sqs?: Pick<SQSClient, 'send'> | undefined;
  /** Attempts per entry when SQS fails it for its own reasons (throttling, server errors). @default 5 */
  readonly maxAttempts?: number | undefined;
  /** Wait before the first re-send, doubled each time (ms). @default 200 */
  readonly retryDelayMs?: number | undefined;
  readonly sleep?: ((ms: number) => Promise<void>) | undefined;
  /**
   * Stops sending (a first Ctrl-C): no batch starts once it fires; the batch on its way is
   * finished, and the prompts after it are reported in `notSent`. @default none
   */
  readonly stop?: AbortSignal | undefined;
}

/** A prompt on the queue. */
export interface EnqueuedPrompt {
  readonly line: number;
  readonly requestId: string;
  readonly requestIdMade: boolean;
  readonly projectId: string;
  /** Absent for a new job. */
  readonly jobId?: string | undefined;
  readonly messageId: string;
}

/** A prompt that is not on the queue, and why. Enqueue it again (same request id): that is safe. */
export interface NotSentPrompt {
  readonly line: number;
  readonly requestId: string;
  readonly requestIdMade: boolean;
  readonly projectId: string;
  /** Absent for a new job. */
  readonly jobId?: string | undefined;
  readonly reason: string;
}

export interface EnqueueReport {
  /** In input order. */
  readonly enqueued: readonly EnqueuedPrompt[];
  /** Empty when every prompt is on the queue. In input order. */
  readonly notSent: readonly NotSentPrompt[];
  /** Whether `stop` ended the sending before the last prompt. */
  readonly stopped?: boolean;
}

/** Some entries of a batch were refused for now (throttling, SQS's own errors): the loop sends them again. */
class EntriesNotTaken extends Error {}

/**
 * Checks every prompt with the consumer's rules, then enqueues them in order. Throws
 * ConfigError (InvalidPromptsError for a bad prompt) before sending anything; a prompt SQS
 * would not take after the retries is reported in `notSent`, not thrown.
 */
export async function enqueuePrompts(prompts: readonly (FollowUpPrompt | string)[], options: EnqueueOptions): Promise<EnqueueReport> {
  const checked = checkPrompts(
    prompts.map((input, index) => ({ line: index + 1, input })),
    options,
  );
  return sendPrompts(checked, options);
}

/** Enqueues prompts already checked (checkPrompts), in order. */
export async function sendPrompts(prompts: readonly CheckedPrompt[], options: EnqueueOptions): Promise<EnqueueReport> {
  const sqs = options.sqs ?? new SQSClient(sqsClientConfig());
  const maxBytes = await fifoQueueLimit(sqs, options.queueUrl);
  const tooLarge = prompts.filter((p) => Buffer.byteLength(p.body, 'utf8') > maxBytes);
  if (tooLarge.length > 0) {
    throw new InvalidPromptsError(
      tooLarge.map((p) => ({
        line: p.line,
        reason: `the message is ${Buffer.byteLength(p.body, 'utf8')} bytes, more than the queue's MaximumMessageSize (${maxBytes})`,
      })),
      'prompts',
    );
  }
  const maxAttempts = options.maxAttempts ?? 5;
  const retryDelayMs = options.retryDelayMs ?? 200;
  const enqueued: EnqueuedPrompt[] = [];
  const notSent: NotSentPrompt[] = [];
  /** Jobs with a prompt not sent: their later prompts wait, so one job's order never changes. */
  const heldJobs = new Map<string, number>();

  let stopped = false;
  for (const batch of batchesOf(prompts, maxBytes)) {
    if (options.stop?.aborted) {
      stopped = true;
      for (const prompt of batch) notSent.push(notSentOf(prompt, 'not sent: stopped by the user'));
      continue;
    }
    let pending: CheckedPrompt[] = [];
    for (const prompt of batch) {
      const heldBy = heldJobs.get(prompt.groupId);
      if (heldBy === undefined) pending.push(prompt);
      else
        notSent.push(
          notSentOf(prompt, `held back: the earlier prompt to job ${prompt.jobId} on line ${heldBy} was not sent, and one job's prompts keep their order`),
        );
    }
    if (pending.length === 0) continue;
    /** Why each entry SQS refused for now (throttling, its own errors) was not taken, by entry id. */
    let refusedForNow = new Map<string, string>();
    // The shared retry loop, without jitter: each attempt sends what is still pending.
    await retry(
      async () => {
        const answer = await sqs.send(new SendMessageBatchCommand({ QueueUrl: options.queueUrl, Entries: pending.map(entryOf) }));
        const byId = new Map(pending.map((prompt) => [entryId(prompt), prompt]));
        for (const ok of answer.Successful ?? []) {
          const prompt = byId.get(ok.Id ?? '');
          if (prompt) enqueued.push({ ...idsOf(prompt), messageId: ok.MessageId ?? '' });
        }
        refusedForNow = new Map();
        const again: CheckedPrompt[] = [];
        for (const failed of answer.Failed ?? []) {
          const prompt = byId.get(failed.Id ?? '');
          if (!prompt) continue;
          const reason = `${failed.Code ?? 'failed'}: ${failed.Message ?? 'SQS did not take the message'}`;
          const transient = failed.SenderFault !== true || /thrott/i.test(failed.Code ?? '');
          if (!transient) fail(prompt, reason);
          else {
            again.push(prompt);
            refusedForNow.set(entryId(prompt), reason);
          }
        }
        pending = again;
        if (pending.length > 0) throw new EntriesNotTaken();
      },
      {
        retries: maxAttempts - 1,
        minMs: retryDelayMs,
        maxMs: Number.POSITIVE_INFINITY,
        random: () => 1,
        // The whole call failed (the SDK has already retried it): it may or may not have reached
        // SQS, and sending the same entries again is safe (the dedup id is the request id).
        shouldRetry: () => true,
        ...(options.sleep ? { sleep: options.sleep } : {}),
      },
    ).catch((error: unknown) => {
      for (const prompt of pending) {
        fail(
          prompt,
          error instanceof EntriesNotTaken
            ? (refusedForNow.get(entryId(prompt)) ?? 'SQS did not take the message')
            : `SendMessageBatch failed: ${describeError(error)}`,
        );
      }
    });
  }
  const byLine = (a: { line: number }, b: { line: number }) => a.line - b.line;
  return { enqueued: enqueued.sort(byLine), notSent: notSent.sort(byLine), ...(stopped ? { stopped } : {}) };

  function fail(prompt: CheckedPrompt, reason: string): void {
    notSent.push(notSentOf(prompt, reason));
    if (!heldJobs.has(prompt.groupId)) heldJobs.set(prompt.groupId, prompt.line);
  }
}

/**
 * Checks that the queue is FIFO (the consumer's order and one-at-a-time guarantees rest on
 * it) and returns its MaximumMessageSize. Throws ConfigError with the fix otherwise.
 */
async function fifoQueueLimit(sqs: Pick<SQSClient, 'send'>, queueUrl: string): Promise<number> {
  let attributes: Record<string, string> | undefined;
  try {
    ({ Attributes: attributes } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['FifoQueue', 'MaximumMessageSize'] })));
  } catch (error) {
    if (/NonExistentQueue|QueueDoesNotExist/i.test(errorName(error))) {
      throw new ConfigError(`queue ${queueUrl} does not exist: use the stack output FollowUpQueueUrl`);
    }
    throw error;
  }
  if (attributes?.['FifoQueue'] !== 'true') {
    throw new ConfigError(
      `queue ${queueUrl} is not a FIFO queue: follow-up prompts go to the FIFO queue (stack output FollowUpQueueUrl, a name ending in .fifo), which keeps one job's prompts in order`,
    );
  }
  const max = Number(attributes['MaximumMessageSize']);
  return Number.isInteger(max) && max > 0 ? max : DEFAULT_MAX_MESSAGE_BYTES;
}

/**
 * Consecutive batches, in order, of at most 10 entries and `maxBytes` of bodies, and at most
 * one prompt per job: SQS may take a later entry of a batch while refusing an earlier one, so
 * a job's next prompt goes only after its previous one is on the queue.
 */
function batchesOf(prompts: readonly CheckedPrompt[], maxBytes: number): CheckedPrompt[][] {
  const batches: CheckedPrompt[][] = [];
  let current: CheckedPrompt[] = [];
  let bytes = 0;
  for (const prompt of prompts) {
    const size = Buffer.byteLength(prompt.body, 'utf8');
    const full = current.length === MAX_BATCH_ENTRIES || bytes + size > maxBytes || current.some((p) => p.groupId === prompt.groupId);
    if (current.length > 0 && full) {
      batches.push(current);
      current = [];
      bytes = 0;
    }
    current.push(prompt);
    bytes += size;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}

function entryId(prompt: CheckedPrompt): string {
  return `line-${prompt.line}`;
}

function entryOf(prompt: CheckedPrompt): SendMessageBatchRequestEntry {
  return {
    Id: entryId(prompt),
    MessageBody: prompt.body,
    MessageGroupId: prompt.groupId,
    MessageDeduplicationId: prompt.requestId,
  };
}

function idsOf(prompt: CheckedPrompt) {
  const { line, requestId, requestIdMade, projectId, jobId } = prompt;
  return { line, requestId, requestIdMade, projectId, ...(jobId === undefined ? {} : { jobId }) };
}

function notSentOf(prompt: CheckedPrompt, reason: string): NotSentPrompt {
  return { ...idsOf(prompt), reason };
}

function errorName(error: unknown): string {
  if (typeof error !== 'object' || error === null) return '';
  const { name, Code } = error as { name?: unknown; Code?: unknown };
  return `${typeof name === 'string' ? name : ''} ${typeof Code === 'string' ? Code : ''}`;
}
