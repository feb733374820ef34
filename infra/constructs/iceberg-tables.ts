/**
 * The Iceberg tables (context `tableFormat=iceberg`, docs/warehouse.md "Iceberg tables"): per
 * dataset table an Apache Iceberg table in the stack's Glue database, declared in the template,
 * under `<prefix>/iceberg/<table>/`, partitioned by day (and by organisation with
 * `organisations=true`); an Athena workgroup (engine version 3, its configuration enforced) whose
 * results go to `<prefix>/_athena/` and expire; and the grants the export needs to run its
 * statements there (functions/export/iceberg/): Athena's three query calls on that workgroup only,
 * Glue on the stack's database and its tables only, S3 on its folders only.
 */
import { Annotations, Duration, Stack, Validations } from 'aws-cdk-lib';
import * as athena from 'aws-cdk-lib/aws-athena';
import * as glue from 'aws-cdk-lib/aws-glue';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import {
  ATHENA_RESULTS_PREFIX,
  DAY_COLUMN,
  icebergFolder,
  icebergTableName,
  ICEBERG_PREFIX,
  ICEBERG_SOURCE_TABLES,
  ORG_COLUMN,
} from '../../functions/export/iceberg/layout.js';
import { icebergColumns, type IcebergColumn } from '../../functions/export/iceberg/statements.js';
import type { Warehouse } from './warehouse.js';

/** Iceberg's own type names (the table spec), for the DDL names statements.ts uses. */
const SPEC_TYPES: Readonly<Record<IcebergColumn['type'], string>> = {
  string: 'string',
  date: 'date',
  bigint: 'long',
  double: 'double',
  timestamp: 'timestamp',
  boolean: 'boolean',
};

/** Snapshots older than this go at the weekly VACUUM: time travel reaches a week back, erased rows are gone from S3 a week later. */
export const SNAPSHOT_AGE_SECONDS = 7 * 24 * 3_600;

/** Props of {@link IcebergTables}. */
export interface IcebergTablesProps {
  /** The bucket, prefix and Glue database the tables live in, beside the Hive tables. */
  readonly warehouse: Warehouse;
  /**
   * A deployment for many organisations: each table has an `org` column, partitioned by it too.
   * @default false
   */
  readonly organisations?: boolean | undefined;
  /**
   * The workgroup's name.
   * @default 'mintlify-exporter-iceberg'
   */
  readonly workGroupName?: string | undefined;
  /**
   * How long the workgroup's query results are kept under `_athena/`.
   * @default Duration.days(7)
   */
  readonly resultsRetention?: Duration | undefined;
}

export class IcebergTables extends Construct {
  readonly workGroup: athena.CfnWorkGroup;
  /** One Iceberg table per dataset table, by the dataset table's name. */
  readonly tables: Readonly<Record<string, glue.CfnTable>>;
  private readonly warehouse: Warehouse;

  constructor(scope: Construct, id: string, props: IcebergTablesProps) {
    super(scope, id);
    const { warehouse } = props;
    this.warehouse = warehouse;
    const byOrg = props.organisations === true;
    const retention = props.resultsRetention ?? Duration.days(7);
    const bucketName = warehouse.bucket.bucketName;
    const root = `s3://${bucketName}/${warehouse.keyPrefix}`;

    this.workGroup = new athena.CfnWorkGroup(this, 'WorkGroup', {
      name: props.workGroupName ?? 'mintlify-exporter-iceberg',
      description: "The export's MERGE, DELETE, OPTIMIZE and VACUUM of the Iceberg tables (results kept under _athena/).",
      recursiveDeleteOption: true,
      workGroupConfiguration: {
        enforceWorkGroupConfiguration: true,
        publishCloudWatchMetricsEnabled: true,
        engineVersion: { selectedEngineVersion: 'Athena engine version 3' },
        resultConfiguration: { outputLocation: `${root}${ATHENA_RESULTS_PREFIX}`, encryptionConfiguration: { encryptionOption: 'SSE_S3' } },
      },
    });
    if (warehouse.bucket instanceof s3.Bucket) {
      warehouse.bucket.addLifecycleRule({
        id: 'expire-iceberg-query-results',
        prefix: `${warehouse.keyPrefix}${ATHENA_RESULTS_PREFIX}`,
        expiration: retention,
        noncurrentVersionExpiration: Duration.days(1),
      });
    } else {
      Annotations.of(this).addWarningV2(
        'mintlify-exporter:iceberg-results-lifecycle',
        `The bucket ${bucketName} is not managed by this stack: add a lifecycle rule expiring ${warehouse.keyPrefix}${ATHENA_RESULTS_PREFIX} (Athena's query results) yourself.`,
      );
    }

    const tables: Record<string, glue.CfnTable> = {};
    for (const def of ICEBERG_SOURCE_TABLES) {
      const columns = icebergColumns(def, byOrg);
      const idOf = (name: string) => columns.findIndex((column) => column.name === name) + 1;
      const location = `${root}${icebergFolder(def.name)}`;
      tables[def.name] = new glue.CfnTable(this, `${def.name.replace(/(^|_)([a-z])/g, (_m, _s: string, c: string) => c.toUpperCase())}Iceberg`, {
        catalogId: Stack.of(this).account,
        databaseName: warehouse.database.databaseName,
        tableInput: {
          name: icebergTableName(def.name),
          description: `${def.comment} Iceberg: merged from the day files after each run.`,
          tableType: 'EXTERNAL_TABLE',
          storageDescriptor: { location },
        },
        openTableFormatInput: {
          icebergInput: {
            metadataOperation: 'CREATE',
            version: '2',
            icebergTableInput: {
              location,
              schema: {
                type: 'struct',
                schemaId: 0,
                fields: columns.map((column, index) => ({
                  id: index + 1,
                  name: column.name,
                  type: SPEC_TYPES[column.type],
                  required: column.required,
                  doc: column.comment.slice(0, 255),
                })),
              },
              partitionSpec: {
                specId: 0,
                fields: [
                  ...(byOrg ? [{ sourceId: idOf(ORG_COLUMN), fieldId: 1000, name: ORG_COLUMN, transform: 'identity' }] : []),
                  { sourceId: idOf(DAY_COLUMN), fieldId: byOrg ? 1001 : 1000, name: `${DAY_COLUMN}_day`, transform: 'day' },
                ],
              },
              properties: {
                'write.format.default': 'parquet',
                'write.parquet.compression-codec': 'zstd',
                vacuum_max_snapshot_age_seconds: String(SNAPSHOT_AGE_SECONDS),
              },
            },
          },
        },
      });
      tables[def.name]?.node.addDependency(warehouse.database);
    }
    this.tables = tables;
  }

