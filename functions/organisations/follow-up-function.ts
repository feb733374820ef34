/**
 * The deployed follow-up function of many organisations (context `organisations=true`): each
 * message sent with its organisation's key — read from that organisation's secret, as the export
 * workers read it — and its outcome written under that organisation's `orgs/<id>/`; a message of
 * no organisation dead-lettered with `unknown_project: …`, never sent with another key. No
 * deployment key (`MINTLIFY_API_KEY_SECRET_ARN`) is read. Wiring only: the routing is
 * follow-ups.ts's, the processing follow-up/process-message.ts's.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { S3Client } from '@aws-sdk/client-s3';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { SNSClient } from '@aws-sdk/client-sns';
import { SQSClient } from '@aws-sdk/client-sqs';
import { GlueClient } from '@aws-sdk/client-glue';
import { Metrics } from '@aws-lambda-powertools/metrics';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import type { GlueSend } from '../warehouse/partitions.js';
import { createSqsDeadLetter } from '../follow-up/dead-letter.js';
import { createFollowUpDeps } from '../follow-up/deps.js';
import { createHandler, powertoolsMetrics } from '../follow-up/handler.js';
import { processMessage } from '../follow-up/process-message.js';
import { resolveSettings, settingsFromConfig, type FollowUpSettings } from '../follow-up/settings.js';
import type { FollowUpDeps, FollowUpLogger, FollowUpMetrics } from '../follow-up/types.js';
import { loadConfigFor, requireSettings, type ConfigOf } from '../settings/config.js';
import { awsClientConfig, sqsClientConfig } from '../shared/aws-clients.js';
import { builtOnFirstUse } from '../shared/cold-start.js';
import { createLogger } from '../shared/logger.js';
import { ConfigError, describeError } from '../shared/errors.js';
import { FOLLOWUP_METRICS, FOLLOWUP_SERVICE, METRICS_NAMESPACE } from '../shared/metric-names.js';
import { sleep as realSleep } from '../shared/time.js';
import { organisationOf, routeByOrganisation, UNKNOWN_PROJECT, type FollowUpRef, type OrganisationLookup } from './follow-ups.js';
import { orgDestination, ORGANISATION_ID_PATTERN, type Organisation } from './organisations.js';
import { createOrganisationSecrets, type OrganisationSecrets } from './secrets.js';

/** How long the organisations read from their secrets are used before they are read again (ms). */
export const ORGANISATIONS_MAX_AGE_MS = 5 * 60_000;

/** The follow-up function's configuration, with the organisations' secret prefix. */
export type OrgsFollowUpConfig = ConfigOf<'follow-up'> & {
  readonly followUpStateTable: string;
  readonly followUpDeadLetterQueueUrl: string;
  readonly orgsSecretPrefix: string;
};

export interface OrgsFollowUpClients {
  readonly sqs: Pick<SQSClient, 'send'>;
  /** Registers each outcome's (org, dt) with `EXPORT_GLUE_DATABASE`. @default one from the environment */
  readonly glue?: GlueSend;
  readonly secrets: SecretsManagerClient;
  readonly dynamo?: DynamoDBClient;
  readonly s3?: S3Client;
  readonly sns?: SNSClient;
}

export interface OrgsFollowUpOptions {
  readonly logger: FollowUpLogger;
  readonly metrics: FollowUpMetrics;
  readonly now?: () => number;
  readonly sleep?: (ms: number) => Promise<void>;
  /** Settings over the configuration's (tests: short polls). */
  readonly settings?: Partial<FollowUpSettings>;
  readonly flushMetrics?: () => void;
}

/**
 * The organisations as their secrets say now, kept {@link ORGANISATIONS_MAX_AGE_MS}: a message
 * naming its organisation reads that one secret; one naming only its project reads them all (a
 * project not found in a list older than a minute reads them again, so a project just added is
 * found). A secret that cannot be read or is not valid is that organisation's refusal, not the others'.
 */
export function organisationsLookup(
  secrets: OrganisationSecrets,
  now: () => number,
  logger: FollowUpLogger,
): (ref: FollowUpRef) => Promise<OrganisationLookup> {
  const byId = new Map<string, { readonly org: Organisation; readonly at: number }>();
  let all: { readonly orgs: readonly Organisation[]; readonly at: number } | undefined;

  const readOne = async (id: string): Promise<Organisation | string> => {
    const cached = byId.get(id);
    if (cached !== undefined && now() - cached.at < ORGANISATIONS_MAX_AGE_MS) return cached.org;
    try {
      const org = await secrets.read(id);
      byId.set(id, { org, at: now() });
      return org;
    } catch (error) {
      if (error instanceof ConfigError) return error.message;
      if (error instanceof Error && error.name === 'ResourceNotFoundException') return `organisation "${id}" has no secret`;
      throw error;
    }
  };
  const readAll = async (): Promise<readonly Organisation[]> => {
    const { ids } = await secrets.list();
    const orgs: Organisation[] = [];
    for (const id of ids) {
      const org = await readOne(id);
      if (typeof org === 'string') logger.warn("an organisation's secret was refused: its follow-ups are dead-lettered", { organisation: id, reason: org });
      else orgs.push(org);
    }
    all = { orgs, at: now() };
    return orgs;
  };

  return async (ref) => {
    if (ref.org !== undefined) {
      if (!ORGANISATION_ID_PATTERN.test(ref.org)) return organisationOf([], ref);
      const org = await readOne(ref.org);
      if (typeof org === 'string') return { ok: false, reason: `${UNKNOWN_PROJECT}: ${org}` };
      return organisationOf([org], ref);
    }
    const fresh = all !== undefined && now() - all.at < ORGANISATIONS_MAX_AGE_MS ? all : undefined;
    const found = organisationOf(fresh?.orgs ?? (await readAll()), ref);
    if (found.ok || fresh === undefined || now() - fresh.at < 60_000) return found;
    return organisationOf(await readAll(), ref);
  };
}

