/**
 * The insights of a deployment for many organisations (context `organisations=true`): the
 * organisations are the folders under `<destination>/orgs/` (no list to keep: an organisation's
 * lake appears with its first export). The hourly check runs once per organisation, over its
 * lake, its projects (found from its manifests), its part of the state, each message with the
 * attribute `organisation`.
 */
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { awsClientConfig } from '../shared/aws-clients.js';
import { ORGANISATION_ID_PATTERN } from '../organisations/organisations.js';
import { builtOnFirstUse } from '../shared/cold-start.js';
import { loadConfigFor } from '../settings/config.js';
import { ConfigError, describeError } from '../shared/errors.js';
import type { Destination } from '../shared/storage/destination.js';
import { orgScope, scopedStore } from '../shared/storage/scoped-store.js';
import type { DatasetName } from '../warehouse/catalog.js';
import { manifestsOf, parseManifestKey } from '../warehouse/keys.js';
import { openLake } from '../warehouse/lake.js';
import { rootOf } from '../warehouse/lake/layout.js';
import { parseLakeTarget, type LakeTarget } from '../warehouse/lake/target.js';
import type { CheckResult } from './check.js';
import { createInsightsHandler, insightsDepsFromConfig, type InsightsHandlerDeps } from './handler.js';

/** The organisations with a folder under `<destination>/orgs/` of a bucket, sorted. */
export async function lakeOrganisations(s3: Pick<S3Client, 'send'>, target: LakeTarget): Promise<string[]> {
  if (target.place.kind !== 's3')
    throw new ConfigError(`EXPORT_DESTINATION must be s3://bucket/prefix for the organisations' functions (got "${target.url.slice(0, 60)}")`);
  const { bucket, prefix } = target.place;
  const folder = `${prefix}${rootOf('organisation')}`;
  const ids: string[] = [];
  let ContinuationToken: string | undefined;
  do {
    const page = await s3.send(
      new ListObjectsV2Command({ Bucket: bucket, Prefix: folder, Delimiter: '/', ...(ContinuationToken ? { ContinuationToken } : {}) }),
    );
    for (const common of page.CommonPrefixes ?? []) {
      const id = (common.Prefix ?? '').slice(folder.length).replace(/\/$/, '');
      if (ORGANISATION_ID_PATTERN.test(id)) ids.push(id);
    }
    ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (ContinuationToken);
  return ids.sort();
}

/** The projects of a lake: every project a manifest of `datasets` names. */
export async function lakeProjects(destination: Pick<Destination, 'list'>, datasets: readonly DatasetName[]): Promise<string[]> {
  const seen = new Set<string>();
  for (const dataset of datasets) {
    for (const key of (await destination.list?.(manifestsOf(dataset))) ?? []) {
      const named = parseManifestKey(dataset, key);
      if (named) seen.add(named.projectId);
    }
  }
  return [...seen].sort();
}

export interface OrganisationsCheckAnswer {
  readonly organisations: readonly (CheckResult & { readonly organisation: string })[];
}

/** The hourly check of each organisation (`deps` as for one; `s3` lists the organisations). */
export function createOrganisationsInsightsHandler(deps: InsightsHandlerDeps & { readonly s3: S3Client }) {
  return async (event?: unknown): Promise<OrganisationsCheckAnswer> => {
    const organisations: (CheckResult & { organisation: string })[] = [];
    const failed: string[] = [];
    const lake = deps.target ?? parseLakeTarget(deps.config.destination, 'EXPORT_DESTINATION');
    for (const id of await lakeOrganisations(deps.s3, lake)) {
      try {
        const target = lake.organisation(id);
        const destination = target.records({ s3Client: deps.s3 });
        const projectIds = await lakeProjects(destination, deps.config.datasets);
        if (projectIds.length === 0) continue;
        const check = createInsightsHandler({
          ...deps,
          config: { ...deps.config, destination: target.url, projectIds },
          target,
          destination,
          openLake: (scope) => openLake(target, scope, { s3Client: deps.s3, records: destination }),
          store: scopedStore(deps.store, orgScope(id)),
          publish: (message) => deps.publish({ ...message, organisation: id, subject: `${id}: ${message.subject}` }),
        });
        organisations.push({ organisation: id, ...(await check(event)) });
      } catch (error) {
        failed.push(`${id} (${describeError(error)})`);
      }
    }
    if (failed.length > 0) throw new Error(`the insights check of ${failed.length} organisation(s) failed: ${failed.join('; ')}`);
    return { organisations };
  };
}

/** The deployed entry (functions/insights/lambda.ts `checkOrganisations`): built on its first invocation. */
export const organisationsCheckHandler = builtOnFirstUse(() => {
  const s3 = new S3Client(awsClientConfig());
  return createOrganisationsInsightsHandler({ ...insightsDepsFromConfig(loadConfigFor(process.env, 'insights'), { s3 }), s3 });
});
