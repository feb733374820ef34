/**
 * The deployed follow-up function of many organisations (issue 53), in process against real
 * parts on loopback: the organisations' secrets in the Secrets Manager stand-in, the queue and
 * its dead-letter queue on fauxqs (FIFO), the state table on dynalite, S3 on fauxqs and the
 * sandbox with one key per organisation (a request with another key is refused). Messages of two
 * organisations are each sent with that organisation's key and their outcomes written under its
 * `orgs/<id>/`; one of a project in no organisation is dead-lettered (`unknown_project`) and
 * nothing of it is sent. No deployment key is configured. Each outcome's day is registered in
 * the Glue stand-in as its organisation's (org, dt) partition.
 */
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { GlueClient } from '@aws-sdk/client-glue';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganisationsFollowUp, orgsFollowUpConfig } from '../../../functions/organisations/follow-up-function.js';
import { startSandbox, type Sandbox } from '../../../sandbox/index.js';
import { createStateTable, startDynamo, type Dynamo } from '../../helpers/emulators.js';
import { startS3Sqs, TEST_REGION, type S3Sqs } from '../../../scripts/lib/s3-sqs.js';
import { lambdaContext, recordFromMessage, sqsEvent } from '../../helpers/lambda-events.js';
import { parquetTable, startGlueStandIn, type GlueStandIn } from '../../helpers/glue-stand-in.js';
import { startFakeSecretsManager, type FakeSecretsManager } from '../../helpers/secrets-manager.js';

const PREFIX = 'stack/orgs/';
const KEYS = { acme: 'mint_acme_function_0123456789', beta: 'mint_beta_function_0123456789' } as const;
const FAST = {
  pollBudgetMs: 5_000,
  schedule: { minIntervalMs: 50, fraction: 0.1, maxIntervalMs: 500, jitter: 0 },
  grace: { ms: 300, reads: 3 },
  activeDeferMs: 50,
};
const silent = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

let sandbox: Sandbox;
let aws: S3Sqs;
let dynamo: Dynamo;
let stand: FakeSecretsManager;
let secrets: SecretsManagerClient;
let glue: GlueStandIn;
const DATABASE = 'mintlify_analytics';

beforeAll(async () => {
  [sandbox, aws, dynamo] = await Promise.all([
    startSandbox({ apiKey: KEYS.acme, moreApiKeys: [KEYS.beta], agent: { activeMs: 100 } }),
    startS3Sqs(),
    startDynamo(),
  ]);
  glue = await startGlueStandIn(DATABASE, {
    followup_outcomes: {
      ...parquetTable('s3://lake/mintlify/orgs/', ['org', 'dt']),
      // The template as the stack writes it: `${org}` and `${dt}` are Glue's placeholders.
      parameters: { 'storage.location.template': ['s3://lake/mintlify/orgs/$', '{org}/followup_outcomes/dt=$', '{dt}/'].join('') },
    },
  });
  stand = await startFakeSecretsManager({
    [`${PREFIX}acme`]: JSON.stringify({ apiKey: KEYS.acme, projectIds: ['proj_small'] }),
    [`${PREFIX}beta`]: JSON.stringify({ apiKey: KEYS.beta, projectIds: ['proj_medium'] }),
  });
  secrets = new SecretsManagerClient({ endpoint: stand.endpoint, region: TEST_REGION, credentials: { accessKeyId: 'test', secretAccessKey: 'test' } });
}, 60_000);

afterAll(async () => {
  secrets?.destroy();
  await Promise.all([sandbox?.close(), aws?.close(), dynamo?.close(), stand?.close(), glue?.close()]);
});

