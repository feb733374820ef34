/**
 * Explicit dead-lettering. The queue's own redrive (moving a message to the dead-letter queue
 * after maxReceiveCount deliveries) cannot tell deferrals from failures, so the consumer
 * sends bad or hopeless messages to the dead-letter queue itself, at once,
 * with the reason as a message attribute, and then treats the original as handled.
 */
import { createHash } from 'node:crypto';
import { GetQueueAttributesCommand, GetQueueUrlCommand, SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { ConfigError } from '../shared/errors.js';

export interface DeadLetterEntry {
  /** The original SQS body, so the message can be fixed and re-driven (see `withRequestId`). */
  readonly body: string;
  /** One line, never the prompt text. */
  readonly reason: string;
  readonly requestId: string;
  readonly messageId: string;
  /** FIFO group (the job id when known). */
  readonly groupId?: string | undefined;
}

export type DeadLetter = (entry: DeadLetterEntry) => Promise<void>;

/** The message attributes a dead-lettered copy carries (read back by `dead-letters list`). */
export const DEAD_LETTER_ATTRIBUTES = { reason: 'reason', requestId: 'requestId', sourceMessageId: 'sourceMessageId' } as const;

/**
 * The reasons of the dead letters a redrive would only bounce: the consumer rejects such a
 * message again at once, whatever is fixed elsewhere (`dead-letters redrive` skips them unless
 * `--include-rejected`). `malformed` starts the reason; `reusedRequest` is all of it.
 */
export const REJECTED_REASONS = {
  malformed: 'malformed message: ',
  reusedRequest: 'requestId already used for a different job or prompt',
} as const;

/** Why the consumer would reject a dead letter of this reason again at once, or undefined (a redrive may help). */
export type Rejection = 'malformed' | 'reused-request';

export function rejectionOf(reason: string | undefined): Rejection | undefined {
  if (reason?.startsWith(REJECTED_REASONS.malformed)) return 'malformed';
  if (reason === REJECTED_REASONS.reusedRequest) return 'reused-request';
  return undefined;
}

/** SQS message attribute values are limited; reasons are one short line anyway. */
const MAX_REASON = 512;

export function createSqsDeadLetter(options: { readonly sqs: Pick<SQSClient, 'send'>; readonly queueUrl: string }): DeadLetter {
  const fifo = options.queueUrl.endsWith('.fifo');
  return async (entry) => {
    await options.sqs.send(
      new SendMessageCommand({
        QueueUrl: options.queueUrl,
        MessageBody: entry.body.length > 0 ? withRequestId(entry.body, entry.requestId) : '(empty body)',
        MessageAttributes: {
          [DEAD_LETTER_ATTRIBUTES.reason]: { DataType: 'String', StringValue: entry.reason.slice(0, MAX_REASON) },
          [DEAD_LETTER_ATTRIBUTES.requestId]: { DataType: 'String', StringValue: entry.requestId },
          [DEAD_LETTER_ATTRIBUTES.sourceMessageId]: { DataType: 'String', StringValue: entry.messageId },
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
 * The body with its request id made explicit. A redriven copy gets a new SQS message id, so
 * a message that relied on the default (`requestId` = message id) would otherwise come back
 * as a new request and could be sent a second time. Bodies that are not JSON objects, or that
 * carry a requestId already, stay as they are.
 */
export function withRequestId(body: string, requestId: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return body;
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return body;
  // A caller's own requestId (even an invalid one, to be fixed before the redrive) is kept.
  if ('requestId' in parsed) return body;
  return JSON.stringify({ ...parsed, requestId });
}

/**
 * The dead-letter queue of `queueUrl`: FOLLOWUP_DEAD_LETTER_QUEUE_URL when set, else the queue's own
 * RedrivePolicy target. Throws ConfigError when there is neither (a bad message must never be
 * dropped silently).
 */
export async function resolveDeadLetterQueueUrl(sqs: Pick<SQSClient, 'send'>, queueUrl: string, configured: string | undefined): Promise<string> {
  if (configured) return configured;
  const attributes = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['RedrivePolicy'] }));
  const policy = attributes.Attributes?.RedrivePolicy;
  const arn = policy ? (JSON.parse(policy) as { deadLetterTargetArn?: string }).deadLetterTargetArn : undefined;
  const name = arn?.split(':').pop();
  if (!name) {
    throw new ConfigError('the queue has no dead-letter queue: set FOLLOWUP_DEAD_LETTER_QUEUE_URL or give the queue a redrive policy');
  }
  const found = await sqs.send(new GetQueueUrlCommand({ QueueName: name }));
  if (!found.QueueUrl) throw new ConfigError(`dead-letter queue ${name} not found: set FOLLOWUP_DEAD_LETTER_QUEUE_URL`);
  return found.QueueUrl;
}
