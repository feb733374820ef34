/**
 * The follow-up dead-letter queue read and moved back with the SDK (what `dead-letters list` and
 * `redrive` do; the command and its flags are `dead-letters.ts`).
 *
 * - `list` receives the messages with a short visibility timeout and, before it returns, makes
 *   every one it received visible again — a message SQS handed out twice included: nothing is
 *   taken off the queue.
 * - `redrive` sends each message back to the queue — the same request (a JSON body without
 *   `requestId` gets the id the consumer used: the message's own, which SQS keeps when it moves a
 *   message to the dead-letter queue), the same message group — and only then deletes it here:
 *   at least once. It moves at most the messages present when it starts, each once: a message
 *   that comes back while it runs (the consumer rejected the copy again) is left where it is.
 *   Messages the consumer would reject again at once (malformed, a reused request id) are skipped
 *   unless `includeRejected`.
 */
import {
  ChangeMessageVisibilityBatchCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  type Message,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { DEAD_LETTER_ATTRIBUTES, rejectionOf, withRequestId, type Rejection } from '../follow-up/dead-letter.js';
import { defaultRequestId } from '../follow-up/message.js';
import { describeError } from '../shared/errors.js';
import { bodyIds } from './consumer.js';

type Sqs = Pick<SQSClient, 'send'>;

/** A dead-lettered message, as `list` shows it and `redrive` moves it. */
export interface DeadLetterMessage {
  readonly messageId: string;
  /**
   * The request the body names, as `redrive` sends it: its `requestId`, or for a JSON object
   * without one, the message id the consumer took as its request. Never a message attribute
   * (anyone who writes to the queue sets those). Undefined when the body is not a JSON object.
   */
  readonly requestId?: string | undefined;
  readonly projectId?: string | undefined;
  readonly jobId?: string | undefined;
  /** FIFO message group (the job id when known). */
  readonly groupId?: string | undefined;
  /** When it reached the dead-letter queue (ISO 8601). */
  readonly deadLetteredAt?: string | undefined;
  /** The consumer's reason, or what SQS did when it moved the message itself. */
  readonly reason: string;
  /** Set when the consumer would reject it again at once: `redrive` skips it unless `--include-rejected`. */
  readonly rejected?: Rejection | undefined;
  /** False when the body is not a JSON object: `redrive` moves it unchanged, and the consumer rejects it again. */
  readonly bodyIsJson: boolean;
  /** The body as it is on the queue (the prompt included: fix it, or enqueue it again). */
  readonly body: string;
}

export interface DeadLetterListing {
  readonly deadLetterQueueUrl: string;
  /** SQS's approximate count of the messages on the dead-letter queue. */
  readonly approximateTotal: number;
  /** The messages SQS would hand out now: on a FIFO queue, the first of each message group. */
  readonly messages: readonly DeadLetterMessage[];
  /** Messages that could not be made visible again: they come back when their visibility timeout (30 s) ends. */
  readonly stillHidden: number;
}

/** A message `redrive` moved: sent to the queue as `newMessageId`, then deleted from the dead-letter queue. */
export interface MovedMessage extends DeadLetterMessage {
  readonly newMessageId: string;
  /** True when `requestId` was written into the body (it had none): the copy is the same request. */
  readonly requestIdAdded: boolean;
}

export interface RedriveReport {
  readonly deadLetterQueueUrl: string;
  readonly queueUrl: string;
  /** SQS's approximate count of the messages on the dead-letter queue when the redrive started: it moves at most these. */
  readonly present: number;
  readonly moved: readonly MovedMessage[];
  /** Left on the dead-letter queue: the consumer would reject them again at once (see `rejected`). */
  readonly skipped: readonly DeadLetterMessage[];
  /** Copies of moved messages that came back to the dead-letter queue while it ran: left there, not moved twice. */
  readonly returned: readonly DeadLetterMessage[];
  /** SQS's approximate count of the messages on the dead-letter queue when the redrive ended. */
  readonly left: number;
  /** Set when a message could not be sent back, or was sent but not deleted: the move stopped there (it stays on the dead-letter queue). */
  readonly failed?: { readonly messageId: string; readonly requestId?: string | undefined; readonly error: string } | undefined;
}

export interface RedriveOptions {
  /** Move the messages the consumer would reject again at once too (malformed, a reused request id). @default false */
  readonly includeRejected?: boolean;
}

/** How long `list` holds a message out of sight at most (s), should it die before making it visible again. */
const LIST_VISIBILITY_SECONDS = 30;
/** How long `redrive` holds a message it is moving or leaving (s). */
const MOVE_VISIBILITY_SECONDS = 60;
/** Release failures that mean the message is visible or gone already. */
const RELEASED_ANYWAY = new Set(['MessageNotInflight', 'ReceiptHandleIsInvalid', 'AWS.SimpleQueueService.MessageNotInflight']);

/** Lists the dead-letter queue's messages, then makes every one it received visible again. */
export async function listDeadLetters(sqs: Sqs, queueUrl: string, deadLetterQueueUrl: string): Promise<DeadLetterListing> {
  const [approximateTotal, maxReceiveCount] = await Promise.all([approximateCount(sqs, deadLetterQueueUrl), sourceMaxReceiveCount(sqs, queueUrl)]);
  const held = new Deliveries();
  let stillHidden = 0;
  try {
    // Until a receive brings no message not seen yet: SQS may hand one out twice (a standard
    // queue delivers at least once); its latest receipt is the one released.
    while (held.add(await receive(sqs, deadLetterQueueUrl, LIST_VISIBILITY_SECONDS)) > 0);
  } finally {
    stillHidden = await releaseAll(sqs, deadLetterQueueUrl, held.latest());
  }
  return { deadLetterQueueUrl, approximateTotal, messages: held.first().map((message) => describeMessage(message, maxReceiveCount)), stillHidden };
}

/**
 * Moves the dead-letter queue's messages back to `queueUrl`: send, then delete; at most the
 * messages present when it starts, each once. Stops at the first message it cannot send.
 */
export async function redriveDeadLetters(sqs: Sqs, queueUrl: string, deadLetterQueueUrl: string, options: RedriveOptions = {}): Promise<RedriveReport> {
  const [counted, maxReceiveCount] = await Promise.all([approximateCount(sqs, deadLetterQueueUrl), sourceMaxReceiveCount(sqs, queueUrl)]);
  /** SQS's count lags (it is approximate): the first batch received counts as present too. */
  let present = counted;
  const fifo = queueUrl.endsWith('.fifo');
  const moved: MovedMessage[] = [];
  const skipped: DeadLetterMessage[] = [];
  const returned: DeadLetterMessage[] = [];
  /** Messages received and left on the dead-letter queue: made visible again at the end, not before (else they would be received again). */
  const held = new Deliveries();
  /** Every message id received: one handed out again is never moved twice. */
  const seen = new Set<string>();
  /** Ids of the copies this run sent: a dead letter that is one of them, or names one as its source, came back. */
  const sentIds = new Set<string>();
  /** Messages of those present at the start, moved or skipped. */
  let handled = 0;
  let failed: RedriveReport['failed'];
  try {
    receiving: for (let first = true; first || handled < present; first = false) {
      const batch = await receive(sqs, deadLetterQueueUrl, MOVE_VISIBILITY_SECONDS);
      if (first) present = Math.max(present, batch.length);
      if (!batch.some((message) => !seen.has(message.MessageId ?? ''))) {
        held.add(batch);
        break;
      }
      for (const [index, message] of batch.entries()) {
        const id = message.MessageId ?? '';
        if (seen.has(id)) {
          held.add([message]);
          continue;
        }
        seen.add(id);
        const described = describeMessage(message, maxReceiveCount);
        if (sentIds.has(id) || sentIds.has(sourceOf(message) ?? '')) {
          returned.push(described);
          held.add([message]);
          continue;
        }
        // Arrived after the start (or SQS's count was low): left for the next redrive.
        if (handled >= present) {
          held.add([message]);
          continue;
        }
        handled++;
        if (described.rejected && !options.includeRejected) {
          skipped.push(described);
          held.add([message]);
          continue;
        }
        const body = redriveBody(message);
        let newMessageId: string;
        try {
          const sent = await sqs.send(
            new SendMessageCommand({
              QueueUrl: queueUrl,
              MessageBody: body,
              ...(fifo
                ? { MessageGroupId: described.groupId ?? described.jobId ?? 'dead-letter', MessageDeduplicationId: `redrive-${described.messageId}` }
                : {}),
            }),
          );
          newMessageId = sent.MessageId ?? '';
        } catch (error) {
          held.add(batch.slice(index));
          failed = { messageId: described.messageId, requestId: described.requestId, error: `not moved: ${describeError(error)}` };
          break receiving;
        }
        sentIds.add(newMessageId);
        moved.push({ ...described, newMessageId, requestIdAdded: body !== (message.Body ?? '') });
        try {
          await sqs.send(new DeleteMessageCommand({ QueueUrl: deadLetterQueueUrl, ReceiptHandle: message.ReceiptHandle ?? '' }));
        } catch (error) {
          // Sent, and still here: a copy in both queues (the consumer takes the request once); a
          // later redrive moves this one again. Stop: the next delete would fail the same way.
          held.add(batch.slice(index));
          failed = {
            messageId: described.messageId,
            requestId: described.requestId,
            error: `sent back, but not deleted from the dead-letter queue: ${describeError(error)}`,
          };
          break receiving;
        }
      }
    }
  } finally {
    await releaseAll(sqs, deadLetterQueueUrl, held.latest());
  }
  const left = await approximateCount(sqs, deadLetterQueueUrl);
  return { deadLetterQueueUrl, queueUrl, present, moved, skipped, returned, left, ...(failed ? { failed } : {}) };
}

/**
 * The body `redrive` sends: a JSON object without `requestId` gets the request the consumer
 * took for it — its message id, which SQS keeps when it moves a message to the dead-letter
 * queue (the consumer's own dead letters carry their request in the body already). Any other
 * body is sent unchanged.
 */
export function redriveBody(message: Pick<Message, 'MessageId' | 'Body'>): string {
  return withRequestId(message.Body ?? '', defaultRequestId(message.MessageId ?? ''));
}

/** Every delivery received, by message id: the first (what to show) and the latest (the receipt to release). */
class Deliveries {
  readonly #first = new Map<string, Message>();
  readonly #latest = new Map<string, Message>();

  /** Adds a batch; returns how many of its messages were not seen before. */
  add(batch: readonly Message[]): number {
    let fresh = 0;
    for (const message of batch) {
      const id = message.MessageId ?? message.ReceiptHandle ?? '';
      if (!this.#first.has(id)) {
        this.#first.set(id, message);
        fresh++;
      }
      this.#latest.set(id, message);
    }
    return fresh;
  }

  first(): Message[] {
    return [...this.#first.values()];
  }

  latest(): Message[] {
    return [...this.#latest.values()];
  }
}

async function receive(sqs: Sqs, queueUrl: string, visibilitySeconds: number): Promise<Message[]> {
  const { Messages } = await sqs.send(
    new ReceiveMessageCommand({
      QueueUrl: queueUrl,
      MaxNumberOfMessages: 10,
      // Long polling asks every SQS server; a short poll may miss messages that are there.
      WaitTimeSeconds: 1,
      VisibilityTimeout: visibilitySeconds,
      MessageAttributeNames: ['All'],
      MessageSystemAttributeNames: ['All'],
    }),
  );
  return Messages ?? [];
}

/** Makes received messages visible again at once, 10 per call; returns how many could not be (they return after their visibility timeout). */
async function releaseAll(sqs: Sqs, queueUrl: string, messages: readonly Message[]): Promise<number> {
  let stillHidden = 0;
  for (let i = 0; i < messages.length; i += 10) {
    const entries = messages.slice(i, i + 10).map((message, n) => ({ Id: `m${i + n}`, ReceiptHandle: message.ReceiptHandle ?? '', VisibilityTimeout: 0 }));
    const { Failed = [] } = await sqs.send(new ChangeMessageVisibilityBatchCommand({ QueueUrl: queueUrl, Entries: entries }));
    stillHidden += Failed.filter((failure) => !RELEASED_ANYWAY.has(failure.Code ?? '')).length;
  }
  return stillHidden;
}

async function approximateCount(sqs: Sqs, queueUrl: string): Promise<number> {
  const { Attributes } = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'] }),
  );
  return Number(Attributes?.ApproximateNumberOfMessages ?? 0) + Number(Attributes?.ApproximateNumberOfMessagesNotVisible ?? 0);
}

/** The `maxReceiveCount` of the queue's redrive policy: how many receives SQS allows before it moves a message itself. */
async function sourceMaxReceiveCount(sqs: Sqs, queueUrl: string): Promise<number | undefined> {
  const { Attributes } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['RedrivePolicy'] }));
  try {
    const count = Number((JSON.parse(Attributes?.RedrivePolicy ?? '{}') as { maxReceiveCount?: unknown }).maxReceiveCount);
    return Number.isInteger(count) && count > 0 ? count : undefined;
  } catch {
    return undefined;
  }
}

