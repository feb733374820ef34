/**
 * The SQS loop behind `mintlify-exporter consume`: the same core as the Lambda, applied to
 * any SQS-compatible queue. Long-polls, processes each batch (FIFO groups one message at a
 * time, in order; different groups concurrently), deletes handled messages and defers the
 * others with ChangeMessageVisibility. On stop it receives nothing more, lets the in-flight
 * messages finish or defer (polling stops at its next wait), and returns: a message is never
 * lost, at worst it reappears when its visibility timeout ends. A result `stopOn` names (an API
 * that cannot be reached) stops it the same way by itself, that message made visible again at once.
 */
import { DeleteMessageCommand, ReceiveMessageCommand, type Message, type SQSClient } from '@aws-sdk/client-sqs';
import { describeError } from '../shared/errors.js';
import type { FollowUpLogger, IncomingMessage, ProcessOptions, ProcessResult } from '../follow-up/types.js';
import { bodyStringFields } from '../follow-up/message.js';
import { deferMessage } from '../follow-up/visibility.js';

export interface ConsumerOptions {
  readonly queueUrl: string;
  readonly sqs: Pick<SQSClient, 'send'>;
  /** The core, already bound to its dependencies and settings. */
  readonly process: (message: IncomingMessage, options: ProcessOptions) => Promise<ProcessResult>;
  readonly logger: FollowUpLogger;
  /** Resolves (or is aborted) when the consumer should stop. */
  readonly stop: AbortSignal;
  /** Long-poll wait: how long one ReceiveMessage waits for messages (s). @default 20 */
  readonly waitTimeSeconds?: number;
  /** Messages per ReceiveMessage (SQS allows 1–10). @default 10 */
  readonly maxMessages?: number;
  /** Per-message time limit for polling before deferring (ms): the settings' `pollBudgetMs`. */
  readonly messageBudgetMs: number;
  /**
   * A result after which the consumer stops by itself (what every further message would meet
   * too): returns the reason, which `runConsumer` returns as `stoppedBy`. That message is made
   * visible again at once, for the consumer that runs once the cause is fixed.
   */
  readonly stopOn?: (result: ProcessResult) => string | undefined;
  /** Called after each batch (tests, progress). */
  readonly onBatch?: (stats: ConsumerStats) => void;
  /** Called with what became of each message (consume prints it as a line). */
  readonly onMessage?: (message: MessageReport) => void;
  readonly now?: () => number;
}

/** What became of one message: its ids as the body names them, and its outcome or deferral. */
export interface MessageReport {
  readonly messageId: string;
  /** From the body (or the job the consumer read); undefined when the body does not say. */
  readonly projectId?: string | undefined;
  readonly jobId?: string | undefined;
  readonly requestId?: string | undefined;
  /** `follow_up` (the body names a job), `create` (a prompt without a job: one is created), undefined (unreadable). */
  readonly kind?: 'follow_up' | 'create' | undefined;
  /** The final status, `duplicate`, `deferred`, or `error` (processing threw; back after the visibility timeout). */
  readonly status: OutcomeKind;
  readonly prLink?: string | null | undefined;
  /** Why it was deferred, or the error. */
  readonly reason?: string | undefined;
  readonly delayMs?: number | undefined;
}

/** Every way a delivered message can end in one pass, each counted apart. */
export type OutcomeKind = Extract<ProcessResult, { action: 'handled' }>['status'] | 'deferred' | 'error';

export interface ConsumerStats {
  received: number;
  /** Deliveries by what became of them: `completed`, `failed`, `rejected`, `deferred`, `error`… */
  outcomes: Partial<Record<OutcomeKind, number>>;
  /** Why the consumer stopped by itself (`stopOn`); undefined after the caller's stop. */
  stoppedBy?: string;
}

/** Consumes until `options.stop` aborts or a result `stopOn` names; returns what became of the messages. */
export async function runConsumer(options: ConsumerOptions): Promise<ConsumerStats> {
  const stats: ConsumerStats = { received: 0, outcomes: {} };
  const now = options.now ?? Date.now;
  const log = options.logger;
  const halt = new AbortController();
  const stop = AbortSignal.any([options.stop, halt.signal]);
  const halts = (result: ProcessResult): boolean => {
    const reason = options.stopOn?.(result);
    if (reason === undefined) return false;
    stats.stoppedBy ??= reason;
    halt.abort();
    return true;
  };
  const group = { ...options, stop, halts };
  while (!stop.aborted) {
    let messages: Message[];
    try {
      const received = await options.sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: options.queueUrl,
          MaxNumberOfMessages: options.maxMessages ?? 10,
          WaitTimeSeconds: options.waitTimeSeconds ?? 20,
          MessageSystemAttributeNames: ['All'],
        }),
        // Aborting a receive in flight is safe: anything it took reappears after its visibility timeout.
        { abortSignal: stop },
      );
      messages = received.Messages ?? [];
    } catch (error) {
      if (stop.aborted) break;
      log.error('receiving from the queue failed; retrying in 5 s', { error: describeError(error) });
      await abortableSleep(5_000, stop);
      continue;
    }
    stats.received += messages.length;
    await Promise.all([...groupsOf(messages).values()].map((messagesOfGroup) => processGroup(messagesOfGroup, group, stats, now)));
    options.onBatch?.({ received: stats.received, outcomes: { ...stats.outcomes } });
  }
  // No log record of the stop: the caller says it once (consume's summary).
  return stats;
}

