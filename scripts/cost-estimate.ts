/**
 * The monthly cost estimate of docs/deploy.md: unit prices × what the stack does at three sizes
 * of docs site. What the stack is made of — each scheduled function's schedule, memory and
 * architecture, the follow-up consumer's memory, the alarms, dashboards, KMS keys, secrets and
 * Glue tables — is read from the synthesized template (default context, bundling skipped), so a
 * change of the stack changes the table; what a site sends — API requests and Parquet bytes a
 * day — was measured from a sandbox export of its three projects (`npm start`, 14 days); the
 * rest (durations, queries, prompts) are assumptions, named in `ASSUMPTIONS`. The measured sizes
 * are checked against the samples' run (scripts/sample-run.ts) by test/integration/docs/doc-samples.test.ts. `npm run docs`
 * writes the table between its markers; test/infra/cost-estimate.test.ts fails while it is stale
 * and checks its arithmetic.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { configFromContext, MintlifyExporterStack } from '../infra/stack.js';
import { METRIC_PUBLISHERS } from '../functions/shared/metric-names.js';
import { DATASET_TABLES } from '../functions/warehouse/catalog.js';
import { blockMarkers, cell, withBlock } from './generated-block.js';

/** us-east-1 list prices (USD), as published in 2026, without free tiers: to check against the AWS price pages before relying on them. */
export const PRICES = {
  lambdaRequest: { usd: 0.2 / 1_000_000, unit: 'Lambda request', text: '$0.20 per million' },
  lambdaGbSecondArm: { usd: 0.0000133334, unit: 'GB-s (Arm)', text: '$0.0000133334 per GB-s' },
  lambdaGbSecondX86: { usd: 0.0000166667, unit: 'GB-s (x86)', text: '$0.0000166667 per GB-s' },
  s3Storage: { usd: 0.023, unit: 'GB-month (S3 Standard)', text: '$0.023 per GB-month' },
  s3Put: { usd: 0.005 / 1000, unit: 'S3 PUT/LIST', text: '$0.005 per 1,000' },
  s3Get: { usd: 0.0004 / 1000, unit: 'S3 GET', text: '$0.0004 per 1,000' },
  sqsFifo: { usd: 0.5 / 1_000_000, unit: 'SQS FIFO request', text: '$0.50 per million' },
  dynamoWrite: { usd: 0.625 / 1_000_000, unit: 'DynamoDB write request unit (on demand)', text: '$0.625 per million' },
  dynamoRead: { usd: 0.125 / 1_000_000, unit: 'DynamoDB read request unit (on demand)', text: '$0.125 per million' },
  athenaTb: { usd: 5, unit: 'TB scanned by Athena (10 MB minimum per query)', text: '$5.00 per TB' },
  cloudFrontGb: { usd: 0.085, unit: 'GB out of CloudFront (North America)', text: '$0.085 per GB' },
  cloudFrontRequest: { usd: 0.01 / 10_000, unit: 'CloudFront HTTPS request', text: '$0.0100 per 10,000' },
  secret: { usd: 0.4, unit: 'Secrets Manager secret-month', text: '$0.40 per secret-month' },
  secretCall: { usd: 0.05 / 10_000, unit: 'Secrets Manager API call', text: '$0.05 per 10,000' },
  glueObject: { usd: 1 / 100_000, unit: 'Glue Data Catalog object-month', text: '$1.00 per 100,000 (the first million free)' },
  glueRequest: { usd: 1 / 1_000_000, unit: 'Glue Data Catalog request', text: '$1.00 per million (the first million free)' },
  cloudWatchMetric: { usd: 0.3, unit: 'CloudWatch custom metric-month', text: '$0.30 per metric-month (first 10,000)' },
  cloudWatchLogsStorage: { usd: 0.03, unit: 'GB-month of CloudWatch Logs stored', text: '$0.03 per GB-month' },
  kmsKey: { usd: 1, unit: 'KMS key-month', text: '$1.00 per key-month' },
  cloudWatchDashboard: { usd: 3, unit: 'CloudWatch dashboard-month', text: '$3.00 per dashboard-month' },
  cloudWatchAlarm: { usd: 0.1, unit: 'CloudWatch alarm-month (standard resolution)', text: '$0.10 per alarm-month' },
  cloudWatchLogsGb: { usd: 0.5, unit: 'GB of CloudWatch Logs ingested', text: '$0.50 per GB' },
  snsPublish: { usd: 0.5 / 1_000_000, unit: 'SNS publish', text: '$0.50 per million' },
  snsEmail: { usd: 2 / 100_000, unit: 'SNS e-mail', text: '$2.00 per 100,000' },
} as const;

