/**
 * The shared store on DynamoDB, for every Lambda invocation (and CLI pointed at AWS) of one
 * deployment. Item: `{ pk: keyPrefix + key, doc: <JSON text>, version: <number> }`.
 *
 * An update is optimistic: a strongly consistent GetItem, then a PutItem (or DeleteItem)
 * conditional on the version it read — `attribute_not_exists(pk)` when there was none. When
 * another writer got in between, the condition fails and the whole read-change-write runs
 * again after a short random pause, so two invocations can never both spend the last request
 * of the budget or both take one lease. The document is stored as one JSON string rather than
 * as DynamoDB attributes: it round-trips exactly as the other stores keep it, whatever its shape.
 *
 * The table also holds the follow-up consumer's `followup#…` items: every key this store reads,
 * writes, deletes or lists starts with `keyPrefix`, so the export's store never touches them.
 * The follow-up state is this same store with `keyPrefix: 'followup#'` and the `attributes`
 * layout — `{ pk, ...document }`, the document's `version` being the store's — the layout its
 * items have had since the first release, so existing items read and TTL (`expiresAt`) works.
 */
import { ConditionalCheckFailedException, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, DynamoDBDocumentClient, GetCommand, PutCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { ConfigError, ExporterError } from '../errors.js';
import { checkStoreKey, type SharedStore } from './shared-store.js';
import { EXPORT_KEY_PREFIX } from '../state-keys.js';
import { backoffDelay, sleep } from '../time.js';

interface DynamoStoreOptions {
  readonly tableName: string;
  readonly client: DynamoDBClient;
  /** Prepended to every key; keeps this store's items apart from others in the table. @default 'export#' */
  readonly keyPrefix?: string;
  /**
   * How a document is kept in its item. `json`: `{ pk, doc: <JSON text>, version }`, any JSON
   * value. `attributes`: `{ pk, ...document, version }` — documents must be objects, their own
   * `version` field is the store's (the follow-up records' layout, so each field is an
   * attribute: `expiresAt` drives the table's TTL).
   * @default 'json'
   */
  readonly layout?: 'json' | 'attributes';
  /**
   * The setting that names the table (`EXPORT_STATE_TABLE`), named by the one line a missing
   * table gives. @default 'EXPORT_STATE_TABLE'
   */
  readonly setting?: string;
}

/** Attempts of one update before giving up: contention that long means something is wrong. */
const MAX_ATTEMPTS = 50;

/**
 * An update lost the race to other writers `MAX_ATTEMPTS` times in a row: the table is very
 * busy; a later run simply tries again. (Local to this module: nothing else catches it.)
 */
class StoreContentionError extends ExporterError {}

export function createDynamoStore(options: DynamoStoreOptions): SharedStore {
  const keyPrefix = options.keyPrefix ?? EXPORT_KEY_PREFIX;
  // An empty prefix would let `list('')` and updates reach the follow-up consumer's items.
  if (keyPrefix === '') throw new ConfigError('keyPrefix of the DynamoDB shared store must not be empty');
  const TableName = options.tableName;
  const doc = DynamoDBDocumentClient.from(options.client, { marshallOptions: { removeUndefinedValues: true } });
  const setting = options.setting ?? 'EXPORT_STATE_TABLE';
  /**
   * A request's answer; a table that does not exist (a typo, another region, a deployment not
   * made yet) is a configuration mistake: one line naming the setting, exit 2 — not the SDK's
   * "Requested resource not found".
   */
  async function guarded<T>(request: Promise<T>): Promise<T> {
    try {
      return await request;
    } catch (error) {
      if (!(error instanceof Error && error.name === 'ResourceNotFoundException')) throw error;
      const region = await options.client.config.region().catch(() => undefined);
      throw new ConfigError(
        `the DynamoDB table ${TableName} named by ${setting} does not exist${region ? ` in ${region}` : ''}: set ${setting} to the deployment's StateTableName output (and AWS_REGION to its region), or leave it unset to keep the state in a local folder`,
        { cause: error },
      );
    }
  }
  const description = `dynamodb://${TableName}`;
  const attributes = options.layout === 'attributes';

  function parse(item: Record<string, unknown>): { value: unknown; version: number; text: string } {
    if (attributes) {
      const { pk: _pk, ...value } = item;
      if (typeof value['version'] === 'number') return { value, version: value['version'], text: JSON.stringify(value) };
    }
    const { doc: text, version } = item;
    if (!attributes && typeof text === 'string' && typeof version === 'number') {
      try {
        return { value: JSON.parse(text) as unknown, version, text };
      } catch {
        // falls through to the error below
      }
    }
    throw new ConfigError(
      `item ${String(item['pk'])} of ${description} is not a state document of this exporter: delete it (the ledger or lease it held is rebuilt)`,
    );
  }

  async function read(key: string) {
    const { Item } = await guarded(doc.send(new GetCommand({ TableName, Key: { pk: keyPrefix + key }, ConsistentRead: true })));
    return Item ? parse(Item) : undefined;
  }

  /** Writes `value` if the item is still at `expected` (undefined: still absent). */
  async function write(key: string, value: unknown, expected: number | undefined): Promise<void> {
    const pk = keyPrefix + key;
    const condition =
      expected === undefined
        ? { ConditionExpression: 'attribute_not_exists(pk)' }
        : {
            ConditionExpression: '#version = :expected',
            ExpressionAttributeNames: { '#version': 'version' },
            ExpressionAttributeValues: { ':expected': expected },
          };
    if (value === undefined) {
      await guarded(doc.send(new DeleteCommand({ TableName, Key: { pk }, ...condition })));
    } else {
      const version = (expected ?? 0) + 1;
      const Item = attributes ? { ...documentObject(value, key), pk, version } : { pk, doc: JSON.stringify(value), version };
      await guarded(doc.send(new PutCommand({ TableName, Item, ...condition })));
    }
  }

  return {
    description,

    async get<T>(key: string) {
      return (await read(checkStoreKey(key)))?.value as T | undefined;
    },

    async update<T, R>(key: string, change: (current: T | undefined) => { readonly value: T | undefined; readonly result: R }) {
      checkStoreKey(key);
      for (let attempt = 1; ; attempt++) {
        const current = await read(key);
        const { value, result } = change(current?.value as T | undefined);
        // Nothing to write (absent stays absent, or the same JSON): the consistent read was the
        // linearization point. A refused budget request so costs no write and no contention.
        if (value === undefined ? current === undefined : current?.text === JSON.stringify(value)) return result;
        try {
          await write(key, value, current?.version);
          return result;
        } catch (error) {
          if (!isConditionFailure(error)) throw error;
        }
        if (attempt >= MAX_ATTEMPTS) {
          throw new StoreContentionError(`${description}: the update of "${key}" lost to other writers ${MAX_ATTEMPTS} times in a row; try again later`);
        }
        // Full jitter, growing to at most 100 ms: contenders spread out instead of colliding again.
        await sleep(backoffDelay(attempt + 1, { baseMs: 5, maxMs: 100, jitter: 'full' }));
      }
    },

    async list<T>(prefix: string) {
      // A prefix is acceptable when some valid key starts with it.
      if (prefix !== '') checkStoreKey(`${prefix}x`);
      const found: Array<{ key: string; value: T }> = [];
      let ExclusiveStartKey: Record<string, unknown> | undefined;
      do {
        const page = await guarded(
          doc.send(
            new ScanCommand({
              TableName,
              ConsistentRead: true,
              FilterExpression: 'begins_with(pk, :prefix)',
              ExpressionAttributeValues: { ':prefix': keyPrefix + prefix },
              ...(ExclusiveStartKey ? { ExclusiveStartKey } : {}),
            }),
          ),
        );
        for (const item of page.Items ?? []) {
          found.push({ key: String(item['pk']).slice(keyPrefix.length), value: parse(item).value as T });
        }
        ExclusiveStartKey = page.LastEvaluatedKey;
      } while (ExclusiveStartKey);
      return found;
    },
  };
}

/** A document of the `attributes` layout: an object, its fields stored as attributes. */
function documentObject(value: unknown, key: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ConfigError(`the document "${key}" is not an object: a store with the attributes layout keeps objects only`);
  }
  return value as Record<string, unknown>;
}

function isConditionFailure(error: unknown): boolean {
  return error instanceof ConditionalCheckFailedException || (error instanceof Error && error.name === 'ConditionalCheckFailedException');
}
