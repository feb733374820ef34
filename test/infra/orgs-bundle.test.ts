/**
 * The synth of `-c organisations=true` (in process, local esbuild bundling, cdk-nag), then the dispatcher's and
 * the worker's bundles, each in its own Node process with the environment the template gives
 * it, against the sandbox and the emulators — every AWS call checked against its role's
 * policies in the template (test/helpers/iam.ts): the dispatcher lists the secrets under the
 * prefix and sends one message per organisation; the worker reads that organisation's secret
 * and exports it under orgs/<id>/ (a month it settles rolled up too, with the DuckDB of its own
 * asset); a revoked organisation is a batch item failure; the weekly report writes an
 * organisation's verdicts under its orgs/<id>/fix_effects/ and registers their (org, dt) in the
 * Glue stand-in.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { GetQueueAttributesCommand, ReceiveMessageCommand, SendMessageCommand, type Message } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../sandbox/index.js';
import { outcomeKey } from '../../functions/follow-up/outcome.js';
import { createS3Destination } from '../../functions/shared/storage/destination-s3.js';
import { everyDays, FLAT_DAY, writeLake } from '../helpers/insights-lake.js';
import { FAST_POLL, followUpQueueId, completedFixOutcome, glueTableNames, startBundleStand, type BundleStandWithSandbox } from '../helpers/bundle-fixture.js';
import { functionEnvironment, functionHandler, invokeBundle, type Assembly } from '../../scripts/lib/bundles.js';
import type { Dynamo } from '../helpers/emulators.js';
import type { S3Sqs } from '../../scripts/lib/s3-sqs.js';
import { parquetTable, startGlueStandIn, type GlueStandIn } from '../helpers/glue-stand-in.js';
import { startIamGuard, type IamGuard } from '../helpers/iam.js';
import { recordFromMessage, sqsEvent } from '../helpers/lambda-events.js';
import { startFakeSecretsManager, type FakeSecretsManager } from '../helpers/secrets-manager.js';

const PREFIX = 'MintlifyExporter/orgs/';
const PERSONAL_DATA_SECRET_ARN = 'arn:aws:secretsmanager:us-east-1:000000000000:secret:mintlify-personal-data-GhIjKl';
const KEYS = { acme: 'mint_acme_0123456789abcdef', gone: 'mint_gone_0123456789abcdef' } as const;
const PROJECTS = { acme: 'proj_synth_120', gone: 'proj_synth_80' } as const;
const EVENT_TIME = '2026-03-01T02:30:00.000Z';
const DISPATCHER = 'Lists the organisations';
const WORKER = "Exports one organisation's analytics";
const FOLLOW_UP = 'Sends queued follow-up prompts with their organisation';
const WEEKLY = 'Weekly: the report of the last 7 complete days';

let stand: BundleStandWithSandbox;
let assembly: Assembly;
let sandbox: Sandbox;
let aws: S3Sqs;
let dynamo: Dynamo;
let secrets: FakeSecretsManager;
let glue: GlueStandIn;
const GLUE_DATABASE = 'mintlify_analytics';
let bucket: string;
let queueUrl: string;
let queueArn: string;
let deadLetterUrl: string;
let table: string;
const guards: IamGuard[] = [];

beforeAll(async () => {
  stand = await startBundleStand({ organisations: 'true' }, { sandbox: { apiKey: KEYS.acme, agent: { activeMs: 200 } } });
  ({ assembly, sandbox, aws, dynamo, bucket, table } = stand);
  secrets = await startFakeSecretsManager({
    [`${PREFIX}acme`]: JSON.stringify({ apiKey: KEYS.acme, projectIds: [PROJECTS.acme] }),
    [`${PREFIX}gone`]: JSON.stringify({ apiKey: KEYS.gone, projectIds: [PROJECTS.gone] }),
    [PERSONAL_DATA_SECRET_ARN]: 'orgs-bundle-personal-data-key-0123456789',
  });
  glue = await startGlueStandIn(GLUE_DATABASE, {
    followup_outcomes: {
      ...parquetTable('s3://bucket/mintlify/orgs/', ['org', 'dt']),
      parameters: { 'storage.location.template': ['s3://bucket/mintlify/orgs/$', '{org}/followup_outcomes/dt=$', '{dt}/'].join('') },
    },
    fix_effects: {
      ...parquetTable('s3://bucket/mintlify/orgs/', ['org', 'dt']),
      parameters: { 'storage.location.template': ['s3://bucket/mintlify/orgs/$', '{org}/fix_effects/dt=$', '{dt}/'].join('') },
    },
  });
  // The organisations' queue with its dead-letter queue, as the stack makes them.
  deadLetterUrl = await aws.createQueue();
  const dlqArn = (await aws.sqs.send(new GetQueueAttributesCommand({ QueueUrl: deadLetterUrl, AttributeNames: ['QueueArn'] }))).Attributes?.['QueueArn'];
  queueUrl = await aws.createQueue(undefined, { RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlqArn, maxReceiveCount: '30' }) });
  queueArn = (await aws.sqs.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['QueueArn'] }))).Attributes?.['QueueArn'] ?? '';
}, 300_000);

afterAll(async () => {
  await Promise.all([stand?.close(), secrets?.close(), glue?.close(), ...guards.map((g) => g.close())]);
});

async function guard(description: string, values: Record<string, string>, bind: Record<string, string> = {}) {
  const started = await startIamGuard({
    resources: assembly.resources,
    description,
    values,
    upstreams: { S3: aws.endpoint, SQS: aws.endpoint, SNS: aws.endpoint, DYNAMODB: dynamo.endpoint, SECRETS_MANAGER: secrets.endpoint, GLUE: glue.endpoint },
    bind,
  });
  guards.push(started);
  return started;
}

async function invoke(
  description: string,
  event: unknown,
  values: Record<string, string>,
  overrides: Record<string, string> = {},
  bind: Record<string, string> = {},
) {
  const iam = await guard(description, values, bind);
  const env = { ...functionEnvironment(assembly.resources, description, values), MINTLIFY_API_URL: sandbox.url, ...overrides, ...iam.env };
  const bundle = `${assembly.functionAssetDir(description)}/index.js`;
  const invocation = await invokeBundle(assembly.outDir, bundle, event, env, functionHandler(assembly.resources, description), 120_000);
  return { ...invocation, iam };
}

describe('the organisations bundles (-c organisations=true)', { timeout: 120_000 }, () => {
  let messages: Message[];

  it('the dispatcher lists the secrets under the prefix and sends one message per organisation, within its role', async () => {
    const { result, error, logs, iam } = await invoke(
      DISPATCHER,
      { 'detail-type': 'Scheduled Event', source: 'aws.events', time: EVENT_TIME },
      { EXPORT_DESTINATION: `s3://${bucket}/mintlify`, EXPORT_ORGS_QUEUE_URL: queueUrl },
    );
    expect(error, logs).toBeUndefined();
    expect(iam.denied).toEqual([]);
    expect(iam.calls).toEqual(expect.arrayContaining(['secretsmanager:ListSecrets on *', expect.stringMatching(/^sqs:SendMessage on /)]));
    expect(iam.calls.filter((call) => call.startsWith('secretsmanager:GetSecretValue'))).toEqual([]);
    expect(result).toMatchObject({ dispatched: ['acme', 'gone'] });
    messages = await aws.takeAll(queueUrl);
    expect(messages.map((m) => JSON.parse(m.Body ?? '')).sort((a, b) => a.org.localeCompare(b.org))).toEqual([
      { org: 'acme', time: EVENT_TIME },
      { org: 'gone', time: EVENT_TIME },
    ]);
  });

  it("the worker exports each organisation under orgs/<id>/ with its own secret's key, within its role, and dead-letters the revoked one with why", async () => {
    // As Lambda hands them over: the queue's ARN, from which the worker finds the queue and its dead-letter queue.
    const records = messages.map((m) => ({ messageId: m.MessageId ?? '', body: m.Body ?? '', eventSourceARN: queueArn }));
    const { result, error, logs, iam } = await invoke(
      WORKER,
      { Records: records },
      {
        EXPORT_DESTINATION: `s3://${bucket}/mintlify`,
        EXPORT_STATE_TABLE: table,
        PERSONAL_DATA_KEY_SECRET_ARN: PERSONAL_DATA_SECRET_ARN,
        EXPORT_GLUE_DATABASE: 'mintlify_analytics',
      },
      // Yesterday's visitors only: a day of the seven datasets and the heal window would only take
      // longer. No Glue here (no emulator): the worker's (org, dt) registration is unit-tested.
      { EXPORT_DATASETS: 'visitors', EXPORT_HEAL_DAYS: '0', EXPORT_GLUE_DATABASE: '' },
      // The organisations' queue and its dead-letter queue: named by no variable, bound by their place in the template.
      Object.fromEntries(
        Object.entries(assembly.resources)
          .filter(([id, r]) => r.Type === 'AWS::SQS::Queue' && id.startsWith('Organisations'))
          .map(([id]) => [id, id.includes('DeadLetter') ? deadLetterUrl : queueUrl]),
      ),
    );
    expect(error, logs).toBeUndefined();
    expect(iam.denied).toEqual([]);
    expect(iam.calls).toEqual(
      expect.arrayContaining([
        `secretsmanager:GetSecretValue on arn:aws:secretsmanager:us-east-1:000000000000:secret:${PREFIX}acme-AbCdEf`,
        expect.stringMatching(/^s3:PutObject on arn:aws:s3:::[^/]+\/mintlify\/orgs\/acme\/visitors_pages\//),
        expect.stringMatching(/^dynamodb:PutItem on /),
      ]),
    );
    const gone = messages.find((m) => JSON.parse(m.Body ?? '').org === 'gone');
    // The revoked organisation's message is dead-lettered by the worker, with why, within its role.
    expect(gone).toBeDefined();
    expect(result).toEqual({ batchItemFailures: [] });
    expect(iam.calls).toEqual(expect.arrayContaining([expect.stringMatching(/^sqs:GetQueueAttributes on /), expect.stringMatching(/^sqs:SendMessage on /)]));
    const dead = await aws.sqs.send(new ReceiveMessageCommand({ QueueUrl: deadLetterUrl, MaxNumberOfMessages: 10, MessageAttributeNames: ['All'] }));
    expect(dead.Messages?.map((m) => JSON.parse(m.Body ?? '{}').org)).toEqual(['gone']);
    expect(dead.Messages?.[0]?.MessageAttributes?.['reason']?.StringValue).toMatch(/^organisation "gone": /);
    const listed = await aws.s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: 'mintlify/' }));
    const keys = (listed.Contents ?? []).map((object) => object.Key ?? '');
    expect(keys).toContain(`mintlify/orgs/acme/visitors_totals/dt=2026-02-28/${PROJECTS.acme}.parquet`);
    expect(keys.filter((key) => !key.startsWith('mintlify/orgs/'))).toEqual([]);
    // Its run settled February (from its first exported day to its last): the month's roll-ups, built
    // with the DuckDB its own asset carries (the Lambda runtime has none).
    expect(existsSync(join(assembly.functionAssetDir(WORKER), 'node_modules/@duckdb/node-bindings-linux-x64/duckdb.node'))).toBe(true);
    expect(
      keys.filter((key) => key.startsWith('mintlify/orgs/acme/_rollups/visitors_pages/') && key.includes('month=2026-02') && key.endsWith('.parquet')),
    ).not.toEqual([]);
    expect(logs).not.toContain('could not be built');
    // Its metrics carry the organisation: the alarm's contributors name it.
    expect(logs).toMatch(/"Organisation":"acme"/);
    expect(logs).toMatch(/"Organisation":"gone"[^\n]*OrganisationRunsFailed|OrganisationRunsFailed[^\n]*"Organisation":"gone"/);
  });

  it("the follow-up function sends with the message's organisation's key and writes its outcome under orgs/<id>/, within its role", async () => {
    sandbox.createJob(PROJECTS.acme, { id: 'job_orgs_bundle', status: 'completed', prLink: null });
    const fifo = { FifoQueue: 'true', ContentBasedDeduplication: 'true' };
    const [followUps, deadLetters] = [await aws.createQueue(undefined, fifo), await aws.createQueue(undefined, fifo)];
    const bodies = [
      { projectId: PROJECTS.acme, jobId: 'job_orgs_bundle', prompt: 'Fix the quickstart.', requestId: 'orgs-bundle-1' },
      { projectId: 'proj_of_nobody', jobId: 'job_nobody', prompt: 'anything', requestId: 'orgs-bundle-2' },
    ];
    for (const body of bodies)
      await aws.sqs.send(new SendMessageCommand({ QueueUrl: followUps, MessageBody: JSON.stringify(body), MessageGroupId: body.jobId }));
    const { Messages = [] } = await aws.sqs.send(
      new ReceiveMessageCommand({ QueueUrl: followUps, MaxNumberOfMessages: 10, MessageSystemAttributeNames: ['All'] }),
    );
    expect(Messages).toHaveLength(2);
    const { topicArn } = await aws.createTopicWithSubscriber();
    // The queue the event source reads is named by no variable: bound by its place in the template.
    const queueId = followUpQueueId(assembly.resources);
    const { result, error, logs, iam } = await invoke(
      FOLLOW_UP,
      sqsEvent(Messages.map((message) => recordFromMessage(message))),
      {
        EXPORT_DESTINATION: `s3://${bucket}/mintlify`,
        FOLLOWUP_STATE_TABLE: table,
        FOLLOWUP_DEAD_LETTER_QUEUE_URL: deadLetters,
        FOLLOWUP_OUTCOMES_TOPIC_ARN: topicArn,
        EXPORT_GLUE_DATABASE: GLUE_DATABASE,
      },
      FAST_POLL,
      // The queue, and the Glue tables' names their ARNs in the role's policy are made of.
      { [queueId]: followUps, ...glueTableNames(assembly.resources) },
    );
    expect(error, logs).toBeUndefined();
    expect(iam.denied).toEqual([]);
    expect(result).toEqual({ batchItemFailures: [] });
    expect(iam.calls).toEqual(
      expect.arrayContaining([
        `secretsmanager:GetSecretValue on arn:aws:secretsmanager:us-east-1:000000000000:secret:${PREFIX}acme-AbCdEf`,
        expect.stringMatching(/^s3:PutObject on arn:aws:s3:::[^/]+\/mintlify\/orgs\/acme\/followup_outcomes\//),
        expect.stringMatching(/^sqs:SendMessage on /),
        expect.stringMatching(/^glue:BatchCreatePartition on /),
      ]),
    );
    // The outcome's day registered as the organisation's partition, within the role.
    expect([...glue.partitions(GLUE_DATABASE, 'followup_outcomes').keys()]).toEqual([expect.stringMatching(/^acme\/\d{4}-\d{2}-\d{2}$/)]);
    expect(sandbox.getJobState(PROJECTS.acme, 'job_orgs_bundle')?.prompts).toHaveLength(1);
    const dead = await aws.sqs.send(new ReceiveMessageCommand({ QueueUrl: deadLetters, MaxNumberOfMessages: 10, MessageAttributeNames: ['All'] }));
    expect(dead.Messages?.map((m) => m.MessageAttributes?.['reason']?.StringValue)).toEqual([
      expect.stringMatching(/^unknown_project: project "proj_of_nobody"/),
    ]);
    expect(logs).not.toContain(KEYS.acme);
  });
  it("the weekly report writes an organisation's verdicts under orgs/<id>/fix_effects/ and registers their (org, dt), within its role", async () => {
    // Two weeks of acme's analytics and a fix made for a gap in the second (its outcome record).
    const lake = createS3Destination({ bucket, prefix: 'mintlify/orgs/acme', client: aws.s3 });
    const days = everyDays('2026-11-09', 14).map((day) => ({ projectId: PROJECTS.acme, day, figures: FLAT_DAY }));
    await writeLake(lake, days, (day) => Date.parse(`${day}T00:00:00Z`) + 27 * 3_600_000);
    const outcome = completedFixOutcome('orgs-weekly-fix', PROJECTS.acme, 'job_weekly_fix');
    await lake.put(outcomeKey(outcome), JSON.stringify(outcome), { contentType: 'application/json' });
    const { topicArn } = await aws.createTopicWithSubscriber();
    const { error, logs, iam } = await invoke(
      WEEKLY,
      { 'detail-type': 'Scheduled Event', source: 'aws.events', time: '2026-11-23T06:00:00Z' },
      { EXPORT_DESTINATION: `s3://${bucket}/mintlify`, INSIGHTS_TOPIC_ARN: topicArn, EXPORT_GLUE_DATABASE: GLUE_DATABASE },
      {},
      glueTableNames(assembly.resources),
    );
    expect(error, logs).toBeUndefined();
    expect(iam.denied, 'calls its role may not make').toEqual([]);
    expect(iam.calls).toEqual(
      expect.arrayContaining([
        expect.stringMatching(new RegExp(`^s3:PutObject on arn:aws:s3:::${bucket}/mintlify/orgs/acme/reports/weekly/2026-W47\\.html$`)),
        `s3:PutObject on arn:aws:s3:::${bucket}/mintlify/orgs/acme/fix_effects/dt=2026-11-23/${PROJECTS.acme}.json`,
        expect.stringMatching(/^glue:BatchCreatePartition on .*fix_effects$/),
      ]),
    );
    // The verdicts' day registered as acme's partition, at its folder.
    const registered = glue.partitions(GLUE_DATABASE, 'fix_effects');
    expect([...registered.keys()]).toEqual(['acme/2026-11-23']);
    expect(registered.get('acme/2026-11-23')?.storageDescriptor['Location']).toBe('s3://bucket/mintlify/orgs/acme/fix_effects/dt=2026-11-23/');
  });
});
