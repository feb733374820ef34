import { CreateTableCommand, DynamoDBClient, GetItemCommand, PutItemCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { followUpTableStore } from '../../../functions/follow-up/open-state-store.js';
import { createStateStore, type SentState } from '../../../functions/follow-up/state.js';
import { createBudgetGate, createBudgetLedger, LEDGER_KEY, type LedgerDoc } from '../../../functions/shared/pacing/budget.js';
import { parseBudget } from '../../../functions/shared/pacing/budget-spec.js';
import { createLeases } from '../../../functions/shared/pacing/leases.js';
import { createDynamoStore } from '../../../functions/shared/storage/shared-store-dynamo.js';
import { emulatorDynamoConfig, startDynamo, type Dynamo } from '../../helpers/emulators.js';
import { describeSharedStoreContract, describeStateStoreContract } from '../../helpers/shared-store-cases.js';
import { maxInAnyWindow } from '../../helpers/request-log.js';

const TABLE = 'export-state';
let dynamo: Dynamo;
const clients: DynamoDBClient[] = [];

beforeAll(async () => {
  dynamo = await startDynamo();
  await dynamo.client.send(
    new CreateTableCommand({
      TableName: TABLE,
      KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
      AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
      BillingMode: 'PAY_PER_REQUEST',
    }),
  );
});

afterAll(async () => {
  for (const client of clients) client.destroy();
  await dynamo?.close();
});

/** A client of its own, as each concurrent Lambda invocation has. */
function newClient(): DynamoDBClient {
  const client = new DynamoDBClient(emulatorDynamoConfig(dynamo.endpoint));
  clients.push(client);
  return client;
}

let prefixes = 0;
/** A key prefix no other test uses. */
const newPrefix = () => `test${++prefixes}#`;
const isolatedStore = (client: DynamoDBClient = dynamo.client) => createDynamoStore({ tableName: TABLE, client, keyPrefix: newPrefix() });

/** Adds 10 to a counter document behind the store's back, as a competing writer would. */
async function bumpCounter(pk: string): Promise<void> {
  const { Item } = await dynamo.client.send(new GetItemCommand({ TableName: TABLE, Key: { pk: { S: pk } }, ConsistentRead: true }));
  const value = Number(Item?.['doc']?.S ?? '0') + 10;
  await dynamo.client.send(
    new UpdateItemCommand({
      TableName: TABLE,
      Key: { pk: { S: pk } },
      UpdateExpression: 'SET doc = :doc, version = version + :one',
      ExpressionAttributeValues: { ':doc': { S: JSON.stringify(value) }, ':one': { N: '1' } },
    }),
  );
}

describe('DynamoDB shared store', () => {
  it('never lets concurrent gates, each with its own client, start more than B requests in any window', async () => {
    const keyPrefix = newPrefix();
    const spec = parseBudget('10/1s');
    const runs = Array.from({ length: 5 }, async () => {
      let stamped = 0;
      const store = createDynamoStore({ tableName: TABLE, client: newClient(), keyPrefix });
      const ledger = createBudgetLedger(store, spec, { now: () => (stamped = Date.now()) });
      const gate = createBudgetGate(ledger, { now: Date.now, sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)) });
      const starts: number[] = [];
      for (let i = 0; i < 8; i++) {
        await gate.take();
        starts.push(stamped);
      }
      return starts;
    });
    const all = (await Promise.all(runs)).flat();
    expect(all).toHaveLength(40);
    expect(maxInAnyWindow(all, 1_000)).toBe(10);
    const ledger = await createDynamoStore({ tableName: TABLE, client: dynamo.client, keyPrefix }).get<LedgerDoc>(LEDGER_KEY);
    // The ledger keeps a day of starts: every start of both runs is in it.
    expect(ledger?.starts).toEqual([...all].sort((a, b) => a - b));
  });

  it('loses no increment when several clients update one document at once', async () => {
    const keyPrefix = newPrefix();
    const stores = Array.from({ length: 4 }, () => createDynamoStore({ tableName: TABLE, client: newClient(), keyPrefix }));
    await Promise.all(
      stores.flatMap((store) => Array.from({ length: 10 }, () => store.update<number, void>('counter', (n) => ({ value: (n ?? 0) + 1, result: undefined })))),
    );
    expect(await stores[0]?.get('counter')).toBe(40);
  });

  it('gives a contended lease to exactly one of several clients', async () => {
    const keyPrefix = newPrefix();
    const contenders = Array.from({ length: 6 }, (_, i) =>
      createLeases(createDynamoStore({ tableName: TABLE, client: newClient(), keyPrefix }), { owner: `lambda-${i}` }),
    );
    const won = await Promise.all(contenders.map((leases) => leases.tryAcquire('visitors/2025-01-15/proj')));
    expect(won.filter(Boolean)).toHaveLength(1);
  });

  it('keeps its items under the default export# prefix and never lists or touches follow-up items', async () => {
    await dynamo.client.send(new PutItemCommand({ TableName: TABLE, Item: { pk: { S: 'followup#req-1' }, phase: { S: 'sent' } } }));
    const store = createDynamoStore({ tableName: TABLE, client: dynamo.client });
    await store.update('lease/unit', () => ({ value: { owner: 'a' }, result: undefined }));
    const listed = await store.list('');
    expect(listed).toEqual([{ key: 'lease/unit', value: { owner: 'a' } }]);
    const raw = await dynamo.client.send(new GetItemCommand({ TableName: TABLE, Key: { pk: { S: 'export#lease/unit' } } }));
    expect(raw.Item).toEqual({ pk: { S: 'export#lease/unit' }, doc: { S: '{"owner":"a"}' }, version: { N: '1' } });
    const followUp = await dynamo.client.send(new GetItemCommand({ TableName: TABLE, Key: { pk: { S: 'followup#req-1' } } }));
    expect(followUp.Item).toEqual({ pk: { S: 'followup#req-1' }, phase: { S: 'sent' } });
  });

  it('pages through a scan larger than one response', async () => {
    const client = newClient();
    let scans = 0;
    client.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'ScanCommand') scans += 1;
        return next(args);
      },
      { step: 'initialize' },
    );
    const store = isolatedStore(client);
    const big = 'x'.repeat(100_000);
    for (let i = 0; i < 12; i++) await store.update(`backlog/${i}`, () => ({ value: { big, i }, result: undefined }));
    const listed = await store.list<{ i: number }>('backlog/');
    expect(listed.map((entry) => entry.value.i).sort((a, b) => a - b)).toEqual(Array.from({ length: 12 }, (_, i) => i));
    expect(scans).toBeGreaterThan(1);
  });

  it('retries an update that lost a race, deciding again on the document the winner wrote', async () => {
    const client = newClient();
    const keyPrefix = newPrefix();
    const store = createDynamoStore({ tableName: TABLE, client, keyPrefix });
    await store.update('counter', () => ({ value: 1, result: undefined }));
    // Another writer gets in between the store's read and its write, twice.
    let interferences = 2;
    client.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'PutItemCommand' && interferences-- > 0) await bumpCounter(`${keyPrefix}counter`);
        return next(args);
      },
      { step: 'initialize' },
    );
    const seen: Array<number | undefined> = [];
    await store.update<number, void>('counter', (n) => {
      seen.push(n);
      return { value: (n ?? 0) + 1, result: undefined };
    });
    expect(seen).toEqual([1, 11, 21]);
    expect(await store.get('counter')).toBe(22);
  });

  it('gives up with a clear error when it loses every race, after a bounded number of tries', async () => {
    const client = newClient();
    const keyPrefix = newPrefix();
    const store = createDynamoStore({ tableName: TABLE, client, keyPrefix });
    await store.update('counter', () => ({ value: 1, result: undefined }));
    let puts = 0;
    client.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'PutItemCommand') {
          puts += 1;
          await bumpCounter(`${keyPrefix}counter`);
        }
        return next(args);
      },
      { step: 'initialize' },
    );
    await expect(store.update<number, void>('counter', (n) => ({ value: (n ?? 0) + 1, result: undefined }))).rejects.toThrow(
      /lost to other writers 50 times in a row/,
    );
    expect(puts).toBe(50);
  });
});

