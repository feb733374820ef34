/**
 * What each CDK context option means and its default, beside the validators of infra/stack.ts
 * (`ContextSchema`), which say what each accepts. docs/deploy.md's table of options is
 * generated from both (`npm run docs`): an option added to the schema must be described here,
 * or the type check fails.
 */
import { DEFAULT_BUDGET } from '../functions/shared/pacing/budget-spec.js';
import { DEFAULT_EXPORT_SCHEDULE } from './constructs/analytics-export.js';
import { DEFAULT_REPORT_SCHEDULE } from './constructs/weekly-report.js';
import { DEFAULT_PROJECTION_START } from './constructs/warehouse.js';
import type { CONTEXT_KEYS } from './stack.js';

export interface ContextOption {
  readonly meaning: string;
  /** As a person reads it; code spans in backticks. */
  readonly default: string;
  /** What is accepted, for an option the app reads without a validator of ContextSchema. */
  readonly accepts?: string;
}

/** Every option `cdk deploy -c key=value` (or cdk.json's "context") takes, in the order docs/deploy.md lists them. */
export const CONTEXT_OPTIONS: Record<(typeof CONTEXT_KEYS)[number] | 'stackName', ContextOption> = {
  projectIds: { meaning: 'Mintlify project ids to export, comma-separated (`proj_a,proj_b`)', default: 'none: the export has nothing to do' },
  schedule: { meaning: 'EventBridge expression of the export runs, UTC', default: `\`${DEFAULT_EXPORT_SCHEDULE}\` (hourly)` },
  datasets: { meaning: 'datasets to export, comma-separated (`visitors,views,…`)', default: 'every dataset' },
  personalDataPolicy: {
    meaning: "overrides of the personal columns' policies, `<table>.<column>=<policy>` comma-separated (`feedback.contact=drop`); docs/privacy.md",
    default: '`feedback.contact` hmac, free text mask',
  },
  personalDataRetentionDays: { meaning: 'days of the tables holding personal columns are deleted after this many days', default: 'kept' },
  budget: { meaning: 'analytics requests per sliding window, shared by every run and every laptop using the state table', default: `\`${DEFAULT_BUDGET}\`` },
  settleHours: { meaning: 'hours after a UTC day ends before it is exported', default: '`2`' },
  partitionProjectionStart: {
    meaning: "first day Athena's partition projection enumerates (`dt` from this day to today): an older backfill needs an earlier day",
    default: `\`${DEFAULT_PROJECTION_START}\``,
  },
  bucketName: { meaning: 'existing S3 bucket to write into (not managed by this stack)', default: 'a new versioned, encrypted bucket' },
  prefix: { meaning: 'key prefix of everything written: `s3://<bucket>/<prefix>/visitors_…`', default: '`mintlify`' },
  apiKeySecretArn: { meaning: 'complete ARN of an existing Secrets Manager secret holding the key', default: 'a new secret (put the key in it)' },
  alarmEmail: { meaning: 'e-mail subscribed to the alarm topic (confirm the subscription mail)', default: 'no subscription' },
  outcomeEmail: { meaning: 'e-mail subscribed to the follow-up outcomes topic (failed, uncertain, rejected)', default: 'no subscription' },
  apiUrl: { meaning: 'Mintlify API base URL', default: '`https://api.mintlify.com`' },
  logLevel: { meaning: 'Powertools log level of both functions', default: '`INFO`' },
  maxReceiveCount: { meaning: 'receives before SQS itself dead-letters a follow-up (the last-resort net)', default: '`1000`' },
  reportSchedule: { meaning: 'EventBridge expression of the weekly report, UTC', default: `\`${DEFAULT_REPORT_SCHEDULE}\` (Monday 06:00)` },
  reportEmail: { meaning: 'e-mail subscribed to the insights topic (weekly digest, anomalies, stale datasets)', default: 'no subscription' },
  anomalyDrop: {
    meaning: "a newly complete day's figure below this times the median of the same weekday of the 4 weeks before is an anomaly",
    default: '`0.5`',
  },
  anomalyRise: { meaning: "a newly complete day's figure above this times the median of the same weekday of the 4 weeks before is an anomaly", default: '`3`' },
  reportSiteUrl: { meaning: "the docs site's base URL: the weekly page links each page path to its page (`REPORT_SITE_URL`)", default: 'paths shown as text' },
  reportLinkPublicKey: {
    meaning:
      'PEM public key of the report link key pair: a CloudFront distribution serves the weekly pages to links signed for 7 days (private key in the `ReportLinkKeySecretArn` secret; docs/deploy.md)',
    default: 'no distribution: the digest names the page in the bucket',
  },
  organisations: {
    meaning:
      "many organisations in one deployment: a dispatcher and export workers, one Secrets Manager secret per organisation under the `OrganisationsSecretPrefix` output, each organisation's lake in `orgs/<id>/`, Glue tables with an `org` partition (docs/organisations.md)",
    default: "`false`: one organisation, today's layout",
  },
  organisationConcurrency: { meaning: 'export workers at once with `organisations=true` (each takes one organisation)', default: '`10`' },
  chatSlackWorkspaceId: {
    meaning:
      'Slack workspace id (authorised once in the AWS Chatbot console): with `chatSlackChannelId`, the insights topic is posted to that channel through AWS Chatbot, read-only guardrail',
    default: 'no Slack channel',
  },
  chatSlackChannelId: { meaning: 'Slack channel id the insights topic is posted to (with `chatSlackWorkspaceId`)', default: 'no Slack channel' },
  chatTeamsTeamId: {
    meaning: 'Microsoft Teams team id: with `chatTeamsChannelId` and `chatTeamsTenantId`, the insights topic is posted to that channel, read-only guardrail',
    default: 'no Teams channel',
  },
  chatTeamsChannelId: { meaning: 'Microsoft Teams channel id the insights topic is posted to', default: 'no Teams channel' },
  chatTeamsTenantId: { meaning: 'Microsoft Entra tenant id of that team', default: 'no Teams channel' },
  docsRepository: {
    meaning:
      "the docs repository (`owner/name`): the follow-up function checks each completed job's pull request against the scope rules, with a GitHub token secret (docs/follow-ups.md)",
    default: 'pull requests not checked',
  },
  githubTokenSecretArn: {
    meaning:
      'complete ARN of an existing Secrets Manager secret holding the scope check\'s GitHub token (`{"token":"…"}`), read by the follow-up function only',
    default: 'with `docsRepository`, a new secret (put a read-only token in it)',
  },
  githubScopeStatus: {
    meaning: '`on`: the commit status `mintlify-exporter/scope` on each pull request (the token needs Commit statuses write)',
    default: '`off`',
  },
  githubApiUrl: { meaning: 'GitHub Enterprise API base URL for the scope check (`https://<host>/api/v3`)', default: '`https://api.github.com`' },
  tableFormat: {
    meaning:
      "`iceberg`: an Iceberg table per dataset table under `iceberg/<table>/`, merged from each run's committed days through an Athena workgroup (results under `_athena/`); `forget` and retention delete from them (docs/warehouse.md)",
    default: "`hive`: today's Hive tables only",
  },
  stackName: {
    meaning: 'CloudFormation stack name (deploy twice with two names for two setups)',
    default: '`MintlifyExporter`',
    accepts: 'a CloudFormation stack name',
  },
};