type PriceName = keyof typeof PRICES;

/** A docs site: one project, sized as one of the sandbox's (measured from its export). */
export interface SiteSize {
  readonly name: string;
  readonly like: string;
  /** Visitors a day (the sandbox project's, rounded). */
  readonly visitors: number;
  /** Analytics requests (= pages) a day for all seven datasets: measured. */
  readonly apiRequests: number;
  /** Bytes a day kept in the lake, every table's Parquet file and every manifest: measured. */
  readonly parquetBytes: number;
  /** Follow-up prompts a month (assumed). */
  readonly prompts: number;
  /** Seconds of the weekly report function (assumed, after `npm run bench -- report-function`). */
  readonly reportSeconds: number;
}

/** Measured on the sandbox export of 14 days (7 datasets, `npm start`): requests a day and bytes a day of each project. */
export const SIZES: readonly SiteSize[] = [
  { name: 'small', like: 'proj_small', visitors: 750, apiRequests: 9, parquetBytes: 62_000, prompts: 10, reportSeconds: 20 },
  { name: 'medium', like: 'proj_medium', visitors: 6_000, apiRequests: 33, parquetBytes: 171_000, prompts: 30, reportSeconds: 30 },
  { name: 'large', like: 'proj_large', visitors: 30_000, apiRequests: 228, parquetBytes: 1_025_000, prompts: 100, reportSeconds: 60 },
];

/** What the estimate assumes beyond the stack and the measured sizes. */
export const ASSUMPTIONS = {
  daysPerMonth: 30.4,
  /** History kept in the bucket when the storage is counted. */
  storedMonths: 12,
  /** An hourly export run with nothing due: plan, read manifests, log the run. */
  idleExportSeconds: 2,
  /** One analytics request: the API's answer (latency) plus staging the page. */
  secondsPerRequest: 0.5,
  /** The hourly insights check (DuckDB over the newly complete days). */
  insightsSeconds: 4,
  /** A follow-up prompt: sent, then its job polled until it ends. */
  secondsPerPrompt: 60,
  /** Athena queries a month, each over 30 days of every table. */
  athenaQueries: 100,
  /** Views of the weekly page through its signed link (with reportLinkPublicKey). */
  reportViews: 20,
  reportPageBytes: 150_000,
  /** Log bytes a function writes per invocation, and per analytics request. */
  logBytesPerInvocation: 5_000,
  logBytesPerRequest: 500,
  /** Pollers of the follow-up queue (its maximum concurrency), each a 20 s long poll. */
  queuePollers: 2,
} as const;

/** One line of the estimate: what is counted, and its quantity of each priced unit a month. */
interface Line {
  readonly service: string;
  readonly what: string;
  readonly quantities: Partial<Record<PriceName, number>>;
}

/** What the synthesized stack is made of, as far as its cost goes. */
export interface StackFacts {
  /** Scheduled functions: runs a month, memory (GB), architecture. */
  readonly scheduled: readonly { readonly id: string; readonly runsPerMonth: number; readonly gb: number; readonly arm: boolean }[];
  readonly consumer: { readonly gb: number; readonly arm: boolean };
  readonly alarms: number;
  readonly dashboards: number;
  readonly kmsKeys: number;
  readonly secrets: number;
  /** The Glue database and its tables (partitions are counted from the days kept). */
  readonly glueObjects: number;
  readonly distributions: number;
  readonly logGroups: number;
  /** Custom metrics the code publishes: one per name and dimension set (`publishedMetrics`). */
  readonly customMetrics: number;
}

