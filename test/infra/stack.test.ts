import { Validations } from 'aws-cdk-lib';
import { Match, type Template } from 'aws-cdk-lib/assertions';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { AwsSolutionsChecks } from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import { FOLLOWUP_OUTCOMES, TABLES, VISITORS_PAGES, VISITORS_TOTALS } from '../../functions/warehouse/tables.js';
import type { ColumnDef, ColumnType } from '../../functions/warehouse/table-def.js';
import { ContextConfigError, MintlifyExporterStack, configFromContext } from '../../infra/stack.js';
import { CDK_JSON_CONTEXT, synthStack, withApp, rolePolicies } from '../helpers/synth.js';
import { commentWithPolicy, resolvePolicy } from '../../functions/warehouse/column-policy.js';

type Resource = { Type: string; Properties: Record<string, any>; DeletionPolicy?: string };
type Statement = { Action: string | string[]; Resource: unknown; Effect: string };

const defaults = synthStack({ projectIds: 'proj_a,proj_b' });

/** The one resource of `type` whose properties match `props` (fails otherwise). */
function only(template: Template, type: string, props?: Record<string, unknown>): [string, Resource] {
  const found = Object.entries(template.findResources(type, props ? { Properties: Match.objectLike(props) } : undefined));
  expect(found, `${type} matching ${JSON.stringify(props)}`).toHaveLength(1);
  return found[0] as [string, Resource];
}

/** The secret of the personal-data key (infra/constructs/personal-data-key.ts). */
function personalDataKeySecret(template: Template): [string, Resource] {
  return only(template, 'AWS::SecretsManager::Secret', { Description: Match.stringLikeRegexp('personal-data hmac') });
}

/** The Lambda function whose POWERTOOLS_SERVICE_NAME is `service`. */
function lambdaOf(template: Template, service: string): [string, Resource] {
  return only(template, 'AWS::Lambda::Function', {
    Environment: { Variables: Match.objectLike({ POWERTOOLS_SERVICE_NAME: service }) },
  });
}

