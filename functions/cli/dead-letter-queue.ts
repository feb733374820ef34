/**
 * The follow-up dead-letter queue read and moved back with the SDK (what `dead-letters list` and
 * `redrive` do; the command and its flags are `dead-letters.ts`). `list` receives the messages
 * with a short visibility timeout and makes them visible again at once: nothing is taken off the
 * queue. `redrive` sends each message back to the queue — same body and message group — and only
 * then deletes it here: at least once.
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
import { DEAD_LETTER_ATTRIBUTES } from '../follow-up/dead-letter.js';
import { describeError } from '../shared/errors.js';
import { bodyIds } from './consumer.js';

/** A dead-lettered message, as `list` shows it. */
export interface DeadLetterMessage {
  readonly messageId: string;
  /** From the body (or the consumer's attribute); undefined when neither says. */
  readonly requestId?: string | undefined;
  readonly projectId?: string | undefined;
  readonly jobId?: string | undefined;
  /** FIFO message group (the job id when known). */
  readonly groupId?: string | undefined;
  /** When it reached the dead-letter queue (ISO 8601). */
  readonly deadLetteredAt?: string | undefined;
  /** The consumer's reason, or what SQS did when it moved the message itself. */
  readonly reason: string;
  /** The body as it is on the queue (the prompt included: fix it, or enqueue it again). */
  readonly body: string;
}

export interface DeadLetterListing {
  readonly deadLetterQueueUrl: string;
  /** SQS's approximate count of the messages on the dead-letter queue. */
  readonly approximateTotal: number;
  /** The messages SQS would hand out now: on a FIFO queue, the first of each message group. */
  readonly messages: readonly DeadLetterMessage[];
}

export interface RedriveReport {
  readonly deadLetterQueueUrl: string;
  readonly queueUrl: string;
  readonly moved: readonly (DeadLetterMessage & { readonly newMessageId: string })[];
  /** Set when a message could not be moved: the move stopped there (it stays on the dead-letter queue). */
  readonly failed?: { readonly messageId: string; readonly requestId?: string | undefined; readonly error: string } | undefined;
}

/** How long `list` holds a message out of sight at most (s), should it die before making it visible again. */
const LIST_VISIBILITY_SECONDS = 30;
/** How long `redrive` holds a message it is moving (s). */
const MOVE_VISIBILITY_SECONDS = 60;
/** Lists the dead-letter queue's messages, then makes every one visible again. */
export async function listDeadLetters(sqs: Pick<SQSClient, 'send'>, queueUrl: string, deadLetterQueueUrl: string): Promise<DeadLetterListing> {
  const [approximateTotal, maxReceiveCount] = await Promise.all([approximateCount(sqs, deadLetterQueueUrl), sourceMaxReceiveCount(sqs, queueUrl)]);
  const held: Message[] = [];
  try {
    for (;;) {
      const batch = await receive(sqs, deadLetterQueueUrl, LIST_VISIBILITY_SECONDS);
      const fresh = batch.filter((message) => !held.some((seen) => seen.MessageId === message.MessageId));
      if (fresh.length === 0) break;
      held.push(...fresh);
    }
  } finally {
    await releaseAll(sqs, deadLetterQueueUrl, held);
  }
  return { deadLetterQueueUrl, approximateTotal, messages: held.map((message) => describeMessage(message, maxReceiveCount)) };
}

