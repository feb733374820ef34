/**
 * The Iceberg tables in the template (infra/constructs/iceberg-tables.ts): without context
 * `tableFormat=iceberg` nothing of them is there (the same template as `tableFormat=hive`); with
 * it, an Athena workgroup (engine 3, enforced, results under `_athena/`, a lifecycle rule), one
 * Iceberg table per dataset table under `iceberg/<table>/` partitioned by day (and by `org` with
 * `organisations=true`), the export's environment, and — evaluated by the bundle tests' IAM engine
 * (test/helpers/iam.ts) over the synthesized role — every call the export and Athena on its behalf
 * make allowed, and nothing beyond: no other workgroup, no Glue write of a Hive table, no
 * `athena:*` or `glue:*`.
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { ICEBERG_SOURCE_TABLES } from '../../functions/export/iceberg/layout.js';
import { MAINTENANCE_EVERY_MS } from '../../functions/export/iceberg/sync.js';
import { EXPORT_RUNS } from '../../functions/warehouse/tables.js';
import { evaluateCall, resolver, rolePolicies, TEST_ACCOUNT, type IamCall } from '../helpers/iam.js';
import { TEST_REGION } from '../../scripts/lib/s3-sqs.js';
import { synthTemplate } from '../helpers/synth.js';

type Resources = Record<string, { Type: string; Properties: Record<string, unknown> }>;
const resourcesOf = (context: Record<string, unknown>) => synthTemplate({ projectIds: 'proj_a', ...context }).toJSON()['Resources'] as Resources;
const ofType = (resources: Resources, type: string) => Object.entries(resources).filter(([, r]) => r.Type === type);
const icebergTables = (resources: Resources) => ofType(resources, 'AWS::Glue::Table').filter(([, r]) => r.Properties['OpenTableFormatInput'] !== undefined);

/** The value at `path` inside `value` (a template's nested properties). */
function at(value: unknown, ...path: string[]): unknown {
  return path.reduce<unknown>((inner, key) => (inner as Record<string, unknown> | undefined)?.[key], value);
}

/** The columns of the Glue table of `export_runs` (the run log). */
const runLogColumns = (resources: Resources) =>
  (
    at(
      ofType(resources, 'AWS::Glue::Table').find(([, r]) => at(r.Properties, 'TableInput', 'Name') === EXPORT_RUNS.name)?.[1].Properties,
      'TableInput',
      'StorageDescriptor',
      'Columns',
    ) as { Name: string }[]
  ).map((column) => column.Name);

/** The template with the assets' hashes (the code's fingerprints) taken out. */
const withoutHashes = (resources: Resources) => JSON.stringify(resources).replace(/[0-9a-f]{64}/g, '<hash>');

const DATABASE = 'mintlify_analytics';
const WORKGROUP = 'mintlify-exporter-iceberg';
const BUCKET = 'lake-bucket';

describe('without tableFormat=iceberg', () => {
  it('is the template of tableFormat=hive, with no Iceberg table, workgroup, grant or variable', () => {
    const plain = resourcesOf({});

    expect(withoutHashes(plain)).toBe(withoutHashes(resourcesOf({ tableFormat: 'hive' })));
    expect(icebergTables(plain)).toEqual([]);
    expect(ofType(plain, 'AWS::Athena::WorkGroup')).toHaveLength(1);
    // Not even the run log's column of Iceberg statements: the Glue table declares it with tableFormat=iceberg only.
    expect(runLogColumns(plain)).toContain('failed_requests');
    expect(JSON.stringify(plain)).not.toMatch(/athena:StartQueryExecution|EXPORT_ATHENA_WORKGROUP|_athena\/|iceberg/i);
  });

  it('refuses another table format, naming the option', () => {
    expect(() => resourcesOf({ tableFormat: 'delta' })).toThrow(/Invalid CDK context "tableFormat": "delta" is not accepted \(expected hive or iceberg\)/);
  });
});

