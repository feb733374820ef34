/**
 * Lambda entry of the hourly insights check (check.ts), run by its own schedule a little after
 * the export's: wiring only. Config is read and clients built on the first invocation. What it
 * has told is kept in the deployment's state table under `insights#…` keys (never the export's
 * `export#…` or the follow-ups' `followup#…`).
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { SNSClient } from '@aws-sdk/client-sns';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { openLake } from '../warehouse/lake.js';
import { builtOnFirstUse } from '../shared/cold-start.js';
import { loadConfigFor, requireSettings, type ConfigOf } from '../settings/config.js';
import { parseLakeTarget, type LakeTarget } from '../warehouse/lake/target.js';
import { createLogger } from '../shared/logger.js';
import { INSIGHTS_METRICS, INSIGHTS_SERVICE, METRICS_NAMESPACE } from '../shared/metric-names.js';
import { createDynamoStore } from '../shared/storage/shared-store-dynamo.js';
import { runInsightChecks, type CheckDeps, type CheckResult } from './check.js';
import { createInsightPublisher } from './publish.js';
import { awsClientConfig } from '../shared/aws-clients.js';
import { INSIGHTS_KEY_PREFIX } from './state.js';
import { scheduledTime } from '../shared/scheduled-event.js';

export interface InsightsHandlerDeps extends CheckDeps {
  readonly config: ConfigOf<'insights'>;
  readonly metrics: Pick<Metrics, 'addMetric' | 'publishStoredMetrics'>;
  readonly logger: Pick<ReturnType<typeof createLogger>, 'info'>;
  /** `config.destination`, parsed once (`insightsDepsFromConfig`): the organisations' dispatch scopes it. @default parsed there */
  readonly target?: LakeTarget;
}

/** The handler for given dependencies (tests call it with emulator clients). */
export function createInsightsHandler(deps: InsightsHandlerDeps) {
  return async (event?: unknown): Promise<CheckResult> => {
    const { config } = deps;
    const at = scheduledTime(event, deps.now);
    const result = await runInsightChecks(
      {
        projectIds: config.projectIds,
        datasets: config.datasets,
        settleHours: config.settleHours,
        thresholds: { drop: config.anomalyDrop, rise: config.anomalyRise },
      },
      { ...deps, now: () => at },
    );
    deps.metrics.addMetric(INSIGHTS_METRICS.anomalies, MetricUnit.Count, result.anomalies.length);
    deps.metrics.addMetric(INSIGHTS_METRICS.staleDatasets, MetricUnit.Count, result.freshness.stale.length);
    deps.metrics.publishStoredMetrics();
    deps.logger.info('insights checked', {
      newDays: result.newDays.length,
      anomalies: result.anomalies.map((a) => `${a.projectId} ${a.day} ${a.figure}: ${a.value} vs ${a.usual}`),
      stale: result.freshness.stale.map((s) => `${s.projectId} ${s.dataset}`),
      recovered: result.freshness.recovered.map((s) => `${s.projectId} ${s.dataset}`),
    });
    return result;
  };
}

/** Dependencies from the environment: the warehouse, the state table, the topic. */
export function insightsDepsFromConfig(
  config: ConfigOf<'insights'>,
  clients: { s3?: S3Client; sns?: SNSClient; dynamo?: DynamoDBClient } = {},
): InsightsHandlerDeps {
  const { stateTable, insightsTopicArn: topicArn } = requireSettings(config, 'insights');
  const s3 = clients.s3 ?? new S3Client(awsClientConfig());
  // The destination is parsed and opened once: the lake reads its records through the same one.
  const target = parseLakeTarget(config.destination, 'EXPORT_DESTINATION');
  const destination = target.records({ s3Client: s3 });
  return {
    config,
    target,
    destination,
    openLake: (scope) => openLake(target, scope, { s3Client: s3, records: destination }),
    store: createDynamoStore({ tableName: stateTable, client: clients.dynamo ?? new DynamoDBClient(awsClientConfig()), keyPrefix: INSIGHTS_KEY_PREFIX }),
    publish: createInsightPublisher({ sns: clients.sns ?? new SNSClient(awsClientConfig()), topicArn }),
    now: () => Date.now(),
    metrics: new Metrics({ serviceName: INSIGHTS_SERVICE, namespace: METRICS_NAMESPACE }),
    logger: createLogger({ serviceName: INSIGHTS_SERVICE }),
  };
}

/** The deployed handler for `env`: built on its first invocation, so importing reads nothing. */
export function handlerFromEnvironment(env: Record<string, string | undefined>): (event?: unknown) => Promise<CheckResult> {
  return builtOnFirstUse(() => createInsightsHandler(insightsDepsFromConfig(loadConfigFor(env, 'insights'))));
}

export const handler = handlerFromEnvironment(process.env);