  /**
   * The export's statements (functions/export/iceberg/): `athena:StartQueryExecution`,
   * `GetQueryExecution` and `GetQueryResults` on this workgroup only; Glue reads of the catalog,
   * the stack's database and its dataset tables (Hive and Iceberg: the MERGE reads one, writes the
   * other) and `glue:UpdateTable` of the Iceberg tables only (each commit moves the table's
   * metadata pointer); S3: read the day files' folders (granted to the export already), read,
   * write and delete under `iceberg/` (data and metadata; VACUUM deletes) and `_athena/` (results).
   */
  grantStatements(grantee: iam.IGrantable): void {
    const stack = Stack.of(this);
    const principal = grantee.grantPrincipal;
    const workGroupArn = stack.formatArn({ service: 'athena', resource: 'workgroup', resourceName: this.workGroup.ref });
    const glueArn = (resource: string, resourceName?: string) => stack.formatArn({ service: 'glue', resource, ...(resourceName ? { resourceName } : {}) });
    const database = this.warehouse.database.databaseName;
    const icebergTables = ICEBERG_SOURCE_TABLES.map((def) => glueArn('table', `${database}/${icebergTableName(def.name)}`));
    const hiveTables = ICEBERG_SOURCE_TABLES.map((def) => glueArn('table', `${database}/${def.name}`));
    principal.addToPrincipalPolicy(
      new iam.PolicyStatement({ actions: ['athena:StartQueryExecution', 'athena:GetQueryExecution', 'athena:GetQueryResults'], resources: [workGroupArn] }),
    );
    principal.addToPrincipalPolicy(
      new iam.PolicyStatement({
        actions: ['glue:GetDatabase', 'glue:GetTable', 'glue:GetPartitions'],
        resources: [glueArn('catalog'), this.warehouse.database.databaseArn, ...hiveTables, ...icebergTables],
      }),
    );
    principal.addToPrincipalPolicy(
      new iam.PolicyStatement({ actions: ['glue:UpdateTable'], resources: [glueArn('catalog'), this.warehouse.database.databaseArn, ...icebergTables] }),
    );
    const bucket = this.warehouse.bucket;
    const folders = [ICEBERG_PREFIX, ATHENA_RESULTS_PREFIX].map((folder) => `${this.warehouse.keyPrefix}${folder}*`);
    principal.addToPrincipalPolicy(
      new iam.PolicyStatement({
        actions: ['s3:GetObject', 's3:PutObject', 's3:DeleteObject', 's3:AbortMultipartUpload'],
        resources: folders.map((key) => bucket.arnForObjects(key)),
      }),
    );
    principal.addToPrincipalPolicy(
      new iam.PolicyStatement({ actions: ['s3:ListBucket'], resources: [bucket.bucketArn], conditions: { StringLike: { 's3:prefix': folders } } }),
    );
    principal.addToPrincipalPolicy(new iam.PolicyStatement({ actions: ['s3:GetBucketLocation'], resources: [bucket.bucketArn] }));
    if (!Construct.isConstruct(principal)) return;
    const bucketArn =
      bucket instanceof s3.Bucket ? `<${stack.getLogicalId(bucket.node.defaultChild as s3.CfnBucket)}.Arn>` : `arn:<AWS::Partition>:s3:::${bucket.bucketName}`;
    for (const key of folders) {
      Validations.of(principal).acknowledge({
        id: `AwsSolutions-IAM5[Resource::${bucketArn}/${key}]`,
        reason:
          "Athena's statements of the export write and delete the Iceberg tables' files under iceberg/ and the query results under _athena/; the wildcard is the object key within each folder.",
      });
    }
  }
}
