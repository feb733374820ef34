/**
 * Where the follow-up records live: the DynamoDB table `FOLLOWUP_STATE_TABLE` (the Lambda, and
 * a CLI sharing the deployment's records), else a local folder (one machine). Both are the
 * shared store the export uses, with the typed layer of state.ts on top.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { SharedStore } from '../shared/storage/shared-store.js';
import { createDynamoStore } from '../shared/storage/shared-store-dynamo.js';
import { createLocalStore } from '../shared/storage/shared-store-local.js';
import { FOLLOWUP_KEY_PREFIX } from '../shared/state-keys.js';
import { createStateStore, type StateStore } from './state.js';
import { awsClientConfig } from '../shared/aws-clients.js';

/**
 * The follow-up records in `tableName`: items `{ pk: 'followup#<requestId>', ...record }` —
 * the layout they have had since the first release, so a deployment's existing records read.
 */
export function followUpTableStore(tableName: string, client: DynamoDBClient): SharedStore {
  return createDynamoStore({ tableName, client, keyPrefix: FOLLOWUP_KEY_PREFIX, layout: 'attributes', setting: 'FOLLOWUP_STATE_TABLE' });
}

export function openStateStore(
  config: { readonly followUpStateTable?: string },
  options: { readonly dynamo?: DynamoDBClient; readonly localDir: string },
): StateStore {
  if (config.followUpStateTable) {
    return createStateStore(followUpTableStore(config.followUpStateTable, options.dynamo ?? new DynamoDBClient(awsClientConfig())));
  }
  return createStateStore(createLocalStore(options.localDir));
}
