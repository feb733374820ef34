/**
 * The warehouse: the data bucket (or an existing one), the Glue database and tables generated
 * from functions/warehouse/tables.ts, and an Athena workgroup with a few named queries. Partition
 * projection makes every new `dt=` folder queryable at once: no crawler, no MSCK REPAIR.
 *
 * It also owns the key layout, so the grants that scope each function to its prefixes live here.
 */
import { Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import * as athena from 'aws-cdk-lib/aws-athena';
import * as glue from 'aws-cdk-lib/aws-glue';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { QUESTIONS, questionSql } from '../../queries/questions.js';
import { asInterface } from './as-interface.js';
import { parseDay } from '../../functions/shared/dates.js';
import { EXPORT_RUNS, TABLES } from '../../functions/warehouse/tables.js';
import type { ColumnDef, ScalarColumnType, TableDef } from '../../functions/warehouse/table-def.js';
import { rootOf } from '../../functions/warehouse/lake/layout.js';
import { DATASET_TABLES } from '../../functions/warehouse/catalog.js';
import { commentWithPolicy, parsePolicyOverrides, resolvePolicy, type PersonalDataPolicy } from '../../functions/warehouse/column-policy.js';

/** Glue/Hive type of each scalar column type of tables.ts. */
export const GLUE_TYPES: Readonly<Record<ScalarColumnType, glue.Type>> = {
  string: glue.Schema.STRING,
  date: glue.Schema.DATE,
  int64: glue.Schema.BIG_INT,
  double: glue.Schema.DOUBLE,
  timestamp_ms: glue.Schema.TIMESTAMP,
  boolean: glue.Schema.BOOLEAN,
};

/** Glue/Hive type of a column: a scalar, or `array<struct<…>>` for a record list. */
export function glueTypeOf(column: ColumnDef): glue.Type {
  if (column.type !== 'record_list') return GLUE_TYPES[column.type];
  return glue.Schema.array(glue.Schema.struct((column.fields ?? []).map((field) => ({ name: field.name, type: GLUE_TYPES[field.type] }))));
}

/**
 * First day partition projection enumerates (`projection.dt.range` is `<this>,NOW`) unless the
 * `partitionProjectionStart` context option says otherwise: a day before it is invisible in Athena.
 */
export const DEFAULT_PROJECTION_START = '2020-01-01';

/** Props of {@link Warehouse}. */
export interface WarehouseProps {
  /**
   * An existing bucket to write into (imported with `Bucket.fromBucketName`; its encryption,
   * versioning and logging are then the owner's business).
   * @default - a new bucket is created (SSE-S3, TLS only, versioned, access-logged)
   */
  readonly bucketName?: string | undefined;
  /**
   * Key prefix of everything this app writes, without leading or trailing slash
   * (`EXPORT_DESTINATION` is `s3://<bucket>/<prefix>`).
   * @default 'mintlify'
   */
  readonly prefix?: string | undefined;
  /**
   * `PERSONAL_DATA_POLICY`: the overrides of the columns' policies, named in the Glue column comments.
   * @default - the table definitions' defaults
   */
  readonly personalDataPolicy?: string | undefined;
  /**
   * First day (YYYY-MM-DD) Athena's partition projection enumerates: a backfill of older days
   * needs an earlier start.
   * @default DEFAULT_PROJECTION_START ('2020-01-01')
   */
  readonly partitionProjectionStart?: string | undefined;
  /**
   * A deployment for many organisations (context `organisations=true`): the export's tables live
   * under `orgs/<id>/` and have an `org` partition (projection `injected`: a query names the
   * organisation) before `dt`, every table of the layout (the run tables too).
   * @default false
   */
  readonly organisations?: boolean | undefined;
  /**
   * Context `tableFormat`: a column of tables.ts marked with a table format is declared in the
   * Glue table only in a deployment of that format (`export_runs.iceberg_statements`).
   * @default 'hive'
   */
  readonly tableFormat?: 'hive' | 'iceberg' | undefined;
  /**
   * Glue database name (Athena: `SELECT … FROM <database>.visitors_pages`).
   * @default 'mintlify_analytics'
   */
  readonly databaseName?: string | undefined;
  /**
   * Athena workgroup name.
   * @default 'mintlify-exporter'
   */
  readonly workGroupName?: string | undefined;
  /**
   * How long noncurrent object versions and Athena query results are kept.
   * @default Duration.days(30)
   */
  readonly retention?: Duration | undefined;
}

export class Warehouse extends Construct {
  /** The columns' policies the Glue comments name. */
  private readonly columnPolicy: PersonalDataPolicy;
  /** First day the partition projection enumerates (YYYY-MM-DD). */
  private readonly projectionStart: string;
  /** The export's tables are partitioned by organisation (`orgs/<id>/`). */
  private readonly organisations: boolean;
  /** The table format of the deployment: which marked columns the Glue tables declare. */
  private readonly tableFormat: 'hive' | 'iceberg';
  readonly bucket: s3.IBucket;
  /** `''` or the prefix with a trailing slash: what every key this app writes starts with. */
  readonly keyPrefix: string;
  /** `s3://<bucket>/<prefix>`: the `EXPORT_DESTINATION` of both functions. */
  readonly destination: string;
  readonly database: glue.Database;
  /** One Glue table per entry of tables.ts `TABLES`, by table name. */
  readonly tables: Readonly<Record<string, glue.S3Table>>;
  readonly workGroup: athena.CfnWorkGroup;

  constructor(scope: Construct, id: string, props: WarehouseProps = {}) {
    super(scope, id);
    this.columnPolicy = resolvePolicy(parsePolicyOverrides(props.personalDataPolicy ?? '', 'personalDataPolicy'));
    this.projectionStart = parseDay(props.partitionProjectionStart ?? DEFAULT_PROJECTION_START, 'partitionProjectionStart');
    this.organisations = props.organisations === true;
    this.tableFormat = props.tableFormat ?? 'hive';
    const prefix = (props.prefix ?? 'mintlify').replace(/^\/+|\/+$/g, '');
    this.keyPrefix = prefix === '' ? '' : `${prefix}/`;
    const retention = props.retention ?? Duration.days(30);

    this.bucket =
      props.bucketName === undefined ? asInterface<s3.IBucket>(this.createBucket(retention)) : s3.Bucket.fromBucketName(this, 'Bucket', props.bucketName);
    this.destination = `s3://${this.bucket.bucketName}${prefix === '' ? '' : `/${prefix}`}`;

    this.database = new glue.Database(this, 'Database', {
      databaseName: props.databaseName ?? 'mintlify_analytics',
      description: 'Mintlify analytics (visitors, views, searches, feedback, assistant) and follow-up outcomes (mintlify-exporter).',
    });

    const tables: Record<string, glue.S3Table> = {};
    for (const def of TABLES) tables[def.name] = this.createTable(def);
    this.tables = tables;

    const resultsLocation = `s3://${this.bucket.bucketName}/${this.keyPrefix}athena-results/`;
    this.workGroup = new athena.CfnWorkGroup(this, 'WorkGroup', {
      name: props.workGroupName ?? 'mintlify-exporter',
      description: 'Queries over the Mintlify export (results kept under athena-results/).',
      // Lets `cdk destroy` remove the workgroup even when it holds saved queries/history.
      recursiveDeleteOption: true,
      workGroupConfiguration: {
        enforceWorkGroupConfiguration: true,
        publishCloudWatchMetricsEnabled: true,
        engineVersion: { selectedEngineVersion: 'Athena engine version 3' },
        resultConfiguration: {
          outputLocation: resultsLocation,
          encryptionConfiguration: { encryptionOption: 'SSE_S3' },
        },
      },
    });
    this.addNamedQueries();
  }

  /**
   * Export: read, replace and delete the tables of every dataset (tables.ts `DATASET_TABLES`),
   * every dataset's manifests (`_manifests/*`: the heal step and `status` read them) and the
   * checkpoints of units in progress (`_staging/*`: written, read on resume, deleted once the
   * unit is complete), the index of units and the monthly roll-ups (`_index/*`, `_rollups/*`:
   * derived, rewritten as the days change) — and put and read its run records (`export_runs/*`:
   * appended, read back only to fold a day's records into the run log's monthly index in
   * `_index/_runs/`, never deleted by the export), read the erasure records (`_privacy/erasures/*`: `forget`
   * writes them from the CLI, every export leaves those rows out), and read and write the
   * records of expired units (`_privacy/expired/*`: retention leaves one per unit it deleted,
   * and no run plans that unit again); nothing else (not the
   * follow-up outcomes, not Athena results).
   * Listing is limited to those folders (`s3:prefix`): S3 answers a read of a missing key 404
   * only to a caller that may list the key's prefix, 403 otherwise, and "no manifest yet" must
   * read as absent.
   */
  grantExportReadWrite(grantee: iam.IGrantable): void {
    const folders = exportFolders();
    this.grantFolders(
      grantee,
      { read: [...folders, rootOf('runs'), rootOf('erasures'), rootOf('expired')], write: [...folders, rootOf('runs'), rootOf('expired')], remove: folders },
      "The export reads, replaces and deletes objects under its own table, manifest and staging folders, reads the erasure records under _privacy/erasures/ (to leave erased people out), reads and writes the records of expired units under _privacy/expired/ (retention: never planned again) and appends run records under export_runs/, reading back those of the day it folds into the run log's monthly index (_index/); listing is limited to the folders it reads (s3:prefix). The wildcard is the object key within each folder.",
    );
  }

  /**
   * Register days as partitions of `tables` (functions/warehouse/partitions.ts): `glue:GetTable`
   * (the table's storage descriptor, copied to the partition) and `glue:BatchCreatePartition`, on
   * the account's catalog, this database and those tables only, no wildcard. The export (and its
   * workers) by default: the dataset tables and the run log (`export_runs`) its runs write.
   */
  grantPartitionRegistration(grantee: iam.IGrantable, tables: readonly string[] = [...DATASET_TABLE_NAMES, EXPORT_RUNS.name]): void {
    const names = new Set(tables);
    const arns = Object.entries(this.tables)
      .filter(([name]) => names.has(name))
      .map(([, table]) => table.tableArn);
    grantee.grantPrincipal.addToPrincipalPolicy(
      new iam.PolicyStatement({
        actions: ['glue:GetTable', 'glue:BatchCreatePartition'],
        resources: [this.database.catalog.catalogArn, this.database.databaseArn, ...arns],
      }),
    );
  }

  /**
   * The export workers of many organisations: what {@link grantExportReadWrite} grants, in every
   * organisation's folder (`orgs/<id>/`, any id: organisations are added without a deploy).
   */
  grantOrganisationsExportReadWrite(grantee: iam.IGrantable): void {
    const folders = exportFolders().map((folder) => `${ORGS_FOLDER}*/${folder}`);
    this.grantFolders(
      grantee,
      {
        read: [...folders, `${ORGS_FOLDER}*/${rootOf('runs')}`, `${ORGS_FOLDER}*/${rootOf('erasures')}`, `${ORGS_FOLDER}*/${rootOf('expired')}`],
        write: [...folders, `${ORGS_FOLDER}*/${rootOf('runs')}`, `${ORGS_FOLDER}*/${rootOf('expired')}`],
        remove: folders,
      },
      "The export workers read, replace and delete objects under each organisation's table, manifest and staging folders (orgs/<id>/…), read its erasure records, read and write the records of its expired units (retention) and append its run records, reading back those of the day it folds into the run log's monthly index; listing is limited to those folders (s3:prefix). The wildcards are the organisation's id and the object key within each folder.",
    );
  }

  /**
   * The weekly report of many organisations: list the organisations' folders (`orgs/`, one
   * level), and in each read what {@link grantWarehouseRead} and {@link grantPageRead} grant and
   * put its pages under its own `reports` folder and its verdicts on fixes under its own
   * `fix_effects` folder (`records` and `reports` end with `/`).
   */
  grantOrganisationsWeeklyReport(grantee: iam.IGrantable, records: string, reports: string): void {
    const inEach = (folder: string) => `${ORGS_FOLDER}*/${folder}`;
    this.grantFolders(
      grantee,
      {
        // The erasure records: the page's export health names the erasures that changed its figures.
        read: [...exportFolders(), rootOf('runs'), rootOf('expired'), rootOf('erasures'), rootOf('outcomes'), records].map(inEach),
        write: [inEach(reports), inEach(rootOf('fixEffects'))],
      },
      "The weekly report of many organisations reads each organisation's exported tables, manifests, checkpoints, run log, erasure records, outcomes and anomaly marks (orgs/<id>/…), lists only those folders (s3:prefix), and puts its pages and its verdicts on fixes under that organisation's reports and fix_effects folders. The wildcards are the organisation's id and the object key within each folder.",
    );
    this.grantOrganisationsList(grantee);
  }

  /**
   * The hourly insights check of many organisations: list the organisations' folders (`orgs/`,
   * one level), and in each read what {@link grantWarehouseRead} grants and read, rewrite and
   * delete its anomaly records under `records` (ending with `/`).
   */
  grantOrganisationsInsightsCheck(grantee: iam.IGrantable, records: string): void {
    const inEach = (folder: string) => `${ORGS_FOLDER}*/${folder}`;
    this.grantFolders(
      grantee,
      { read: [...[...exportFolders(), rootOf('runs'), records].map(inEach)], write: [inEach(records)], remove: [inEach(records)] },
      "The insights check of many organisations reads each organisation's exported tables, manifests, checkpoints and run log (orgs/<id>/…), reads, rewrites and deletes its anomaly records, and lists only those folders (s3:prefix). The wildcards are the organisation's id and the object key within each folder.",
    );
    this.grantOrganisationsList(grantee);
  }

  /** Listing the organisations' folders one level deep (`orgs/` with the delimiter `/`): their ids, nothing else. */
  private grantOrganisationsList(grantee: iam.IGrantable): void {
    grantee.grantPrincipal.addToPrincipalPolicy(
      new iam.PolicyStatement({
        actions: ['s3:ListBucket'],
        resources: [this.bucket.bucketArn],
        conditions: { StringEquals: { 's3:prefix': `${this.keyPrefix}${ORGS_FOLDER}`, 's3:delimiter': '/' } },
      }),
    );
  }

  /**
   * The weekly report and the insights check: read what the export wrote — every dataset's
   * tables, manifests and checkpoints, the run log and the expiry records — and list only those folders; nothing
   * else (not the follow-up outcomes, not Athena results, not the reports).
   */
  grantWarehouseRead(grantee: iam.IGrantable): void {
    this.grantFolders(
      grantee,
      { read: [...exportFolders(), rootOf('runs'), rootOf('expired')] },
      'The insights functions read objects under the exported table, manifest, checkpoint, index, roll-up and run-log folders and the expiry records (a day removed by retention is named expired, not missing) only, and list only those folders (s3:prefix). The wildcard is the object key within each folder.',
    );
  }

  /**
   * The weekly report also shows the fixes made for gaps (the follow-up outcome records), the
   * hourly check's anomaly marks (`records`, ending with `/`) and the erasures (`forget`) that
   * changed its figures (the erasure records): read and list those folders.
   */
  grantPageRead(grantee: iam.IGrantable, records: string): void {
    this.grantFolders(
      grantee,
      { read: [rootOf('outcomes'), records, rootOf('erasures')] },
      'The weekly report reads the follow-up outcome records, the anomaly marks and the erasure records its page shows, and lists only those folders (s3:prefix). The wildcard is the object key within each folder.',
    );
  }

  /** The weekly report: put its pages under `<prefix>/<reports>` only (`reports` ends with `/`). */
  grantReportsWrite(grantee: iam.IGrantable, reports: string): void {
    this.grantFolders(
      grantee,
      { write: [reports] },
      'The weekly report only puts its pages under the reports folder (and aborts its own failed multipart uploads there). The wildcard is the object key within it.',
    );
  }

  /** The insights check: read, rewrite and delete its anomaly records under `<prefix>/<records>` only (`records` ends with `/`). */
  grantInsightsRecordsWrite(grantee: iam.IGrantable, records: string): void {
    this.grantFolders(
      grantee,
      { read: [records], write: [records], remove: [records] },
      'The insights check reads, rewrites and deletes its anomaly records under their own folder only, and lists only that folder (s3:prefix). The wildcard is the object key within it.',
    );
  }

  /** The weekly report: put the week's verdicts on fixes under `fix_effects/` only (tables.ts FIX_EFFECTS). */
  grantFixEffectsWrite(grantee: iam.IGrantable): void {
    this.grantFolders(
      grantee,
      { write: [rootOf('fixEffects')] },
      'The weekly report puts the verdicts on fixes (one file per project and day) under the fix_effects folder only (and aborts its own failed multipart uploads there). The wildcard is the object key within it.',
    );
  }

  /** Follow-up consumer: write outcome records, nothing else (it never reads the bucket). */
  grantOutcomesWrite(grantee: iam.IGrantable): void {
    this.grantFolders(
      grantee,
      { write: [rootOf('outcomes')] },
      'The consumer only puts outcome records under the followup_outcomes folder (and aborts its own failed multipart uploads there). The wildcard is the object key within it.',
    );
  }

  /** The follow-up function of many organisations: {@link grantOutcomesWrite} in every organisation's folder (`orgs/<id>/`). */
  grantOrganisationsOutcomesWrite(grantee: iam.IGrantable): void {
    this.grantFolders(
      grantee,
      { write: [`${ORGS_FOLDER}*/${rootOf('outcomes')}`] },
      "The consumer of many organisations only puts outcome records under each organisation's followup_outcomes folder (orgs/<id>/…). The wildcards are the organisation's id and the object key within the folder.",
    );
  }

  /**
   * Grants exactly: `s3:GetObject` on the objects of each `read` folder and `s3:ListBucket` on
   * the bucket only for prefixes within those folders; `s3:PutObject` and
   * `s3:AbortMultipartUpload` on the objects of each `write` folder; `s3:DeleteObject` on the
   * objects of each `remove` folder. Folders are relative to the app's prefix and end with `/`.
   */
  private grantFolders(
    grantee: iam.IGrantable,
    folders: { read?: readonly string[]; write?: readonly string[]; remove?: readonly string[] },
    reason: string,
  ): void {
    const objects = (list: readonly string[]) => list.map((folder) => `${this.keyPrefix}${folder}*`);
    const principal = grantee.grantPrincipal;
    const statements: iam.PolicyStatement[] = [];
    const { read = [], write = [], remove = [] } = folders;
    if (read.length > 0) {
      statements.push(new iam.PolicyStatement({ actions: ['s3:GetObject'], resources: objects(read).map((key) => this.bucket.arnForObjects(key)) }));
      statements.push(
        new iam.PolicyStatement({
          actions: ['s3:ListBucket'],
          resources: [this.bucket.bucketArn],
          conditions: { StringLike: { 's3:prefix': objects(read) } },
        }),
      );
    }
    if (write.length > 0) {
      statements.push(
        new iam.PolicyStatement({
          actions: ['s3:PutObject', 's3:AbortMultipartUpload'],
          resources: objects(write).map((key) => this.bucket.arnForObjects(key)),
        }),
      );
    }
    if (remove.length > 0) {
      statements.push(new iam.PolicyStatement({ actions: ['s3:DeleteObject'], resources: objects(remove).map((key) => this.bucket.arnForObjects(key)) }));
    }
    for (const statement of statements) principal.addToPrincipalPolicy(statement);
    this.acknowledgeKeyPatternGrant(grantee, [...new Set(objects([...read, ...write, ...remove]))], [], reason);
  }

  /**
   * Acknowledges exactly the IAM5 findings a key-pattern grant produces (each action family and
   * each `<bucket>/<pattern>` resource), so any other wildcard added later still fails cdk-nag.
   */
  private acknowledgeKeyPatternGrant(grantee: iam.IGrantable, patterns: readonly string[], actionFamilies: readonly string[], reason: string): void {
    const principal = grantee.grantPrincipal;
    if (!Construct.isConstruct(principal)) return;
    const bucketArn =
      this.bucket instanceof s3.Bucket
        ? `<${Stack.of(this).getLogicalId(this.bucket.node.defaultChild as s3.CfnBucket)}.Arn>`
        : `arn:<AWS::Partition>:s3:::${this.bucket.bucketName}`;
    const findings = [...actionFamilies.map((action) => `Action::${action}`), ...patterns.map((pattern) => `Resource::${bucketArn}/${pattern}`)];
    for (const finding of findings) {
      Validations.of(principal).acknowledge({ id: `AwsSolutions-IAM5[${finding}]`, reason });
    }
  }

  private createBucket(retention: Duration): s3.Bucket {
    const accessLogs = new s3.Bucket(this, 'AccessLogs', {
      encryption: s3.BucketEncryption.S3_MANAGED, // the only encryption S3 log delivery supports
      enforceSSL: true,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      lifecycleRules: [{ expiration: Duration.days(90) }],
      removalPolicy: RemovalPolicy.RETAIN,
    });
    Validations.of(accessLogs).acknowledge({
      id: 'AwsSolutions-S1',
      reason: 'This is the server access log bucket of the data bucket; logging it into itself would loop and logging it elsewhere only moves the problem.',
    });

    return new s3.Bucket(this, 'Data', {
      encryption: s3.BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      // Versioning: a re-run replaces a day's files; the previous version stays recoverable
      // (a bad re-run or a mistaken delete can be undone) for `retention`, then expires so
      // heal and refresh re-runs do not grow the bill forever.
      versioned: true,
      // Personal data (docs/privacy.md, "What remains after forget"): a file `forget` or
      // retention rewrote or deleted stays as a noncurrent version for `retention`, then goes,
      // and so do the delete markers left; Athena's results (they may quote rows) expire after
      // `retention` and their noncurrent version a day later. Finite by default.
      lifecycleRules: [
        { id: 'expire-noncurrent-versions', noncurrentVersionExpiration: retention, expiredObjectDeleteMarker: true },
        // A crashed streamed upload leaves invisible parts that are billed until aborted.
        { id: 'abort-incomplete-uploads', abortIncompleteMultipartUploadAfter: Duration.days(1) },
        {
          id: 'expire-athena-results',
          prefix: `${this.keyPrefix}athena-results/`,
          expiration: retention,
          noncurrentVersionExpiration: Duration.days(1),
        },
      ],
      serverAccessLogsBucket: asInterface<s3.IBucket>(accessLogs),
      serverAccessLogsPrefix: 'data/',
      // The exported history cannot be re-fetched from the API beyond its retention window.
      removalPolicy: RemovalPolicy.RETAIN,
    });
  }

  private createTable(def: TableDef): glue.S3Table {
    // Many organisations: each organisation's lake is `orgs/<id>/` with the layout inside, so every
    // table — the run tables included (export_runs, followup_outcomes, fix_effects) — is
    // `orgs/<id>/<table>/dt=…/`, with an `org` partition before `dt`.
    const byOrg = this.organisations;
    const location = `s3://${this.bucket.bucketName}/${this.keyPrefix}${byOrg ? `${ORGS_FOLDER}\${org}/` : ''}${def.prefix}/`;
    const table = new glue.S3Table(this, tableConstructId(def), {
      database: this.database,
      tableName: def.name,
      description: def.comment,
      storage: glue.S3TableStorage.fromBucket(this.bucket),
      s3Prefix: byOrg ? `${this.keyPrefix}${ORGS_FOLDER}` : `${this.keyPrefix}${def.prefix}/`,
      columns: def.columns
        .filter((column) => column.tableFormat === undefined || column.tableFormat === this.tableFormat)
        .map((column) => ({
          name: column.name,
          type: glueTypeOf(column),
          // The column's policy (docs/privacy.md) is named in its comment.
          comment: commentWithPolicy(def, column, this.columnPolicy),
        })),
      // `dt` is the Hive folder name (`dt=YYYY-MM-DD`), a string; projection treats it as a date.
      partitionKeys: [
        ...(byOrg ? [{ name: ORG_PARTITION, type: glue.Schema.STRING, comment: 'organisation id (name it in every query: its projection is injected)' }] : []),
        { name: def.partitionKey, type: glue.Schema.STRING, comment: 'UTC day, YYYY-MM-DD' },
      ],
      dataFormat: def.format === 'parquet' ? glue.DataFormat.PARQUET : glue.DataFormat.JSON,
      // SSE is transparent to Athena; `true` would make it expect client-side (CSE-KMS) encryption.
      hasEncryptedData: false,
      partitionProjection: {
        // Organisations are data (secrets): their ids cannot be enumerated at deploy time.
        ...(byOrg ? { [ORG_PARTITION]: glue.PartitionProjectionConfiguration.injected() } : {}),
        [def.partitionKey]: glue.PartitionProjectionConfiguration.date({
          min: this.projectionStart,
          max: 'NOW',
          format: 'yyyy-MM-dd',
          step: { interval: 1, intervalUnit: glue.DateIntervalUnit.DAYS },
        }),
      },
      parameters: {
        'storage.location.template': `${location}${def.partitionKey}=\${${def.partitionKey}}/`,
      },
    });
    if (def.format === 'json') {
      // Outcome records carry ISO-8601 timestamps (Date#toISOString); the OpenX SerDe parses
      // only `yyyy-MM-dd HH:mm:ss` and epoch millis unless told the format.
      const cfn = table.node.defaultChild as glue.CfnTable;
      cfn.addPropertyOverride('TableInput.StorageDescriptor.SerdeInfo.Parameters', {
        'timestamp.formats': "yyyy-MM-dd'T'HH:mm:ss.SSS'Z',yyyy-MM-dd'T'HH:mm:ss'Z'",
      });
    }
    return table;
  }

  /** The saved questions of queries/ (the same SQL `npm start` asks DuckDB), in Athena's dialect. */
  private addNamedQueries(): void {
    for (const question of QUESTIONS.filter((q) => q.saved)) {
      new athena.CfnNamedQuery(this, question.id, {
        name: question.name,
        description: question.description,
        database: this.database.databaseName,
        workGroup: this.workGroup.ref,
        queryString: questionSql(question, 'athena'),
      });
    }
  }
}

/**
 * The key patterns (under the app's prefix) the export reads and writes: each dataset table's
 * folder, every manifest and every checkpoint. Derived from tables.ts so a new dataset is
 * covered the day it is added.
 */
export function exportKeyPatterns(): string[] {
  return exportFolders().map((folder) => `${folder}*`);
}

/**
 * The folders (under the app's prefix, each ending with `/`) the export reads and writes: the
 * tables, manifests and checkpoints, and what is derived from them — the index of units and the
 * monthly roll-ups (lake/layout.ts), which the export keeps and every reader reads first.
 */
export function exportFolders(): string[] {
  const tablePrefixes = [...new Set(Object.values(DATASET_TABLES).flatMap((defs) => defs.map((def) => def.prefix)))];
  return [...tablePrefixes.map((prefix) => `${prefix}/`), rootOf('manifest'), rootOf('staging'), rootOf('unitIndex'), rootOf('rollups')];
}

/** The folder of the organisations' lakes, under the app's prefix. */
export const ORGS_FOLDER = rootOf('organisation');
/** The partition naming the organisation in a deployment for many organisations. */
export const ORG_PARTITION = 'org';
const DATASET_TABLE_NAMES: readonly string[] = Object.values(DATASET_TABLES).flatMap((defs) => defs.map((def) => def.name));

/** `visitors_totals` → `VisitorsTotalsTable`. */
function tableConstructId(def: TableDef): string {
  return `${def.name.replace(/(^|_)([a-z])/g, (_m, _sep: string, c: string) => c.toUpperCase())}Table`;
}