/**
 * Every resource type the stack may synthesize: billed (and which line of the estimate counts
 * it), or free with why. A type in the template that is in neither fails the estimate, so a new
 * kind of resource is priced (or said to be free) the day it is added.
 */
export const RESOURCE_TYPES: Readonly<Record<string, { readonly billed: string } | { readonly free: string }>> = {
  'AWS::Lambda::Function': { billed: 'Lambda (requests and GB-s of each run)' },
  'AWS::S3::Bucket': { billed: 'S3 (storage, writes, reads)' },
  'AWS::SQS::Queue': { billed: 'SQS (requests)' },
  'AWS::DynamoDB::Table': { billed: 'DynamoDB (on-demand requests)' },
  'AWS::Athena::WorkGroup': { billed: 'Athena (bytes scanned)' },
  'AWS::CloudFront::Distribution': { billed: 'CloudFront (bytes and requests; no monthly fee of its own)' },
  'AWS::SecretsManager::Secret': { billed: 'Secrets Manager (a month each, and calls)' },
  'AWS::Glue::Database': { billed: 'Glue Data Catalog (objects)' },
  'AWS::Glue::Table': { billed: 'Glue Data Catalog (objects)' },
  'AWS::KMS::Key': { billed: 'KMS (a month each)' },
  'AWS::CloudWatch::Alarm': { billed: 'CloudWatch (a month each)' },
  'AWS::CloudWatch::Dashboard': { billed: 'CloudWatch (a month each)' },
  'AWS::Logs::LogGroup': { billed: 'CloudWatch Logs (ingested and stored)' },
  'AWS::SNS::Topic': { billed: 'SNS (publishes and e-mails)' },
  'AWS::SNS::Subscription': { billed: 'SNS (e-mails, counted with the publishes)' },
  'AWS::Events::Rule': { free: 'scheduled EventBridge rules are free' },
  'AWS::Lambda::Permission': { free: 'a permission' },
  'AWS::Lambda::EventSourceMapping': { free: 'the SQS polling it does is counted as SQS requests' },
  'AWS::Lambda::EventInvokeConfig': { free: 'configuration' },
  'AWS::IAM::Role': { free: 'IAM is free' },
  'AWS::IAM::Policy': { free: 'IAM is free' },
  'AWS::IAM::ManagedPolicy': { free: 'IAM is free' },
  'AWS::S3::BucketPolicy': { free: 'a policy' },
  'AWS::SQS::QueuePolicy': { free: 'a policy' },
  'AWS::SNS::TopicPolicy': { free: 'a policy' },
  'AWS::Athena::NamedQuery': { free: 'a saved query (its runs are counted as Athena)' },
  'AWS::CloudFront::PublicKey': { free: 'configuration of the distribution' },
  'AWS::CloudFront::KeyGroup': { free: 'configuration of the distribution' },
  'AWS::CloudFront::OriginAccessControl': { free: 'configuration of the distribution' },
  'AWS::CDK::Metadata': { free: "CDK's own record" },
};

/** Powertools calls that would add a dimension set (and so more metrics) than `service` alone. */
const EXTRA_DIMENSIONS = /\b(addDimensions?|defaultDimensions|setDefaultDimensions|captureColdStartMetric|singleMetric)\b/;

/**
 * The custom metrics the functions publish, read from their code: each `<GROUP>_METRICS.<key>` a
 * function refers to (functions/shared/metric-names.ts declares them, not publishes them) is one
 * metric of its publisher's `service` dimension — CloudWatch bills each name × dimension set. The
 * stack the estimate prices is the default one: functions/organisations/ (organisations=true) is left out.
 * @throws when a function sets another dimension: the count would be short.
 */