/** Every statement of the inline policies attached to the role of function `fn`. */
function statementsOf(template: Template, fn: Resource): Statement[] {
  const roleRef = (fn.Properties.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
  return Object.values(rolePolicies(template) as Record<string, Resource>)
    .filter((policy) => (policy.Properties.Roles as { Ref: string }[]).some((role) => role.Ref === roleRef))
    .flatMap((policy) => policy.Properties.PolicyDocument.Statement as Statement[]);
}

const actionsOf = (statement: Statement): string[] => [statement.Action].flat();
const resourcesOf = (statement: Statement): string => JSON.stringify(statement.Resource);

const GLUE_TYPE: Record<ColumnType, string> = {
  string: 'string',
  date: 'date',
  int64: 'bigint',
  double: 'double',
  timestamp_ms: 'timestamp',
  boolean: 'boolean',
  record_list: 'array<struct<…>>',
};

/** The Glue type a column must have: scalars from the map, record lists spelled out. */
function glueTypeOf(column: ColumnDef): string {
  if (column.type !== 'record_list') return GLUE_TYPE[column.type];
  return `array<struct<${(column.fields ?? []).map((field) => `${field.name}:${GLUE_TYPE[field.type]}`).join(',')}>>`;
}

describe('export schedule and function', () => {
  it('runs the export hourly (at :05) by default', () => {
    const [exportId] = lambdaOf(defaults.template, 'mintlify-export');
    defaults.template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'cron(5 * * * ? *)',
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [exportId, 'Arn'] } })],
    });
  });

  it('takes the schedule from the "schedule" context value', () => {
    const { template } = synthStack({ projectIds: 'p', schedule: 'cron(0 5 * * ? *)' });
    template.hasResourceProperties('AWS::Events::Rule', { ScheduleExpression: 'cron(0 5 * * ? *)' });
  });

  it('gives the export 15 minutes, 1024 MB and a single concurrent run on Node 24 x86_64 (DuckDB for the monthly roll-ups)', () => {
    const [, fn] = lambdaOf(defaults.template, 'mintlify-export');
    expect(fn.Properties).toMatchObject({
      Runtime: 'nodejs24.x',
      Architectures: ['x86_64'],
      Timeout: 900,
      MemorySize: 1024,
      ReservedConcurrentExecutions: 1,
      Handler: 'index.handler',
    });
  });

  it('does not retry a failed run at once (the next hourly run plans its units again) and records it in the failure queue', () => {
    const [exportId] = lambdaOf(defaults.template, 'mintlify-export');
    const [queueId] = only(defaults.template, 'AWS::SQS::Queue', { FifoQueue: Match.absent(), VisibilityTimeout: Match.absent() });
    defaults.template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      FunctionName: { Ref: exportId },
      MaximumRetryAttempts: 0,
      DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [queueId, 'Arn'] } } },
    });
  });

  it('passes project ids, destination, secret ARN, state table, datasets, budget and tuning through the environment only', () => {
    const [, fn] = lambdaOf(defaults.template, 'mintlify-export');
    const [secretId] = only(defaults.template, 'AWS::SecretsManager::Secret', { Description: Match.stringLikeRegexp('Mintlify admin API key') });
    const [tableId] = only(defaults.template, 'AWS::DynamoDB::Table');
    const [bucketId] = only(defaults.template, 'AWS::S3::Bucket', { VersioningConfiguration: { Status: 'Enabled' } });
    const [keySecretId] = personalDataKeySecret(defaults.template);
    expect(fn.Properties.Environment.Variables).toEqual({
      // DuckDB's home (temp files) where Lambda can write: the export builds the monthly roll-ups.
      HOME: '/tmp',
      MINTLIFY_API_KEY_SECRET_ARN: { Ref: secretId },
      MINTLIFY_PROJECT_IDS: 'proj_a,proj_b',
      EXPORT_DESTINATION: { 'Fn::Join': ['', ['s3://', { Ref: bucketId }, '/mintlify']] },
      POWERTOOLS_SERVICE_NAME: 'mintlify-export',
      POWERTOOLS_METRICS_NAMESPACE: 'MintlifyExporter',
      POWERTOOLS_LOG_LEVEL: 'INFO',
      EXPORT_STATE_TABLE: { Ref: tableId },
      EXPORT_GLUE_DATABASE: { Ref: only(defaults.template, 'AWS::Glue::Database')[0] },
      EXPORT_HEAL_DAYS: '7',
      EXPORT_DATASETS: 'visitors,views,searches,feedback,feedback_by_page,assistant,caller_stats',
      PERSONAL_DATA_KEY_SECRET_ARN: { Ref: keySecretId },
      ANALYTICS_BUDGET: '90/1h',
      EXPORT_SETTLE_HOURS: '2',
      EXPORT_REFRESH_DAYS: '7',
      NODE_OPTIONS: '--enable-source-maps',
    });
  });

  it('takes datasets, the personal-data policy and retention, budget and settleHours from context', () => {
    const { template } = synthStack({
      projectIds: 'p',
      datasets: 'views,searches',
      personalDataPolicy: 'feedback.contact=drop',
      personalDataRetentionDays: '400',
      budget: '40/1h',
      settleHours: '4',
    });
    expect(lambdaOf(template, 'mintlify-export')[1].Properties.Environment.Variables).toMatchObject({
      EXPORT_DATASETS: 'views,searches',
      PERSONAL_DATA_POLICY: 'feedback.contact=drop',
      PERSONAL_DATA_RETENTION_DAYS: '400',
      ANALYTICS_BUDGET: '40/1h',
      EXPORT_SETTLE_HOURS: '4',
    });
  });

  it.each([
    ['datasets', 'visitors,pageviews'],
    ['personalDataPolicy', 'feedback.path=hmac'],
    ['personalDataRetentionDays', '0'],
    ['budget', '90 per hour'],
    // Refused by the functions' own parser (the context once took what the Lambda then refused).
    ['budget', '90/0h'],
    ['budget', '0/1h'],
    ['settleHours', '100'],
    ['partitionProjectionStart', '2024-1-1'],
    ['partitionProjectionStart', '2023-02-29'],
  ])('refuses the context value %s=%s, naming the key', (key, value) => {
    expect(() => synthStack({ projectIds: 'p', [key]: value })).toThrow(new RegExp(`Invalid CDK context "${key}`));
  });

  it('sets MINTLIFY_API_URL only when the apiUrl context value overrides it', () => {
    expect(lambdaOf(defaults.template, 'mintlify-export')[1].Properties.Environment.Variables).not.toHaveProperty('MINTLIFY_API_URL');
    const { template } = synthStack({ projectIds: 'p', apiUrl: 'https://api.example.test' });
    for (const service of ['mintlify-export', 'mintlify-followup']) {
      expect(lambdaOf(template, service)[1].Properties.Environment.Variables.MINTLIFY_API_URL).toBe('https://api.example.test');
    }
  });

  it('refuses the retired feedbackContact context value with the line that replaces it', () => {
    expect(() => synthStack({ projectIds: 'p', feedbackContact: 'true' })).toThrow(/"feedbackContact" is retired: .*personalDataPolicy=feedback\.contact=keep/);
  });

  it('creates the secret without any value in the template', () => {
    const [, secret] = only(defaults.template, 'AWS::SecretsManager::Secret', { Description: Match.stringLikeRegexp('Mintlify admin API key') });
    expect(secret.Properties).not.toHaveProperty('SecretString');
    expect(JSON.stringify(defaults.template.toJSON())).not.toMatch(/mint_[A-Za-z0-9]/);
  });

  it('uses an existing secret given by apiKeySecretArn instead of creating one', () => {
    const arn = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:mintlify-key-AbC123';
    const { template } = synthStack({ projectIds: 'p', apiKeySecretArn: arn });
    expect(
      template.findResources('AWS::SecretsManager::Secret', {
        Properties: Match.objectLike({ Description: Match.stringLikeRegexp('Mintlify admin API key') }),
      }),
    ).toEqual({});
    const [, fn] = lambdaOf(template, 'mintlify-export');
    expect(fn.Properties.Environment.Variables.MINTLIFY_API_KEY_SECRET_ARN).toBe(arn);
    const secretStatement = statementsOf(template, fn).find((s) => actionsOf(s).includes('secretsmanager:GetSecretValue'));
    expect([secretStatement?.Resource].flat()).toContain(arn);
  });
});

