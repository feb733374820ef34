/**
 * The one table of the environment's variables (`SETTINGS`): each row gives a variable's name,
 * its validator, its default (as the variable would hold it), its range, the line
 * docs/configuration.md shows and which functions read it. config.ts derives `Config` and the
 * loading from it; adding a variable is one row here.
 */
import { DEFAULT_BUDGET, parseBudget } from '../shared/pacing/budget-spec.js';
import { DATASET_NAMES, type DatasetName } from '../warehouse/catalog.js';
import { parseDestinationTarget } from '../shared/storage/destination-target.js';
import { validatePersonalDataKey } from '../shared/personal-data/index.js';
import { parsePolicyOverrides } from '../warehouse/column-policy.js';
import { SCOPE_SETTINGS } from './scope-settings.js';
import { DEFAULT_API_TIMEOUT_MS, DEFAULT_API_URL, validateApiKey, validateApiUrl, validateProjectId, validateTopicArn } from '../shared/validators.js';
import {
  ALL,
  decimal,
  EVERYONE,
  EXPORT,
  fail,
  FOLLOW_UP,
  glueDatabaseName,
  integer,
  parseDatasets,
  SECRET_ARN_PATTERN,
  setting,
  tableName,
  wholeNumber,
} from './setting.js';

/**
 * Every variable the functions read, keyed by its `Config` field, in the order
 * docs/configuration.md lists them.
 */