export function publishedMetrics(root = new URL('../functions/', import.meta.url)): { readonly service: string; readonly name: string }[] {
  const found = new Map<string, { service: string; name: string }>();
  const visit = (dir: URL) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      // functions/organisations/ runs only in a deployment for many organisations (context organisations=true): its
      // metrics carry an Organisation dimension, one set per organisation, priced in docs/organisations.md.
      if (entry.isDirectory()) {
        if (entry.name !== 'organisations') visit(new URL(`${entry.name}/`, dir));
      } else if (entry.name.endsWith('.ts') && entry.name !== 'metric-names.ts') {
        const text = readFileSync(new URL(entry.name, dir), 'utf8');
        const extra = EXTRA_DIMENSIONS.exec(text);
        if (extra) throw new Error(`${entry.name} calls ${extra[1]}: count its dimension sets in publishedMetrics() before the estimate can count metrics`);
        for (const publisher of METRIC_PUBLISHERS) {
          for (const match of text.matchAll(new RegExp(`\\b${publisher.group}\\.(\\w+)`, 'g'))) {
            const name = (publisher.metrics as Record<string, string>)[match[1] as string];
            if (name !== undefined) found.set(`${publisher.service}/${name}`, { service: publisher.service, name });
          }
        }
      }
    }
  };
  visit(root);
  return [...found.values()].sort((a, b) => `${a.service}/${a.name}`.localeCompare(`${b.service}/${b.name}`));
}

/** Runs a month of an EventBridge expression: the hourly, daily and weekly `cron(…)` and `rate(…)` forms the stack uses. */
export function runsPerMonth(expression: string): number {
  const days = ASSUMPTIONS.daysPerMonth;
  const rate = /^rate\((\d+) (minute|minutes|hour|hours|day|days)\)$/.exec(expression);
  if (rate) {
    const perDay = { minute: 1440, hour: 24, day: 1 }[(rate[2] as string).replace(/s$/, '') as 'minute' | 'hour' | 'day'];
    return (days * perDay) / Number(rate[1]);
  }
  const cron = /^cron\((\S+) (\S+) (\S+) (\S+) (\S+) (\S+)\)$/.exec(expression);
  if (!cron) throw new Error(`cannot count the runs of ${expression}`);
  const [, minutes, hours, , , weekdays] = cron as unknown as string[];
  const perHour = minutes === '*' ? 60 : (minutes as string).split(',').length;
  const perDay = perHour * (hours === '*' ? 24 : (hours as string).split(',').length);
  const weekly = weekdays !== '?' && weekdays !== '*';
  return weekly ? (perDay * (weekdays as string).split(',').length * days) / 7 : perDay * days;
}

