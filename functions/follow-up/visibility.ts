/**
 * Deferring an SQS message: ChangeMessageVisibility hides it for the delay the core asked
 * for, then it comes back on its own — no process sleeps meanwhile. The Lambda handler and the
 * `consume` loop both defer through here.
 */
import { ChangeMessageVisibilityCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { describeError } from '../shared/errors.js';

/** SQS's longest visibility timeout (12 h), in seconds. */
export const MAX_VISIBILITY_SECONDS = 43_200;

/** Whole seconds for ChangeMessageVisibility: rounded DOWN so a message is never back later than planned. */
export function visibilitySeconds(delayMs: number): number {
  return Math.min(MAX_VISIBILITY_SECONDS, Math.max(0, Math.floor(delayMs / 1000)));
}

export interface MessageRef {
  readonly queueUrl: string;
  readonly receiptHandle: string;
}

/**
 * Makes the message visible again after `delayMs` (0: at once). Never throws: when the call
 * fails, the message still comes back when its current visibility timeout ends — later than
 * planned, never lost. Returns whether the change was made.
 */
export async function deferMessage(
  sqs: Pick<SQSClient, 'send'>,
  message: MessageRef,
  delayMs: number,
  logger: { warn(message: string, ...extra: Record<string, unknown>[]): void },
): Promise<boolean> {
  try {
    await sqs.send(
      new ChangeMessageVisibilityCommand({
        QueueUrl: message.queueUrl,
        ReceiptHandle: message.receiptHandle,
        VisibilityTimeout: visibilitySeconds(delayMs),
      }),
    );
    return true;
  } catch (error) {
    logger.warn('changing message visibility failed; the message comes back when its visibility timeout ends', {
      error: describeError(error),
    });
    return false;
  }
}
