/**
 * The deployed fan-out for many organisations (issue 46), in process against real parts on
 * loopback: the organisations' secrets in the Secrets Manager stand-in (listed under the stack's
 * prefix), the dispatcher sending to an SQS queue on fauxqs, the worker taking those messages
 * and exporting each organisation into S3 (fauxqs) with its own key against the sandbox, its
 * ledger and leases in the dynalite state table. One organisation's key is revoked.
 */
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { ScanCommand } from '@aws-sdk/client-dynamodb';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { Message } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDispatcher, createOrganisationsWorker, orgsConfig, type OrganisationsConfig } from '../../../functions/organisations/handlers.js';
import { startSandbox, type Sandbox } from '../../../sandbox/index.js';
import { createStateTable, startDynamo, type Dynamo } from '../../helpers/emulators.js';
import { startS3Sqs, TEST_REGION, type S3Sqs } from '../../../scripts/lib/s3-sqs.js';
import { exportFunctionEnv } from '../../helpers/env.js';
import { lambdaContext, scheduledEvent } from '../../helpers/lambda-events.js';
import { analyticsRequests } from '../../helpers/request-log.js';
import { startFakeSecretsManager, type FakeSecretsManager } from '../../helpers/secrets-manager.js';

const PREFIX = 'mintlify/orgs/';
const EVENT_TIME = '2026-03-01T02:30:00.000Z';
const DAY = '2026-02-28';
const KEYS = { acme: 'mint_acme_0123456789abcdef', beta: 'mint_beta_0123456789abcdef', gone: 'mint_gone_0123456789abcdef' } as const;
const PROJECTS = { acme: 'proj_synth_300', beta: 'proj_synth_200', gone: 'proj_synth_100' } as const;
const ORGS = ['acme', 'beta', 'gone'] as const;

let sandbox: Sandbox;
let aws: S3Sqs;
let dynamo: Dynamo;
let secretsManager: FakeSecretsManager;
let secrets: SecretsManagerClient;
let bucket: string;
let queueUrl: string;
let stateTable: string;
let config: OrganisationsConfig;

const secretOf = (org: (typeof ORGS)[number]) => JSON.stringify({ apiKey: KEYS[org], projectIds: [PROJECTS[org]] });

beforeAll(async () => {
  [sandbox, aws, dynamo] = await Promise.all([startSandbox({ apiKey: KEYS.acme, moreApiKeys: [KEYS.beta] }), startS3Sqs(), startDynamo()]);
  secretsManager = await startFakeSecretsManager({
    ...Object.fromEntries(ORGS.map((org) => [`${PREFIX}${org}`, secretOf(org)])),
    [`${PREFIX}Not_An_Id`]: secretOf('acme'),
    'another-stack/orgs/zeta': secretOf('acme'),
  });
  secrets = new SecretsManagerClient({ endpoint: secretsManager.endpoint, region: TEST_REGION, credentials: { accessKeyId: 'test', secretAccessKey: 'test' } });
  bucket = await aws.createBucket();
  queueUrl = await aws.createQueue();
  stateTable = await createStateTable(dynamo.client);
  config = orgsConfig(
    exportFunctionEnv(
      { apiUrl: sandbox.url, projectIds: '', destination: `s3://${bucket}/mintlify`, stateTable },
      { EXPORT_ORGS_SECRET_PREFIX: PREFIX, EXPORT_ORGS_QUEUE_URL: queueUrl, ANALYTICS_BUDGET: '50/1h', ANALYTICS_RESERVE: '10' },
    ),
  );
});

afterAll(async () => {
  secrets?.destroy();
  await Promise.all([sandbox?.close(), aws?.close(), dynamo?.close(), secretsManager?.close()]);
});

