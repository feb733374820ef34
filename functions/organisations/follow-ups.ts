/**
 * Follow-ups of many organisations (DESIGN "Many organisations, round two"): a message names its
 * organisation (`org`), or its project does (the organisation whose `projectIds` holds it). Each
 * message is processed with that organisation's dependencies — its key, its lake `orgs/<id>/` for
 * the outcome — and a message of no organisation is refused (dead-lettered with the reason
 * `unknown_project: …`), never sent with another organisation's key.
 *
 * Used by the CLI's `consume` (the organisations file) and the deployed follow-up function (the
 * organisations' secrets); `follow-up` and `enqueue` use {@link organisationOf} before anything is sent.
 */
import type { FollowUpDeps, IncomingMessage, ProcessOptions, ProcessResult } from '../follow-up/types.js';
import { bodyStringFields, defaultRequestId } from '../follow-up/message.js';
import { ID_PATTERN } from '../shared/validators.js';
import type { Organisation } from './organisations.js';

/** The dead-letter reason of a message whose project is in no organisation (its prefix). */
export const UNKNOWN_PROJECT = 'unknown_project';

/** What a follow-up names: its organisation, its project (either may be missing). */
export interface FollowUpRef {
  readonly org?: string | undefined;
  readonly projectId?: string | undefined;
}

/** What {@link organisationOf} needs of an organisation. */
export type OrganisationProjects = Pick<Organisation, 'id' | 'projectIds'>;

export type OrganisationLookup<O extends OrganisationProjects = Organisation> =
  | { readonly ok: true; readonly org: O }
  | { readonly ok: false; readonly reason: string };

/**
 * The organisation of `ref` among `orgs`: the one it names (which must hold its project), else
 * the one whose projects hold its project. The reason starts with {@link UNKNOWN_PROJECT}.
 */
export function organisationOf<O extends OrganisationProjects>(orgs: readonly O[], ref: FollowUpRef): OrganisationLookup<O> {
  const ids = orgs.map((org) => org.id).join(', ');
  const project = ref.projectId === undefined ? undefined : JSON.stringify(ref.projectId.slice(0, 128));
  if (ref.org !== undefined) {
    const named = orgs.find((org) => org.id === ref.org);
    if (named === undefined) return { ok: false, reason: `${UNKNOWN_PROJECT}: organisation ${JSON.stringify(ref.org.slice(0, 40))} is not one of ${ids}` };
    if (ref.projectId !== undefined && !named.projectIds.includes(ref.projectId))
      return { ok: false, reason: `${UNKNOWN_PROJECT}: project ${project} is not a project of organisation "${named.id}"` };
    return { ok: true, org: named };
  }
  if (ref.projectId === undefined)
    return { ok: false, reason: `${UNKNOWN_PROJECT}: the message names neither its organisation (org) nor its project (projectId)` };
  const owner = orgs.find((org) => org.projectIds.includes(ref.projectId as string));
  if (owner === undefined)
    return { ok: false, reason: `${UNKNOWN_PROJECT}: project ${project} is in no organisation (${ids}): add it to its organisation's projectIds` };
  return { ok: true, org: owner };
}

/** The string fields of a queue message's body that route it, as far as it is readable (never throws). */
export function refOfBody(body: string): FollowUpRef & { readonly jobId?: string; readonly requestId?: string } {
  return bodyStringFields(body, ['org', 'projectId', 'jobId', 'requestId']);
}

export type ProcessOne = (message: IncomingMessage, options: ProcessOptions) => Promise<ProcessResult>;

export interface RouteDeps {
  /** The organisation of a message (the file's list, or the deployment's secrets). */
  readonly lookup: (ref: FollowUpRef) => Promise<OrganisationLookup>;
  /** Processing with organisation `org`'s dependencies (its key, its lake). */
  readonly processFor: (org: Organisation) => ProcessOne;
  /** Where a refused message goes, with its reason (the dead-letter queue). */
  readonly deadLetter: FollowUpDeps['deadLetter'];
  /** Told of each refusal (a log line, a metric). */
  readonly onRefused?: (reason: string, messageId: string) => void;
}

/**
 * Processing of messages of many organisations: each with its organisation's dependencies; one
 * of no organisation dead-lettered with {@link UNKNOWN_PROJECT} and handled (`rejected`).
 */
export function routeByOrganisation(deps: RouteDeps): ProcessOne {
  return async (message, options) => {
    const ref = refOfBody(message.body);
    const found = await deps.lookup(ref);
    if (found.ok) return deps.processFor(found.org)(message, options);
    const requestId = ref.requestId !== undefined && ID_PATTERN.test(ref.requestId) ? ref.requestId : defaultRequestId(message.messageId);
    await deps.deadLetter({ body: message.body, reason: found.reason, requestId, messageId: message.messageId, groupId: ref.jobId ?? requestId });
    deps.onRefused?.(found.reason, message.messageId);
    return { action: 'handled', requestId, status: 'rejected' };
  };
}