/** FIFO messages by MessageGroupId; standard-queue messages each on their own. */
function groupsOf(messages: Message[]): Map<string, Message[]> {
  const groups = new Map<string, Message[]>();
  for (const message of messages) {
    const key = message.Attributes?.MessageGroupId ?? `message:${message.MessageId ?? ''}`;
    const list = groups.get(key) ?? [];
    list.push(message);
    groups.set(key, list);
  }
  return groups;
}

async function processGroup(
  group: Message[],
  options: ConsumerOptions & { readonly halts: (result: ProcessResult) => boolean },
  stats: ConsumerStats,
  now: () => number,
): Promise<void> {
  for (let i = 0; i < group.length; i++) {
    const message = group[i] as Message;
    const receiptHandle = message.ReceiptHandle ?? '';
    let result: ProcessResult | undefined;
    if (!options.stop.aborted) {
      try {
        const deliveries = Number(message.Attributes?.ApproximateReceiveCount);
        result = await options.process(
          { messageId: message.MessageId ?? '', body: message.Body ?? '', ...(deliveries >= 1 ? { deliveries } : {}) },
          { deadline: now() + options.messageBudgetMs + 1_000, stopSignal: options.stop },
        );
      } catch (error) {
        count(stats, 'error');
        options.logger.error('processing a message failed; it will reappear after its visibility timeout', {
          messageId: message.MessageId,
          error: describeError(error),
        });
        options.onMessage?.({ ...idsOf(message), status: 'error', reason: describeError(error) });
      }
    }
    if (result?.action === 'handled') {
      try {
        await options.sqs.send(new DeleteMessageCommand({ QueueUrl: options.queueUrl, ReceiptHandle: receiptHandle }));
      } catch (error) {
        // Harmless: the message reappears and its state record ("done") turns it into a no-op.
        options.logger.warn('deleting a handled message failed; its redelivery will be a no-op', {
          messageId: message.MessageId,
          error: describeError(error),
        });
      }
      count(stats, result.status);
      options.onMessage?.({ ...idsOf(message, result), status: result.status, prLink: result.prLink });
      continue;
    }
    if (result?.action === 'defer') {
      // A stop of the whole consumer hands the message back at once, for the consumer run next.
      const delayMs = options.halts(result) ? 0 : result.delayMs;
      await deferMessage(options.sqs, { queueUrl: options.queueUrl, receiptHandle }, delayMs, options.logger);
      count(stats, 'deferred');
      options.onMessage?.({ ...idsOf(message, result), status: 'deferred', reason: result.reason, delayMs: result.delayMs });
    }
    // The head of this group was deferred, failed or skipped on stop: release the rest at once
    // (a FIFO group stays blocked behind its in-flight head, so order holds).
    for (const rest of group.slice(i + 1)) {
      await deferMessage(options.sqs, { queueUrl: options.queueUrl, receiptHandle: rest.ReceiptHandle ?? '' }, 0, options.logger);
    }
    return;
  }
}

function count(stats: ConsumerStats, kind: OutcomeKind): void {
  stats.outcomes[kind] = (stats.outcomes[kind] ?? 0) + 1;
}

/**
 * The ids a person needs to find a message again: the body's (a best effort: a malformed body
 * may name none), the request id the core settled on, and the job it read.
 */
function idsOf(message: Message, result?: ProcessResult): Omit<MessageReport, 'status'> {
  const body = bodyIds(message.Body ?? '');
  return {
    messageId: message.MessageId ?? '',
    kind: body.jobId ? 'follow_up' : body.prompt ? 'create' : undefined,
    projectId: body.projectId,
    jobId: (result?.job?.id || undefined) ?? body.jobId,
    requestId: result?.requestId ?? body.requestId,
  };
}

/** The string fields of a queue message's body that name it, as far as the body is readable (never throws). */
export function bodyIds(body: string): { projectId?: string; jobId?: string; requestId?: string; prompt?: string } {
  return bodyStringFields(body, ['projectId', 'jobId', 'requestId', 'prompt']);
}

/** Resolves after `ms`, or at once when `signal` aborts. */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
