/**
 * The weekly report of a deployment for many organisations (context `organisations=true`): the
 * weekly report of run.ts, once per organisation that has a lake under `<destination>/orgs/`,
 * each page in its own lake (`orgs/<id>/reports/…`) and each digest on the insights topic with
 * the attribute `organisation` (a subscription can take one organisation's). An organisation
 * with nothing exported in the two weeks is skipped; one that fails is named, after the others.
 */
import { ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import { ORG_ID_PATTERN, orgDestination } from '../../orgs/organisations.js';
import { describeError, NoDataError } from '../../shared/errors.js';
import { openDestination, parseS3Target } from '../../shared/storage/destinations.js';
import { builtOnFirstUse } from '../../shared/cold-start.js';
import { loadConfigFor } from '../../shared/config.js';
import { createWeeklyHandler, weeklyDepsFromConfig, type WeeklyAnswer, type WeeklyHandlerDeps } from './handler.js';

/** The organisations with a folder under `<destination>/orgs/`, sorted. */
export async function lakeOrganisations(s3: Pick<S3Client, 'send'>, destination: string): Promise<string[]> {
  const { bucket, prefix } = parseS3Target(destination);
  const folder = `${prefix === '' ? '' : `${prefix.replace(/\/+$/, '')}/`}orgs/`;
  const ids: string[] = [];
  let ContinuationToken: string | undefined;
  do {
    const page = await s3.send(
      new ListObjectsV2Command({ Bucket: bucket, Prefix: folder, Delimiter: '/', ...(ContinuationToken ? { ContinuationToken } : {}) }),
    );
    for (const common of page.CommonPrefixes ?? []) {
      const id = (common.Prefix ?? '').slice(folder.length).replace(/\/$/, '');
      if (ORG_ID_PATTERN.test(id)) ids.push(id);
    }
    ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (ContinuationToken);
  return ids.sort();
}

export interface OrganisationsWeeklyAnswer {
  readonly organisations: readonly (WeeklyAnswer & { readonly organisation: string })[];
  /** Organisations with nothing exported in the two weeks. */
  readonly skipped: readonly string[];
}

export function createOrganisationsWeeklyHandler(deps: WeeklyHandlerDeps) {
  return async (event?: unknown): Promise<OrganisationsWeeklyAnswer> => {
    const organisations: (WeeklyAnswer & { organisation: string })[] = [];
    const skipped: string[] = [];
    const failed: string[] = [];
    for (const id of await lakeOrganisations(deps.s3, deps.config.destination)) {
      const destination = orgDestination(deps.config.destination, id);
      const weekly = createWeeklyHandler({
        ...deps,
        config: { ...deps.config, destination, projectIds: [] },
        writeTo: openDestination(destination, { s3Client: deps.s3 }),
        // The signed-link distribution serves the deployment's reports folder only: the digest names the page.
        link: undefined,
        publish: (message) => deps.publish({ ...message, organisation: id, subject: `${id}: ${message.subject}` }),
      });
      try {
        organisations.push({ organisation: id, ...(await weekly(event)) });
      } catch (error) {
        if (error instanceof NoDataError) skipped.push(id);
        else failed.push(`${id} (${describeError(error)})`);
      }
    }
    if (failed.length > 0) throw new Error(`the weekly report of ${failed.length} organisation(s) failed: ${failed.join('; ')}`);
    return { organisations, skipped };
  };
}

/** The deployed entry (functions/insights/lambda.ts `weeklyReportOrganisations`): built on its first invocation. */
export const organisationsHandler = builtOnFirstUse(() => createOrganisationsWeeklyHandler(weeklyDepsFromConfig(loadConfigFor(process.env, 'weekly-report'))));
