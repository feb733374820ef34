/**
 * The weekly report of a deployment for many organisations (context `organisations=true`): the
 * weekly report of run.ts, once per organisation that has a lake under `<destination>/orgs/`,
 * each page in its own lake (`orgs/<id>/reports/…`) and each digest on the insights topic with
 * the attribute `organisation` (a subscription can take one organisation's). An organisation
 * with nothing exported in the two weeks is skipped; one that fails is named, after the others.
 */
import { lakeOrganisations } from '../organisations.js';
import { describeError, NoDataError } from '../../shared/errors.js';
import { parseLakeTarget } from '../../warehouse/lake/target.js';
import { builtOnFirstUse } from '../../shared/cold-start.js';
import { loadConfigFor } from '../../settings/config.js';
import { createWeeklyHandler, weeklyDepsFromConfig, type WeeklyAnswer, type WeeklyHandlerDeps } from './handler.js';

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
    const lake = deps.target ?? parseLakeTarget(deps.config.destination, 'EXPORT_DESTINATION');
    for (const id of await lakeOrganisations(deps.s3, lake)) {
      const target = lake.organisation(id);
      const weekly = createWeeklyHandler({
        ...deps,
        config: { ...deps.config, destination: target.url, projectIds: [] },
        // The organisation's lake: the deployment's, scoped (no string put together and parsed again).
        target,
        writeTo: target.records({ s3Client: deps.s3 }),
        // The signed-link distribution serves the deployment's reports folder only: the digest names the page.
        link: undefined,
        // Its verdicts' days registered under its organisation (the tables' `org` partition).
        ...(deps.partitions !== undefined ? { partitions: { ...deps.partitions, org: id } } : {}),
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
