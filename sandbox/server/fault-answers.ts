/**
 * The answers to the fault kinds every route answers alike (rate-limit, server-error,
 * html-error, status, insufficient-credits, drop, slow, malformed-json), for the analytics
 * and the agent routes; the rules that pick a request's fault are faults.ts.
 */
import type { FaultRule } from './faults.js';
import type { Answer, Exchange, RawBody } from './http.js';
import type { SandboxState } from './state.js';

/** A proxy's error page, the body of `html-error`. */
const HTML_502 =
  '<!DOCTYPE html>\n<html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1><p>The upstream server returned an invalid response.</p></body></html>\n';

/**
 * Answers a fault whose answer does not depend on the route (rate-limit, server-error,
 * html-error, status, insufficient-credits, drop, slow, malformed-json); false for the
 * route-specific kinds, which the route answers. `normal` is the request's normal answer,
 * computed only by the kinds that send it (`slow` after its real delay).
 */
export async function answerCommonFault(
  rule: FaultRule,
  normal: () => Answer,
  exchange: Exchange,
  { clock, delays }: Pick<SandboxState, 'clock' | 'delays'>,
): Promise<boolean> {
  const send = (answer: Answer, raw?: RawBody): true => {
    exchange.send(answer, raw);
    return true;
  };
  switch (rule.kind) {
    case 'rate-limit': {
      const headers: Record<string, string> = {};
      if (rule.retryAfter === 'http-date') headers['retry-after'] = new Date(clock.now() + 1_000).toUTCString();
      else if (rule.retryAfter !== undefined) headers['retry-after'] = String(rule.retryAfter);
      return send({ status: 429, body: { error: 'rate limit exceeded: retry later' }, headers });
    }
    case 'server-error':
      return send({
        status: rule.status ?? 500,
        body: { error: 'Internal server error', details: [{ message: 'sandbox: injected server error' }] },
      });
    case 'html-error':
      return send({ status: 502, body: undefined }, { text: HTML_502, contentType: 'text/html; charset=utf-8' });
    case 'status':
      return send({ status: rule.status, body: { error: rule.error ?? `sandbox: injected status ${rule.status}` } });
    case 'insufficient-credits':
      return send({ status: 402, body: { error: 'Insufficient AI credits' } });
    case 'drop':
      exchange.drop();
      return true;
    case 'slow':
      await delays.sleep(rule.delayMs);
      return send(normal());
    case 'malformed-json': {
      const answer = normal();
      if (answer.status !== 200) return send(answer);
      const text = JSON.stringify(answer.body);
      return send(answer, { text: text.slice(0, Math.max(1, Math.floor(text.length / 2))), contentType: 'application/json; charset=utf-8' });
    }
    default:
      return false;
  }
}