export const SETTINGS = {
  apiKey: setting({
    env: 'MINTLIFY_API_KEY',
    doc: 'admin API key (`mint_…`; assistant keys `mint_dsc_…` are refused), CLI/local only',
    defaultDoc: 'none → `export` and `follow-up` use the embedded sandbox; `consume` refuses a remote queue',
    readBy: ALL,
    parse: (raw) => validateApiKey(raw),
  }),
  apiKeySecretArn: setting({
    env: 'MINTLIFY_API_KEY_SECRET_ARN',
    doc: 'Secrets Manager secret holding the key (Lambda): the raw key or `{"apiKey":"mint_…"}`',
    defaultDoc: 'none',
    readBy: ALL,
    parse: (raw) =>
      SECRET_ARN_PATTERN.test(raw)
        ? raw
        : fail('MINTLIFY_API_KEY_SECRET_ARN is not a Secrets Manager ARN: use arn:aws:secretsmanager:<region>:<account>:secret:<name>'),
  }),
  apiUrl: setting({
    env: 'MINTLIFY_API_URL',
    doc: 'API base URL; https only, plain http only on loopback',
    default: DEFAULT_API_URL,
    readBy: ALL,
    parse: (raw) => validateApiUrl(raw),
  }),
  projectIds: setting({
    env: 'MINTLIFY_PROJECT_IDS',
    doc: 'comma-separated projects to export',
    default: '',
    defaultDoc: 'none (CLI: `--project`; the embedded sandbox: its three projects)',
    readBy: EVERYONE,
    parse: (raw): readonly string[] => {
      const ids = raw
        .split(',')
        .map((id) => id.trim())
        .filter((id) => id !== '');
      for (const id of ids) validateProjectId(id, 'MINTLIFY_PROJECT_IDS entry');
      return Object.freeze([...new Set(ids)]);
    },
  }),
  destination: setting({
    env: 'EXPORT_DESTINATION',
    doc: '`s3://bucket/prefix` (with `AWS_REGION` and AWS credentials), `file:///path` or a local directory. A mistyped URL (`s3:/bucket`, `s3:bucket`, `S3://…`, an `https://` address, another scheme) is refused with the form meant; write `./name:…` for a local folder whose name has a colon',
    default: './data',
    readBy: EVERYONE,
    parse: (raw) => {
      parseDestinationTarget(raw, 'EXPORT_DESTINATION');
      return raw;
    },
  }),
  datasets: setting({
    env: 'EXPORT_DATASETS',
    doc: `datasets to export, comma-separated: ${DATASET_NAMES.map((name) => `\`${name}\``).join(', ')}`,
    default: DATASET_NAMES.join(','),
    defaultDoc: `all ${DATASET_NAMES.length === 7 ? 'seven' : DATASET_NAMES.length}`,
    readBy: [...EXPORT, 'insights'],
    parse: (raw): readonly DatasetName[] => Object.freeze(parseDatasets(raw, 'EXPORT_DATASETS')),
  }),
  budget: setting({
    env: 'ANALYTICS_BUDGET',
    doc: '`<requests>/<window>`: analytics requests that may start in any sliding window (`s`, `m`, `h`, `d`), every attempt counted, across every run that shares the ledger',
    default: DEFAULT_BUDGET,
    defaultDoc: `\`${DEFAULT_BUDGET}\` (the documented 100, minus headroom for your other tools)`,
    readBy: EXPORT,
    parse: (raw) => parseBudget(raw),
  }),
  analyticsReserve: integer('ANALYTICS_RESERVE', 0, 100_000, {
    doc: "analytics requests an hour left for the key's other users: each window's share of `ANALYTICS_BUDGET` is lowered by it (with many organisations, each organisation's share)",
    default: '0',
    readBy: EXPORT,
  }),
  orgsFile: setting({
    env: 'MINTLIFY_ORGS_FILE',
    doc: 'JSON file of organisations (`{"organisations":[{"id","apiKeyEnv","projectIds"}]}`): each command that reads or writes a lake runs once per organisation, in `<destination>/orgs/<id>/`; docs/organisations.md',
    defaultDoc: "none: one organisation, today's layout",
    readBy: ['cli'],
    parse: (raw) => raw,
  }),
  org: setting({
    env: 'EXPORT_ORG',
    doc: "the organisation a run works for: its part of the state (`orgs/<id>/` of `EXPORT_STATE_TABLE` or the state folder) and its own personal-data key, derived from the deployment's. The CLI sets it for each organisation of `MINTLIFY_ORGS_FILE`, the export worker for its message's",
    defaultDoc: 'none (one organisation)',
    readBy: EXPORT,
    parse: (raw) => (/^[a-z0-9-]{1,40}$/.test(raw) ? raw : fail('EXPORT_ORG is not an organisation id: use 1–40 lowercase letters, digits or -')),
  }),
  orgsSecretPrefix: setting({
    env: 'EXPORT_ORGS_SECRET_PREFIX',
    doc: 'name prefix of the organisations\' Secrets Manager secrets (`{"apiKey","projectIds"}` each, the organisation\'s id after the prefix), listed at each run; the follow-up function sends each message with the key of its organisation (infra sets it with context `organisations=true`)',
    defaultDoc: 'none (one organisation)',
    readBy: ['export', 'follow-up'],
    parse: (raw) =>
      /^[A-Za-z0-9/_+=.@-]{1,400}$/.test(raw) ? raw : fail('EXPORT_ORGS_SECRET_PREFIX is not a secret name prefix: use letters, digits and /_+=.@-'),
  }),
  orgsQueueUrl: setting({
    env: 'EXPORT_ORGS_QUEUE_URL',
    doc: 'SQS queue the dispatcher sends one message per organisation to (infra sets it with context `organisations=true`)',
    defaultDoc: 'none (one organisation)',
    readBy: ['export'],
    parse: (raw) =>
      /^https?:\/\/\S+$/.test(raw) ? raw : fail('EXPORT_ORGS_QUEUE_URL is not a queue URL: use the https://sqs… URL of the organisations queue'),
  }),
  settleHours: integer('EXPORT_SETTLE_HOURS', 0, 72, {
    doc: 'a UTC day is exported this long after it ends (the service ingests late events), hours',
    default: '2',
    readBy: [...EXPORT, 'insights', 'weekly-report'],
  }),
  healDays: integer('EXPORT_HEAL_DAYS', 0, 31, { doc: 'earlier days whose missing units each run exports', default: '7', readBy: EXPORT }),
  refreshDays: integer('EXPORT_REFRESH_DAYS', 0, 31, {
    doc: 'recent days whose `feedback` is exported again once a day (people change its `status` later)',
    default: '7',
    readBy: EXPORT,
  }),
  personalDataPolicy: setting({
    env: 'PERSONAL_DATA_POLICY',
    doc: "overrides of the personal columns' policies (`keep`, `drop`, `hmac`, `mask`), comma-separated `<table>.<column>=<policy>`, e.g. `feedback.contact=drop,assistant.response=keep` (docs/privacy.md)",
    default: '',
    defaultDoc: 'none: `feedback.contact` hmac, free text mask (docs/privacy.md)',
    readBy: EXPORT,
    parse: (raw) => parsePolicyOverrides(raw, 'PERSONAL_DATA_POLICY'),
  }),
  personalDataKey: setting({
    env: 'PERSONAL_DATA_KEY',
    doc: 'the key of the `hmac` columns (at least 16 characters); CLI only',
    defaultDoc: 'CLI: a random key generated once into `<state folder>/personal-data.key` (mode 0600)',
    readBy: EXPORT,
    parse: (raw) => validatePersonalDataKey(raw, 'PERSONAL_DATA_KEY'),
  }),
  personalDataKeySecretArn: setting({
    env: 'PERSONAL_DATA_KEY_SECRET_ARN',
    doc: 'Secrets Manager secret holding the key of the `hmac` columns (Lambda; the stack creates it)',
    defaultDoc: 'none',
    readBy: EXPORT,
    parse: (raw) =>
      SECRET_ARN_PATTERN.test(raw)
        ? raw
        : fail('PERSONAL_DATA_KEY_SECRET_ARN is not a Secrets Manager ARN: use arn:aws:secretsmanager:<region>:<account>:secret:<name>'),
  }),
  personalDataRetentionDays: setting({
    env: 'PERSONAL_DATA_RETENTION_DAYS',
    doc: 'days of the tables holding personal columns older than this are deleted (hourly run, `export`) and never exported again; `status` shows them `expired`',
    defaultDoc: 'unset: kept',
    range: { min: 1, max: 36_500 },
    readBy: EXPORT,
    parse: (raw) => wholeNumber('PERSONAL_DATA_RETENTION_DAYS', raw, 1, 36_500, 'unset: kept'),
  }),
  stateTable: setting({
    env: 'EXPORT_STATE_TABLE',
    doc: "DynamoDB table of the budget ledger, unit leases and backlog (the Lambda requires it; infra sets it). Set for the CLI, `export`, `plan` and `status` share the deployment's ledger; their DynamoDB client takes its region, credentials and endpoint from the environment (as the AWS CLI does)",
    defaultDoc: 'CLI: files in `EXPORT_STATE_DIR`',
    readBy: [...EXPORT, 'insights'],
    requiredIn: {
      export: 'the export Lambda keeps its budget ledger and leases in that DynamoDB table',
      insights: 'the insights check records what it told in that DynamoDB table',
    },
    parse: (raw) => tableName('EXPORT_STATE_TABLE', raw),
  }),
  glueDatabase: setting({
    env: 'EXPORT_GLUE_DATABASE',
    doc: "Glue database of the stack's tables (infra sets it): each committed day is registered as a partition of its tables, so Redshift Spectrum, Spark and Trino on Glue see it with no step (Athena uses partition projection). The follow-up function registers its outcomes' days and the weekly report its verdicts' (`fix_effects`). Set for the CLI, `export` registers too and `register-partitions` registers past days",
    defaultDoc: 'unset: nothing registered',
    readBy: [...EXPORT, 'follow-up', 'weekly-report'],
    parse: (raw) => glueDatabaseName('EXPORT_GLUE_DATABASE', raw),
  }),
  athenaWorkgroup: setting({
    env: 'EXPORT_ATHENA_WORKGROUP',
    doc: 'Athena workgroup of the Iceberg tables (infra sets it with `-c tableFormat=iceberg`; needs `EXPORT_ICEBERG_DATABASE`): after a run commits, each table\'s committed days are merged into its Iceberg table, and `forget` and retention delete from them (docs/warehouse.md, "Iceberg tables")',
    defaultDoc: 'unset: no Iceberg tables',
    readBy: EXPORT,
    parse: (raw) =>
      /^[A-Za-z0-9._-]{1,128}$/.test(raw)
        ? raw
        : fail(
            `EXPORT_ATHENA_WORKGROUP "${raw.slice(0, 60)}" is not an Athena workgroup name: use the stack's IcebergWorkGroup output (letters, digits, ., _ or -)`,
          ),
  }),
  icebergDatabase: setting({
    env: 'EXPORT_ICEBERG_DATABASE',
    doc: 'Glue database of the Iceberg tables and of the Hive tables they are merged from (infra sets it with `-c tableFormat=iceberg`; needs `EXPORT_ATHENA_WORKGROUP`)',
    defaultDoc: 'unset: no Iceberg tables',
    readBy: EXPORT,
    parse: (raw) => glueDatabaseName('EXPORT_ICEBERG_DATABASE', raw),
  }),
  stateDir: setting({
    env: 'EXPORT_STATE_DIR',
    doc: 'local folder of the ledger and leases, shared by every CLI run that uses it',
    defaultDoc: '`<local destination>/.state` (`./data/.state` for an `s3://` destination)',
    readBy: EXPORT,
    parse: (raw) => raw,
  }),
  checkpointMaxAgeHours: integer('EXPORT_CHECKPOINT_MAX_AGE_HOURS', 1, 168, {
    doc: 'a checkpoint older than this restarts its unit from the first page, hours',
    default: '24',
    readBy: EXPORT,
  }),
  maxPages: integer('EXPORT_MAX_PAGES', 1, 1_000_000, {
    doc: 'hard page cap per unit; passing it fails the unit, never truncates',
    default: '10000',
    readBy: EXPORT,
  }),
  pageLimit: setting({
    env: 'EXPORT_PAGE_LIMIT',
    doc: 'caps the rows asked for per request (tests use it to make many pages of little data)',
    defaultDoc: "unset: each endpoint's maximum (250, 100 or 1000)",
    range: { min: 1, max: 1000 },
    readBy: EXPORT,
    parse: (raw) => wholeNumber('EXPORT_PAGE_LIMIT', raw, 1, 1000, "each endpoint's maximum"),
  }),
  apiTimeoutMs: integer('API_TIMEOUT_MS', 100, 900_000, { doc: 'per-request timeout, ms', default: String(DEFAULT_API_TIMEOUT_MS), readBy: ALL }),
  followUpStateTable: setting({
    env: 'FOLLOWUP_STATE_TABLE',
    doc: 'DynamoDB table of follow-up state; required by the Lambda (infra sets it)',
    defaultDoc: 'CLI: a local store under `<destination>/.followup-state`',
    readBy: FOLLOW_UP,
    requiredIn: { 'follow-up': 'the follow-up Lambda needs its DynamoDB table' },
    parse: (raw) => tableName('FOLLOWUP_STATE_TABLE', raw),
  }),
  followUpDeadLetterQueueUrl: setting({
    env: 'FOLLOWUP_DEAD_LETTER_QUEUE_URL',
    doc: 'where bad/uncertain follow-ups go; required by the Lambda (infra sets it)',
    defaultDoc: "`consume`: the queue's redrive target",
    readBy: FOLLOW_UP,
    requiredIn: { 'follow-up': 'the follow-up Lambda needs its dead-letter queue' },
    parse: (raw) => {
      let url: URL | undefined;
      try {
        url = new URL(raw);
      } catch {
        url = undefined;
      }
      return url && (url.protocol === 'https:' || url.protocol === 'http:')
        ? raw
        : fail('FOLLOWUP_DEAD_LETTER_QUEUE_URL is not a queue URL: use https://sqs.<region>.amazonaws.com/<account>/<queue>');
    },
  }),
  followUpMaxWaitHours: decimal('FOLLOWUP_MAX_WAIT_HOURS', 0, 336, {
    doc: 'give up polling a job after this long: outcome `timed_out`, hours',
    default: '24',
    readBy: FOLLOW_UP,
  }),
  followUpMaxDeferMinutes: integer('FOLLOWUP_MAX_DEFER_MINUTES', 1, 20_160, {
    doc: 'a prompt not sent this long after its first attempt is `rejected` (see Follow-up prompts), minutes',
    default: '120',
    readBy: FOLLOW_UP,
  }),
  followUpPollMinSeconds: decimal('FOLLOWUP_POLL_MIN_SECONDS', 0, 3600, {
    doc: "shortest wait between two polls of a job, seconds: the wait grows with the job's age (a tenth of it, at most 2 h); a local API's jobs (the sandbox's) finish in a second",
    default: '5',
    readBy: FOLLOW_UP,
  }),
  followUpOutcomesTopicArn: setting({
    env: 'FOLLOWUP_OUTCOMES_TOPIC_ARN',
    doc: "SNS topic every follow-up outcome record is also published to (attributes `status`, `projectId`, `jobId`); infra sets it to the stack's topic; `consume --outcomes-topic` overrides it",
    defaultDoc: 'unset: outcomes are not published',
    readBy: FOLLOW_UP,
    parse: (raw) => validateTopicArn(raw),
  }),
  anomalyDrop: setting({
    env: 'ANOMALY_DROP',
    doc: "a newly complete day's figure below this times the median of the same weekday over the 4 weeks before is an anomaly (a drop to half is `0.5`)",
    default: '0.5',
    range: { min: 0, max: 1, above: true },
    readBy: ['insights', 'cli'],
    parse: (raw) => {
      const value = /^\d+(?:\.\d+)?$/.test(raw) ? Number(raw) : Number.NaN;
      return value > 0 && value < 1
        ? value
        : fail(`ANOMALY_DROP must be a number above 0 and below 1 (got "${raw.slice(0, 20)}"): a drop to half is 0.5; fix or unset it (default 0.5)`);
    },
  }),
  anomalyRise: setting({
    env: 'ANOMALY_RISE',
    doc: "a newly complete day's figure above this times the median of the same weekday over the 4 weeks before is an anomaly (a tripling is `3`)",
    default: '3',
    range: { min: 1, max: 1_000, above: true },
    readBy: ['insights', 'cli'],
    parse: (raw) => {
      const value = /^\d+(?:\.\d+)?$/.test(raw)
        ? Number(raw)
        : fail(`ANOMALY_RISE must be a number above 1 (got "${raw.slice(0, 20)}"): a tripling is 3; fix or unset it (default 3)`);
      return value > 1 && value <= 1_000
        ? value
        : fail(`ANOMALY_RISE must be above 1 and at most 1000 (got ${value}): a tripling is 3; fix or unset it (default 3)`);
    },
  }),
  insightsTopicArn: setting({
    env: 'INSIGHTS_TOPIC_ARN',
    doc: "SNS topic of the weekly report digest, anomalies, stale datasets and the agent's pull requests out of scope (attribute `kind`); infra sets it to the stack's topic",
    defaultDoc: 'unset: nothing is published',
    readBy: ['insights', 'weekly-report', 'cli', 'follow-up'],
    requiredIn: {
      insights: 'the insights functions publish to that SNS topic (the stack output InsightsTopicArn)',
      'weekly-report': 'the insights functions publish to that SNS topic (the stack output InsightsTopicArn)',
    },
    parse: (raw) => validateTopicArn(raw, 'INSIGHTS_TOPIC_ARN', 'InsightsTopicArn'),
  }),
  reportSiteUrl: setting({
    env: 'REPORT_SITE_URL',
    doc: "the docs site's base URL (`https://docs.example.com`): the report links each page path to its page",
    defaultDoc: 'unset: paths are shown as text',
    readBy: ['cli', 'weekly-report'],
    parse: (raw) => validateSiteUrl(raw),
  }),
  reportLinkUrl: setting({
    env: 'REPORT_LINK_URL',
    doc: "the CloudFront distribution over the reports (`https://d111.cloudfront.net`): the digest links the week's page there, signed for 7 days; infra sets it with context `reportLinkPublicKey`",
    defaultDoc: 'unset: the digest names the page in the bucket, no link',
    readBy: ['weekly-report'],
    parse: (raw) =>
      /^https:\/\/[A-Za-z0-9.-]+$/.test(raw.replace(/\/$/, ''))
        ? raw.replace(/\/$/, '')
        : fail(
            `REPORT_LINK_URL "${raw.slice(0, 60)}" is not a distribution's base URL: use https://d111.cloudfront.net (the stack's ReportLinkUrl output), or unset it`,
          ),
  }),
  reportLinkKeyPairId: setting({
    env: 'REPORT_LINK_KEY_PAIR_ID',
    doc: "id of the CloudFront public key whose private key signs the digest's link; infra sets it",
    defaultDoc: 'unset: no link',
    readBy: ['weekly-report'],
    parse: (raw) =>
      /^K[A-Z0-9]{5,40}$/.test(raw) ? raw : fail(`REPORT_LINK_KEY_PAIR_ID "${raw.slice(0, 40)}" is not a CloudFront public key id (K…): fix or unset it`),
  }),
  reportLinkKeySecretArn: setting({
    env: 'REPORT_LINK_KEY_SECRET_ARN',
    doc: "Secrets Manager secret holding the PEM private key that signs the digest's link (docs/deploy.md); infra sets it",
    defaultDoc: 'unset: no link',
    readBy: ['weekly-report'],
    parse: (raw) =>
      SECRET_ARN_PATTERN.test(raw) ? raw : fail(`REPORT_LINK_KEY_SECRET_ARN "${raw.slice(0, 60)}" is not a Secrets Manager secret ARN: fix or unset it`),
  }),
  // The scope check of the agent's pull requests (round seven): functions/settings/scope-settings.ts.
  ...SCOPE_SETTINGS,
} as const;

/** An http(s) base URL without credentials, query or fragment, for links in the report. */
function validateSiteUrl(raw: string): string {
  let url: URL | undefined;
  try {
    url = new URL(raw);
  } catch {
    url = undefined;
  }
  if (url === undefined || !/^https?:$/.test(url.protocol) || url.username !== '' || url.password !== '' || url.search !== '' || url.hash !== '') {
    return fail(
      `REPORT_SITE_URL "${raw.slice(0, 60)}" is not a site's base URL: use https://docs.example.com (no query, fragment or credentials), or unset it`,
    );
  }
  return url.href.replace(/\/$/, '');
}
