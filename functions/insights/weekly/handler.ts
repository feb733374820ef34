/**
 * Lambda entry of the weekly report (run.ts), run by its schedule (context `reportSchedule`,
 * Monday 06:00 UTC by default): wiring only. A failure throws, so the report-failure alarm
 * fires (docs/operations.md).
 */
import { GlueClient } from '@aws-sdk/client-glue';
import { S3Client } from '@aws-sdk/client-s3';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SNSClient } from '@aws-sdk/client-sns';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import * as v from 'valibot';
import { scheduledTime } from '../../shared/scheduled-event.js';
import { createInsightPublisher } from '../publish.js';
import { parseLakeTarget, type LakeTarget } from '../../warehouse/lake/target.js';
import { awsClientConfig } from '../../shared/aws-clients.js';
import { builtOnFirstUse } from '../../shared/cold-start.js';
import { loadConfigFor, requireSettings, type ConfigOf } from '../../settings/config.js';
import { ConfigError } from '../../shared/errors.js';
import { createLogger } from '../../shared/logger.js';
import { INSIGHTS_METRICS, INSIGHTS_SERVICE, METRICS_NAMESPACE } from '../../shared/metric-names.js';
import { cloudFrontLinks, type LinkSigner } from './link.js';
import { runWeeklyReport, type WeeklyDeps } from './run.js';
import type { GlueSend } from '../../warehouse/partitions.js';

/** What the invocation returns (the digest is on the topic; the page in the bucket). */
export interface WeeklyAnswer {
  readonly week: string;
  readonly keys: readonly string[];
  readonly subject: string;
  /** Milliseconds spent mirroring the bucket's days before DuckDB could read them. */
  readonly mirrorMs: number;
}

export interface WeeklyHandlerDeps extends WeeklyDeps {
  readonly config: ConfigOf<'weekly-report'>;
  readonly metrics: Pick<Metrics, 'addMetric' | 'publishStoredMetrics'>;
  readonly logger: Pick<ReturnType<typeof createLogger>, 'info' | 'warn'>;
  /** `config.destination`, parsed once (`weeklyDepsFromConfig`; the organisations' dispatch: its organisation's). @default parsed here */
  readonly target?: LakeTarget;
}

/** `{"days": N}` of an invocation by hand (1–366): a report of the last N complete days; none for the schedule's event. */
export function daysAsked(event: unknown): number | undefined {
  const asked = v.safeParse(ASKED_EVENT, event);
  if (!asked.success) return undefined;
  const { days } = asked.output;
  if (days === undefined) return undefined;
  const valid = v.safeParse(DAYS, days);
  if (!valid.success) {
    throw new ConfigError(`"days" must be a whole number from 1 to 366 (got ${JSON.stringify(days)?.slice(0, 20)}): the last N complete days to report`);
  }
  return valid.output;
}

/** An invocation by hand: `{"days": N}` (any value, checked by `DAYS` for the message). */
const ASKED_EVENT = v.object({ days: v.optional(v.unknown()) });
const DAYS = v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(366));

export function createWeeklyHandler(deps: WeeklyHandlerDeps) {
  return async (event?: unknown): Promise<WeeklyAnswer> => {
    const { config } = deps;
    const at = scheduledTime(event, deps.now);
    const days = daysAsked(event);
    const result = await runWeeklyReport(
      {
        target: deps.target ?? s3LakeTarget(config.destination),
        settleHours: config.settleHours,
        projects: config.projectIds,
        ...(config.reportSiteUrl !== undefined ? { siteUrl: config.reportSiteUrl } : {}),
        ...(days !== undefined ? { days } : {}),
      },
      { ...deps, now: () => at, signedAt: deps.now, onWarning: (line) => deps.logger.warn(line) },
    );
    deps.metrics.addMetric(INSIGHTS_METRICS.weeklyReports, MetricUnit.Count, 1);
    deps.metrics.publishStoredMetrics();
    const answer = { week: result.week, keys: result.keys, subject: result.digest.subject, mirrorMs: Math.round(result.mirrorMs) };
    deps.logger.info('weekly report written', answer);
    return answer;
  };
}

