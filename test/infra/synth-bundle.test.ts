/**
 * The real `cdk synth` (CLI, local esbuild bundling, cdk-nag plugin) run once per content of the tree, then a smoke test
 * of each bundled handler: loaded from the cloud assembly in a separate Node process, with the
 * environment the template gives it, against the API sandbox and the S3/SQS/DynamoDB emulators.
 * It catches what template tests cannot: a bundle that does not load (ESM/CJS, a missing
 * `require`), env names the functions do not read, a dependency left out of the bundle or its
 * asset — DuckDB, which the export loads to build a settled month's roll-ups, is found only in
 * the export's own asset, as in Lambda (the runtime provides the AWS SDK, not DuckDB).
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { GetObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXPORT_METRICS } from '../../functions/shared/metric-names.js';
import { startSandbox, type Sandbox } from '../../sandbox/index.js';
import { invokeBundle as invokeBundleIn } from '../../scripts/lib/bundles.js';
import { FAST_POLL, followUpQueueId, glueTableNames, queueCompletedFollowUp } from '../helpers/bundle-fixture.js';
import { startIamGuard, type IamGuard, type IamGuardOptions } from '../helpers/iam.js';
import { startFakeSecretsManager, type FakeSecretsManager } from '../helpers/secrets-manager.js';
import { parquetTable, startGlueStandIn, type GlueStandIn } from '../helpers/glue-stand-in.js';
import { createStateTable, startDynamo, type Dynamo } from '../helpers/emulators.js';
import { TEST_REGION, startS3Sqs, type S3Sqs } from '../../scripts/lib/s3-sqs.js';
import { readParquetBytes } from '../helpers/read-back.js';
import { removeTempDirs } from '../helpers/files.js';
import { cachedLake } from '../helpers/lake-cache.js';
import { synthKey } from '../helpers/synth.js';

const run = promisify(execFile);
const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const STACK = 'MintlifyExporter';
const PROJECT = 'proj_smoke';
const SECRET_ARN = 'arn:aws:secretsmanager:us-east-1:000000000000:secret:mintlify-smoke-AbCdEf';
/** The stack's Glue database (its default name). */
const GLUE_DATABASE = 'mintlify_analytics';
/** The personal-data key's secret: a bare key of 16+ characters. */
const PERSONAL_DATA_SECRET_ARN = 'arn:aws:secretsmanager:us-east-1:000000000000:secret:mintlify-personal-data-GhIjKl';
const PERSONAL_DATA_KEY = 'smoke-personal-data-key-0123456789';

type Template = { Resources: Record<string, { Type: string; Properties: Record<string, any> }> };

/** The synth's own temp folder (its TMPDIR): the CDK CLI leaves a `cdk.out…` folder in the temp folder. */
let scratch: string;
let outDir: string;
let synthOutput: string;
let template: Template;
let bundles: Record<'export' | 'followUp', string>;

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'mintlify-synth-'));
  // The CLI's cloud assembly and what it printed, made once per content of the tree and kept with
  // the lakes (lake-cache.ts; the key of synth.ts, which covers infra/, cdk.json and the lakes'
  // inputs, package-lock.json among them): a changed tree runs the real `cdk synth` again, an
  // unchanged one reads the assembly that the CLI made of that same content.
  const synth = await cachedLake(`synth-cli-${await synthKey({ projectIds: PROJECT })}`, async (folder) => {
    const { stdout, stderr } = await run('npx', ['cdk', 'synth', '-q', '-o', folder, '-c', `projectIds=${PROJECT}`], {
      cwd: REPO_ROOT,
      env: { ...process.env, CDK_DISABLE_VERSION_CHECK: 'true', TMPDIR: scratch },
      timeout: 150_000,
      maxBuffer: 16 * 1024 * 1024,
    });
    return { output: stdout + stderr };
  });
  outDir = synth.root;
  synthOutput = synth.meta.output;
  template = JSON.parse(await readFile(join(outDir, `${STACK}.template.json`), 'utf8')) as Template;
  // The bundles keep `@aws-sdk/*` external (the Lambda runtime provides it); locally the
  // repository's packages play that part — all but DuckDB, which the runtime does not have: a
  // bundle that needs it must find it in its own asset.
  await mkdir(join(outDir, 'node_modules'));
  for (const name of await readdir(join(REPO_ROOT, 'node_modules'))) {
    if (name.startsWith('.') || name === '@duckdb') continue;
    await symlink(join(REPO_ROOT, 'node_modules', name), join(outDir, 'node_modules', name), 'dir');
  }
  const assets = JSON.parse(await readFile(join(outDir, `${STACK}.assets.json`), 'utf8')) as {
    files: Record<string, { displayName?: string; source: { path: string } }>;
  };
  const assetDir = (displayName: string): string => {
    const entry = Object.values(assets.files).find((file) => file.displayName === displayName);
    if (!entry) throw new Error(`no asset "${displayName}" in ${STACK}.assets.json`);
    return join(outDir, entry.source.path);
  };
  bundles = {
    export: join(assetDir('Export/Handler/Function/Code'), 'index.js'),
    followUp: join(assetDir('FollowUps/Handler/Function/Code'), 'index.js'),
  };
}, 180_000);

