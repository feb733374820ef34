/**
 * The one stack: composes the warehouse, the API key secret, the hourly export, the
 * follow-up consumer and the operations alarms, passing references between them.
 */
import { Annotations, type App, CfnOutput, Stack, type StackProps, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { Construct } from 'constructs';
import * as v from 'valibot';
import { PROJECT_ID_PATTERN } from '../functions/shared/validators.js';
import { BUCKET_NAME_PATTERN, SECRET_ARN_PATTERN } from '../functions/settings/setting.js';
import { DATASET_NAMES, type DatasetName } from '../functions/warehouse/catalog.js';
import { parseDay } from '../functions/shared/dates.js';
import { ApiKeySecret } from './constructs/api-key-secret.js';
import { PersonalDataKey } from './constructs/personal-data-key.js';
import { parsePolicyOverrides } from '../functions/warehouse/column-policy.js';
import { FollowUps } from './constructs/follow-ups.js';
import { ScopeCheck } from './constructs/scope-check.js';
import type { LogLevel } from './constructs/lambda-defaults.js';
import { OperationsDashboard } from './constructs/dashboard.js';
import { Operations } from './constructs/operations.js';
import { DEFAULT_BUDGET, parseBudget } from '../functions/shared/pacing/budget-spec.js';
import { AnalyticsExport, DEFAULT_EXPORT_SCHEDULE } from './constructs/analytics-export.js';
import { Warehouse } from './constructs/warehouse.js';
import { Insights } from './constructs/insights.js';
import { defaultSecretPrefix, Organisations } from './constructs/organisations.js';
import { DEFAULT_REPORT_SCHEDULE, WeeklyReport } from './constructs/weekly-report.js';
import { ReportLinks } from './constructs/report-links.js';
import { ChatAlerts, type ChatAlertsProps } from './constructs/chat-alerts.js';
import { IcebergTables } from './constructs/iceberg-tables.js';
import { REPORTS_PREFIX } from '../functions/insights/weekly/keys.js';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';

/** Deployment settings, usually read from CDK context by {@link configFromContext}. */
export interface ExporterConfig {
  /** Mintlify project ids exported every hour (`MINTLIFY_PROJECT_IDS`). @default [] */
  readonly projectIds: readonly string[];
  /** @default 'cron(5 * * * ? *)' (hourly) */
  readonly schedule?: string | undefined;
  /** `EXPORT_DATASETS`. @default - every dataset */
  readonly datasets?: readonly DatasetName[] | undefined;
  /** `PERSONAL_DATA_POLICY`. @default - the table definitions' defaults */
  readonly personalDataPolicy?: string | undefined;
  /** `PERSONAL_DATA_RETENTION_DAYS`. @default - kept */
  readonly personalDataRetentionDays?: number | undefined;
  /** `ANALYTICS_BUDGET`. @default '90/1h' */
  readonly budget?: string | undefined;
  /** `EXPORT_SETTLE_HOURS`. @default 2 */
  readonly settleHours?: number | undefined;
  /** First day (YYYY-MM-DD) Athena's partition projection enumerates. @default '2020-01-01' */
  readonly partitionProjectionStart?: string | undefined;
  /** @default - a new bucket */
  readonly bucketName?: string | undefined;
  /** @default 'mintlify' */
  readonly prefix?: string | undefined;
  /** @default - a new secret */
  readonly apiKeySecretArn?: string | undefined;
  /** @default - no e-mail subscription */
  readonly alarmEmail?: string | undefined;
  /** @default - https://api.mintlify.com */
  readonly apiUrl?: string | undefined;
  /** @default 'INFO' */
  readonly logLevel?: LogLevel | undefined;
  /** Follow-up queue's maxReceiveCount (last-resort redrive). @default 1000 */
  readonly maxReceiveCount?: number | undefined;
  /** E-mail subscribed to the outcomes topic, filtered on failed/uncertain/rejected. @default - none */
  readonly outcomeEmail?: string | undefined;
  /** EventBridge expression of the weekly report. @default 'cron(0 6 ? * MON *)' (Monday 06:00 UTC) */
  readonly reportSchedule?: string | undefined;
  /** E-mail subscribed to the insights topic (weekly digest, anomalies, stale datasets). @default - none */
  readonly reportEmail?: string | undefined;
  /** `ANOMALY_DROP`. @default 0.5 */
  readonly anomalyDrop?: number | undefined;
  /** `ANOMALY_RISE`. @default 3 */
  readonly anomalyRise?: number | undefined;
  /** `REPORT_SITE_URL` of the weekly report: page paths become links. @default - paths as text */
  readonly reportSiteUrl?: string | undefined;
  /** PEM public key of the report link key pair: a signed-URL distribution over the reports. @default - none, no link */
  readonly reportLinkPublicKey?: string | undefined;
  /** Many organisations: a dispatcher, export workers and an `org` partition (docs/organisations.md). @default false */
  readonly organisations?: boolean | undefined;
  /** Export workers at once with `organisations`. @default 10 */
  readonly organisationConcurrency?: number | undefined;
  /** Slack workspace of the insights topic's channel (with `chatSlackChannelId`; constructs/chat-alerts.ts). @default - none */
  readonly chatSlackWorkspaceId?: string | undefined;
  /** Slack channel the insights topic is posted to. @default - none */
  readonly chatSlackChannelId?: string | undefined;
  /** Microsoft Teams team of the insights topic's channel (with `chatTeamsChannelId`, `chatTeamsTenantId`). @default - none */
  readonly chatTeamsTeamId?: string | undefined;
  /** Microsoft Teams channel the insights topic is posted to. @default - none */
  readonly chatTeamsChannelId?: string | undefined;
  /** Microsoft Teams tenant of that team. @default - none */
  readonly chatTeamsTenantId?: string | undefined;
  /** `DOCS_REPOSITORY`: the agent's pull requests are checked against the scope rules. @default - not checked */
  readonly docsRepository?: string | undefined;
  /** Complete ARN of an existing secret holding the scope check's GitHub token. @default - a new secret with docsRepository */
  readonly githubTokenSecretArn?: string | undefined;
  /** `GITHUB_SCOPE_STATUS=on`: the commit status `mintlify-exporter/scope` (the token needs statuses: write). @default false */
  readonly githubScopeStatus?: boolean | undefined;
  /** `GITHUB_API_URL` of GitHub Enterprise. @default - https://api.github.com */
  readonly githubApiUrl?: string | undefined;
  /** `iceberg`: Iceberg tables merged from the day files through Athena (docs/warehouse.md). @default 'hive' */
  readonly tableFormat?: 'hive' | 'iceberg' | undefined;
}

/**
 * The stack's outputs and what each is for: the template's descriptions and the outputs table
 * of docs/deploy.md (`npm run docs`) come from here.
 */
export const STACK_OUTPUTS = {
  ApiKeySecretArn: 'Secrets Manager secret to put the Mintlify admin key in (mint_…) after the first deploy',
  ExportFunctionName: 'The export Lambda: aws lambda invoke it to run an export now',
  ExportDestination: 'Where the Parquet files go (s3://<bucket>/<prefix>): --out of the CLI status, plan and report',
  StateTableName: "DynamoDB state table (budget ledger, leases, backlog, follow-up records): EXPORT_STATE_TABLE for a laptop sharing the deployment's budget",
  ExportFailureQueueUrl: 'Failed export invocations (the ExportFailureQueue alarm): read them, then purge',
  FollowUpQueueUrl: 'FIFO queue of follow-up prompts: --queue-url of enqueue, consume and dead-letters',
  FollowUpQueueArn: 'The follow-up queue by ARN (move dead letters back with dead-letters redrive, not an SQS move task)',
  FollowUpDeadLetterQueueUrl: 'Dead-lettered follow-ups, each with its reason (dead-letters list finds it through FollowUpQueueUrl)',
  FollowUpDeadLetterQueueArn: 'The dead-letter queue by ARN (move its messages back with dead-letters redrive, not an SQS move task)',
  FollowUpOutcomesTopicArn: 'SNS topic of every follow-up outcome (message attributes status, projectId, jobId)',
  GlueDatabase: 'Glue database of the exported tables, for Athena',
  AthenaWorkGroup: 'Athena workgroup with the saved queries (results under <prefix>/athena-results/)',
  AlarmTopicArn: 'SNS topic of the alarms (alarmEmail subscribes an address)',
  DashboardUrl: 'CloudWatch dashboard of the export and the follow-ups',
  InsightsTopicArn:
    'SNS topic of the weekly report digest, anomalies and stale datasets (attribute kind: weekly-report, anomaly, stale; reportEmail subscribes an address)',
  ReportLinkUrl: 'The CloudFront distribution serving the weekly pages to signed links only (with context reportLinkPublicKey)',
  ReportLinkKeySecretArn: 'Secrets Manager secret to put the report link private key (PEM) in after the first deploy (with context reportLinkPublicKey)',
  GitHubTokenSecretArn:
    'Secrets Manager secret of the scope check\'s GitHub token, read by the follow-up function only: put {"token":"…"} in it (with context docsRepository or githubTokenSecretArn)',
  OrganisationsSecretPrefix:
    'Name prefix of the organisations\' secrets: create <prefix><id> holding {"apiKey","projectIds"} to add an organisation (with context organisations=true)',
  OrganisationsQueueUrl: 'Queue of one message per organisation and run, taken by the export workers (with context organisations=true)',
  OrganisationsDeadLetterQueueUrl: 'Failed organisation runs, one message naming each (with context organisations=true)',
  IcebergWorkGroup: "Athena workgroup of the export's Iceberg statements (results under <prefix>/_athena/; with context tableFormat=iceberg)",
} as const;

export type StackOutput = keyof typeof STACK_OUTPUTS;

export interface MintlifyExporterStackProps extends StackProps {
  readonly config: ExporterConfig;
}

export class MintlifyExporterStack extends Stack {
  readonly warehouse: Warehouse;
  readonly analyticsExport: AnalyticsExport;
  readonly followUps: FollowUps;
  readonly operations: Operations;
  readonly dashboard: OperationsDashboard;
  readonly insights: Insights;
  readonly weeklyReport: WeeklyReport;
  /** The signed-link distribution over the reports, with context `reportLinkPublicKey`. */
  readonly reportLinks: ReportLinks | undefined;
  /** The dispatcher and export workers of many organisations, with context `organisations=true`. */
  readonly organisations: Organisations | undefined;
  /** The insights topic in Slack or Teams, with the `chat…` context. */
  readonly chatAlerts: ChatAlerts | undefined;
  /** The GitHub token's secret and the follow-up function's scope settings, with context `docsRepository` or `githubTokenSecretArn`. */
  readonly scopeCheck: ScopeCheck | undefined;
  /** The Iceberg tables and their workgroup, with context `tableFormat=iceberg`. */
  readonly iceberg: IcebergTables | undefined;

  constructor(scope: Construct, id: string, props: MintlifyExporterStackProps) {
    super(scope, id, props);
    const { config } = props;

    if (config.projectIds.length === 0 && config.organisations !== true) {
      Annotations.of(this).addWarningV2(
        'mintlify-exporter:no-project-ids',
        'No projectIds in context: the export has nothing to do until you deploy with -c projectIds=proj_a,proj_b.',
      );
    }

    this.warehouse = new Warehouse(this, 'Warehouse', {
      bucketName: config.bucketName,
      prefix: config.prefix,
      personalDataPolicy: config.personalDataPolicy,
      partitionProjectionStart: config.partitionProjectionStart,
      organisations: config.organisations,
      tableFormat: config.tableFormat,
    });
    const { secret } = new ApiKeySecret(this, 'ApiKey', { secretArn: config.apiKeySecretArn });
    const api = {
      apiKeySecret: secret,
      projectIds: config.projectIds,
      apiUrl: config.apiUrl,
      logLevel: config.logLevel,
    };

    this.followUps = new FollowUps(this, 'FollowUps', {
      ...api,
      warehouse: this.warehouse,
      maxReceiveCount: config.maxReceiveCount,
      outcomeEmail: config.outcomeEmail,
      organisations: config.organisations === true ? { secretPrefix: defaultSecretPrefix(this) } : undefined,
    });
    const personalDataKey = new PersonalDataKey(this, 'PersonalDataKey');
    this.analyticsExport = new AnalyticsExport(this, 'Export', {
      ...api,
      warehouse: this.warehouse,
      // One state table for the deployment: follow-up records (`followup#…`) and the export's
      // ledger, leases and backlog (`export#…`) never share a key.
      stateTable: this.followUps.stateTable,
      schedule: config.schedule,
      datasets: config.datasets,
      personalDataKey,
      personalDataPolicy: config.personalDataPolicy,
      personalDataRetentionDays: config.personalDataRetentionDays,
      budget: config.budget,
      settleHours: config.settleHours,
      // Many organisations: the workers export each one into orgs/<id>/; this one is not scheduled.
      scheduled: config.organisations !== true,
    });
    this.organisations =
      config.organisations === true
        ? new Organisations(this, 'Organisations', {
            warehouse: this.warehouse,
            stateTable: this.followUps.stateTable,
            personalDataKey,
            schedule: config.schedule,
            maxConcurrency: config.organisationConcurrency,
            apiUrl: config.apiUrl,
            logLevel: config.logLevel,
            datasets: config.datasets,
            budget: config.budget,
            settleHours: config.settleHours,
            personalDataPolicy: config.personalDataPolicy,
            personalDataRetentionDays: config.personalDataRetentionDays,
          })
        : undefined;
    this.iceberg =
      config.tableFormat === 'iceberg' ? new IcebergTables(this, 'Iceberg', { warehouse: this.warehouse, organisations: config.organisations }) : undefined;
    for (const exporter of this.iceberg ? [this.analyticsExport.function, this.organisations?.worker] : []) {
      if (exporter === undefined || this.iceberg === undefined) continue;
      this.iceberg.grantStatements(exporter);
      exporter.addEnvironment('EXPORT_ATHENA_WORKGROUP', this.iceberg.workGroup.ref);
      exporter.addEnvironment('EXPORT_ICEBERG_DATABASE', this.warehouse.database.databaseName);
    }
    const budget = parseBudget(config.budget ?? DEFAULT_BUDGET, 'budget');
    this.operations = new Operations(this, 'Operations', {
      exportFunction: this.analyticsExport.function,
      exportFailureQueue: this.analyticsExport.failureQueue,
      followUpFunction: this.followUps.function,
      followUpDeadLetterQueue: this.followUps.deadLetterQueue,
      budget,
      alarmEmail: config.alarmEmail,
    });
    this.insights = new Insights(this, 'Insights', {
      warehouse: this.warehouse,
      stateTable: this.followUps.stateTable,
      projectIds: config.projectIds,
      datasets: config.datasets,
      settleHours: config.settleHours,
      anomalyDrop: config.anomalyDrop,
      anomalyRise: config.anomalyRise,
      reportEmail: config.reportEmail,
      logLevel: config.logLevel,
      organisations: config.organisations,
    });
    this.reportLinks =
      config.reportLinkPublicKey === undefined
        ? undefined
        : new ReportLinks(this, 'ReportLinks', {
            bucket: this.warehouse.bucket,
            keyPrefix: this.warehouse.keyPrefix,
            reports: REPORTS_PREFIX,
            publicKeyPem: config.reportLinkPublicKey,
          });
    this.weeklyReport = new WeeklyReport(this, 'WeeklyReport', {
      warehouse: this.warehouse,
      insights: this.insights,
      reportLinks: this.reportLinks,
      siteUrl: config.reportSiteUrl,
      projectIds: config.projectIds,
      schedule: config.reportSchedule,
      settleHours: config.settleHours,
      logLevel: config.logLevel,
      organisations: config.organisations,
    });
    this.chatAlerts = chatAlertsOf(this, this.insights.topic, config);
    // The agent's pull requests against the scope rules, with context docsRepository or githubTokenSecretArn.
    this.scopeCheck =
      config.docsRepository === undefined && config.githubTokenSecretArn === undefined
        ? undefined
        : new ScopeCheck(this, 'ScopeCheck', {
            followUpFunction: this.followUps.function,
            insights: this.insights,
            docsRepository: config.docsRepository,
            githubTokenSecretArn: config.githubTokenSecretArn,
            githubScopeStatus: config.githubScopeStatus,
            githubApiUrl: config.githubApiUrl,
          });
    const insightAlarms = [this.insights.checkErrors, this.weeklyReport.failures, ...Object.values(this.organisations?.alarms ?? {})];
    for (const alarm of insightAlarms) alarm.addAlarmAction(new actions.SnsAction(this.operations.topic));
    this.dashboard = new OperationsDashboard(this, 'Dashboard', {
      exportFunction: this.analyticsExport.function,
      exportFailureQueue: this.analyticsExport.failureQueue,
      followUpFunction: this.followUps.function,
      followUpDeadLetterQueue: this.followUps.deadLetterQueue,
      budget,
      alarms: [...Object.values(this.operations.alarms), ...insightAlarms],
      organisations: this.organisations !== undefined,
      iceberg: this.iceberg !== undefined,
    });

    // What the docs tell a user to use, each with a description (docs/deploy.md's outputs table is generated from them).
    const values: Partial<Record<StackOutput, string>> = {
      ApiKeySecretArn: secret.secretArn,
      ExportFunctionName: this.analyticsExport.function.functionName,
      ExportDestination: this.warehouse.destination,
      StateTableName: this.followUps.stateTable.tableName,
      ExportFailureQueueUrl: this.analyticsExport.failureQueue.queueUrl,
      FollowUpQueueUrl: this.followUps.queue.queueUrl,
      FollowUpQueueArn: this.followUps.queue.queueArn,
      FollowUpDeadLetterQueueUrl: this.followUps.deadLetterQueue.queueUrl,
      FollowUpDeadLetterQueueArn: this.followUps.deadLetterQueue.queueArn,
      FollowUpOutcomesTopicArn: this.followUps.outcomesTopic.topicArn,
      GlueDatabase: this.warehouse.database.databaseName,
      AthenaWorkGroup: this.warehouse.workGroup.ref,
      AlarmTopicArn: this.operations.topic.topicArn,
      DashboardUrl: this.dashboard.url,
      InsightsTopicArn: this.insights.topic.topicArn,
      ...(this.scopeCheck ? { GitHubTokenSecretArn: this.scopeCheck.tokenSecret.secretArn } : {}),
      ...(this.reportLinks ? { ReportLinkUrl: this.reportLinks.baseUrl, ReportLinkKeySecretArn: this.reportLinks.privateKeySecret.secretArn } : {}),
      ...(this.organisations
        ? {
            OrganisationsSecretPrefix: this.organisations.secretPrefix,
            OrganisationsQueueUrl: this.organisations.queue.queueUrl,
            OrganisationsDeadLetterQueueUrl: this.organisations.deadLetterQueue.queueUrl,
          }
        : {}),
      ...(this.iceberg ? { IcebergWorkGroup: this.iceberg.workGroup.ref } : {}),
    };
    for (const [id, value] of Object.entries(values)) new CfnOutput(this, id, { value, description: STACK_OUTPUTS[id as StackOutput] });
  }
}

/** The chat channels of the insights topic the `chat…` context names; none without it. */
function chatAlertsOf(scope: Construct, topic: ChatAlertsProps['topic'], config: ExporterConfig): ChatAlerts | undefined {
  const slack =
    config.chatSlackWorkspaceId !== undefined && config.chatSlackChannelId !== undefined
      ? { workspaceId: config.chatSlackWorkspaceId, channelId: config.chatSlackChannelId }
      : undefined;
  const teams =
    config.chatTeamsTeamId !== undefined && config.chatTeamsChannelId !== undefined && config.chatTeamsTenantId !== undefined
      ? { teamId: config.chatTeamsTeamId, channelId: config.chatTeamsChannelId, tenantId: config.chatTeamsTenantId }
      : undefined;
  return slack === undefined && teams === undefined ? undefined : new ChatAlerts(scope, 'ChatAlerts', { topic, slack, teams });
}

/** The `chat…` context keys that go together: all of a group or none. */
const CHAT_GROUPS = [
  ['chatSlackWorkspaceId', 'chatSlackChannelId'],
  ['chatTeamsTeamId', 'chatTeamsChannelId', 'chatTeamsTenantId'],
] as const;

/** Thrown for a context value that cannot be used; the message names the key and what to pass. */
export class ContextConfigError extends Error {
  override readonly name = 'ContextConfigError';
}

/** Whether `parse` returns rather than throws (a validator of functions/settings/config.ts). */
function acceptedBy(parse: () => unknown): boolean {
  try {
    parse();
    return true;
  } catch {
    return false;
  }
}

/** `-c key=value` gives strings; cdk.json may give arrays or numbers. */
const optionalString = (pattern: RegExp, hint: string) => v.optional(v.pipe(v.string(), v.trim(), v.regex(pattern, hint)));

/** The validators of every context option (docs/deploy.md's table lists what each accepts from them). */
export const ContextSchema = v.object({
  projectIds: v.optional(
    v.pipe(
      v.union([v.string(), v.array(v.string())]),
      v.transform((value) => (Array.isArray(value) ? value : value.split(',')).map((id) => id.trim()).filter((id) => id !== '')),
      v.array(v.pipe(v.string(), v.regex(PROJECT_ID_PATTERN, 'project ids are letters, digits, _ and -'))),
    ),
    [],
  ),
  schedule: optionalString(/^(cron|rate)\(.+\)$/, 'an EventBridge expression such as cron(5 * * * ? *) or rate(1 hour)'),
  datasets: v.optional(
    v.pipe(
      v.union([v.string(), v.array(v.string())]),
      v.transform((value) => (Array.isArray(value) ? value : value.split(',')).map((name) => name.trim()).filter((name) => name !== '')),
      v.array(v.picklist(DATASET_NAMES, `dataset names: ${DATASET_NAMES.join(', ')}`)),
      v.minLength(1, `at least one of ${DATASET_NAMES.join(', ')}`),
    ),
  ),
  // The functions' own rule (PERSONAL_DATA_POLICY), so a policy they would refuse never deploys.
  personalDataPolicy: v.optional(
    v.pipe(
      v.string(),
      v.trim(),
      v.check(
        (raw) => acceptedBy(() => parsePolicyOverrides(raw, 'personalDataPolicy')),
        '<table>.<column>=<policy>, comma-separated, such as feedback.contact=drop',
      ),
    ),
  ),
  personalDataRetentionDays: v.optional(
    v.pipe(
      v.union([v.number(), v.string()]),
      v.transform(Number),
      v.number(),
      v.integer('a whole number'),
      v.minValue(1, 'between 1 and 36500'),
      v.maxValue(36_500, 'between 1 and 36500'),
    ),
  ),
  // The functions' own rule (parseBudget), so a budget they would refuse never deploys.
  budget: v.optional(
    v.pipe(
      v.string(),
      v.trim(),
      v.check((raw) => acceptedBy(() => parseBudget(raw, 'budget')), 'a budget such as 90/1h or 30/30m'),
    ),
  ),
  settleHours: v.optional(
    v.pipe(
      v.union([v.number(), v.string()]),
      v.transform(Number),
      v.number(),
      v.integer('a whole number'),
      v.minValue(0, 'between 0 and 72'),
      v.maxValue(72, 'between 0 and 72'),
    ),
  ),
  // The calendar check of the CLI's dates (parseDay): 2023-02-29 is refused too.
  partitionProjectionStart: v.optional(
    v.pipe(
      v.string(),
      v.trim(),
      v.check((raw) => acceptedBy(() => parseDay(raw, 'partitionProjectionStart')), 'a day as YYYY-MM-DD, such as 2020-01-01'),
    ),
  ),
  bucketName: optionalString(BUCKET_NAME_PATTERN, 'an S3 bucket name (lowercase, 3-63 characters)'),
  prefix: optionalString(/^[A-Za-z0-9!_.*'()/-]*$/, 'a key prefix such as mintlify or exports/mintlify'),
  // The functions' rule (MINTLIFY_API_KEY_SECRET_ARN), plus the suffix a complete ARN has:
  // the stack grants access to exactly that secret.
  apiKeySecretArn: v.optional(
    v.pipe(
      v.string(),
      v.trim(),
      v.regex(SECRET_ARN_PATTERN, 'the complete ARN of a Secrets Manager secret (with its 6-character suffix)'),
      v.regex(/-[A-Za-z0-9]{6}$/, 'the complete ARN of a Secrets Manager secret (with its 6-character suffix)'),
    ),
  ),
  alarmEmail: optionalString(/^[^@\s]+@[^@\s]+\.[^@\s]+$/, 'an e-mail address'),
  outcomeEmail: optionalString(/^[^@\s]+@[^@\s]+\.[^@\s]+$/, 'an e-mail address'),
  reportEmail: optionalString(/^[^@\s]+@[^@\s]+\.[^@\s]+$/, 'an e-mail address'),
  reportSchedule: optionalString(/^(cron|rate)\(.+\)$/, 'an EventBridge expression such as cron(0 6 ? * MON *) or rate(7 days)'),
  // The functions' own rules (ANOMALY_DROP, ANOMALY_RISE), so a threshold they would refuse never deploys.
  anomalyDrop: v.optional(
    v.pipe(
      v.union([v.number(), v.string()]),
      v.transform(Number),
      v.number('a number'),
      v.check((value) => value > 0 && value < 1, 'a number above 0 and below 1, such as 0.5'),
    ),
  ),
  anomalyRise: v.optional(
    v.pipe(
      v.union([v.number(), v.string()]),
      v.transform(Number),
      v.number('a number'),
      v.check((value) => value > 1 && value <= 1000, 'a number above 1 and at most 1000, such as 3'),
    ),
  ),
  apiUrl: optionalString(/^https:\/\/[^\s]+$/, 'an https:// URL'),
  logLevel: v.optional(v.picklist(['DEBUG', 'INFO', 'WARN', 'ERROR'], 'one of DEBUG, INFO, WARN, ERROR')),
  maxReceiveCount: v.optional(
    v.pipe(
      v.union([v.number(), v.string()]),
      v.transform(Number),
      v.number(),
      v.integer('a whole number'),
      v.minValue(1, 'between 1 and 1000'),
      v.maxValue(1000, 'between 1 and 1000'),
    ),
  ),
  organisations: v.optional(
    v.pipe(
      v.union([v.boolean(), v.string()]),
      v.transform((value) => (typeof value === 'boolean' ? String(value) : value.trim())),
      v.picklist(['true', 'false'], 'true or false'),
      v.transform((value) => value === 'true'),
    ),
  ),
  organisationConcurrency: v.optional(
    v.pipe(
      v.union([v.number(), v.string()]),
      v.transform(Number),
      v.number(),
      v.integer('a whole number'),
      v.minValue(2, 'between 2 and 1000 (the SQS event source maximum concurrency)'),
      v.maxValue(1000, 'between 2 and 1000 (the SQS event source maximum concurrency)'),
    ),
  ),
  chatSlackWorkspaceId: optionalString(/^[0-9A-Z]{1,255}$/, 'a Slack workspace id such as T0123ABCD (AWS Chatbot console, after authorising the workspace)'),
  chatSlackChannelId: optionalString(/^[A-Za-z0-9]{1,255}$/, "a Slack channel id such as C0123ABCD (the channel's details in Slack)"),
  chatTeamsTeamId: optionalString(/^[0-9a-fA-F]{8}(-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}$/, "a Microsoft Teams team id (a GUID, from the team's link)"),
  chatTeamsChannelId: optionalString(
    /^[a-zA-Z0-9\-_=+/.,]*%3[aA][a-zA-Z0-9\-_=+/.,]*%40[a-zA-Z0-9\-_=+/.,]*$/,
    "a Microsoft Teams channel id as the channel's link spells it, such as 19%3ab6ef35dc342d4c%40thread.tacv2",
  ),
  chatTeamsTenantId: optionalString(/^[0-9a-fA-F]{8}(-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}$/, 'a Microsoft Entra tenant id (a GUID)'),
  tableFormat: v.optional(v.pipe(v.string(), v.trim(), v.picklist(['hive', 'iceberg'], 'hive or iceberg'))),
  reportSiteUrl: optionalString(/^https?:\/\/[^\s?#@]+$/, "the docs site's base URL, such as https://docs.example.com"),
  reportLinkPublicKey: v.optional(
    v.pipe(
      v.string(),
      v.transform((pem) => pem.replaceAll('\\n', '\n').trim()),
      v.regex(
        /^-----BEGIN PUBLIC KEY-----\n[A-Za-z0-9+/=\n]+\n-----END PUBLIC KEY-----$/,
        'a PEM public key (openssl rsa -pubout), newlines as \\n on the command line',
      ),
    ),
  ),
  docsRepository: optionalString(/^[A-Za-z0-9-]{1,39}\/[A-Za-z0-9_.-]{1,100}$/, 'a GitHub repository as owner/name, such as acme/docs'),
  githubTokenSecretArn: v.optional(
    v.pipe(
      v.string(),
      v.trim(),
      v.regex(SECRET_ARN_PATTERN, 'the complete ARN of a Secrets Manager secret (with its 6-character suffix)'),
      v.regex(/-[A-Za-z0-9]{6}$/, 'the complete ARN of a Secrets Manager secret (with its 6-character suffix)'),
    ),
  ),
  githubScopeStatus: v.optional(
    v.pipe(
      v.union([v.boolean(), v.string()]),
      v.transform((value) => (typeof value === 'boolean' ? (value ? 'on' : 'off') : value.trim())),
      v.picklist(['on', 'off'], 'on or off'),
      v.transform((value) => value === 'on'),
    ),
  ),
  githubApiUrl: optionalString(/^https:\/\/[^\s?#@]+$/, 'an https:// URL such as https://ghe.example.com/api/v3'),
});

/** The context keys {@link configFromContext} reads (documented in infra/app.ts). */
export const CONTEXT_KEYS = Object.keys(ContextSchema.entries) as (keyof ExporterConfig)[];

/**
 * Reads and validates the deployment settings from CDK context (`-c key=value` or cdk.json).
 * Fails before anything is synthesized, naming the key, so a typo never deploys.
 */
export function configFromContext(scope: Construct): ExporterConfig {
  if (scope.node.tryGetContext('feedbackContact') !== undefined) {
    throw new ContextConfigError(
      'CDK context "feedbackContact" is retired: remove it, and pass -c personalDataPolicy=feedback.contact=keep for true (addresses as sent), nothing for the new default (a keyed hash) or feedback.contact=drop for false (see docs/privacy.md).',
    );
  }
  const raw: Record<string, unknown> = {};
  for (const key of CONTEXT_KEYS) {
    const value: unknown = scope.node.tryGetContext(key);
    if (value !== undefined && value !== '') raw[key] = value;
  }
  const parsed = v.safeParse(ContextSchema, raw);
  if (!parsed.success) {
    const issue = parsed.issues[0];
    // The option and the value refused (an item of a list, not its position), and what is accepted.
    const key = issue.path?.[0] === undefined ? 'context' : String(issue.path[0].key);
    const value = JSON.stringify(issue.input) ?? String(issue.input);
    throw new ContextConfigError(
      `Invalid CDK context "${key}": ${value.length > 80 ? `${value.slice(0, 80)}…` : value} is not accepted (expected ${issue.message}).`,
    );
  }
  for (const group of CHAT_GROUPS) {
    const given = group.filter((key) => parsed.output[key] !== undefined);
    if (given.length > 0 && given.length < group.length) {
      const missing = group.filter((key) => parsed.output[key] === undefined);
      throw new ContextConfigError(`CDK context "${missing[0]}" is missing: ${group.join(', ')} go together (given: ${given.join(', ')}).`);
    }
  }
  return {
    ...parsed.output,
    schedule: parsed.output.schedule ?? DEFAULT_EXPORT_SCHEDULE,
    reportSchedule: parsed.output.reportSchedule ?? DEFAULT_REPORT_SCHEDULE,
  };
}

/**
 * The exporter's stack named `name` in `app`, with cdk-nag's AWS Solutions checks on the app (a
 * finding that is not acknowledged with a reason fails the synth): what infra/app.ts deploys,
 * and what the bundle tests synthesize in their own process.
 */
export function addExporterStack(app: App, name: string, config: ExporterConfig): MintlifyExporterStack {
  const stack = new MintlifyExporterStack(app, name, {
    description: 'mintlify-exporter: hourly Mintlify analytics export to Parquet, follow-up prompt consumer',
    config,
  });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return stack;
}
