/**
 * Factories for Lambda SQS events: from scratch (unit tests) or from messages really
 * received from an emulator queue (integration tests, so receipt handles are valid).
 */
import { randomUUID } from 'node:crypto';
import type { Message } from '@aws-sdk/client-sqs';
import type { SQSEvent, SQSRecord } from 'aws-lambda';

export const TEST_QUEUE_ARN = 'arn:aws:sqs:us-east-1:000000000000:followups.fifo';

export function sqsRecord(body: string, overrides: Partial<SQSRecord> & { groupId?: string } = {}): SQSRecord {
  const { groupId, ...rest } = overrides;
  return {
    messageId: randomUUID(),
    receiptHandle: `rh-${randomUUID()}`,
    body,
    attributes: {
      ApproximateReceiveCount: '1',
      SentTimestamp: String(Date.now()),
      SenderId: 'test',
      ApproximateFirstReceiveTimestamp: String(Date.now()),
      ...(groupId ? { MessageGroupId: groupId, MessageDeduplicationId: randomUUID(), SequenceNumber: '1' } : {}),
    },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: TEST_QUEUE_ARN,
    awsRegion: 'us-east-1',
    ...rest,
  };
}

/** An SQS record for a message received from a queue (keeps its id, receipt handle and group). */
export function recordFromMessage(message: Message, eventSourceARN = TEST_QUEUE_ARN): SQSRecord {
  return sqsRecord(message.Body ?? '', {
    messageId: message.MessageId ?? randomUUID(),
    receiptHandle: message.ReceiptHandle ?? '',
    eventSourceARN,
    ...(message.Attributes?.MessageGroupId ? { groupId: message.Attributes.MessageGroupId } : {}),
  });
}

export function sqsEvent(records: SQSRecord[]): SQSEvent {
  return { Records: records };
}

/** A Lambda context with `remainingMs` left. */
export function lambdaContext(remainingMs = 60_000) {
  const end = Date.now() + remainingMs;
  return { getRemainingTimeInMillis: () => Math.max(0, end - Date.now()) };
}
