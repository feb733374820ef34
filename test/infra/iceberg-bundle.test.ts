/**
 * The synth of `-c tableFormat=iceberg` (in process, local esbuild bundling, cdk-nag), then the export
 * bundle in its own Node process with the environment the template gives it, against the
 * sandbox, the S3 and DynamoDB emulators, the Secrets Manager, Glue and Athena stand-ins — every
 * AWS call it makes, Athena's included, put through the bundle tests' IAM engine
 * (test/helpers/iam.ts) over the synthesized role: the day's units written, its partitions
 * registered, one MERGE per table started in the stack's workgroup and polled there, and nothing
 * denied. A role without `athena:GetQueryExecution` is refused the poll, and the run keeps the
 * days for the next one. What Athena does on the caller's behalf (Glue, S3) is evaluated in
 * test/infra/iceberg.test.ts.
 */
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../sandbox/index.js';
import { startAthenaStandIn, type AthenaStandIn } from '../helpers/athena-stand-in.js';
import { glueTableNames, startBundleStand, type BundleStandWithSandbox } from '../helpers/bundle-fixture.js';
import { functionEnvironment, functionHandler, invokeBundle, type Assembly } from '../../scripts/lib/bundles.js';
import type { Dynamo } from '../helpers/emulators.js';
import { TEST_REGION, type S3Sqs } from '../../scripts/lib/s3-sqs.js';
import { parquetTable, startGlueStandIn, type GlueStandIn } from '../helpers/glue-stand-in.js';
import { startIamGuard, TEST_ACCOUNT, type IamGuard, type Revocation } from '../helpers/iam.js';
import { startFakeSecretsManager, type FakeSecretsManager } from '../helpers/secrets-manager.js';

const PROJECT = 'proj_iceberg';
const EXPORT = 'Hourly';
const DATABASE = 'mintlify_analytics';
const WORKGROUP = 'mintlify-exporter-iceberg';
const SECRET_ARN = 'arn:aws:secretsmanager:us-east-1:000000000000:secret:mintlify-iceberg-AbCdEf';
const PERSONAL_DATA_SECRET_ARN = 'arn:aws:secretsmanager:us-east-1:000000000000:secret:mintlify-personal-data-GhIjKl';
const DAY = '2026-01-15';
const WORKGROUP_ARN = `arn:aws:athena:${TEST_REGION}:${TEST_ACCOUNT}:workgroup/${WORKGROUP}`;

let stand: BundleStandWithSandbox;
let assembly: Assembly;
let sandbox: Sandbox;
let aws: S3Sqs;
let dynamo: Dynamo;
let secrets: FakeSecretsManager;
let glue: GlueStandIn;
let athena: AthenaStandIn;
let bucket: string;
let table: string;
const guards: IamGuard[] = [];

beforeAll(async () => {
  [stand, athena] = await Promise.all([
    startBundleStand({ projectIds: PROJECT, tableFormat: 'iceberg' }, { sandbox: { projects: [{ id: PROJECT, paths: 30, exact: true }] } }),
    startAthenaStandIn({ workgroup: WORKGROUP, rowsOf: () => 7 }),
  ]);
  ({ assembly, sandbox, aws, dynamo, bucket, table } = stand);
  secrets = await startFakeSecretsManager({ [SECRET_ARN]: sandbox.apiKey, [PERSONAL_DATA_SECRET_ARN]: 'iceberg-bundle-personal-data-key-0123456789' });
  glue = await startGlueStandIn(DATABASE, {
    visitors_totals: parquetTable(`s3://${bucket}/mintlify/visitors_totals/`),
    visitors_pages: parquetTable(`s3://${bucket}/mintlify/visitors_pages/`),
  });
}, 300_000);

afterAll(async () => {
  await Promise.all([stand?.close(), secrets?.close(), glue?.close(), athena?.close(), ...guards.map((g) => g.close())]);
});

