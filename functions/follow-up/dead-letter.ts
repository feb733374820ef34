/**
 * Explicit dead-lettering. The queue's own redrive (maxReceiveCount) cannot tell deferrals
 * from failures, so the consumer sends bad or hopeless messages to the DLQ itself, at once,
 * with the reason as a message attribute, and then treats the original as handled.
 */
import { createHash } from 'node:crypto';
import {
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  SendMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { ConfigError } from '../shared/errors.js';

export interface DeadLetterEntry {
  /** The original SQS body, unchanged, so the message can be fixed and re-driven. */
  readonly body: string;
  /** One line, never the prompt text. */
  readonly reason: string;
  readonly requestId: string;
  readonly messageId: string;
  /** FIFO group (the job id when known). */
  readonly groupId?: string | undefined;
}

export type DeadLetter = (entry: DeadLetterEntry) => Promise<void>;

/** SQS message attribute values are limited; reasons are one short line anyway. */
const MAX_REASON = 512;

export function createSqsDeadLetter(options: { readonly sqs: Pick<SQSClient, 'send'>; readonly queueUrl: string }): DeadLetter {
  const fifo = options.queueUrl.endsWith('.fifo');
  return async (entry) => {
    await options.sqs.send(
      new SendMessageCommand({
        QueueUrl: options.queueUrl,
        MessageBody: entry.body.length > 0 ? entry.body : '(empty body)',
        MessageAttributes: {
          reason: { DataType: 'String', StringValue: entry.reason.slice(0, MAX_REASON) },
          requestId: { DataType: 'String', StringValue: entry.requestId },
          sourceMessageId: { DataType: 'String', StringValue: entry.messageId },
        },
        ...(fifo
          ? {
              MessageGroupId: entry.groupId ?? 'dead-letter',
              // A crash-and-retry of the same dead-lettering is deduplicated by SQS (5 min window).
              MessageDeduplicationId: createHash('sha256').update(`${entry.messageId}\n${entry.requestId}`).digest('hex'),
            }
          : {}),
      }),
    );
  };
}

/**
 * The DLQ of `queueUrl`: FOLLOWUP_DEAD_LETTER_QUEUE_URL when set, else the queue's own
 * RedrivePolicy target. Throws ConfigError when there is neither (a bad message must never be
 * dropped silently).
 */
export async function resolveDeadLetterQueueUrl(
  sqs: Pick<SQSClient, 'send'>,
  queueUrl: string,
  configured: string | undefined,
): Promise<string> {
  if (configured) return configured;
  const attributes = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['RedrivePolicy'] }));
  const policy = attributes.Attributes?.RedrivePolicy;
  const arn = policy ? (JSON.parse(policy) as { deadLetterTargetArn?: string }).deadLetterTargetArn : undefined;
  const name = arn?.split(':').pop();
  if (!name) {
    throw new ConfigError(
      'the queue has no dead-letter queue: set FOLLOWUP_DEAD_LETTER_QUEUE_URL or give the queue a redrive policy',
    );
  }
  const found = await sqs.send(new GetQueueUrlCommand({ QueueName: name }));
  if (!found.QueueUrl) throw new ConfigError(`dead-letter queue ${name} not found: set FOLLOWUP_DEAD_LETTER_QUEUE_URL`);
  return found.QueueUrl;
}
