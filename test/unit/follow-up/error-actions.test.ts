import { describe, expect, it } from 'vitest';
import { errorAction, type CallSite, type ErrorAction } from '../../../functions/follow-up/error-actions.js';
import { ApiError, ConfigError, DeadlineExceededError, NetworkError, RateLimitedError, UnreachableError } from '../../../functions/shared/errors.js';

const api = (status: number) => new ApiError(`status ${status}`, status);
const refused = new NetworkError('connect ECONNREFUSED', true);
const reset = new NetworkError('socket hang up', false);
const unreachable = (code: string) => new UnreachableError('GET /v2/agent/p/job/j', code, 'http://127.0.0.1:9');
const everywhere = (action: ErrorAction): Record<CallSite, ErrorAction> => ({ read: action, send: action, poll: action });

/** Each error at each call site: what the follow-up does about it. */
const TABLE: ReadonlyArray<readonly [string, unknown, Record<CallSite, ErrorAction>]> = [
  ['a 429', new RateLimitedError('slow down', { retryAfterMs: 5_000 }), { read: 'defer-rate-limited', send: 'defer-rate-limited', poll: 'defer-rate-limited' }],
  ['a 404', api(404), { read: 'reject', send: 'reject', poll: 'fail' }],
  ['a 409', api(409), { read: 'retry-later', send: 'defer-job-active', poll: 'retry-later' }],
  ['a 400', api(400), { read: 'retry-later', send: 'reject', poll: 'retry-later' }],
  ['a 403 (refused, not acted on)', api(403), { read: 'retry-later', send: 'retry-later', poll: 'retry-later' }],
  ['a 500', api(500), { read: 'retry-later', send: 'uncertain', poll: 'retry-later' }],
  ['a 408', api(408), { read: 'retry-later', send: 'uncertain', poll: 'retry-later' }],
  ['a connection refused before sending', refused, { read: 'retry-later', send: 'retry-later', poll: 'retry-later' }],
  ['nothing listening (the API never reached)', unreachable('ECONNREFUSED'), everywhere('defer-unreachable')],
  ['a host name that does not resolve', unreachable('ENOTFOUND'), everywhere('defer-unreachable')],
  ['a TLS handshake that failed', unreachable('ERR_SSL_WRONG_VERSION_NUMBER'), everywhere('defer-unreachable')],
  [
    'an unreachable API met at the deadline',
    new DeadlineExceededError('no time left', { cause: unreachable('ECONNREFUSED') }),
    everywhere('defer-unreachable'),
  ],
  ['a reset after sending', reset, { read: 'retry-later', send: 'uncertain', poll: 'retry-later' }],
  ['bad input caught before sending', new ConfigError('bad'), { read: 'retry-later', send: 'retry-later', poll: 'retry-later' }],
  ['an error nobody knows', new Error('?'), { read: 'retry-later', send: 'uncertain', poll: 'retry-later' }],
];

describe('the follow-up error → action table', () => {
  it.each(
    TABLE.flatMap(([name, error, actions]) =>
      (Object.entries(actions) as [CallSite, ErrorAction][]).map(([site, action]) => [name, site, action, error] as const),
    ),
  )('%s at %s: %s', (_name, site, action, error) => {
    expect(errorAction(site, error)).toBe(action);
  });
});
