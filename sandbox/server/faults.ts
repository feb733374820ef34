/**
 * Fault injection: rules switched on at run time (in-process or over the control API) that
 * replace the next matching responses with a failure, in the order the rules were added.
 * The kinds every route answers alike are answered by fault-answers.ts, the route-specific
 * ones by the endpoint modules' `PreparedRequest.fault` and the agent routes.
 */
import * as v from 'valibot';
import { CATALOG } from '../../functions/warehouse/catalog.js';
import { ConfigError } from '../../functions/shared/errors.js';
import { AGENT_ROUTES, ANALYTICS_ROUTES, type ApiRoute } from './routes.js';

/** The API routes a fault can target. */
export type FaultRoute = ApiRoute;

/** Routes paged by `offset` (`FaultMatch.offset` applies to them only), from the catalog. */
const OFFSET_ROUTES: readonly FaultRoute[] = CATALOG.filter((entry) => entry.paging === 'offset').map((entry) => entry.route);
/** Routes paged by `cursor`, from the catalog. */
const CURSOR_ROUTES: readonly FaultRoute[] = CATALOG.filter((entry) => entry.paging === 'cursor').map((entry) => entry.route);

/** Which requests a rule applies to, and how many times. */
export interface FaultMatch {
  /** Default: any API route (a kind that cannot apply to a route skips it). */
  readonly route?: FaultRoute;
  /** Default: any project. */
  readonly projectId?: string;
  /** Offset routes only (visitors, views): the `offset` query value (missing counts as 0). Default: any. */
  readonly offset?: number;
  /**
   * Cursor routes only (searches, feedback, assistant): true = only requests that carry a
   * `cursor` (pages after the first), false = only first pages. Default: any.
   */
  readonly hasCursor?: boolean;
  /** Matching requests to affect; default 1, `Infinity` until cleared. */
  readonly times?: number;
}

/** A fault and its parameters. */
export type FaultSpec =
  /** 429 `{error}`; `retryAfter`: seconds (0 allowed), an HTTP-date 1 s ahead, or no header. */
  | { readonly kind: 'rate-limit'; readonly retryAfter?: number | 'http-date' }
  /** 5xx with the documented `{error, details}` body. Default status 500. */
  | { readonly kind: 'server-error'; readonly status?: 500 | 502 | 503 | 504 }
  /** 502 with an HTML body (a proxy's error page). */
  | { readonly kind: 'html-error' }
  /** Waits `delayMs`, then answers normally: trips client timeouts. */
  | { readonly kind: 'slow'; readonly delayMs: number }
  /** Destroys the socket without any response (for the POST: before accepting it). */
  | { readonly kind: 'drop' }
  /** 200 with a truncated JSON body (for the POST: the prompt IS accepted). */
  | { readonly kind: 'malformed-json' }
  /**
   * 200 JSON with wrong types: string or negative counts (visitors, views, by-page, caller
   * stats), string hits and a percent-string ctr (searches), numeric timestamps and enum
   * fields sent as numbers (feedback, assistant), a numeric job status and prLink (agent; the
   * POST is accepted), a 201 without the new job's `id` (job creation; the job IS created).
   * A new enum *value* is not a wrong type: see `drift`.
   */
  | { readonly kind: 'wrong-types' }
  /**
   * Visitors, views: 200 `{totals, <rows>: [], hasMore: true}`. Feedback, assistant: 200
   * `{<rows>: [], nextCursor: null, hasMore: true}` (an answer that contradicts itself).
   */
  | { readonly kind: 'empty-page-has-more' }
  /** Paged routes: 200 with the same body as the previous page served for that route and project. */
  | { readonly kind: 'repeat-page' }
  /** Visitors, views: 200 page whose totals differ from the other pages'. */
  | { readonly kind: 'totals-change' }
  /** Visitors, views: 200 page whose first row repeats the path of row `offset - 1`. */
  | { readonly kind: 'duplicate-paths' }
  /** Cursor routes, requests with a cursor: the page's rows, with `nextCursor` = the request's cursor. */
  | { readonly kind: 'repeat-cursor' }
  /** Cursor routes, requests with a cursor: 400 invalid cursor (the documented shape) for a valid one. */
  | { readonly kind: 'invalid-cursor' }
  /**
   * Cursor routes: a 200 page with no rows that still carries a valid, new `nextCursor` (and
   * `hasMore: true`) pointing where the request pointed: following it loses no row.
   */
  | { readonly kind: 'empty-page-cursor' }
  /**
   * Cursor routes: a fresh `nextCursor` (and `hasMore: true`) even on the last page; past the
   * end, empty pages with fresh cursors. With `times: Infinity` the pages never end.
   */
  | { readonly kind: 'endless-cursor' }
  /** Any status with an `{error}` body (e.g. 400, 401, 403, 404). */
  | { readonly kind: 'status'; readonly status: number; readonly error?: string }
  /** Agent message or job creation: accepts the prompt (creates the job), then destroys the socket without a response. */
  | { readonly kind: 'drop-after-accept' }
  /**
   * 200 as after the service's next change (drift.ts): new fields on every dataset and the
   * agent job, new enum values. With `times: Infinity`, like `SandboxOptions.drift`.
   */
  | { readonly kind: 'drift' }
  /**
   * Agent message: 402 `{"error": "Insufficient AI credits"}`, as the service once documented
   * for an organisation out of agent credits; the prompt is not accepted.
   */
  | { readonly kind: 'insufficient-credits' };

