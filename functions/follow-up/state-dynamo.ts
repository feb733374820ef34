/**
 * The state store on DynamoDB (table with partition key `pk` string, time-to-live attribute
 * `expiresAt` in epoch seconds). Every write is a conditional PutItem on `version`, so two
 * consumers can never both claim or both advance one request.
 */
import { ConditionalCheckFailedException, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { FollowUpState, StateDraft, StateStore } from './state.js';

export interface DynamoStateStoreOptions {
  readonly tableName: string;
  readonly client: DynamoDBClient;
}

export function createDynamoStateStore(options: DynamoStateStoreOptions): StateStore {
  const doc = DynamoDBDocumentClient.from(options.client, {
    marshallOptions: { removeUndefinedValues: true },
  });
  const TableName = options.tableName;
  const pkOf = (requestId: string) => `followup#${requestId}`;

  return {
    async get(requestId) {
      // Strongly consistent: a stale read here could let a duplicate claim look absent.
      const result = await doc.send(new GetCommand({ TableName, Key: { pk: pkOf(requestId) }, ConsistentRead: true }));
      if (!result.Item) return undefined;
      const { pk: _pk, ...state } = result.Item;
      return state as FollowUpState;
    },

    async put(draft: StateDraft, expectedVersion) {
      const state: FollowUpState = { ...draft, version: (expectedVersion ?? 0) + 1 };
      try {
        await doc.send(
          new PutCommand({
            TableName,
            Item: { pk: pkOf(draft.requestId), ...state },
            ...(expectedVersion === undefined
              ? { ConditionExpression: 'attribute_not_exists(pk)' }
              : {
                  ConditionExpression: '#version = :expected',
                  ExpressionAttributeNames: { '#version': 'version' },
                  ExpressionAttributeValues: { ':expected': expectedVersion },
                }),
          }),
        );
        return state;
      } catch (error) {
        if (isConditionFailure(error)) return undefined;
        throw error;
      }
    },
  };
}

function isConditionFailure(error: unknown): boolean {
  return (
    error instanceof ConditionalCheckFailedException ||
    (error instanceof Error && error.name === 'ConditionalCheckFailedException')
  );
}
