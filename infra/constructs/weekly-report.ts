/**
 * The weekly report: a scheduled function that builds the report `mintlify-exporter report`
 * builds (the last 7 complete days against the 7 before, every project) from the bucket, writes
 * it to `<prefix>/reports/weekly/<YYYY>-W<ww>.html` and `<prefix>/reports/latest.html`, and
 * publishes a digest with a pre-signed link on the insights topic.
 *
 * Least privilege: it reads (and lists) the data prefixes (tables, manifests, checkpoints, run
 * log) and what its page shows besides (follow-up outcomes, anomaly marks), puts objects under
 * `reports/` only, and publishes to the insights topic only. DuckDB runs inside
 * (duckdb-bundling.ts: x86_64, the installed packages copied into the asset, HOME=/tmp).
 */
import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { CONFIG_DEFAULTS } from '../../functions/settings/config.js';
import { INSIGHTS_SERVICE } from '../../functions/shared/metric-names.js';
import { rootOf } from '../../functions/warehouse/lake/layout.js';
import { FIX_EFFECTS } from '../../functions/warehouse/tables.js';
import { DUCKDB_ENTRY, DUCKDB_ENVIRONMENT, duckDbBundling } from './duckdb-bundling.js';
import type { Insights } from './insights.js';
import type { ReportLinks } from './report-links.js';
import { BundledFunction, runtimeEnvironment, type FunctionEnvironment, type LogLevel } from './lambda-defaults.js';
import type { Warehouse } from './warehouse.js';

/** Monday 06:00 UTC: the week to Sunday is complete (2 settle hours) and exported by then. */
export const DEFAULT_REPORT_SCHEDULE = 'cron(0 6 ? * MON *)';

/**
 * Memory of the function. DuckDB's memory and CPU grow with it (Lambda gives CPU in proportion):
 * 1 GB builds a 90-day report of three projects within seconds (bench/report-function.ts).
 */
export const DEFAULT_REPORT_MEMORY_MB = 1024;

/** Props of {@link WeeklyReport}. */
export interface WeeklyReportProps {
  readonly warehouse: Warehouse;
  readonly insights: Insights;
  readonly projectIds: readonly string[];
  /** @default DEFAULT_REPORT_SCHEDULE, 'cron(0 6 ? * MON *)' */
  readonly schedule?: string | undefined;
  /** `EXPORT_SETTLE_HOURS`: the week ends with the latest due day. @default 2 */
  readonly settleHours?: number | undefined;
  /** @default DEFAULT_REPORT_MEMORY_MB */
  readonly memorySize?: number | undefined;
  /** The signed-link distribution over the reports: the digest links the page there. @default - no link */
  readonly reportLinks?: ReportLinks | undefined;
  /** `REPORT_SITE_URL`: the page links each page path to its page. @default - paths as text */
  readonly siteUrl?: string | undefined;
  /** @default 'INFO' */
  readonly logLevel?: LogLevel | undefined;
  /** @default logs.RetentionDays.ONE_MONTH */
  readonly logRetention?: logs.RetentionDays | undefined;
  /**
   * A deployment for many organisations: one report and digest per organisation, each from and
   * into its own lake `orgs/<id>/` (functions/insights/weekly/organisations.ts).
   * @default false
   */
  readonly organisations?: boolean | undefined;
}

export class WeeklyReport extends Construct {
  readonly function: NodejsFunction;
  readonly logGroup: logs.LogGroup;
  readonly rule: events.Rule;
  /** The weekly report failed: no page, no digest this week. */
  readonly failures: cloudwatch.Alarm;

  constructor(scope: Construct, id: string, props: WeeklyReportProps) {
    super(scope, id);
    const bundled = new BundledFunction(this, 'Handler', {
      entry: DUCKDB_ENTRY,
      handler: props.organisations === true ? 'weeklyReportOrganisations' : 'weeklyReport',
      description: 'Weekly: the report of the last 7 complete days to reports/, and its digest on the insights topic',
      timeout: Duration.minutes(5),
      memorySize: props.memorySize ?? DEFAULT_REPORT_MEMORY_MB,
      logRetention: props.logRetention,
      reservedConcurrentExecutions: 1,
      native: duckDbBundling(),
      environment: {
        ...DUCKDB_ENVIRONMENT,
        MINTLIFY_PROJECT_IDS: props.projectIds.join(','),
        EXPORT_DESTINATION: props.warehouse.destination,
        EXPORT_SETTLE_HOURS: String(props.settleHours ?? CONFIG_DEFAULTS.settleHours),
        INSIGHTS_TOPIC_ARN: props.insights.topic.topicArn,
        // The verdicts' days (fix_effects) registered in the catalog by the run that writes them.
        EXPORT_GLUE_DATABASE: props.warehouse.database.databaseName,
        ...(props.siteUrl !== undefined ? { REPORT_SITE_URL: props.siteUrl } : {}),
        ...(props.reportLinks
          ? {
              REPORT_LINK_URL: props.reportLinks.baseUrl,
              REPORT_LINK_KEY_PAIR_ID: props.reportLinks.publicKey.publicKeyId,
              REPORT_LINK_KEY_SECRET_ARN: props.reportLinks.privateKeySecret.secretArn,
            }
          : {}),
        ...runtimeEnvironment(INSIGHTS_SERVICE, props.logLevel),
      } satisfies FunctionEnvironment<'weekly-report'>,
    });
    this.function = bundled.function;
    this.logGroup = bundled.logGroup;

    if (props.organisations === true) props.warehouse.grantOrganisationsWeeklyReport(this.function, rootOf('anomalies'), rootOf('reports'));
    props.warehouse.grantWarehouseRead(this.function);
    // Its page shows the fixes made for gaps and the hourly check's anomaly marks.
    props.warehouse.grantPageRead(this.function, rootOf('anomalies'));
    props.warehouse.grantReportsWrite(this.function, rootOf('reports'));
    props.warehouse.grantFixEffectsWrite(this.function);
    props.warehouse.grantPartitionRegistration(this.function, [FIX_EFFECTS.name]);
    props.insights.grantPublish(bundled.role);
    props.reportLinks?.grantSign(this.function);

    this.rule = new events.Rule(this, 'Schedule', {
      description: 'Weekly report of the Mintlify analytics (last 7 complete days against the 7 before)',
      schedule: events.Schedule.expression(props.schedule ?? DEFAULT_REPORT_SCHEDULE),
      targets: [new targets.LambdaFunction(this.function, { retryAttempts: 2, maxEventAge: Duration.hours(6) })],
    });

    this.failures = new cloudwatch.Alarm(this, 'Failures', {
      alarmDescription:
        "Weekly report: the function failed after its retries, so no page and no digest this week (nothing exported in the two weeks, the bucket unreadable, the topic refusing). First step: the weekly report function's log names the error; invoke it again by hand once fixed. Runbook: docs/operations.md → Runbook: WeeklyReportFailures.",
      metric: this.function.metricErrors({ period: Duration.hours(6), statistic: 'Sum' }),
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
  }
}