/**
 * The follow-up Lambda's handler for many organisations over `clients` (tests pass emulator
 * clients): messages routed by organisation, each organisation's dependencies built once per
 * key (a rotated key builds new ones), its settings' projects the organisation's.
 */
export function createOrganisationsFollowUp(config: OrgsFollowUpConfig, clients: OrgsFollowUpClients, options: OrgsFollowUpOptions) {
  const { logger, metrics } = options;
  const now = options.now ?? Date.now;
  const deadLetter = createSqsDeadLetter({ sqs: clients.sqs, queueUrl: config.followUpDeadLetterQueueUrl });
  const base = { ...settingsFromConfig(config), ...options.settings };
  // Lambda hostnames can repeat across execution environments; the UUID keeps owners unique.
  const owner = `lambda:${hostname()}:${randomUUID()}`;
  const wired = new Map<string, { readonly key: string; readonly deps: FollowUpDeps; readonly settings: ReturnType<typeof resolveSettings> }>();
  const depsOf = (org: Organisation) => {
    const known = wired.get(org.id);
    if (known !== undefined && known.key === org.apiKey && known.settings.projectIds.join() === org.projectIds.join()) return known;
    const deps: FollowUpDeps = {
      ...createFollowUpDeps(
        { ...config, destination: orgDestination(config.destination, org.id) },
        {
          api: { baseUrl: config.apiUrl, apiKey: org.apiKey, logger },
          logger,
          metrics,
          now,
          owner,
          // Each outcome's (org, dt) registered in Glue (EXPORT_GLUE_DATABASE): deps.ts.
          clients: { dynamo: clients.dynamo, s3: clients.s3, sns: clients.sns, secrets: clients.secrets, glue: clients.glue },
          org: org.id,
        },
      ),
      deadLetter,
      sleep: options.sleep ?? ((ms) => realSleep(ms)),
    };
    const entry = {
      key: org.apiKey,
      deps,
      settings: resolveSettings({ ...base, projectIds: org.projectIds }),
    };
    wired.set(org.id, entry);
    return entry;
  };
  const lookup = organisationsLookup(createOrganisationSecrets(clients.secrets, config.orgsSecretPrefix), now, logger);
  return createHandler({
    sqs: clients.sqs,
    logger,
    now,
    ...(options.flushMetrics ? { flushMetrics: options.flushMetrics } : {}),
    process: routeByOrganisation({
      lookup: async (ref) => {
        try {
          return await lookup(ref);
        } catch (error) {
          // Secrets Manager did not answer: the message comes back (a batch item failure), it is not refused.
          throw new Error(`the organisations' secrets could not be read: ${describeError(error)}`, { cause: error });
        }
      },
      processFor: (org) => (message, processOptions) => {
        const { deps, settings } = depsOf(org);
        return processMessage(message, deps, settings, processOptions);
      },
      deadLetter,
      onRefused: (reason, messageId) => {
        metrics.count(FOLLOWUP_METRICS.deadLettered);
        logger.warn('message dead-lettered', { reason, messageId });
      },
    }),
  });
}

/** The configuration of the follow-up function of many organisations. @throws ConfigError naming what is missing. */
export function orgsFollowUpConfig(env: Record<string, string | undefined>): OrgsFollowUpConfig {
  const config = requireSettings(loadConfigFor(env, 'follow-up'), 'follow-up');
  if (config.orgsSecretPrefix === undefined)
    throw new ConfigError('EXPORT_ORGS_SECRET_PREFIX is not set: each follow-up is sent with the key of its organisation, a secret under it (infra sets it)');
  return { ...config, orgsSecretPrefix: config.orgsSecretPrefix };
}

/** The Lambda entry (infra/constructs/follow-ups.ts with `organisations`). Built on first use: importing reads nothing. */
export const handler: (event: SQSEvent, context: Context) => Promise<SQSBatchResponse> = builtOnFirstUse(() => {
  const config = orgsFollowUpConfig(process.env);
  const metrics = new Metrics({ serviceName: FOLLOWUP_SERVICE, namespace: METRICS_NAMESPACE });
  return createOrganisationsFollowUp(
    config,
    {
      sqs: new SQSClient(sqsClientConfig({ useQueueUrlAsEndpoint: !config.sqsEndpointOverridden })),
      secrets: new SecretsManagerClient(awsClientConfig()),
      glue: new GlueClient(awsClientConfig()),
    },
    { logger: createLogger({ serviceName: FOLLOWUP_SERVICE }), metrics: powertoolsMetrics(metrics), flushMetrics: () => metrics.publishStoredMetrics() },
  );
});