describe('follow-up queue and consumer', () => {
  const [consumerId, consumer] = lambdaOf(defaults.template, 'mintlify-followup');
  const [queueId, queue] = only(defaults.template, 'AWS::SQS::Queue', { FifoQueue: true, RedrivePolicy: Match.anyValue() });
  const [dlqId, dlq] = only(defaults.template, 'AWS::SQS::Queue', { FifoQueue: true, RedrivePolicy: Match.absent() });

  it('runs the consumer on Node 24 ARM with a 2-minute timeout', () => {
    expect(consumer.Properties).toMatchObject({ Runtime: 'nodejs24.x', Architectures: ['arm64'], Timeout: 120 });
  });

  it('keeps messages invisible for at least 6 times the consumer timeout', () => {
    expect(queue.Properties.VisibilityTimeout).toBeGreaterThanOrEqual(6 * (consumer.Properties.Timeout as number));
  });

  it('uses FIFO queues without content-based deduplication for the queue and its dead-letter queue', () => {
    expect(queue.Properties).toMatchObject({ FifoQueue: true, ContentBasedDeduplication: false });
    expect(dlq.Properties).toMatchObject({ FifoQueue: true, ContentBasedDeduplication: false });
  });

  it('dead-letters a message after 1000 receives by default, as a last resort', () => {
    expect(queue.Properties.RedrivePolicy).toEqual({
      deadLetterTargetArn: { 'Fn::GetAtt': [dlqId, 'Arn'] },
      maxReceiveCount: 1000,
    });
  });

  it('takes maxReceiveCount from context', () => {
    const { template } = synthStack({ projectIds: 'p', maxReceiveCount: '50' });
    const [, custom] = only(template, 'AWS::SQS::Queue', { RedrivePolicy: Match.anyValue() });
    expect(custom.Properties.RedrivePolicy.maxReceiveCount).toBe(50);
  });

  it('feeds the consumer batches of 10 with partial batch failures and at most 2 concurrent batches', () => {
    defaults.template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      EventSourceArn: { 'Fn::GetAtt': [queueId, 'Arn'] },
      FunctionName: { Ref: consumerId },
      BatchSize: 10,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      ScalingConfig: { MaximumConcurrency: 2 },
    });
  });

  it('keeps consumer state in an on-demand table keyed by pk with TTL, PITR and retention on delete', () => {
    const [, table] = only(defaults.template, 'AWS::DynamoDB::Table');
    expect(table.Properties).toMatchObject({
      KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
      AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
      BillingMode: 'PAY_PER_REQUEST',
      TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
    });
    expect(table.DeletionPolicy).toBe('Retain');
  });

  it('tells the consumer its table, dead-letter queue and maximum wait', () => {
    const [tableId] = only(defaults.template, 'AWS::DynamoDB::Table');
    expect(consumer.Properties.Environment.Variables).toMatchObject({
      FOLLOWUP_STATE_TABLE: { Ref: tableId },
      FOLLOWUP_DEAD_LETTER_QUEUE_URL: { Ref: dlqId },
      FOLLOWUP_MAX_WAIT_HOURS: '24',
      POWERTOOLS_SERVICE_NAME: 'mintlify-followup',
      MINTLIFY_PROJECT_IDS: 'proj_a,proj_b',
    });
  });
});

