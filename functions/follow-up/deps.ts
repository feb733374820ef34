/**
 * The follow-up core's dependencies (process-message.ts), wired once for the follow-up Lambda
 * (handler.ts) and the CLI's `follow-up` and `consume` (cli/follow-up-deps.ts): the API client,
 * the state records (the table `FOLLOWUP_STATE_TABLE`, else a local folder), the outcome sink
 * beside the analytics (each outcome's day registered in Glue with `EXPORT_GLUE_DATABASE`) and
 * the outcomes topic. What differs between them is passed in: where
 * API calls go and with which key, the logger and metrics, the clients (emulators in tests).
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { S3Client } from '@aws-sdk/client-s3';
import { SNSClient } from '@aws-sdk/client-sns';
import { createApiClient, type ApiClientOptions } from '../shared/api/index.js';
import type { ApiClient } from '../shared/api-types.js';
import { CONFIG_DEFAULTS, requireSettings, type ConfigOf } from '../settings/config.js';
import { awsClientConfig } from '../shared/aws-clients.js';
import { openDestination } from '../shared/storage/destinations.js';
import { createSnsNotifier } from './notify.js';
import { openStateStore } from './open-state-store.js';
import { createOutcomeSink, registeringOutcomes } from './outcome.js';
import { GlueClient } from '@aws-sdk/client-glue';
import type { GlueSend } from '../warehouse/partitions.js';
import type { FollowUpDeps, FollowUpLogger, FollowUpMetrics } from './types.js';
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { followUpScopeOf, type FollowUpScope, type FollowUpScopeSettings } from '../scope/follow-up.js';

export interface FollowUpWiring {
  /** Where API calls go: the configured API and its key (Lambda), the target the CLI resolved. */
  readonly api: Pick<ApiClientOptions, 'baseUrl' | 'apiKey'> & Partial<Pick<ApiClientOptions, 'logger' | 'events'>>;
  /** Folder of the state records when there is no `FOLLOWUP_STATE_TABLE` (the CLI); the Lambda has none. */
  readonly localStateDir?: string;
  /** SNS topic every outcome is published to. @default config.followUpOutcomesTopicArn */
  readonly outcomesTopic?: string | undefined;
  /** Clients to use instead of ones configured from the environment (emulators). */
  readonly clients?: {
    readonly dynamo?: DynamoDBClient | undefined;
    readonly s3?: S3Client | undefined;
    readonly sns?: SNSClient | undefined;
    readonly secrets?: SecretsManagerClient | undefined;
    /** The Glue client of `EXPORT_GLUE_DATABASE`. @default one configured from the environment, built on the first outcome */
    readonly glue?: GlueSend | undefined;
  };
  /** The organisation whose lake the outcomes go to (many organisations: the `org` partition registered with each day). */
  readonly org?: string | undefined;
  readonly logger: FollowUpLogger;
  readonly metrics: FollowUpMetrics;
  /** @default Date.now */
  readonly now?: () => number;
  /** Identifies this process or invocation in leases. */
  readonly owner: string;
}

/** What `createFollowUpDeps` builds: the core's dependencies but the dead-letter and the sleep, and the API client's counters. */
export type WiredFollowUpDeps = Omit<FollowUpDeps, 'deadLetter' | 'sleep'> & {
  /** The client, with its counters: a command tells an API that never answered (a setting) from one that stopped answering. */
  readonly api: FollowUpDeps['api'] & Pick<ApiClient, 'stats'>;
};

/**
 * The follow-up core's dependencies from the configuration, but for the dead-letter queue and
 * the sleep, which each caller chooses (the Lambda's queue and the time module's sleep; a
 * command's queue, or none, and a sleep its stop ends).
 * @throws ConfigError when there is neither `FOLLOWUP_STATE_TABLE` nor a local folder.
 */
export function createFollowUpDeps(
  config: Pick<ConfigOf<'follow-up'>, 'destination' | 'apiTimeoutMs' | 'followUpStateTable' | 'followUpOutcomesTopicArn'> &
    Partial<FollowUpScopeSettings> &
    Partial<Pick<ConfigOf<'follow-up'>, 'glueDatabase'>>,
  wiring: FollowUpWiring,
): WiredFollowUpDeps {
  const localDir = wiring.localStateDir;
  if (localDir === undefined) requireSettings(config, 'follow-up', ['followUpStateTable']);
  const destination = openDestination(config.destination, wiring.clients?.s3 ? { s3Client: wiring.clients.s3 } : {});
  const topic = wiring.outcomesTopic ?? config.followUpOutcomesTopicArn;
  const sink = createOutcomeSink(destination);
  const database = config.glueDatabase;
  let glue = wiring.clients?.glue;
  return {
    api: createApiClient({ timeoutMs: config.apiTimeoutMs, ...wiring.api }),
    store: openStateStore(config, { ...(wiring.clients?.dynamo ? { dynamo: wiring.clients.dynamo } : {}), localDir: localDir ?? '' }),
    // Each outcome's day registered in Glue by the run that writes it (followup_outcomes, with `org` for an organisation's).
    outcomes:
      database === undefined
        ? sink
        : registeringOutcomes(sink, {
            glue: () => (glue ??= new GlueClient(awsClientConfig())),
            database,
            now: wiring.now ?? Date.now,
            logger: wiring.logger,
            org: wiring.org,
          }),
    ...(topic ? { notify: createSnsNotifier({ sns: wiring.clients?.sns ?? new SNSClient(awsClientConfig()), topicArn: topic }) } : {}),
    // Each completed job's pull request against the scope rules (nothing configured: unchecked).
    scope: config.githubApiUrl === undefined ? undefined : scopeOf({ ...config, githubApiUrl: config.githubApiUrl }, wiring),
    logger: wiring.logger,
    metrics: wiring.metrics,
    now: wiring.now ?? Date.now,
    owner: wiring.owner,
  };
}

/** The scope check of the settings (defaults for any rule not given), or undefined when nothing is configured. */
function scopeOf(config: Partial<FollowUpScopeSettings> & { readonly githubApiUrl: string }, wiring: FollowUpWiring): FollowUpScope | undefined {
  return followUpScopeOf(
    {
      scopeAllowed: CONFIG_DEFAULTS.scopeAllowed,
      scopeProtected: CONFIG_DEFAULTS.scopeProtected,
      scopeMaxFiles: CONFIG_DEFAULTS.scopeMaxFiles,
      scopeMaxLines: CONFIG_DEFAULTS.scopeMaxLines,
      githubScopeStatus: CONFIG_DEFAULTS.githubScopeStatus,
      ...config,
    },
    {
      secrets: wiring.clients?.secrets,
      sns: wiring.clients?.sns,
      onWarning: (line) => wiring.logger.warn(line),
    },
  );
}
