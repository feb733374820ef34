/**
 * The state store of a CLI run: DynamoDB when FOLLOWUP_STATE_TABLE is set (several machines
 * share it), else files under `localDir` (one machine). The Lambda always uses DynamoDB and
 * builds it directly (handler.ts).
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { StateStore } from './state.js';

export async function openStateStore(
  config: { readonly followUpStateTable?: string },
  options: { readonly dynamo?: DynamoDBClient; readonly localDir: string },
): Promise<StateStore> {
  if (config.followUpStateTable) {
    const { createDynamoStateStore } = await import('./state-dynamo.js');
    const { DynamoDBClient } = await import('@aws-sdk/client-dynamodb');
    return createDynamoStateStore({ tableName: config.followUpStateTable, client: options.dynamo ?? new DynamoDBClient({}) });
  }
  const { createLocalStateStore } = await import('./state-local.js');
  return createLocalStateStore(options.localDir);
}