describe('with tableFormat=iceberg', () => {
  const resources = resourcesOf({ tableFormat: 'iceberg' });
  const names: Record<string, string> = {};
  for (const [id, r] of Object.entries(resources)) {
    if (r.Type === 'AWS::S3::Bucket' && id.includes('Data')) names[id] = BUCKET;
    if (r.Type === 'AWS::Glue::Database') names[id] = DATABASE;
    if (r.Type === 'AWS::Athena::WorkGroup') names[id] = String(r.Properties['Name']);
  }
  const { resolve } = resolver(resources, names);
  const exportFunction = ofType(resources, 'AWS::Lambda::Function').find(([, r]) => String(r.Properties['Description']).startsWith('Hourly export'))?.[1];
  if (!exportFunction) throw new Error('no export function');
  const role = rolePolicies(resources, String(exportFunction.Properties['Description']), resolve);
  const allowed = async (call: IamCall) => (await evaluateCall(call, role.roleArn, role.policies, undefined)) === 'Allowed';
  const call = (action: string, resource: string, context: Record<string, string> = {}): IamCall => ({ action, resource, context });
  const glueArns = (table: string) => [
    `arn:aws:glue:${TEST_REGION}:${TEST_ACCOUNT}:catalog`,
    `arn:aws:glue:${TEST_REGION}:${TEST_ACCOUNT}:database/${DATABASE}`,
    `arn:aws:glue:${TEST_REGION}:${TEST_ACCOUNT}:table/${DATABASE}/${table}`,
  ];
  const workGroupArn = (name: string) => `arn:aws:athena:${TEST_REGION}:${TEST_ACCOUNT}:workgroup/${name}`;

  it('adds a workgroup on engine 3, its configuration enforced, results under _athena/ expiring', () => {
    const [, workGroup] = ofType(resources, 'AWS::Athena::WorkGroup').find(([, r]) => r.Properties['Name'] === WORKGROUP) ?? [];
    const configuration = resolve(workGroup?.Properties['WorkGroupConfiguration']) as Record<string, unknown>;
    const [, bucket] = ofType(resources, 'AWS::S3::Bucket').find(([id]) => id.includes('Data')) ?? [];
    const rules = (bucket?.Properties['LifecycleConfiguration'] as { Rules: Record<string, unknown>[] } | undefined)?.Rules;

    expect(configuration).toMatchObject({
      EnforceWorkGroupConfiguration: true,
      EngineVersion: { SelectedEngineVersion: 'Athena engine version 3' },
      ResultConfiguration: { OutputLocation: `s3://${BUCKET}/mintlify/_athena/` },
    });
    expect(rules).toContainEqual(
      expect.objectContaining({ Id: 'expire-iceberg-query-results', Prefix: 'mintlify/_athena/', ExpirationInDays: 7, Status: 'Enabled' }),
    );
  });

  it('declares one Iceberg table per dataset table under iceberg/<table>/, partitioned by day', () => {
    const tables = icebergTables(resources).map(([, r]) => resolve(r.Properties));

    expect(tables.map((t) => at(t, 'TableInput', 'Name')).sort()).toEqual(ICEBERG_SOURCE_TABLES.map((t) => `iceberg_${t.name}`).sort());
    expect(tables).toHaveLength(10);
    for (const table of tables) {
      const input = at(table, 'OpenTableFormatInput', 'IcebergInput');
      const name = String(at(table, 'TableInput', 'Name')).replace(/^iceberg_/, '');
      expect(at(input, 'MetadataOperation')).toBe('CREATE');
      expect(at(input, 'IcebergTableInput', 'Location')).toBe(`s3://${BUCKET}/mintlify/iceberg/${name}/`);
      const fields = at(input, 'IcebergTableInput', 'Schema', 'Fields') as { Id: number; Name: string }[];
      expect(at(input, 'IcebergTableInput', 'PartitionSpec', 'Fields')).toEqual([
        { SourceId: fields.find((f) => f.Name === 'dt')?.Id, FieldId: 1000, Name: 'dt_day', Transform: 'day' },
      ]);
      expect(at(table, 'DatabaseName')).toBe(DATABASE);
    }
  });

  it('drops erased rows from S3 within the days docs/privacy.md says: snapshot age, the weekly VACUUM, then the noncurrent versions', async () => {
    const ages = icebergTables(resources).map(([, r]) =>
      Number(at(r.Properties, 'OpenTableFormatInput', 'IcebergInput', 'IcebergTableInput', 'Properties', 'vacuum_max_snapshot_age_seconds')),
    );
    const [, bucket] = ofType(resources, 'AWS::S3::Bucket').find(([id]) => id.includes('Data')) ?? [];
    const rules = (bucket?.Properties['LifecycleConfiguration'] as { Rules: Record<string, unknown>[] } | undefined)?.Rules ?? [];
    const noncurrent = rules.find((rule) => rule['Id'] === 'expire-noncurrent-versions' && rule['Prefix'] === undefined);
    const days = (ms: number) => ms / 86_400_000;
    const snapshotDays = days((ages[0] ?? 0) * 1000);
    const noncurrentDays = Number(at(noncurrent, 'NoncurrentVersionExpiration', 'NoncurrentDays'));
    const privacy = await readFile(new URL('../../docs/privacy.md', import.meta.url), 'utf8');

    expect(new Set(ages).size).toBe(1);
    expect(privacy).toContain(`the snapshot is ${snapshotDays} days old`);
    expect(privacy).toContain(
      `at most ${snapshotDays + days(MAINTENANCE_EVERY_MS)} days after the erasure, then ${noncurrentDays} days as noncurrent versions`,
    );
    expect(privacy).toContain(`the bytes are gone within ${snapshotDays + days(MAINTENANCE_EVERY_MS) + noncurrentDays} days`);
  });

  it("declares the run log's column of Iceberg statements in export_runs, after the columns every deployment has", () => {
    const columns = at(
      ofType(resources, 'AWS::Glue::Table').find(([, r]) => at(r.Properties, 'TableInput', 'Name') === EXPORT_RUNS.name)?.[1].Properties,
      'TableInput',
      'StorageDescriptor',
      'Columns',
    ) as { Name: string; Type: string; Comment: string }[];

    expect(runLogColumns(resources)).toEqual([...runLogColumns(resourcesOf({})), 'iceberg_statements']);
    expect(columns.at(-1)).toMatchObject({
      Type: 'array<struct<kind:string,table_name:string,first_day:string,last_day:string,days:bigint,query_id:string,state:string,changed_rows:bigint,bytes_scanned:bigint,error:string>>',
      Comment: expect.stringMatching(/^Statements run on the Iceberg tables/),
    });
  });

  it('partitions by organisation too with organisations=true', () => {
    const tables = icebergTables(resourcesOf({ tableFormat: 'iceberg', organisations: 'true' }));
    const fields = at(tables[0]?.[1].Properties, 'OpenTableFormatInput', 'IcebergInput', 'IcebergTableInput', 'PartitionSpec', 'Fields') as {
      Name: string;
      Transform: string;
    }[];

    expect(fields.map((f) => `${f.Name} ${f.Transform}`)).toEqual(['org identity', 'dt_day day']);
  });

  it("gives the export its workgroup and database, and the organisations' workers too", () => {
    const env = (fn: { Properties: Record<string, unknown> }) =>
      resolve((fn.Properties['Environment'] as { Variables: unknown }).Variables) as Record<string, string>;
    expect(env(exportFunction)).toMatchObject({ EXPORT_ATHENA_WORKGROUP: WORKGROUP, EXPORT_ICEBERG_DATABASE: DATABASE });

    const orgs = resourcesOf({ tableFormat: 'iceberg', organisations: 'true' });
    const worker = ofType(orgs, 'AWS::Lambda::Function').find(([, r]) => String(r.Properties['Description']).startsWith("Exports one organisation's"))?.[1];
    expect(Object.keys((worker?.Properties['Environment'] as { Variables: object } | undefined)?.Variables ?? {})).toEqual(
      expect.arrayContaining(['EXPORT_ATHENA_WORKGROUP', 'EXPORT_ICEBERG_DATABASE']),
    );
  });

  it('allows every call of the statements: the three Athena calls in its workgroup, Glue on its tables, S3 on its folders', async () => {
    const calls: IamCall[] = [
      ...['athena:StartQueryExecution', 'athena:GetQueryExecution', 'athena:GetQueryResults'].map((action) => call(action, workGroupArn(WORKGROUP))),
      ...ICEBERG_SOURCE_TABLES.flatMap((t) => [
        ...glueArns(t.name).flatMap((arn) => [call('glue:GetTable', arn), call('glue:GetPartitions', arn)]),
        ...glueArns(`iceberg_${t.name}`).flatMap((arn) => [call('glue:GetTable', arn), call('glue:UpdateTable', arn)]),
        call('s3:GetObject', `arn:aws:s3:::${BUCKET}/mintlify/${t.prefix}/dt=2026-11-01/proj_a.parquet`),
        ...['s3:GetObject', 's3:PutObject', 's3:DeleteObject'].map((action) =>
          call(action, `arn:aws:s3:::${BUCKET}/mintlify/iceberg/${t.name}/data/00000-0.parquet`),
        ),
      ]),
      call('glue:GetDatabase', `arn:aws:glue:${TEST_REGION}:${TEST_ACCOUNT}:database/${DATABASE}`),
      call('s3:PutObject', `arn:aws:s3:::${BUCKET}/mintlify/_athena/q-1.csv`),
      call('s3:GetObject', `arn:aws:s3:::${BUCKET}/mintlify/_athena/q-1.csv`),
      call('s3:ListBucket', `arn:aws:s3:::${BUCKET}`, { 's3:prefix': 'mintlify/iceberg/feedback/metadata/' }),
      call('s3:GetBucketLocation', `arn:aws:s3:::${BUCKET}`),
    ];
    for (const one of calls) expect(await allowed(one), `${one.action} on ${one.resource}`).toBe(true);
  });

  it('allows nothing beyond: another workgroup, a write of a Hive table or another table, no athena:* or glue:*', async () => {
    const refused: IamCall[] = [
      call('athena:StartQueryExecution', workGroupArn('mintlify-exporter')),
      call('athena:StartQueryExecution', workGroupArn('primary')),
      call('athena:DeleteWorkGroup', workGroupArn(WORKGROUP)),
      ...glueArns('visitors_pages')
        .slice(2)
        .map((arn) => call('glue:UpdateTable', arn)),
      ...glueArns('iceberg_visitors_pages').map((arn) => call('glue:DeleteTable', arn)),
      ...glueArns('export_runs')
        .slice(2)
        .map((arn) => call('glue:GetTable', arn)),
      call('s3:DeleteObject', `arn:aws:s3:::${BUCKET}/mintlify/followup_outcomes/dt=2026-11-01/r.json`),
      call('s3:PutObject', `arn:aws:s3:::${BUCKET}/mintlify/_privacy/erasures/x.json`),
    ];
    for (const one of refused) expect(await allowed(one), `${one.action} on ${one.resource}`).toBe(false);
    const actions = role.policies.flatMap(({ policy }) => policy.Statement).flatMap((s) => [s.Action].flat());
    expect(actions.filter((a) => /^(athena|glue):\*$|^\*$/.test(a))).toEqual([]);
  });
});