describe('least privilege', () => {
  const [, exportFn] = lambdaOf(defaults.template, 'mintlify-export');
  const [, consumer] = lambdaOf(defaults.template, 'mintlify-followup');
  const [tableId] = only(defaults.template, 'AWS::DynamoDB::Table');
  const [queueId] = only(defaults.template, 'AWS::SQS::Queue', { RedrivePolicy: Match.anyValue() });
  const [dlqId] = only(defaults.template, 'AWS::SQS::Queue', { FifoQueue: true, RedrivePolicy: Match.absent() });

  it('grants no action on Resource "*" in any IAM policy', () => {
    const statements = Object.values(rolePolicies(defaults.template) as Record<string, Resource>).flatMap(
      (policy) => policy.Properties.PolicyDocument.Statement as Statement[],
    );
    expect(statements.length).toBeGreaterThan(0);
    expect(statements.filter((s) => [s.Resource].flat().includes('*'))).toEqual([]);
  });

  it('keeps the export away from the follow-up queues and the outcomes', () => {
    const text = JSON.stringify(statementsOf(defaults.template, exportFn));
    expect(text).not.toContain(queueId);
    expect(text).not.toContain(dlqId);
    expect(text).not.toContain(FOLLOWUP_OUTCOMES.prefix);
  });

  it('lets the export use the state table for its budget ledger, leases and backlog', () => {
    const statements = statementsOf(defaults.template, exportFn);
    const onTable = statements.filter((s) => resourcesOf(s).includes(`"${tableId}"`)).flatMap(actionsOf);
    expect(onTable).toEqual(expect.arrayContaining(['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:DeleteItem', 'dynamodb:Scan']));
  });

  it('scopes the export S3 access to the dataset tables, the manifests, the staging area, the index of units, the roll-ups and the run log', () => {
    const s3 = statementsOf(defaults.template, exportFn).filter((s) => actionsOf(s).some((a) => a.startsWith('s3:')));
    const objectPatterns = s3
      .flatMap((s) => [s.Resource].flat())
      .map((r) => JSON.stringify(r))
      .filter((r) => r.includes('/'));
    const expected = [
      ...TABLES.filter((def) => def.format === 'parquet').map((def) => `/mintlify/${def.prefix}/*`),
      '/mintlify/_manifests/*',
      '/mintlify/_staging/*',
      // Derived from the manifests and the days (issue 50): the index of units and the monthly roll-ups.
      '/mintlify/_index/*',
      '/mintlify/_rollups/*',
      '/mintlify/export_runs/*',
      // Read only: the erasure records every export honours (forget writes them from the CLI).
      '/mintlify/_privacy/erasures/*',
      // Issue 42: retention leaves a record per expired unit, and the planner reads them.
      '/mintlify/_privacy/expired/*',
    ];
    expect(new Set(objectPatterns).size).toBe(expected.length);
    for (const suffix of expected) expect(objectPatterns).toContainEqual(expect.stringContaining(`"${suffix}"`));
  });

  it('lets the consumer only put outcome records in the bucket, never read visitors data', () => {
    const s3 = statementsOf(defaults.template, consumer).filter((s) => actionsOf(s).some((a) => a.startsWith('s3:')));
    expect(s3.flatMap(actionsOf).filter((a) => /^s3:(Get|List|Delete)/.test(a))).toEqual([]);
    expect(s3.map(resourcesOf).join()).not.toMatch(/visitors_|_manifests/);
    expect(s3.map(resourcesOf)).toEqual([expect.stringContaining(`/mintlify/${FOLLOWUP_OUTCOMES.prefix}/*`)]);
  });

  it('lets the consumer change visibility on its queue, send to its dead-letter queue and use its table', () => {
    const statements = statementsOf(defaults.template, consumer);
    const on = (id: string) => statements.filter((s) => resourcesOf(s).includes(`"${id}"`)).flatMap(actionsOf);
    expect(on(queueId)).toEqual(expect.arrayContaining(['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:ChangeMessageVisibility']));
    expect(on(dlqId)).toContain('sqs:SendMessage');
    expect(on(tableId)).toEqual(expect.arrayContaining(['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:DeleteItem']));
  });

  it('lets both functions read the API key secret', () => {
    const [secretId] = only(defaults.template, 'AWS::SecretsManager::Secret', { Description: Match.stringLikeRegexp('Mintlify admin API key') });
    for (const fn of [exportFn, consumer]) {
      const statement = statementsOf(defaults.template, fn).find((s) => actionsOf(s).includes('secretsmanager:GetSecretValue'));
      expect([statement?.Resource].flat()).toContainEqual({ Ref: secretId });
    }
  });

  it("writes logs only to each function's own log group, kept 30 days", () => {
    for (const fn of [exportFn, consumer]) {
      const logGroupId = (fn.Properties.LoggingConfig.LogGroup as { Ref: string }).Ref;
      expect(defaults.template.toJSON().Resources[logGroupId].Properties.RetentionInDays).toBe(30);
      const logs = statementsOf(defaults.template, fn).filter((s) => actionsOf(s).some((a) => a.startsWith('logs:')));
      expect(logs.map((s) => s.Resource)).toEqual([{ 'Fn::GetAtt': [logGroupId, 'Arn'] }]);
    }
    const roles = Object.values(defaults.template.findResources('AWS::IAM::Role') as Record<string, Resource>);
    expect(roles.filter((role) => JSON.stringify(role.Properties.ManagedPolicyArns ?? []).includes('AWSLambdaBasicExecutionRole'))).toEqual([]);
  });
});