export type FaultRule = FaultMatch & FaultSpec;
export type FaultKind = FaultSpec['kind'];

/** The routes a kind means something on; absent kinds apply to every route. */
const KIND_ROUTES: Partial<Record<FaultKind, readonly FaultRoute[]>> = {
  'empty-page-has-more': [...OFFSET_ROUTES, 'feedback', 'assistant'],
  'repeat-page': [...OFFSET_ROUTES, ...CURSOR_ROUTES],
  'totals-change': OFFSET_ROUTES,
  'duplicate-paths': OFFSET_ROUTES,
  'repeat-cursor': CURSOR_ROUTES,
  'invalid-cursor': CURSOR_ROUTES,
  'empty-page-cursor': CURSOR_ROUTES,
  'endless-cursor': CURSOR_ROUTES,
  'drop-after-accept': ['agent-message', 'agent-create'],
  'insufficient-credits': ['agent-message', 'agent-create'],
};

/** Kinds that need the request's cursor. */
const NEEDS_CURSOR = new Set<FaultKind>(['repeat-cursor', 'invalid-cursor']);

/** Whether a kind means anything on a route (a visitors-only kind never hits an agent call). */
export function faultApplies(kind: FaultKind, route: FaultRoute): boolean {
  return KIND_ROUTES[kind]?.includes(route) ?? true;
}

const count = v.pipe(v.number(), v.integer(), v.minValue(0));
const common = {
  route: v.optional(v.picklist([...ANALYTICS_ROUTES, ...AGENT_ROUTES])),
  projectId: v.optional(v.pipe(v.string(), v.minLength(1))),
  offset: v.optional(count),
  hasCursor: v.optional(v.boolean()),
  // JSON has no Infinity: the control API accepts "Infinity" (or -1) for "until cleared".
  times: v.optional(
    v.union([
      v.literal(Infinity),
      v.pipe(
        v.literal('Infinity'),
        v.transform(() => Infinity),
      ),
      v.pipe(
        v.literal(-1),
        v.transform(() => Infinity),
      ),
      v.pipe(v.number(), v.integer(), v.minValue(1)),
    ]),
  ),
};

