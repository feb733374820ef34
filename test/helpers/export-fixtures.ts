/**
 * Shared factories for the export's tests: the state table in dynalite, schedule events and
 * Lambda contexts.
 */
import { CreateTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { randomBytes } from 'node:crypto';

/** Creates a DynamoDB table shaped like the export's state table (`pk` string key); returns its name. */
export async function createStateTable(client: DynamoDBClient, name = `export-state-${randomBytes(4).toString('hex')}`): Promise<string> {
  await client.send(
    new CreateTableCommand({
      TableName: name,
      KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
      AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
      BillingMode: 'PAY_PER_REQUEST',
    }),
  );
  return name;
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

/** The part of a Lambda context the handler uses; `remainingMs` is fixed. */
export function lambdaContext(remainingMs = 900_000) {
  return { awsRequestId: 'test-request', getRemainingTimeInMillis: () => remainingMs };
}