describe('warehouse', () => {
  it.each(TABLES.map((def) => [def.name, def] as const))('defines the Glue table %s column for column from tables.ts', (name, def) => {
    const [, table] = only(defaults.template, 'AWS::Glue::Table', { TableInput: Match.objectLike({ Name: name }) });
    const input = table.Properties.TableInput;
    // Each comment ends with the column's policy (docs/privacy.md); a column marked tableFormat=iceberg is that template's only.
    expect(input.StorageDescriptor.Columns).toEqual(
      def.columns
        .filter((column) => column.tableFormat === undefined)
        .map((column) => ({ Name: column.name, Type: glueTypeOf(column), Comment: commentWithPolicy(def, column, resolvePolicy({})) })),
    );
    expect(input.PartitionKeys).toEqual([expect.objectContaining({ Name: 'dt', Type: 'string' })]);
  });

  it('reads visitors tables as Parquet and outcomes as one JSON object per file (OpenX SerDe)', () => {
    const serdeOf = (name: string) =>
      only(defaults.template, 'AWS::Glue::Table', { TableInput: Match.objectLike({ Name: name }) })[1].Properties.TableInput.StorageDescriptor.SerdeInfo
        .SerializationLibrary;
    expect(serdeOf(VISITORS_TOTALS.name)).toBe('org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe');
    expect(serdeOf(VISITORS_PAGES.name)).toBe('org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe');
    expect(serdeOf(FOLLOWUP_OUTCOMES.name)).toBe('org.openx.data.jsonserde.JsonSerDe');
  });

  it('parses the ISO-8601 timestamps of outcome records (Date#toISOString)', () => {
    const [, table] = only(defaults.template, 'AWS::Glue::Table', { TableInput: Match.objectLike({ Name: FOLLOWUP_OUTCOMES.name }) });
    const formats = String(table.Properties.TableInput.StorageDescriptor.SerdeInfo.Parameters['timestamp.formats']).split(',');
    expect(formats).toContain("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'");
  });

  it('keeps the data bucket private, encrypted, TLS-only and versioned with noncurrent versions expiring', () => {
    const [bucketId, bucket] = only(defaults.template, 'AWS::S3::Bucket', { VersioningConfiguration: { Status: 'Enabled' } });
    expect(bucket.Properties).toMatchObject({
      BucketEncryption: { ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] },
      PublicAccessBlockConfiguration: { BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true },
      LoggingConfiguration: expect.objectContaining({ DestinationBucketName: expect.anything() }),
    });
    expect(bucket.Properties.LifecycleConfiguration.Rules).toContainEqual(
      expect.objectContaining({ NoncurrentVersionExpiration: { NoncurrentDays: 30 }, Status: 'Enabled' }),
    );
    defaults.template.hasResourceProperties('AWS::S3::BucketPolicy', {
      Bucket: { Ref: bucketId },
      PolicyDocument: {
        Statement: Match.arrayWith([Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })]),
      },
    });
  });

  it('keeps nothing forget or retention removed for ever: noncurrent versions, delete markers and Athena results expire', () => {
    const [, bucket] = only(defaults.template, 'AWS::S3::Bucket', { VersioningConfiguration: { Status: 'Enabled' } });
    const rules = bucket.Properties.LifecycleConfiguration.Rules;
    expect(rules).toContainEqual(
      expect.objectContaining({ NoncurrentVersionExpiration: { NoncurrentDays: 30 }, ExpiredObjectDeleteMarker: true, Status: 'Enabled' }),
    );
    expect(rules).toContainEqual(
      expect.objectContaining({
        Prefix: 'mintlify/athena-results/',
        ExpirationInDays: 30,
        NoncurrentVersionExpiration: { NoncurrentDays: 1 },
        Status: 'Enabled',
      }),
    );
  });

  it('writes into an existing bucket and prefix given by context, without creating a data bucket', () => {
    const { template } = synthStack({ projectIds: 'p', bucketName: 'corp-data-lake', prefix: '/analytics/mintlify/' });
    expect(template.findResources('AWS::S3::Bucket')).toEqual({});
    const [, fn] = lambdaOf(template, 'mintlify-export');
    expect(fn.Properties.Environment.Variables.EXPORT_DESTINATION).toBe('s3://corp-data-lake/analytics/mintlify');
    const [, table] = only(template, 'AWS::Glue::Table', { TableInput: Match.objectLike({ Name: VISITORS_PAGES.name }) });
    expect(table.Properties.TableInput.StorageDescriptor.Location).toBe('s3://corp-data-lake/analytics/mintlify/visitors_pages/');
  });

  it('runs Athena engine v3 with an enforced, encrypted results location under athena-results/', () => {
    const [bucketId] = only(defaults.template, 'AWS::S3::Bucket', { VersioningConfiguration: { Status: 'Enabled' } });
    defaults.template.hasResourceProperties('AWS::Athena::WorkGroup', {
      WorkGroupConfiguration: Match.objectLike({
        EnforceWorkGroupConfiguration: true,
        EngineVersion: { SelectedEngineVersion: 'Athena engine version 3' },
        ResultConfiguration: {
          OutputLocation: { 'Fn::Join': ['', ['s3://', { Ref: bucketId }, '/mintlify/athena-results/']] },
          EncryptionConfiguration: { EncryptionOption: 'SSE_S3' },
        },
      }),
    });
  });

  it('saves the three named queries, each on a table the stack defines', () => {
    const queries = Object.values(defaults.template.findResources('AWS::Athena::NamedQuery') as Record<string, Resource>);
    const byName = Object.fromEntries(queries.map((q) => [q.Properties.Name as string, q.Properties.QueryString as string]));
    expect(byName["Yesterday's top pages"]).toMatch(new RegExp(`FROM ${VISITORS_PAGES.name}\\b`));
    expect(byName['Human vs AI visitors, last 30 days']).toMatch(new RegExp(`FROM ${VISITORS_TOTALS.name}\\b`));
    expect(byName['Follow-up outcomes by status']).toMatch(new RegExp(`FROM ${FOLLOWUP_OUTCOMES.name}\\b[\\s\\S]*GROUP BY status`));
  });
});

