/**
 * The on-call view: one CloudWatch dashboard that answers "did last night's data land, what
 * is still waiting for budget, and why did something fail" in a minute. Every metric widget
 * reads a metric the functions publish, by the names in `functions/shared/metric-names.ts`.
 */
import { Aws, Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { BudgetSpec } from '../../functions/shared/pacing/budget-spec.js';
import { EXPORT_METRICS, FOLLOWUP_METRICS, METRICS_NAMESPACE, ORGANISATION_DIMENSION, ORGS_METRICS } from '../../functions/shared/metric-names.js';
import { exporterMetric } from './operations.js';
import { SERVICE_NAMES } from './lambda-defaults.js';

/** Props of {@link OperationsDashboard}. */
export interface OperationsDashboardProps {
  readonly exportFunction: lambda.IFunction;
  readonly followUpFunction: lambda.IFunction;
  readonly followUpDeadLetterQueue: sqs.IQueue;
  readonly exportFailureQueue: sqs.IQueue;
  /** The export's budget: drawn as a line on the requests graph. */
  readonly budget: BudgetSpec;
  /** Alarms shown in the status widget at the top. */
  readonly alarms: readonly cloudwatch.IAlarm[];
  /** A deployment for many organisations (context `organisations=true`): a row of graphs per organisation. @default false */
  readonly organisations?: boolean;
  /** Iceberg tables merged through Athena (context `tableFormat=iceberg`): their failed statements beside the Glue partitions. @default false */
  readonly iceberg?: boolean;
}

/** The organisations' graphs: each a Metrics Insights query grouped by `Organisation` (organisations added later show up). */
const ORGANISATION_GRAPHS: readonly { readonly title: string; readonly metric: string; readonly label: string }[] = [
  { title: 'Runs per organisation (units completed)', metric: EXPORT_METRICS.unitsCompleted, label: 'units' },
  { title: 'Requests per organisation', metric: EXPORT_METRICS.requests, label: 'requests' },
  { title: 'Failures per organisation (runs and units)', metric: ORGS_METRICS.failed, label: 'runs failed' },
  { title: 'Lag per organisation (requests still to go)', metric: EXPORT_METRICS.backlogRequests, label: 'requests to go' },
];

/** The Metrics Insights query of `metric` per organisation: the 20 largest. */
export function perOrganisationQuery(metric: string, statistic: 'SUM' | 'MAX' = 'SUM'): string {
  return `SELECT ${statistic}(${metric}) FROM SCHEMA("${METRICS_NAMESPACE}", ${ORGANISATION_DIMENSION}, service) GROUP BY ${ORGANISATION_DIMENSION} ORDER BY ${statistic}() DESC LIMIT 20`;
}

const HOUR = Duration.hours(1);
const FIVE_MINUTES = Duration.minutes(5);

export class OperationsDashboard extends Construct {
  readonly dashboard: cloudwatch.Dashboard;
  /** The console address of the dashboard (stack output `DashboardUrl`). */
  readonly url: string;

  constructor(scope: Construct, id: string, props: OperationsDashboardProps) {
    super(scope, id);
    const exported = (name: string, statistic = 'Sum', period = HOUR, label?: string) => exporterMetric(name, SERVICE_NAMES.export, statistic, period, label);
    const followUp = (name: string, label?: string) => exporterMetric(name, SERVICE_NAMES.followUp, 'Sum', FIVE_MINUTES, label);
    const perHour = Math.floor((props.budget.requests * 3_600_000) / props.budget.windowMs);

    this.dashboard = new cloudwatch.Dashboard(this, 'Dashboard', {
      dashboardName: `${Aws.STACK_NAME}-operations`,
      defaultInterval: Duration.days(3),
    });
    this.dashboard.addWidgets(
      new cloudwatch.TextWidget({
        width: 24,
        height: 3,
        markdown: [
          '## mintlify-exporter',
          'The export runs hourly: **partial** units are waiting for budget (not failing); **failed** units name their reason in `export_runs` (Athena saved query *Last 14 runs*) and in `mintlify-exporter status`.',
          'Runbook: docs/operations.md → *Runbook*, one entry per alarm.',
        ].join('\n\n'),
      }),
    );
    this.dashboard.addWidgets(new cloudwatch.AlarmStatusWidget({ title: 'Alarms', width: 24, height: 3, alarms: [...props.alarms] }));
    if (props.organisations === true) {
      this.dashboard.addWidgets(
        ...ORGANISATION_GRAPHS.map(
          (graph) =>
            new cloudwatch.GraphWidget({
              title: graph.title,
              width: 6,
              height: 6,
              left: [
                new cloudwatch.MathExpression({
                  expression: perOrganisationQuery(graph.metric, graph.metric === EXPORT_METRICS.backlogRequests ? 'MAX' : 'SUM'),
                  label: graph.label,
                  period: HOUR,
                }),
              ],
            }),
        ),
      );
    }
    this.dashboard.addWidgets(
      new cloudwatch.GraphWidget({
        title: 'Export units per hour',
        width: 8,
        stacked: true,
        left: [
          exported(EXPORT_METRICS.unitsCompleted, 'Sum', HOUR, 'completed'),
          exported(EXPORT_METRICS.unitsPartial, 'Sum', HOUR, 'partial (waiting)'),
          exported(EXPORT_METRICS.unitsFailed, 'Sum', HOUR, 'failed'),
        ],
        // Completed units whose answers had new fields or values (kept): a subset, so apart.
        right: [
          exported(EXPORT_METRICS.schemaDrift, 'Sum', HOUR, 'with schema drift (kept)'),
          // Committed days whose Glue partition waits for the next run (the units are fine).
          exported(EXPORT_METRICS.partitionsFailed, 'Sum', HOUR, 'Glue partitions left for the next run'),
          // Iceberg statements that failed (tableFormat=iceberg only): a MERGE or DELETE is run again next run.
          ...(props.iceberg === true ? [exported(EXPORT_METRICS.icebergFailed, 'Sum', HOUR, 'Iceberg statements left for the next run')] : []),
        ],
      }),
      new cloudwatch.GraphWidget({
        title: 'Analytics requests per hour vs the budget',
        width: 8,
        left: [exported(EXPORT_METRICS.requests, 'Sum', HOUR, 'requests'), exported(EXPORT_METRICS.rateLimited, 'Sum', HOUR, '429s')],
        leftAnnotations: [{ value: perHour, label: `budget ${props.budget.text}`, color: cloudwatch.Color.RED }],
      }),
      new cloudwatch.GraphWidget({
        title: 'Backlog and missing days',
        width: 8,
        left: [exported(EXPORT_METRICS.backlogRequests, 'Maximum', HOUR, 'requests still needed')],
        right: [exported(EXPORT_METRICS.missingDays, 'Maximum', HOUR, 'missing units (overdue)')],
        leftAnnotations: [{ value: perHour * 24, label: 'one day of budget' }],
      }),
    );
    this.dashboard.addWidgets(
      new cloudwatch.GraphWidget({
        title: 'Budget waits and 429s',
        width: 8,
        left: [
          exported(EXPORT_METRICS.budgetWaits, 'Sum', HOUR, 'waits'),
          exported(EXPORT_METRICS.rateLimited, 'Sum', HOUR, '429s'),
          // Not waiting but a problem: a 429 asked for longer than the window (cut to it).
          exported(EXPORT_METRICS.rateLimitWaitsCut, 'Sum', HOUR, '429 waits beyond the window (problem)'),
        ],
        right: [exported(EXPORT_METRICS.budgetWaitMs, 'Sum', HOUR, 'ms waited')],
      }),
      new cloudwatch.GraphWidget({
        title: 'Follow-ups: sent, deferred, uncertain, dead-lettered',
        width: 8,
        left: [
          followUp(FOLLOWUP_METRICS.sent, 'sent'),
          followUp(FOLLOWUP_METRICS.deferred, 'deferred'),
          followUp(FOLLOWUP_METRICS.uncertain, 'uncertain'),
          followUp(FOLLOWUP_METRICS.deadLettered, 'dead-lettered'),
          followUp(FOLLOWUP_METRICS.outcomes, 'outcomes recorded'),
          followUp(FOLLOWUP_METRICS.notified, 'outcomes published'),
          followUp(FOLLOWUP_METRICS.notifyFailures, 'publish failures'),
        ],
      }),
      new cloudwatch.GraphWidget({
        title: 'Queues: follow-up dead letters, export failures',
        width: 8,
        left: [
          props.followUpDeadLetterQueue.metricApproximateNumberOfMessagesVisible({ period: FIVE_MINUTES, statistic: 'Maximum', label: 'follow-up DLQ' }),
          props.exportFailureQueue.metricApproximateNumberOfMessagesVisible({ period: FIVE_MINUTES, statistic: 'Maximum', label: 'export failures' }),
        ],
      }),
    );
    this.dashboard.addWidgets(
      new cloudwatch.GraphWidget({
        title: 'Function errors',
        width: 12,
        left: [
          props.exportFunction.metricErrors({ period: FIVE_MINUTES, statistic: 'Sum', label: 'export' }),
          props.followUpFunction.metricErrors({ period: FIVE_MINUTES, statistic: 'Sum', label: 'follow-up' }),
        ],
      }),
      new cloudwatch.GraphWidget({
        title: 'Function duration (max)',
        width: 12,
        left: [
          props.exportFunction.metricDuration({ period: FIVE_MINUTES, statistic: 'Maximum', label: 'export' }),
          props.followUpFunction.metricDuration({ period: FIVE_MINUTES, statistic: 'Maximum', label: 'follow-up' }),
        ],
      }),
    );
    this.url = `https://${Aws.REGION}.console.aws.amazon.com/cloudwatch/home?region=${Aws.REGION}#dashboards:name=${Aws.STACK_NAME}-operations`;
  }
}