/** Moves every message of the dead-letter queue back to `queueUrl`: send, then delete. Stops at the first message it cannot send. */
export async function redriveDeadLetters(sqs: Pick<SQSClient, 'send'>, queueUrl: string, deadLetterQueueUrl: string): Promise<RedriveReport> {
  const maxReceiveCount = await sourceMaxReceiveCount(sqs, queueUrl);
  const fifo = queueUrl.endsWith('.fifo');
  const moved: (DeadLetterMessage & { newMessageId: string })[] = [];
  for (;;) {
    const batch = await receive(sqs, deadLetterQueueUrl, MOVE_VISIBILITY_SECONDS);
    if (batch.length === 0) return { deadLetterQueueUrl, queueUrl, moved };
    for (const [index, message] of batch.entries()) {
      const described = describeMessage(message, maxReceiveCount);
      let newMessageId: string;
      try {
        const sent = await sqs.send(
          new SendMessageCommand({
            QueueUrl: queueUrl,
            MessageBody: message.Body ?? '',
            ...(fifo
              ? { MessageGroupId: described.groupId ?? described.jobId ?? 'dead-letter', MessageDeduplicationId: `redrive-${described.messageId}` }
              : {}),
          }),
        );
        newMessageId = sent.MessageId ?? '';
      } catch (error) {
        await releaseAll(sqs, deadLetterQueueUrl, batch.slice(index));
        return { deadLetterQueueUrl, queueUrl, moved, failed: { messageId: described.messageId, requestId: described.requestId, error: describeError(error) } };
      }
      // Sent: a failed delete leaves a copy here, which a later redrive moves again (at least once).
      await sqs.send(new DeleteMessageCommand({ QueueUrl: deadLetterQueueUrl, ReceiptHandle: message.ReceiptHandle ?? '' }));
      moved.push({ ...described, newMessageId });
    }
  }
}

async function receive(sqs: Pick<SQSClient, 'send'>, queueUrl: string, visibilitySeconds: number): Promise<Message[]> {
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

/** Makes received messages visible again at once, 10 per call. */
async function releaseAll(sqs: Pick<SQSClient, 'send'>, queueUrl: string, messages: readonly Message[]): Promise<void> {
  for (let i = 0; i < messages.length; i += 10) {
    const entries = messages.slice(i, i + 10).map((message, n) => ({ Id: `m${i + n}`, ReceiptHandle: message.ReceiptHandle ?? '', VisibilityTimeout: 0 }));
    await sqs.send(new ChangeMessageVisibilityBatchCommand({ QueueUrl: queueUrl, Entries: entries }));
  }
}

async function approximateCount(sqs: Pick<SQSClient, 'send'>, queueUrl: string): Promise<number> {
  const { Attributes } = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'] }),
  );
  return Number(Attributes?.ApproximateNumberOfMessages ?? 0) + Number(Attributes?.ApproximateNumberOfMessagesNotVisible ?? 0);
}

/** The `maxReceiveCount` of the queue's redrive policy: how many receives SQS allows before it moves a message itself. */
async function sourceMaxReceiveCount(sqs: Pick<SQSClient, 'send'>, queueUrl: string): Promise<number | undefined> {
  const { Attributes } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['RedrivePolicy'] }));
  try {
    const count = Number((JSON.parse(Attributes?.RedrivePolicy ?? '{}') as { maxReceiveCount?: unknown }).maxReceiveCount);
    return Number.isInteger(count) && count > 0 ? count : undefined;
  } catch {
    return undefined;
  }
}

function describeMessage(message: Message, maxReceiveCount: number | undefined): DeadLetterMessage {
  const attribute = (name: string) => message.MessageAttributes?.[name]?.StringValue;
  const body = bodyIds(message.Body ?? '');
  const sent = Number(message.Attributes?.SentTimestamp);
  const reason =
    attribute(DEAD_LETTER_ATTRIBUTES.reason) ??
    `moved by SQS after ${maxReceiveCount ?? 'its'} receive(s) without a delete (the queue's maxReceiveCount): the consumer failed on it, deferred it or stopped that often`;
  return {
    messageId: message.MessageId ?? '',
    requestId: attribute(DEAD_LETTER_ATTRIBUTES.requestId) ?? body.requestId,
    projectId: body.projectId,
    jobId: body.jobId,
    groupId: message.Attributes?.MessageGroupId,
    deadLetteredAt: Number.isFinite(sent) && sent > 0 ? new Date(sent).toISOString() : undefined,
    reason,
    body: message.Body ?? '',
  };
}