describe('operations', () => {
  const alarmOn = (metricName: string, dimensions?: Record<string, unknown>) =>
    only(defaults.template, 'AWS::CloudWatch::Alarm', {
      MetricName: metricName,
      ...(dimensions ? { Dimensions: [dimensions] } : {}),
    })[1].Properties;

  it('alarms when three hourly runs in a row leave overdue units of the heal window without a manifest', () => {
    expect(alarmOn('MissingDays')).toMatchObject({
      Namespace: 'MintlifyExporter',
      Dimensions: [{ Name: 'service', Value: 'mintlify-export' }],
      Statistic: 'Maximum',
      Period: 3_600,
      EvaluationPeriods: 3,
      ComparisonOperator: 'GreaterThanThreshold',
      Threshold: 0,
    });
  });

  it('alarms when more than a day of budget stays queued for six hours', () => {
    expect(alarmOn('BacklogRequests')).toMatchObject({
      Namespace: 'MintlifyExporter',
      Dimensions: [{ Name: 'service', Value: 'mintlify-export' }],
      Statistic: 'Minimum',
      Period: 3_600,
      EvaluationPeriods: 6,
      ComparisonOperator: 'GreaterThanThreshold',
      Threshold: 90 * 24,
    });
  });

  it('alarms on the first uncertain prompt', () => {
    expect(alarmOn('PromptsUncertain')).toMatchObject({
      Namespace: 'MintlifyExporter',
      Dimensions: [{ Name: 'service', Value: 'mintlify-followup' }],
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      Threshold: 1,
    });
  });

  it('alarms when outcomes fail to reach the outcomes topic for fifteen minutes in a row', () => {
    const alarm = alarmOn('OutcomeNotifyFailures');

    expect(alarm).toMatchObject({
      Namespace: 'MintlifyExporter',
      Dimensions: [{ Name: 'service', Value: 'mintlify-followup' }],
      Statistic: 'Sum',
      Period: 300,
      EvaluationPeriods: 3,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      Threshold: 1,
    });
    expect(alarm.AlarmDescription).toMatch(/sns:Publish/);
  });

  it('alarms, at low severity, on the first unit with schema drift in an hour', () => {
    const alarm = alarmOn('SchemaDrift');

    expect(alarm).toMatchObject({
      Namespace: 'MintlifyExporter',
      Dimensions: [{ Name: 'service', Value: 'mintlify-export' }],
      Statistic: 'Sum',
      Period: 3_600,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      Threshold: 1,
    });
    expect(alarm.AlarmDescription).toMatch(/low severity, nothing lost/);
    expect(alarm.AlarmDescription).toMatch(/unknown_fields/);
  });

  it('alarms on any error of either function', () => {
    for (const service of ['mintlify-export', 'mintlify-followup']) {
      const [fnId] = lambdaOf(defaults.template, service);
      expect(alarmOn('Errors', { Name: 'FunctionName', Value: { Ref: fnId } })).toMatchObject({
        Namespace: 'AWS/Lambda',
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        Threshold: 1,
      });
    }
  });

  it('alarms on one message in the follow-up dead-letter queue or the export failure queue', () => {
    const [dlqId] = only(defaults.template, 'AWS::SQS::Queue', { FifoQueue: true, RedrivePolicy: Match.absent() });
    const [failureId] = only(defaults.template, 'AWS::SQS::Queue', { FifoQueue: Match.absent(), VisibilityTimeout: Match.absent() });
    for (const queueId of [dlqId, failureId]) {
      expect(alarmOn('ApproximateNumberOfMessagesVisible', { Name: 'QueueName', Value: { 'Fn::GetAtt': [queueId, 'QueueName'] } })).toMatchObject({
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        Threshold: 1,
      });
    }
  });

  it('notifies an encrypted topic from every alarm', () => {
    const [topicId, topic] = only(defaults.template, 'AWS::SNS::Topic', { DisplayName: 'mintlify-exporter alarms' });
    expect(topic.Properties.KmsMasterKeyId).toBeDefined();
    const alarms = Object.values(defaults.template.findResources('AWS::CloudWatch::Alarm') as Record<string, Resource>);
    expect(alarms.filter((alarm) => JSON.stringify(alarm.Properties.AlarmActions) !== JSON.stringify([{ Ref: topicId }]))).toEqual([]);
  });

  it('subscribes the alarmEmail context value to the topic, and nobody by default', () => {
    expect(defaults.template.findResources('AWS::SNS::Subscription')).toEqual({});
    const { template } = synthStack({ projectIds: 'p', alarmEmail: 'docs-team@example.com' });
    template.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'email', Endpoint: 'docs-team@example.com' });
  });
});

