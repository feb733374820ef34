/**
 * What an analytics endpoint module gives the sandbox: validation of one request, its normal
 * answer, and its answers to the fault kinds that are specific to the route. The rest (route,
 * auth, request log: server/start.ts; budget, project, the faults every route shares:
 * server/analytics-routes.ts) is done the same way for every endpoint, so each module stays small.
 */
import type * as v from 'valibot';
import type { FaultRule } from '../server/faults.js';
import type { Answer } from '../server/http.js';
import { parseWindowQuery, type Parsed, type WindowQuery } from './query.js';

/** A validated request, ready to be answered. */
export interface PreparedRequest {
  /** The request's offset (offset-paged routes), for fault rules that match on it. */
  readonly offset?: number;
  /** Whether the request carries a cursor (cursor-paged routes). */
  readonly hasCursor?: boolean;
  /** The normal 200 body. */
  page(): unknown;
  /**
   * The answer to a route-specific fault kind, given the normal body; undefined when the kind
   * means nothing here (the normal body is sent).
   */
  fault(rule: FaultRule, body: unknown): Answer | undefined;
}

export interface AnalyticsEndpoint {
  /** Validates the query of an existing project; a failure becomes a 400 `{error, details}`. */
  prepare(projectId: string, params: URLSearchParams, now: number): Parsed<PreparedRequest>;
}

/**
 * An endpoint whose query is `fields` plus `dateFrom`/`dateTo`: `prepare` sees the request
 * once its query is valid and its window resolved (else the answer is a 400).
 */
export function windowedEndpoint<const TEntries extends v.ObjectEntries>(
  fields: TEntries,
  prepare: (projectId: string, request: WindowQuery<v.InferOutput<v.ObjectSchema<TEntries, undefined>>>) => Parsed<PreparedRequest>,
): AnalyticsEndpoint {
  return {
    prepare(projectId, params, now) {
      const parsed = parseWindowQuery(fields, params, now);
      return parsed.ok ? prepare(projectId, parsed.value) : parsed;
    },
  };
}

/** The documented 400 body. */
export function badRequest(error: string, messages: readonly string[]): Answer {
  return { status: 400, body: { error, details: messages.map((message) => ({ message })) } };
}