/** The stack as `cdk synth` makes it with cdk.json's context (bundling skipped). */
export function stackFacts(): StackFacts {
  const context = (JSON.parse(readFileSync(new URL('../cdk.json', import.meta.url), 'utf8')) as { context: Record<string, unknown> }).context;
  const outdir = mkdtempSync(path.join(tmpdir(), 'mintlify-cost-'));
  try {
    const app = new App({ outdir, context: { ...context, 'aws:cdk:bundling-stacks': [], projectIds: 'proj_a' } });
    const stack = new MintlifyExporterStack(app, 'MintlifyExporter', { config: configFromContext(app) });
    const resources = Template.fromStack(stack).toJSON()['Resources'] as Record<string, { Type: string; Properties?: Record<string, unknown> }>;
    const unknown = [...new Set(Object.values(resources).map((r) => r.Type))].filter((type) => RESOURCE_TYPES[type] === undefined);
    if (unknown.length > 0) throw new Error(`the estimate does not know ${unknown.join(', ')}: say in RESOURCE_TYPES what it costs (or why it is free)`);
    const of = (type: string) => Object.entries(resources).filter(([, r]) => r.Type === type);
    const fn = (id: string) => {
      const props = resources[id]?.Properties ?? {};
      return { gb: Number(props['MemorySize'] ?? 128) / 1024, arm: JSON.stringify(props['Architectures'] ?? []).includes('arm64') };
    };
    const scheduled = of('AWS::Events::Rule').flatMap(([id, rule]) => {
      const expression = rule.Properties?.['ScheduleExpression'];
      const target = ((rule.Properties?.['Targets'] ?? []) as { Arn?: { 'Fn::GetAtt'?: [string, string] } }[])[0]?.Arn?.['Fn::GetAtt']?.[0];
      return typeof expression === 'string' && target !== undefined ? [{ id, runsPerMonth: runsPerMonth(expression), ...fn(target) }] : [];
    });
    const mapping = of('AWS::Lambda::EventSourceMapping')[0]?.[1].Properties?.['FunctionName'] as { Ref?: string } | undefined;
    if (mapping?.Ref === undefined) throw new Error('the template has no follow-up consumer');
    return {
      scheduled,
      consumer: fn(mapping.Ref),
      alarms: of('AWS::CloudWatch::Alarm').length,
      dashboards: of('AWS::CloudWatch::Dashboard').length,
      kmsKeys: of('AWS::KMS::Key').length,
      secrets: of('AWS::SecretsManager::Secret').length,
      glueObjects: of('AWS::Glue::Database').length + of('AWS::Glue::Table').length,
      distributions: of('AWS::CloudFront::Distribution').length,
      logGroups: of('AWS::Logs::LogGroup').length,
      customMetrics: publishedMetrics().length,
    };
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

/** The scheduled function whose logical id starts with `prefix`. */
function scheduledOf(stack: StackFacts, prefix: string): StackFacts['scheduled'][number] {
  const found = stack.scheduled.find((s) => s.id.startsWith(prefix));
  if (!found) throw new Error(`the template has no schedule ${prefix}…`);
  return found;
}

/** The lines of the estimate of `size` on `stack`: quantities a month. */
export function linesOf(stack: StackFacts, size: SiteSize): Line[] {
  const a = ASSUMPTIONS;
  const days = a.daysPerMonth;
  const exportFn = scheduledOf(stack, 'ExportSchedule');
  const insights = scheduledOf(stack, 'InsightsSchedule');
  const report = scheduledOf(stack, 'WeeklyReportSchedule');
  const requests = size.apiRequests * days;
  const gbs = (fn: { gb: number; arm: boolean }, seconds: number): Partial<Record<PriceName, number>> => ({
    [fn.arm ? 'lambdaGbSecondArm' : 'lambdaGbSecondX86']: fn.gb * seconds,
  });
  const invocations = exportFn.runsPerMonth + insights.runsPerMonth + report.runsPerMonth + size.prompts;
  const pollRequests = a.queuePollers * ((days * 86_400) / 20);
  // Pages: one object staged and one checkpoint written per page, read back once at commit; 10
  // table files and 7 manifests a day; a run-log record per export run; the insights read 5
  // figure tables of the day and 4 weeks of the same weekday; the weekly report mirrors 14 days.
  const objectsPerDay = 17;
  const datasetTables = new Set(Object.values(DATASET_TABLES).flatMap((defs) => defs.map((def) => def.name))).size;
  const partitions = datasetTables * days * a.storedMonths;
  // A GetTable and a BatchCreatePartition per table of each committed unit (the site's one project).
  const registrations = datasetTables * 2 * days;
  const logGb = (invocations * a.logBytesPerInvocation + requests * a.logBytesPerRequest) / 1e9;
  return [
    {
      service: 'Lambda',
      what: `export: ${fmt(exportFn.runsPerMonth)} runs × ${a.idleExportSeconds} s + ${fmt(requests)} requests × ${a.secondsPerRequest} s, ${exportFn.gb * 1024} MB`,
      quantities: { lambdaRequest: exportFn.runsPerMonth, ...gbs(exportFn, exportFn.runsPerMonth * a.idleExportSeconds + requests * a.secondsPerRequest) },
    },
    {
      service: 'Lambda',
      what: `insights: ${fmt(insights.runsPerMonth)} runs × ${a.insightsSeconds} s; weekly report: ${fmt(report.runsPerMonth)} runs × ${size.reportSeconds} s; ${insights.gb * 1024} and ${report.gb * 1024} MB`,
      quantities: sum(
        { lambdaRequest: insights.runsPerMonth + report.runsPerMonth },
        gbs(insights, insights.runsPerMonth * a.insightsSeconds),
        gbs(report, report.runsPerMonth * size.reportSeconds),
      ),
    },
    {
      service: 'Lambda',
      what: `follow-ups: ${size.prompts} prompts × ${a.secondsPerPrompt} s, ${stack.consumer.gb * 1024} MB`,
      quantities: { lambdaRequest: size.prompts, ...gbs(stack.consumer, size.prompts * a.secondsPerPrompt) },
    },
    {
      service: 'S3',
      what: `storage: ${a.storedMonths} months of Parquet and manifests (${fmtBytes(size.parquetBytes)} a day)`,
      quantities: { s3Storage: (size.parquetBytes * days * a.storedMonths) / 1e9 },
    },
    {
      service: 'S3',
      what: `writes and lists: 2 per page, ${objectsPerDay} objects a day, a run-log record and 10 lists per export run`,
      quantities: { s3Put: requests * 2 + objectsPerDay * days + exportFn.runsPerMonth * 11 + report.runsPerMonth * (objectsPerDay + 2) },
    },
    {
      service: 'S3',
      what: `reads: each page once, the insights' ${5 * 5} objects a day, the weekly report's 14 days`,
      quantities: { s3Get: requests + 25 * days + report.runsPerMonth * 14 * objectsPerDay + exportFn.runsPerMonth * 7 },
    },
    {
      service: 'SQS',
      what: `follow-up queue (FIFO): ${a.queuePollers} long polls of 20 s at all times, 3 requests per prompt`,
      quantities: { sqsFifo: pollRequests + size.prompts * 3 },
    },
    {
      service: 'DynamoDB',
      what: 'budget ledger and leases: 2 writes and 1 read per request, 4 writes and 10 reads per export run, 6 per prompt',
      quantities: {
        dynamoWrite: requests * 2 + exportFn.runsPerMonth * 4 + size.prompts * 6,
        dynamoRead: requests + exportFn.runsPerMonth * 10 + size.prompts * 6,
      },
    },
    {
      service: 'Athena',
      what: `${a.athenaQueries} queries over 30 days of every table`,
      quantities: { athenaTb: (a.athenaQueries * Math.max(10e6, size.parquetBytes * 30)) / 1e12 },
    },
    {
      service: 'CloudFront',
      what: `${stack.distributions} distribution(s) (the weekly page's link, only with reportLinkPublicKey): ${a.reportViews} views a week of the ${fmtBytes(a.reportPageBytes)} page each`,
      quantities: {
        cloudFrontGb: (stack.distributions * report.runsPerMonth * a.reportViews * a.reportPageBytes) / 1e9,
        cloudFrontRequest: stack.distributions * report.runsPerMonth * a.reportViews,
      },
    },
    {
      service: 'Secrets Manager',
      what: `${stack.secrets} secrets; a read per secret and export run`,
      quantities: { secret: stack.secrets, secretCall: exportFn.runsPerMonth * stack.secrets + size.prompts },
    },
    {
      service: 'Glue Data Catalog',
      what: `${stack.glueObjects} objects (database and tables) and ${fmt(partitions)} partitions (a day of each of the ${datasetTables} dataset tables, registered by the export, ${a.storedMonths} months kept); their registrations`,
      quantities: { glueObject: stack.glueObjects + partitions, glueRequest: registrations },
    },
    { service: 'KMS', what: `${stack.kmsKeys} keys (the topics')`, quantities: { kmsKey: stack.kmsKeys } },
    {
      service: 'CloudWatch',
      what: `${stack.dashboards} dashboard, ${stack.alarms} alarms, ${stack.customMetrics} custom metrics (each metric name and service the code publishes)`,
      quantities: { cloudWatchDashboard: stack.dashboards, cloudWatchAlarm: stack.alarms, cloudWatchMetric: stack.customMetrics },
    },
    {
      service: 'CloudWatch Logs',
      what: `${stack.logGroups} log groups: every invocation and request logged, kept a month`,
      quantities: { cloudWatchLogsGb: logGb, cloudWatchLogsStorage: logGb },
    },
    {
      service: 'SNS',
      what: 'the weekly digest, outcomes of prompts, each to one e-mail',
      quantities: { snsPublish: report.runsPerMonth + size.prompts, snsEmail: report.runsPerMonth + size.prompts },
    },
  ];
}

/** Quantities added up, unit by unit. */
function sum(...parts: Partial<Record<PriceName, number>>[]): Partial<Record<PriceName, number>> {
  const total: Partial<Record<PriceName, number>> = {};
  for (const part of parts) for (const [name, quantity] of Object.entries(part)) total[name as PriceName] = (total[name as PriceName] ?? 0) + (quantity ?? 0);
  return total;
}

/** USD of one line. */
export function costOf(line: Pick<Line, 'quantities'>): number {
  return Object.entries(line.quantities).reduce((sum, [name, quantity]) => sum + (quantity ?? 0) * PRICES[name as PriceName].usd, 0);
}

const usd = (value: number) => (value < 0.005 ? '< $0.01' : `$${value.toFixed(2)}`);
const fmt = (value: number) => (Number.isInteger(value) ? value.toLocaleString('en-US') : value.toLocaleString('en-US', { maximumFractionDigits: 1 }));
const fmtBytes = (bytes: number) => (bytes >= 1e6 ? `${(bytes / 1e6).toFixed(2)} MB` : `${Math.round(bytes / 1000)} KB`);

/** The table of docs/deploy.md: a line per service item, a column per size, the total; then the prices used. */
export function costTable(stack: StackFacts = stackFacts()): string {
  const lines = SIZES.map((size) => linesOf(stack, size));
  const head = `| service | what is counted (medium) | ${SIZES.map((s) => `${s.name} (like \`${s.like}\`: ~${fmt(s.visitors)} visitors, ${s.apiRequests} API requests a day)`).join(' | ')} |`;
  const rule = `|---|---|${SIZES.map(() => '---:|').join('')}`;
  const rows = (lines[0] ?? []).map(
    (line, i) => `| ${line.service} | ${cell(lines[1]?.[i]?.what ?? line.what)} | ${lines.map((l) => usd(costOf(l[i] as Line))).join(' | ')} |`,
  );
  const totals = lines.map((l) => l.reduce((sum, line) => sum + costOf(line), 0));
  const total = `| **total** | a month, list prices, no free tier | ${totals.map((t) => `**$${t.toFixed(2)}**`).join(' | ')} |`;
  const prices = Object.values(PRICES)
    .map((p) => `${p.unit}: ${p.text}`)
    .join('; ');
  return [head, rule, ...rows, total, '', `Unit prices used (us-east-1, list prices of 2026 — check them on the AWS pricing pages): ${prices}.`].join('\n');
}

export const COST_MARKERS = blockMarkers('cost-estimate', 'scripts/cost-estimate.ts, the synthesized stack and the sandbox export');

/** docs/deploy.md with its cost table regenerated. */
export function withCostEstimate(doc: string, stack?: StackFacts): string {
  return withBlock(doc, COST_MARKERS, costTable(stack));
}
