/**
 * Role: what Lambda hands the handlers. SQS events for the follow-up function — from scratch
 * (unit tests) or from messages really received from an emulator queue (integration tests,
 * so receipt handles are valid) — EventBridge schedule events for the export function, and a
 * Lambda context.
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

/** An EventBridge scheduled event as the hourly rule sends it. */
export function scheduledEvent(time: string) {
  return {
    version: '0',
    id: 'c0ffee00-0000-4000-8000-000000000000',
    'detail-type': 'Scheduled Event',
    source: 'aws.events',
    account: '123456789012',
    time,
    region: 'us-east-1',
    resources: ['arn:aws:events:us-east-1:123456789012:rule/mintlify-hourly-export'],
    detail: {},
  };
}

/** The part of a Lambda context the handlers use; `remainingMs` is fixed (the handlers read it once, at the start). */
export function lambdaContext(remainingMs = 900_000) {
  return { awsRequestId: 'test-request', getRemainingTimeInMillis: () => remainingMs };
}
