/**
 * Which failures of one unit say something about the others, so a run does not pay for the
 * same answer unit after unit (a 401 once cost one request and one FAILED line per unit, a
 * mistyped project id one per day and dataset):
 *
 * - `run`: every unit would get the same answer — the key is refused (401; the client has
 *   already read the secret once more), the API cannot be reached at all (a connection
 *   refused, a name that does not resolve, TLS, a port fetch refuses: nothing reached the
 *   service), or the circuit breaker opened on a storm of server failures. The run stops; the
 *   units left wait for the next run.
 * - `dataset`: a 403 is the key's scope, IP allowlist or plan for that endpoint — the other
 *   units of the dataset would get it too; the other datasets may work and go on.
 * - `project`: a 404 of an analytics read is a project the key cannot see (a mistyped id, or
 *   one of another organisation) — every dataset and day of it would get it too; the other
 *   projects go on. Its message names where the id came from (`projectSource`), not "a re-run
 *   retries them": only a corrected id helps.
 */
import type { DatasetName } from '../warehouse/catalog.js';
import { ApiError, ClockSkewError, DeadlineExceededError, UnreachableError } from '../shared/errors.js';
import { CircuitOpenError } from '../shared/pacing/errors.js';

export type UnitStop =
  | { readonly scope: 'run'; readonly why: 'key' | 'unreachable' | 'outage' | 'clock'; readonly reason: string }
  | { readonly scope: 'dataset'; readonly dataset: DatasetName; readonly reason: string }
  | { readonly scope: 'project'; readonly projectId: string; readonly reason: string };

/** A stop of the whole run. */
export type RunStop = Extract<UnitStop, { scope: 'run' }>;

/** Where the ids of a run's projects came from, named in a 404's message. @default MINTLIFY_PROJECT_IDS */
export const DEFAULT_PROJECT_SOURCE = 'MINTLIFY_PROJECT_IDS';

/** The error at the end of a cause chain that a deadline wrapped, or the error itself. */
function rootOf(error: unknown): unknown {
  return error instanceof DeadlineExceededError && error.cause !== undefined ? error.cause : error;
}

/** The line that says an API never answered: its URL, the cause, and the setting to check. */
export function unreachableReason(error: UnreachableError): string {
  return `the API at ${error.url} could not be reached (${error.what}): nothing reached the service and no budget was spent; check MINTLIFY_API_URL and that this machine can reach it`;
}

/** The line that says projects are unknown to the key, naming where their ids came from. */
export function unknownProjectReason(projectIds: readonly string[], projectSource: string): string {
  const named = projectIds.map((id) => JSON.stringify(id.slice(0, 128)));
  const which =
    named.length === 1 ? `project ${named[0]} not found (404): the key cannot see it` : `projects ${named.join(', ')} not found (404): the key cannot see them`;
  return `${which}; check the id${named.length === 1 ? '' : 's'} in ${projectSource} (copy ${named.length === 1 ? 'it' : 'them'} from the dashboard's API keys page)`;
}

/**
 * What a unit's failure stops besides the unit, or undefined (only the unit failed).
 * `projectSource` names where the unit's project id came from (`--project`, MINTLIFY_PROJECT_IDS).
 */
export function stopOf(
  error: unknown,
  unit: { readonly dataset: DatasetName; readonly projectId: string },
  projectSource = DEFAULT_PROJECT_SOURCE,
): UnitStop | undefined {
  const root = rootOf(error);
  const { dataset } = unit;
  if (root instanceof ApiError && root.status === 401) {
    return { scope: 'run', why: 'key', reason: root.message };
  }
  if (root instanceof UnreachableError) return { scope: 'run', why: 'unreachable', reason: unreachableReason(root) };
  if (root instanceof CircuitOpenError) return { scope: 'run', why: 'outage', reason: root.message };
  // Every unit of the run reads the same clock.
  if (root instanceof ClockSkewError) return { scope: 'run', why: 'clock', reason: root.message };
  if (root instanceof ApiError && root.status === 403) {
    return { scope: 'dataset', dataset, reason: `${dataset}: ${root.message}` };
  }
  if (root instanceof ApiError && root.status === 404) {
    return { scope: 'project', projectId: unit.projectId, reason: unknownProjectReason([unit.projectId], projectSource) };
  }
  return undefined;
}

/** A failure that is not the unit's own but its run's or its dataset's (see `stopOf`). */
export function isSharedFailure(error: unknown, unit: { readonly dataset: DatasetName; readonly projectId: string }): boolean {
  const stop = stopOf(error, unit);
  return stop !== undefined && stop.scope !== 'project';
}