describeSharedStoreContract('DynamoDB', () => isolatedStore());

describe('follow-up records in the deployment table', () => {
  it('reads a record in the item layout of earlier releases, and writes that layout', async () => {
    const doc = DynamoDBDocumentClient.from(dynamo.client);
    // As the first releases wrote it: `{ pk, ...record }`, one attribute per field.
    const record: SentState = {
      requestId: 'req-compat',
      version: 3,
      projectId: 'proj_a',
      jobId: 'job_1',
      promptLength: 12,
      promptSha256: 'ab'.repeat(32),
      failures: 0,
      attempts: 1,
      expiresAt: 1_800_000_000,
      phase: 'sent',
      sentAt: 1_700_000_000_000,
      before: { status: 'completed', prLink: null },
      polls: 2,
      sawActive: true,
      terminalReads: 0,
      lastStatus: 'active',
      lastPrLink: null,
    };
    await doc.send(new PutCommand({ TableName: TABLE, Item: { pk: 'followup#req-compat', ...record } }));
    const store = createStateStore(followUpTableStore(TABLE, dynamo.client));

    const read = await store.get('req-compat');
    const { version: _version, ...draft } = record;
    const written = await store.put({ ...draft, polls: 3 }, 3);

    expect(read).toEqual(record);
    expect(written).toEqual({ ...record, polls: 3, version: 4 });
    const raw = await doc.send(new GetCommand({ TableName: TABLE, Key: { pk: 'followup#req-compat' }, ConsistentRead: true }));
    expect(raw.Item).toEqual({ pk: 'followup#req-compat', ...record, polls: 3, version: 4 });
  });
});

describeStateStoreContract('DynamoDB (follow-up item layout)', () =>
  createDynamoStore({ tableName: TABLE, client: dynamo.client, keyPrefix: newPrefix(), layout: 'attributes' }),
);