/**
 * The signer of the digest's link when the deployment has a report distribution (all three
 * REPORT_LINK_* set), none when it has not; one or two of them set is a mistake.
 */
export function linkSignerOf(config: ConfigOf<'weekly-report'>, secrets: () => SecretsManagerClient): LinkSigner | undefined {
  const { reportLinkUrl: baseUrl, reportLinkKeyPairId: keyPairId, reportLinkKeySecretArn: secretArn } = config;
  if (baseUrl === undefined && keyPairId === undefined && secretArn === undefined) return undefined;
  if (baseUrl === undefined || keyPairId === undefined || secretArn === undefined) {
    throw new ConfigError('REPORT_LINK_URL, REPORT_LINK_KEY_PAIR_ID and REPORT_LINK_KEY_SECRET_ARN go together: set all three (infra does) or none');
  }
  return cloudFrontLinks({
    baseUrl,
    keyPairId,
    privateKey: async () => {
      const { SecretString } = await secrets().send(new GetSecretValueCommand({ SecretId: secretArn }));
      if (!SecretString?.includes('PRIVATE KEY-----')) {
        throw new ConfigError(
          `the secret ${secretArn} (REPORT_LINK_KEY_SECRET_ARN) holds no PEM private key: put the private key of the report link key pair in it (docs/deploy.md)`,
        );
      }
      return SecretString;
    },
  });
}

/** `EXPORT_DESTINATION` parsed: an S3 destination, or a ConfigError naming what to set. */
function s3LakeTarget(destination: string): LakeTarget {
  const target = parseLakeTarget(destination, 'EXPORT_DESTINATION');
  if (target.place.kind !== 's3') {
    throw new ConfigError(`EXPORT_DESTINATION must be s3://bucket/prefix for the weekly report function (got "${destination.slice(0, 60)}")`);
  }
  return target;
}

export function weeklyDepsFromConfig(
  config: ConfigOf<'weekly-report'>,
  clients: { s3?: S3Client; sns?: SNSClient; secrets?: SecretsManagerClient; glue?: GlueSend } = {},
): WeeklyHandlerDeps {
  // The destination is parsed once here: the lake, the pages' writes and the link's place follow from it.
  const target = s3LakeTarget(config.destination);
  const s3 = clients.s3 ?? new S3Client(awsClientConfig());
  const logger = createLogger({ serviceName: INSIGHTS_SERVICE });
  const database = config.glueDatabase;
  return {
    config,
    s3,
    target,
    writeTo: target.records({ s3Client: s3 }),
    publish: createInsightPublisher({
      sns: clients.sns ?? new SNSClient(awsClientConfig()),
      topicArn: requireSettings(config, 'weekly-report').insightsTopicArn,
    }),
    now: () => Date.now(),
    link: linkSignerOf(config, () => clients.secrets ?? new SecretsManagerClient(awsClientConfig())),
    metrics: new Metrics({ serviceName: INSIGHTS_SERVICE, namespace: METRICS_NAMESPACE }),
    logger,
    // The verdicts' days registered in Glue (fix_effects), as the export registers its days.
    ...(database !== undefined ? { partitions: { glue: clients.glue ?? new GlueClient(awsClientConfig()), database, logger } } : {}),
  };
}

/** The deployed handler for `env`: built on its first invocation, so importing reads nothing. */
export function handlerFromEnvironment(env: Record<string, string | undefined>): (event?: unknown) => Promise<WeeklyAnswer> {
  return builtOnFirstUse(() => createWeeklyHandler(weeklyDepsFromConfig(loadConfigFor(env, 'weekly-report'))));
}

export const handler = handlerFromEnvironment(process.env);