/** The message a consumer's dead letter was made from (its attribute), if it says. */
function sourceOf(message: Message): string | undefined {
  return message.MessageAttributes?.[DEAD_LETTER_ATTRIBUTES.sourceMessageId]?.StringValue;
}

function describeMessage(message: Message, maxReceiveCount: number | undefined): DeadLetterMessage {
  const reasonAttribute = message.MessageAttributes?.[DEAD_LETTER_ATTRIBUTES.reason]?.StringValue;
  const sent = redriveBody(message);
  const body = bodyIds(sent);
  const bodyIsJson = isJsonObject(sent);
  const sentAt = Number(message.Attributes?.SentTimestamp);
  const reason =
    reasonAttribute ??
    `moved by SQS after ${maxReceiveCount ?? 'its'} receive(s) without a delete (the queue's maxReceiveCount): the consumer failed on it, deferred it or stopped that often`;
  const rejected = rejectionOf(reasonAttribute);
  return {
    messageId: message.MessageId ?? '',
    requestId: bodyIsJson ? body.requestId : undefined,
    projectId: body.projectId,
    jobId: body.jobId,
    groupId: message.Attributes?.MessageGroupId,
    deadLetteredAt: Number.isFinite(sentAt) && sentAt > 0 ? new Date(sentAt).toISOString() : undefined,
    reason,
    ...(rejected ? { rejected } : {}),
    bodyIsJson,
    body: message.Body ?? '',
  };
}

function isJsonObject(text: string): boolean {
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed);
  } catch {
    return false;
  }
}
