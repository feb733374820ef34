/**
 * Access to the deployment's one state table, by key prefix: a function may get, put and
 * delete only items whose partition key starts with its own prefix (`dynamodb:LeadingKeys`,
 * functions/shared/state-keys.ts) — the export cannot rewrite the follow-up records, the
 * consumer cannot touch the budget ledger.
 *
 * A Scan names no partition key, so no condition can narrow it: `scan` grants it (the export
 * lists its backlog with a Scan filtered to its prefix) and with it the reading, not the
 * writing, of every item of the table. Only the export is given it.
 */
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';

/** What the shared store (functions/shared/storage/shared-store-dynamo.ts) asks of an item. */
export const STATE_ITEM_ACTIONS = ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:DeleteItem'] as const;

export interface StateKeyAccess {
  /** The partition-key prefix of the function's items (`export#`). */
  readonly prefix: string;
  /** Also Scan (the store's `list`): reads every item, see above. @default false */
  readonly scan?: boolean;
}

/** Lets `grantee` use the items of `table` whose key starts with `access.prefix`, nothing else. */
export function grantStateKeys(grantee: iam.IGrantable, table: Pick<dynamodb.ITable, 'tableArn'>, access: StateKeyAccess): void {
  grantee.grantPrincipal.addToPrincipalPolicy(
    new iam.PolicyStatement({
      actions: [...STATE_ITEM_ACTIONS, ...(access.scan ? ['dynamodb:Scan'] : [])],
      resources: [table.tableArn],
      conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${access.prefix}*`] } },
    }),
  );
}