const FaultRuleSchema = v.variant('kind', [
  v.object({
    ...common,
    kind: v.literal('rate-limit'),
    retryAfter: v.optional(v.union([count, v.literal('http-date')])),
  }),
  v.object({ ...common, kind: v.literal('server-error'), status: v.optional(v.picklist([500, 502, 503, 504])) }),
  v.object({ ...common, kind: v.literal('html-error') }),
  v.object({ ...common, kind: v.literal('slow'), delayMs: count }),
  v.object({ ...common, kind: v.literal('drop') }),
  v.object({ ...common, kind: v.literal('malformed-json') }),
  v.object({ ...common, kind: v.literal('wrong-types') }),
  v.object({ ...common, kind: v.literal('empty-page-has-more') }),
  v.object({ ...common, kind: v.literal('repeat-page') }),
  v.object({ ...common, kind: v.literal('totals-change') }),
  v.object({ ...common, kind: v.literal('duplicate-paths') }),
  v.object({ ...common, kind: v.literal('repeat-cursor') }),
  v.object({ ...common, kind: v.literal('invalid-cursor') }),
  v.object({ ...common, kind: v.literal('empty-page-cursor') }),
  v.object({ ...common, kind: v.literal('endless-cursor') }),
  v.object({
    ...common,
    kind: v.literal('status'),
    status: v.pipe(v.number(), v.integer(), v.minValue(100), v.maxValue(599)),
    error: v.optional(v.string()),
  }),
  v.object({ ...common, kind: v.literal('drop-after-accept') }),
  v.object({ ...common, kind: v.literal('drift') }),
  v.object({ ...common, kind: v.literal('insufficient-credits') }),
]);

/** Validates a rule (from a test or from JSON); throws ConfigError naming the problem. */
export function parseFaultRule(input: unknown): FaultRule {
  const result = v.safeParse(FaultRuleSchema, input);
  if (!result.success) {
    const issues = result.issues.map((issue) => {
      const path = v.getDotPath(issue);
      return path ? `${path}: ${issue.message}` : issue.message;
    });
    throw new ConfigError(`invalid fault rule: ${issues.join('; ')}`);
  }
  return result.output as FaultRule;
}

/** The request a fault may apply to. */
export interface FaultTarget {
  readonly route: FaultRoute;
  readonly projectId: string;
  /** The request's offset (offset routes). */
  readonly offset?: number;
  /** Whether the request carries a cursor (cursor routes). */
  readonly hasCursor?: boolean;
}

/** Active rules in the order added, each with the uses it has left. */
export class FaultQueue {
  private rules: { rule: FaultRule; remaining: number }[] = [];

  add(rule: FaultRule): void {
    const parsed = parseFaultRule(rule);
    this.rules.push({ rule: parsed, remaining: parsed.times ?? 1 });
  }

  clear(): void {
    this.rules = [];
  }

  /** Rules still armed (for the control API and for tests). */
  list(): FaultRule[] {
    return this.rules.map(({ rule, remaining }) => ({ ...rule, times: remaining }));
  }

  /** The first armed rule matching `target`, consumed once; undefined when none. */
  take(target: FaultTarget): FaultRule | undefined {
    const index = this.rules.findIndex(({ rule }) => matches(rule, target));
    if (index < 0) return undefined;
    const entry = this.rules[index] as { rule: FaultRule; remaining: number };
    entry.remaining -= 1;
    if (entry.remaining <= 0) this.rules.splice(index, 1);
    return entry.rule;
  }
}

function matches(rule: FaultRule, target: FaultTarget): boolean {
  if (!faultApplies(rule.kind, target.route)) return false;
  if (rule.route !== undefined && rule.route !== target.route) return false;
  if (rule.projectId !== undefined && rule.projectId !== target.projectId) return false;
  if (rule.offset !== undefined && (!OFFSET_ROUTES.includes(target.route) || rule.offset !== (target.offset ?? 0))) return false;
  const cursorRoute = CURSOR_ROUTES.includes(target.route);
  if (rule.hasCursor !== undefined && (!cursorRoute || rule.hasCursor !== (target.hasCursor === true))) return false;
  if (NEEDS_CURSOR.has(rule.kind) && target.hasCursor !== true) return false;
  return true;
}