describe('dispatcher → queue → worker', () => {
  let messages: Message[];
  let failures: string[];

  beforeAll(async () => {
    const dispatched = await createDispatcher(config, { secrets, sqs: aws.sqs })(scheduledEvent(EVENT_TIME));
    expect(dispatched.refused.map((r) => r.name)).toEqual([`${PREFIX}Not_An_Id`]);
    messages = await aws.takeAll(queueUrl);
    const worker = createOrganisationsWorker(config, { secrets, dynamo: dynamo.client, s3: aws.s3 });
    const records = messages.map((message) => ({ messageId: message.MessageId ?? '', body: message.Body ?? '' }));
    const response = await worker({ Records: records }, lambdaContext());
    failures = response.batchItemFailures.map((failure) => failure.itemIdentifier);
  }, 60_000);

  it('lists the secrets under the prefix at the run and sends one message per organisation, with the schedule time', () => {
    expect(secretsManager.calls).toContain(`secretsmanager.ListSecrets ${PREFIX}`);
    expect(messages.map((m) => JSON.parse(m.Body ?? '')).sort((a, b) => a.org.localeCompare(b.org))).toEqual(ORGS.map((org) => ({ org, time: EVENT_TIME })));
  });

  it('reports the revoked organisation, and only it, as a batch item failure', () => {
    const gone = messages.find((m) => JSON.parse(m.Body ?? '').org === 'gone');
    expect(failures).toEqual([gone?.MessageId]);
  });

  it("exports each healthy organisation under orgs/<id>/ of the prefix with its own key, and the revoked one's key once", async () => {
    const { Contents = [] } = await aws.s3.send(new ListObjectsV2Command({ Bucket: bucket }));
    const keys = Contents.map((object) => object.Key ?? '');
    for (const org of ['acme', 'beta'] as const) {
      expect(keys).toContain(`mintlify/orgs/${org}/visitors_totals/dt=${DAY}/${PROJECTS[org]}.parquet`);
      expect(keys).toContain(`mintlify/orgs/${org}/_manifests/visitors/dt=${DAY}/${PROJECTS[org]}.json`);
    }
    expect(
      keys.filter((key) => !key.startsWith('mintlify/orgs/acme/') && !key.startsWith('mintlify/orgs/beta/') && !key.startsWith('mintlify/orgs/gone/')),
    ).toEqual([]);
    expect(keys.filter((key) => key.startsWith('mintlify/orgs/gone/') && key.endsWith('.parquet'))).toEqual([]);
    const requests = analyticsRequests(sandbox.requests);
    expect(new Set(requests.filter((r) => r.projectId === PROJECTS.acme).map((r) => r.keyIndex))).toEqual(new Set([0]));
    expect(new Set(requests.filter((r) => r.projectId === PROJECTS.beta).map((r) => r.keyIndex))).toEqual(new Set([1]));
    expect(requests.filter((r) => r.projectId === PROJECTS.gone).map((r) => r.status)).toEqual([401]);
  });

  it("keeps each organisation's ledger (its share: 50 less a reserve of 10) in its own part of the state table", async () => {
    const { Items = [] } = await dynamo.client.send(new ScanCommand({ TableName: stateTable }));
    const ledgers = Items.map((item) => item['pk']?.S ?? '').filter((pk) => pk.endsWith('budget/ledger'));
    expect(ledgers.sort()).toEqual(['export#orgs/acme/budget/ledger', 'export#orgs/beta/budget/ledger', 'export#orgs/gone/budget/ledger']);
  });
});

describe('the dispatcher with many organisations', () => {
  it('sends one message per secret, in batches of ten, every page of ListSecrets read', async () => {
    const many = Object.fromEntries(Array.from({ length: 123 }, (_, i) => [`big/orgs/org-${String(i).padStart(3, '0')}`, secretOf('acme')]));
    const stand = await startFakeSecretsManager(many);
    const client = new SecretsManagerClient({ endpoint: stand.endpoint, region: TEST_REGION, credentials: { accessKeyId: 'test', secretAccessKey: 'test' } });
    try {
      const queue = await aws.createQueue();
      const result = await createDispatcher(
        { ...config, orgsSecretPrefix: 'big/orgs/', orgsQueueUrl: queue },
        { secrets: client, sqs: aws.sqs },
      )(scheduledEvent(EVENT_TIME));
      expect(result.dispatched).toHaveLength(123);
      expect(stand.calls.filter((call) => call.startsWith('secretsmanager.ListSecrets'))).toHaveLength(2);
      expect(stand.calls.filter((call) => call.startsWith('secretsmanager.GetSecretValue'))).toEqual([]);
      const bodies = (await aws.takeAll(queue)).map((m) => JSON.parse(m.Body ?? '').org as string);
      expect(bodies.sort()).toEqual(Object.keys(many).map((name) => name.slice('big/orgs/'.length)));
    } finally {
      client.destroy();
      await stand.close();
    }
  });
});
