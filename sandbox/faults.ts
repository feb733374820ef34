/**
 * Fault injection: rules switched on at run time (in-process or over the control API) that
 * replace the next matching responses with a failure, in the order the rules were added.
 */
import * as v from 'valibot';
import { ConfigError } from '../functions/shared/errors.js';

/** The API routes a fault can target. */
export type FaultRoute = 'visitors' | 'agent-message' | 'agent-get';

/** Which requests a rule applies to, and how many times. */
export interface FaultMatch {
  /** Default: any API route (a kind that cannot apply to a route skips it). */
  readonly route?: FaultRoute;
  /** Default: any project. */
  readonly projectId?: string;
  /** Visitors only: the `offset` query value (missing offset counts as 0). Default: any. */
  readonly offset?: number;
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
  /** 200 JSON with wrong types (string or negative counts; bad job status). POST: accepted. */
  | { readonly kind: 'wrong-types' }
  /** Visitors: 200 `{totals, visitors: [], hasMore: true}`. */
  | { readonly kind: 'empty-page-has-more' }
  /** Visitors: 200 with the same body as the previous page served for that project. */
  | { readonly kind: 'repeat-page' }
  /** Visitors: 200 page whose totals differ from the other pages'. */
  | { readonly kind: 'totals-change' }
  /** Visitors: 200 page whose first row repeats the path of row `offset - 1`. */
  | { readonly kind: 'duplicate-paths' }
  /** Any status with an `{error}` body (e.g. 400, 401, 403, 404). */
  | { readonly kind: 'status'; readonly status: number; readonly error?: string }
  /** Agent message: accepts the prompt, then destroys the socket without a response. */
  | { readonly kind: 'drop-after-accept' };

export type FaultRule = FaultMatch & FaultSpec;
export type FaultKind = FaultSpec['kind'];

const VISITORS_ONLY = new Set<FaultKind>(['empty-page-has-more', 'repeat-page', 'totals-change', 'duplicate-paths']);

/** Whether a kind means anything on a route (a visitors-only kind never hits an agent call). */
export function faultApplies(kind: FaultKind, route: FaultRoute): boolean {
  if (VISITORS_ONLY.has(kind)) return route === 'visitors';
  if (kind === 'drop-after-accept') return route === 'agent-message';
  return true;
}

const count = v.pipe(v.number(), v.integer(), v.minValue(0));
const common = {
  route: v.optional(v.picklist(['visitors', 'agent-message', 'agent-get'])),
  projectId: v.optional(v.pipe(v.string(), v.minLength(1))),
  offset: v.optional(count),
  // JSON has no Infinity: the control API accepts "Infinity" (or -1) for "until cleared".
  times: v.optional(
    v.union([
      v.literal(Infinity),
      v.pipe(v.literal('Infinity'), v.transform(() => Infinity)),
      v.pipe(v.literal(-1), v.transform(() => Infinity)),
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
  v.object({
    ...common,
    kind: v.literal('status'),
    status: v.pipe(v.number(), v.integer(), v.minValue(100), v.maxValue(599)),
    error: v.optional(v.string()),
  }),
  v.object({ ...common, kind: v.literal('drop-after-accept') }),
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
  readonly offset?: number;
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
  if (rule.offset !== undefined && (target.route !== 'visitors' || rule.offset !== (target.offset ?? 0))) return false;
  return true;
}