describe('the follow-up function with -c organisations=true', () => {
  it("sends each message with its organisation's key, writes each outcome under orgs/<id>/ and dead-letters a project of none", async () => {
    sandbox.createJob('proj_small', { id: 'job_acme_fn', status: 'completed', prLink: null });
    sandbox.createJob('proj_medium', { id: 'job_beta_fn', status: 'completed', prLink: null });
    const bucket = await aws.createBucket();
    const queueUrl = await aws.createQueue(undefined, { FifoQueue: 'true', ContentBasedDeduplication: 'true' });
    const deadLetterUrl = await aws.createQueue(undefined, { FifoQueue: 'true', ContentBasedDeduplication: 'true' });
    const config = orgsFollowUpConfig({
      MINTLIFY_API_URL: sandbox.url,
      EXPORT_DESTINATION: `s3://${bucket}/mintlify`,
      FOLLOWUP_STATE_TABLE: await createStateTable(dynamo.client),
      FOLLOWUP_DEAD_LETTER_QUEUE_URL: deadLetterUrl,
      EXPORT_ORGS_SECRET_PREFIX: PREFIX,
      EXPORT_GLUE_DATABASE: DATABASE,
    });
    expect(config.apiKey).toBeUndefined();
    expect(config.apiKeySecretArn).toBeUndefined();
    const messages = [
      { projectId: 'proj_small', jobId: 'job_acme_fn', prompt: 'fix the table', requestId: 'fn-acme-1' },
      { org: 'beta', projectId: 'proj_medium', jobId: 'job_beta_fn', prompt: 'fix the list', requestId: 'fn-beta-1' },
      { projectId: 'proj_large', jobId: 'job_nobody', prompt: 'anything', requestId: 'fn-nobody-1' },
    ];
    for (const message of messages)
      await aws.sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify(message), MessageGroupId: message.jobId }));
    const received = await aws.sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, MessageSystemAttributeNames: ['All'] }));
    expect(received.Messages).toHaveLength(3);
    sandbox.clearRequests();
    const glueClient = new GlueClient({ endpoint: glue.endpoint, region: TEST_REGION, credentials: { accessKeyId: 'test', secretAccessKey: 'test' } });
    const handler = createOrganisationsFollowUp(
      config,
      { sqs: aws.sqs, secrets, dynamo: dynamo.client, s3: aws.s3, glue: glueClient },
      { logger: silent, metrics: { count: () => undefined }, settings: FAST },
    );
    const response = await handler(sqsEvent((received.Messages ?? []).map((message) => recordFromMessage(message))), lambdaContext(60_000));
    expect(response.batchItemFailures).toEqual([]);

    const sent = sandbox.requests.filter((entry) => entry.route === 'agent-message');
    expect(sent.map((entry) => [entry.projectId, entry.keyIndex]).sort()).toEqual([
      ['proj_medium', 1],
      ['proj_small', 0],
    ]);
    // Every call about a job carried its organisation's key, and nothing of the stray project went out.
    for (const entry of sandbox.requests.filter((r) => r.route.startsWith('agent-')))
      expect([entry.projectId, entry.keyIndex]).toEqual(entry.projectId === 'proj_small' ? ['proj_small', 0] : ['proj_medium', 1]);
    expect(sandbox.requests.filter((entry) => entry.projectId === 'proj_large')).toEqual([]);

    const listed = await aws.s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: 'mintlify/' }));
    const keys = (listed.Contents ?? []).map((object) => object.Key ?? '').sort();
    expect(keys).toEqual([
      expect.stringMatching(/^mintlify\/orgs\/acme\/followup_outcomes\/dt=\d{4}-\d{2}-\d{2}\/fn-acme-1\.json$/),
      expect.stringMatching(/^mintlify\/orgs\/beta\/followup_outcomes\/dt=\d{4}-\d{2}-\d{2}\/fn-beta-1\.json$/),
    ]);
    // Each outcome's day registered under its organisation, at its folder.
    const days = keys.map((key) => /dt=([\d-]+)\//.exec(key)?.[1]);
    const registered = glue.partitions(DATABASE, 'followup_outcomes');
    expect([...registered.keys()].sort()).toEqual([`acme/${days[0]}`, `beta/${days[1]}`]);
    expect(registered.get(`beta/${days[1]}`)?.storageDescriptor['Location']).toBe(`s3://lake/mintlify/orgs/beta/followup_outcomes/dt=${days[1]}/`);
    const dead = await aws.sqs.send(new ReceiveMessageCommand({ QueueUrl: deadLetterUrl, MaxNumberOfMessages: 10, MessageAttributeNames: ['All'] }));
    expect(dead.Messages).toHaveLength(1);
    expect(dead.Messages?.[0]?.MessageAttributes?.['reason']?.StringValue).toMatch(
      /^unknown_project: project "proj_large" is in no organisation \(acme, beta\)/,
    );
    // Only the organisations' secrets were read.
    expect(stand.calls.filter((call) => call.startsWith('secretsmanager.GetSecretValue')).sort()).toEqual([
      `secretsmanager.GetSecretValue ${PREFIX}acme`,
      `secretsmanager.GetSecretValue ${PREFIX}beta`,
    ]);
  }, 60_000);

  it('refuses to start without the organisations prefix', () => {
    expect(() =>
      orgsFollowUpConfig({ EXPORT_DESTINATION: 's3://bucket-b/m', FOLLOWUP_STATE_TABLE: 'state', FOLLOWUP_DEAD_LETTER_QUEUE_URL: 'http://q/x.fifo' }),
    ).toThrow(/EXPORT_ORGS_SECRET_PREFIX is not set/);
  });
});