describe('context configuration', () => {
  const configOf = (context: Record<string, unknown>) => withApp(context, configFromContext);

  it('accepts project ids as a comma list or an array', () => {
    expect(configOf({ projectIds: ' proj_a, proj_b ,' }).projectIds).toEqual(['proj_a', 'proj_b']);
    expect(configOf({ projectIds: ['proj_a', 'proj_b'] }).projectIds).toEqual(['proj_a', 'proj_b']);
  });

  it.each([
    ['schedule', 'every night', /"schedule".*cron\(/],
    ['projectIds', 'proj a', /"projectIds": "proj a" is not accepted/],
    ['apiUrl', 'http://api.mintlify.com', /"apiUrl".*https/],
    ['apiKeySecretArn', 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:mintlify-key', /"apiKeySecretArn".*complete ARN/],
    ['alarmEmail', 'nobody', /"alarmEmail"/],
    ['maxReceiveCount', '0', /"maxReceiveCount"/],
  ])('refuses an invalid %s with an error naming the key', (key, value, message) => {
    expect(() => configOf({ [key]: value })).toThrow(ContextConfigError);
    expect(() => configOf({ [key]: value })).toThrow(message);
  });

  it('fails the synth when the app-level cdk-nag plugin finds an unacknowledged issue', () => {
    withApp({ ...CDK_JSON_CONTEXT, 'aws:cdk:bundling-stacks': [], projectIds: 'p' }, (app) => {
      const stack = new MintlifyExporterStack(app, 'MintlifyExporter', { config: configFromContext(app) });
      new sqs.Queue(stack, 'NotTlsOnly', { enforceSSL: false });
      Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
      expect(() => app.synth()).toThrow(/AwsSolutions-SQS4/);
    });
  });
});

describe('stack outputs', () => {
  it('name the state table, which a laptop sets as EXPORT_STATE_TABLE to share the deployment budget', () => {
    const [tableId] = only(defaults.template, 'AWS::DynamoDB::Table');

    defaults.template.hasOutput('StateTableName', { Value: { Ref: tableId } });
  });

  it('each have a description', () => {
    const outputs = defaults.template.toJSON().Outputs as Record<string, { Description?: string }>;

    expect(Object.entries(outputs).filter(([, output]) => !output.Description?.trim())).toEqual([]);
  });
});

describe('personal-data key', () => {
  const [keyId, key] = personalDataKeySecret(defaults.template);
  const allStatements = Object.values(rolePolicies(defaults.template) as Record<string, Resource>).flatMap(
    (policy) => policy.Properties.PolicyDocument.Statement as Statement[],
  );

  it('is generated by the stack as {"key": …} of 64 characters, kept when the stack is deleted, and absent from the template', () => {
    expect(key.Properties.GenerateSecretString).toMatchObject({ GenerateStringKey: 'key', PasswordLength: 64, SecretStringTemplate: '{}' });
    expect(key.Properties).not.toHaveProperty('SecretString');
    expect(defaults.template.toJSON().Resources[keyId]).toMatchObject({ DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
  });

  it('is read by the export function only, and only that secret', () => {
    const readers = allStatements.filter((s) => actionsOf(s).includes('secretsmanager:GetSecretValue') && resourcesOf(s).includes(`"${keyId}"`));
    expect(readers).toHaveLength(1);
    const exportStatements = statementsOf(defaults.template, lambdaOf(defaults.template, 'mintlify-export')[1]);
    const grant = exportStatements.find((s) => actionsOf(s).includes('secretsmanager:GetSecretValue'));
    expect(grant).toMatchObject({ Effect: 'Allow' });
    expect([grant?.Resource].flat()).toContainEqual({ Ref: keyId });
    for (const service of ['mintlify-followup']) {
      const statements = statementsOf(defaults.template, lambdaOf(defaults.template, service)[1]);
      expect(statements.filter((s) => resourcesOf(s).includes(keyId))).toEqual([]);
    }
    expect(allStatements.filter((s) => actionsOf(s).some((a) => a.startsWith('secretsmanager:')) && resourcesOf(s).includes('*'))).toEqual([]);
  });

  it('is named to the export function by PERSONAL_DATA_KEY_SECRET_ARN, and the key itself never is', () => {
    expect(lambdaOf(defaults.template, 'mintlify-export')[1].Properties.Environment.Variables.PERSONAL_DATA_KEY_SECRET_ARN).toEqual({ Ref: keyId });
    expect(JSON.stringify(defaults.template.toJSON())).not.toContain('PERSONAL_DATA_KEY"');
  });
});