afterAll(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
  await removeTempDirs();
});

/** The synthesized environment of the function whose POWERTOOLS_SERVICE_NAME is `service`, tokens replaced. */
function environmentOf(service: string, tokens: Record<string, string>): Record<string, string> {
  const fn = Object.values(template.Resources).find(
    (resource) => resource.Type === 'AWS::Lambda::Function' && resource.Properties.Environment?.Variables?.POWERTOOLS_SERVICE_NAME === service,
  );
  if (!fn) throw new Error(`no function for ${service}`);
  return Object.fromEntries(
    Object.entries(fn.Properties.Environment.Variables as Record<string, unknown>).map(([name, value]) => {
      if (typeof value === 'string') return [name, value];
      const replacement = tokens[name];
      if (replacement === undefined) throw new Error(`${service}: ${name} is a CloudFormation token the smoke test does not map`);
      return [name, replacement];
    }),
  );
}

const guards: IamGuard[] = [];
/** The calls of the function described `description`, checked against its role's policies in the template (test/helpers/iam.ts). */
async function guard(description: string, values: Record<string, string>, upstreams: IamGuardOptions['upstreams'], bind: Record<string, string> = {}) {
  const started = await startIamGuard({ resources: template.Resources, description, values, upstreams, bind });
  guards.push(started);
  return started;
}

/** Bytes of the files under `folder` (symbolic links not followed). */
async function sizeOfFolder(folder: string): Promise<number> {
  let bytes = 0;
  for (const entry of await readdir(folder, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) bytes += (await stat(join(entry.parentPath, entry.name))).size;
  }
  return bytes;
}

/** Runs `handler(event, context)` of a bundle in a fresh Node process (scripts/lib/bundles.ts), with 60 s left of the invocation. */
function invokeBundle(bundle: string, event: unknown, env: Record<string, string>) {
  return invokeBundleIn(outDir, bundle, event, env, 'handler', 60_000);
}

/**
 * The metrics a bundle published as CloudWatch EMF log lines, as `Namespace/service/MetricName`:
 * what the alarms of infra/constructs/operations.ts watch.
 */
function emfMetrics(logs: string): string[] {
  const metrics: string[] = [];
  for (const line of logs.split('\n')) {
    if (!line.includes('"_aws"')) continue;
    let record: { _aws?: { CloudWatchMetrics?: { Namespace: string; Metrics: { Name: string }[] }[] }; service?: string };
    try {
      record = JSON.parse(line.slice(line.indexOf('{'))) as typeof record;
    } catch {
      continue;
    }
    for (const directive of record._aws?.CloudWatchMetrics ?? []) {
      for (const metric of directive.Metrics) metrics.push(`${directive.Namespace}/${record.service}/${metric.Name}`);
    }
  }
  return metrics;
}