/** The export bundle run on `event` behind the IAM guard of its role (less `revoke`). */
async function invokeExport(event: unknown, revoke?: Revocation) {
  const values = {
    MINTLIFY_API_KEY_SECRET_ARN: SECRET_ARN,
    PERSONAL_DATA_KEY_SECRET_ARN: PERSONAL_DATA_SECRET_ARN,
    EXPORT_DESTINATION: `s3://${bucket}/mintlify`,
    EXPORT_STATE_TABLE: table,
    EXPORT_GLUE_DATABASE: DATABASE,
    EXPORT_ICEBERG_DATABASE: DATABASE,
    EXPORT_ATHENA_WORKGROUP: WORKGROUP,
  };
  // The Glue tables' names, which their ARNs in the role's policy are made of.
  const names = glueTableNames(assembly.resources);
  const iam = await startIamGuard({
    resources: assembly.resources,
    description: EXPORT,
    values,
    upstreams: { S3: aws.endpoint, DYNAMODB: dynamo.endpoint, SECRETS_MANAGER: secrets.endpoint, GLUE: glue.endpoint, ATHENA: athena.endpoint },
    bind: names,
    ...(revoke ? { revoke } : {}),
  });
  guards.push(iam);
  const env = { ...functionEnvironment(assembly.resources, EXPORT, values), MINTLIFY_API_URL: sandbox.url, ...iam.env };
  const bundle = `${assembly.functionAssetDir(EXPORT)}/index.js`;
  const invocation = await invokeBundle(assembly.outDir, bundle, event, env, functionHandler(assembly.resources, EXPORT), 120_000);
  return { ...invocation, iam };
}

describe('the export bundle with the Iceberg tables (-c tableFormat=iceberg)', { timeout: 180_000 }, () => {
  it('synthesizes with no unacknowledged cdk-nag finding', () => {
    expect(assembly.output).not.toMatch(/AwsSolutions-/);
  });

  it('merges the day it exported through Athena, every call allowed by its role: one MERGE per table in its workgroup', async () => {
    const { result, error, logs, iam } = await invokeExport({ date: DAY, projects: [PROJECT], datasets: ['visitors'] });

    expect(iam.denied, 'calls its role may not make').toEqual([]);
    expect(error, logs).toBeUndefined();
    expect(iam.calls).toEqual(
      expect.arrayContaining([
        `athena:StartQueryExecution on ${WORKGROUP_ARN}`,
        `athena:GetQueryExecution on ${WORKGROUP_ARN}`,
        `athena:GetQueryResults on ${WORKGROUP_ARN}`,
        `glue:BatchCreatePartition on arn:aws:glue:${TEST_REGION}:${TEST_ACCOUNT}:table/${DATABASE}/visitors_pages`,
        expect.stringMatching(/^s3:PutObject on arn:aws:s3:::[^/]+\/mintlify\/visitors_pages\//),
      ]),
    );
    expect(athena.queries.map((q) => `${q.workgroup} ${q.database} ${q.sql.split('\n')[0]}`)).toEqual([
      `${WORKGROUP} ${DATABASE} MERGE INTO "${DATABASE}"."iceberg_visitors_totals" AS t`,
      `${WORKGROUP} ${DATABASE} MERGE INTO "${DATABASE}"."iceberg_visitors_pages" AS t`,
    ]);
    expect(result).toMatchObject({
      completed: 1,
      iceberg: {
        failed: 0,
        statements: athena.queries.map((q) => expect.objectContaining({ kind: 'merge', queryId: q.id, state: 'SUCCEEDED', rows: 7 })),
      },
    });
    const listed = await aws.s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: 'mintlify/export_runs/' }));
    expect(listed.Contents ?? []).toHaveLength(1);
  });

  it('is refused the poll without athena:GetQueryExecution on its workgroup, and keeps the days for the next run', async () => {
    athena.queries.length = 0;

    const { result, error, logs, iam } = await invokeExport(
      { date: DAY, projects: [PROJECT], datasets: ['visitors'] },
      { action: 'athena:GetQueryExecution', resource: /workgroup/ },
    );

    expect(error, logs).toBeUndefined();
    expect(iam.denied).toEqual([`athena:GetQueryExecution on ${WORKGROUP_ARN}`, `athena:GetQueryExecution on ${WORKGROUP_ARN}`]);
    expect(result).toMatchObject({ iceberg: { failed: 2 } });
    expect(logs).toMatch(/iceberg merge failed: the next run tries again/);
  });
});
