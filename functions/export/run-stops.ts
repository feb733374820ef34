/**
 * Which failures of one unit say something about the others, so a run does not pay for the
 * same answer unit after unit (a 401 once cost one request and one FAILED line per unit):
 *
 * - `run`: every unit would get the same answer — the key is refused (401; the client has
 *   already read the secret once more), the API cannot be reached at all (a connection
 *   refused, a name that does not resolve: nothing reached the service), or the circuit
 *   breaker opened on a storm of server failures. The run stops; the units left wait for the
 *   next run.
 * - `dataset`: a 403 is the key's scope, IP allowlist or plan for that endpoint — the other
 *   units of the dataset would get it too; the other datasets may work and go on.
 */
import type { DatasetName } from '../shared/catalog.js';
import { ApiError, CircuitOpenError, ClockSkewError, DeadlineExceededError, NetworkError } from '../shared/errors.js';

export type UnitStop =
  | { readonly scope: 'run'; readonly why: 'key' | 'unreachable' | 'outage' | 'clock'; readonly reason: string }
  | { readonly scope: 'dataset'; readonly dataset: DatasetName; readonly reason: string };

/** The error at the end of a cause chain that a deadline wrapped, or the error itself. */
function rootOf(error: unknown): unknown {
  return error instanceof DeadlineExceededError && error.cause !== undefined ? error.cause : error;
}

/** The last `code` named in a network error's message, e.g. `ECONNREFUSED`. */
function codeOf(error: NetworkError): string {
  return /\(([A-Z0-9_]+)\)\s*$/.exec(error.message)?.[1] ?? 'no connection';
}

/** What a unit's failure stops besides the unit, or undefined (only the unit failed). */
export function stopOf(error: unknown, dataset: DatasetName): UnitStop | undefined {
  const root = rootOf(error);
  if (root instanceof ApiError && root.status === 401) {
    return { scope: 'run', why: 'key', reason: root.message };
  }
  if (root instanceof NetworkError && root.beforeSend) {
    return {
      scope: 'run',
      why: 'unreachable',
      reason: `the API could not be reached (${codeOf(root)}): nothing reached the service and no budget was spent; check MINTLIFY_API_URL and that this machine can reach it`,
    };
  }
  if (root instanceof CircuitOpenError) return { scope: 'run', why: 'outage', reason: root.message };
  // Every unit of the run reads the same clock.
  if (root instanceof ClockSkewError) return { scope: 'run', why: 'clock', reason: root.message };
  if (root instanceof ApiError && root.status === 403) {
    return { scope: 'dataset', dataset, reason: `${dataset}: ${root.message}` };
  }
  return undefined;
}