describe('cdk synth (CLI, offline, with bundling)', () => {
  it('synthesizes with no unacknowledged cdk-nag finding', async () => {
    expect(synthOutput).not.toMatch(/AwsSolutions-/);
    const report = JSON.parse(await readFile(join(outDir, 'validation-report.json'), 'utf8')) as {
      pluginReports: { pluginName: string; conclusion: string }[];
    };
    expect(report.pluginReports.filter((plugin) => plugin.conclusion !== 'success')).toEqual([]);
    expect(Object.values(template.Resources).some((resource) => resource.Type === 'AWS::Lambda::Function')).toBe(true);
  });

  it("puts DuckDB in the export's asset, loaded only when a roll-up is built: index.js ≤ 1 MB, the asset ≤ 250 MB unzipped", async () => {
    const asset = dirname(bundles.export);
    expect(existsSync(join(asset, 'node_modules/@duckdb/node-bindings-linux-x64/duckdb.node'))).toBe(true);
    const code = await readFile(bundles.export, 'utf8');
    // No static require: the cold start does not load DuckDB (rollups.ts imports it by a name the bundler does not follow).
    expect(code).not.toMatch(/require\("@duckdb\//);
    expect((await stat(bundles.export)).size).toBeLessThanOrEqual(1_000_000);
    expect(await sizeOfFolder(asset)).toBeLessThanOrEqual(250 * 1024 * 1024);
    const [, fn] = Object.entries(template.Resources).find(
      ([, resource]) => resource.Type === 'AWS::Lambda::Function' && resource.Properties.Environment?.Variables?.POWERTOOLS_SERVICE_NAME === 'mintlify-export',
    ) ?? [undefined, undefined];
    expect(fn?.Properties).toMatchObject({ Architectures: ['x86_64'], Environment: { Variables: { HOME: '/tmp' } } });
  });

  it('bundles each handler with the AWS SDK left to the Lambda runtime', async () => {
    const clients = {
      export: { specifier: '@aws-sdk/client-s3', exception: '"S3ServiceException"' },
      followUp: { specifier: '@aws-sdk/client-sqs', exception: '"SQSServiceException"' },
    } as const;
    for (const [name, bundle] of Object.entries(bundles) as ['export' | 'followUp', string][]) {
      const code = await readFile(bundle, 'utf8');
      expect(code).toContain(`require("${clients[name].specifier}")`);
      // The client's own code (its service exception class) is not inlined.
      expect(code).not.toContain(clients[name].exception);
    }
  });
});

describe('bundled handlers against the sandbox and emulators', () => {
  let sandbox: Sandbox;
  let aws: S3Sqs;
  let dynamo: Dynamo;
  let secrets: FakeSecretsManager;
  let glue: GlueStandIn;
  let bucket: string;
  let endpoints: Record<string, string>;
  /** The deployment's one state table (follow-up records and the export's ledger). */
  const table = `state-${Date.now()}`;

  beforeAll(async () => {
    sandbox = await startSandbox({ projects: [{ id: PROJECT, paths: 40, exact: true }] });
    [aws, dynamo, secrets] = await Promise.all([
      startS3Sqs(),
      startDynamo(),
      startFakeSecretsManager({ [SECRET_ARN]: sandbox.apiKey, [PERSONAL_DATA_SECRET_ARN]: PERSONAL_DATA_KEY }),
    ]);
    bucket = await aws.createBucket();
    glue = await startGlueStandIn(GLUE_DATABASE, {
      visitors_totals: parquetTable(`s3://${bucket}/mintlify/visitors_totals/`),
      visitors_pages: parquetTable(`s3://${bucket}/mintlify/visitors_pages/`),
      followup_outcomes: parquetTable(`s3://${bucket}/mintlify/followup_outcomes/`),
    });
    await createStateTable(dynamo.client, table);
    endpoints = {
      AWS_ENDPOINT_URL_S3: aws.endpoint,
      AWS_ENDPOINT_URL_SQS: aws.endpoint,
      AWS_ENDPOINT_URL_SNS: aws.endpoint,
      AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
      AWS_ENDPOINT_URL_SECRETS_MANAGER: secrets.endpoint,
      AWS_ENDPOINT_URL_GLUE: glue.endpoint,
      MINTLIFY_API_URL: sandbox.url,
    };
  }, 60_000);

  /**
   * The export function's synthesized environment against this file's bucket, state table and
   * Glue database, and the IAM guard of its role (the Glue tables bound by name: their ARNs in the
   * role's policy are made of them).
   */
  async function exportUnderItsRole() {
    const values = {
      MINTLIFY_API_KEY_SECRET_ARN: SECRET_ARN,
      PERSONAL_DATA_KEY_SECRET_ARN: PERSONAL_DATA_SECRET_ARN,
      EXPORT_DESTINATION: `s3://${bucket}/mintlify`,
      EXPORT_STATE_TABLE: table,
      EXPORT_GLUE_DATABASE: GLUE_DATABASE,
    };
    const iam = await guard(
      'Hourly',
      values,
      { S3: aws.endpoint, DYNAMODB: dynamo.endpoint, SECRETS_MANAGER: secrets.endpoint, GLUE: glue.endpoint },
      glueTableNames(template.Resources),
    );
    return { env: environmentOf('mintlify-export', values), iam };
  }

  afterAll(async () => {
    await Promise.all([sandbox?.close(), aws?.close(), dynamo?.close(), secrets?.close(), glue?.close(), ...guards.map((g) => g.close())]);
  });

  it('the export bundle writes a day of Parquet files and its manifest to S3, its ledger in the state table, and registers the day in Glue', async () => {
    const { env, iam } = await exportUnderItsRole();

    const { result, error, logs } = await invokeBundle(
      bundles.export,
      { date: '2026-01-15', projects: [PROJECT], datasets: ['visitors'] },
      { ...env, ...endpoints, ...iam.env },
    );

    expect(iam.denied, 'calls its role may not make').toEqual([]);
    expect(error, logs).toBeUndefined();
    expect(iam.calls).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^dynamodb:PutItem on /),
        expect.stringMatching(/^s3:PutObject on arn:aws:s3:::[^/]+\/mintlify\/visitors_pages\//),
        `secretsmanager:GetSecretValue on ${SECRET_ARN}`,
        `glue:BatchCreatePartition on arn:aws:glue:${TEST_REGION}:000000000000:table/${GLUE_DATABASE}/visitors_pages`,
      ]),
    );
    expect(result).toBeDefined();
    expect([...glue.partitions(GLUE_DATABASE, 'visitors_pages').keys()]).toEqual(['2026-01-15']);
    expect(glue.partitions(GLUE_DATABASE, 'visitors_totals').get('2026-01-15')?.storageDescriptor['Location']).toBe(
      `s3://${bucket}/mintlify/visitors_totals/dt=2026-01-15/`,
    );
    expect(secrets.calls).toContain(`secretsmanager.GetSecretValue ${SECRET_ARN}`);
    const listed = await aws.s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: 'mintlify/' }));
    const keys = (listed.Contents ?? []).map((object) => object.Key);
    expect(keys).toEqual(
      expect.arrayContaining([
        `mintlify/visitors_totals/dt=2026-01-15/${PROJECT}.parquet`,
        `mintlify/visitors_pages/dt=2026-01-15/${PROJECT}.parquet`,
        `mintlify/_manifests/visitors/dt=2026-01-15/${PROJECT}.json`,
      ]),
    );
    const pages = await aws.s3.send(new GetObjectCommand({ Bucket: bucket, Key: `mintlify/visitors_pages/dt=2026-01-15/${PROJECT}.parquet` }));
    const bytes = await pages.Body!.transformToByteArray();
    expect(Buffer.from(bytes.subarray(0, 4)).toString()).toBe('PAR1');
    expect(emfMetrics(logs), 'EMF metrics (Namespace/service/Name) the alarms watch').toEqual(
      expect.arrayContaining([
        `MintlifyExporter/mintlify-export/${EXPORT_METRICS.unitsCompleted}`,
        `MintlifyExporter/mintlify-export/${EXPORT_METRICS.requests}`,
        `MintlifyExporter/mintlify-export/${EXPORT_METRICS.schemaDrift}`,
      ]),
    );
    const ledger = await dynamo.client.send(new GetItemCommand({ TableName: table, Key: { pk: { S: 'export#budget/ledger' } }, ConsistentRead: true }));
    expect(ledger.Item, 'the budget ledger item').toBeDefined();
    expect(logs).not.toContain(sandbox.apiKey);
  });

  it("the export bundle that settles a month writes that month's roll-ups, under its role's policies", async () => {
    const { env, iam } = await exportUnderItsRole();
    const days = ['2026-02-26', '2026-02-27', '2026-02-28'];

    // February's first exported day to its last: every day of the month the lake has is then settled.
    const { error, logs } = await invokeBundle(
      bundles.export,
      { from: days[0], to: '2026-03-01', projects: [PROJECT], datasets: ['visitors'] },
      { ...env, ...endpoints, ...iam.env },
    );

    expect(iam.denied, 'calls its role may not make').toEqual([]);
    expect(error, logs).toBeUndefined();
    expect(logs).not.toContain('could not be built');
    const keysUnder = async (prefix: string) =>
      ((await aws.s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix }))).Contents ?? []).map((object) => object.Key ?? '');
    const read = async (key: string) =>
      readParquetBytes(await (await aws.s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }))).Body!.transformToByteArray());
    const sorted = (rows: Record<string, unknown>[]) => rows.map((row) => JSON.stringify(row)).sort();
    for (const folder of ['visitors_totals', 'visitors_pages']) {
      // The roll-up of February (its grain — one file per project or per month — is the lake's).
      const rollups = (await keysUnder(`mintlify/_rollups/${folder}/`)).filter((key) => key.includes('month=2026-02') && key.endsWith('.parquet'));
      expect(rollups.length, `${folder}: February's roll-up`).toBeGreaterThan(0);
      const rolled = (await Promise.all(rollups.map(read))).flatMap((contents) => contents.rows);
      const dayRows = (
        await Promise.all(days.map(async (day) => (await read(`mintlify/${folder}/dt=${day}/${PROJECT}.parquet`)).rows.map((row) => ({ ...row, dt: day }))))
      ).flat();
      expect(dayRows.length, `${folder}: rows of the days`).toBeGreaterThan(0);
      expect(sorted(rolled), `${folder}: the roll-up holds its days' rows`).toEqual(sorted(dayRows));
    }
  });

  it('the follow-up bundle sends one queued prompt to its job, once', async () => {
    const { queueUrl, deadLetterUrl, event } = await queueCompletedFollowUp(aws, sandbox, {
      projectId: PROJECT,
      jobId: 'job_smoke',
      prompt: 'Fix the typo on the quickstart page.',
      requestId: 'req-smoke-1',
      prLink: 'https://github.com/acme/docs/pull/7',
    });
    const { topicArn: TopicArn, subscriber } = await aws.createTopicWithSubscriber();
    const values = {
      MINTLIFY_API_KEY_SECRET_ARN: SECRET_ARN,
      EXPORT_DESTINATION: `s3://${bucket}/mintlify`,
      FOLLOWUP_STATE_TABLE: table,
      FOLLOWUP_DEAD_LETTER_QUEUE_URL: deadLetterUrl,
      FOLLOWUP_OUTCOMES_TOPIC_ARN: TopicArn ?? '',
      EXPORT_GLUE_DATABASE: GLUE_DATABASE,
    };
    const env = environmentOf('mintlify-followup', values);
    // The queue the event source reads is named by no variable: bound by its place in the template.
    const queueId = followUpQueueId(template.Resources);
    const iam = await guard(
      'Sends queued follow-up prompts',
      values,
      { S3: aws.endpoint, SQS: aws.endpoint, SNS: aws.endpoint, DYNAMODB: dynamo.endpoint, SECRETS_MANAGER: secrets.endpoint, GLUE: glue.endpoint },
      {
        [queueId]: queueUrl,
        // The Glue tables' names, which their ARNs in the role's policy are made of.
        ...Object.fromEntries(
          Object.entries(template.Resources)
            .filter(([, resource]) => resource.Type === 'AWS::Glue::Table')
            .map(([id, resource]) => [id, String((resource.Properties['TableInput'] as { Name: string }).Name)]),
        ),
      },
    );

    const { result, error, logs } = await invokeBundle(bundles.followUp, event, { ...env, ...endpoints, ...FAST_POLL, ...iam.env });

    expect(iam.denied, 'calls its role may not make').toEqual([]);
    expect(error, logs).toBeUndefined();
    expect(iam.calls).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^dynamodb:PutItem on /),
        expect.stringMatching(/^s3:PutObject on arn:aws:s3:::[^/]+\/mintlify\/followup_outcomes\//),
        `sns:Publish on ${TopicArn}`,
        `glue:BatchCreatePartition on arn:aws:glue:${TEST_REGION}:000000000000:table/${GLUE_DATABASE}/followup_outcomes`,
      ]),
    );
    expect(result).toEqual({ batchItemFailures: expect.any(Array) });
    const job = sandbox.getJobState(PROJECT, 'job_smoke');
    expect(job?.prompts).toHaveLength(1);
    expect(job?.violations).toEqual([]);
    const outcomes = await aws.s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: 'mintlify/followup_outcomes/' }));
    expect((outcomes.Contents ?? []).map((object) => object.Key)).toEqual([
      expect.stringMatching(/^mintlify\/followup_outcomes\/dt=\d{4}-\d{2}-\d{2}\/req-smoke-1\.json$/),
    ]);
    // The outcome's day registered in the catalog by the run that wrote it (one organisation: dt only).
    const outcomeDay = /dt=([\d-]+)\//.exec(outcomes.Contents?.[0]?.Key ?? '')?.[1];
    expect([...glue.partitions(GLUE_DATABASE, 'followup_outcomes').keys()]).toEqual([outcomeDay]);
    expect(emfMetrics(logs), 'EMF metrics (Namespace/service/Name) the alarms watch').toEqual(
      expect.arrayContaining(['MintlifyExporter/mintlify-followup/PromptsSent', 'MintlifyExporter/mintlify-followup/OutcomesNotified']),
    );
    const notified = await aws.sqs.send(new ReceiveMessageCommand({ QueueUrl: subscriber, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }));
    expect(
      (notified.Messages ?? []).map(
        (m) => (JSON.parse(m.Body ?? '{}') as { MessageAttributes?: Record<string, { Value: string }> }).MessageAttributes?.['status']?.Value,
      ),
    ).toEqual(['completed']);
    expect(logs).not.toContain('Fix the typo on the quickstart page.');
    expect(logs).not.toContain(sandbox.apiKey);
  });
});
