import { describe, expect, it } from 'vitest';
import {
  ApiError,
  ConfigError,
  DeadlineExceededError,
  MalformedResponseError,
  NetworkError,
  RateLimitedError,
  SendUncertainError,
} from '../../../functions/shared/errors.js';
import { BudgetExhaustedError } from '../../../functions/shared/pacing/errors.js';
import {
  isOutOfCredits,
  retryAnalyticsRead,
  isRetryableRead,
  isRetryableSend,
  isUncertainSend,
  provablyNotSent,
  sendOutcome,
} from '../../../functions/shared/pacing/retry-policy.js';

const malformed = () => new MalformedResponseError('visitors response is malformed');

describe('reads', () => {
  it.each([408, 429, 500, 501, 502, 503, 504, 599])('are retried after HTTP %i', (status) => {
    expect(isRetryableRead(new ApiError('x', status))).toBe(true);
  });

  it.each([301, 400, 401, 403, 404, 409, 422])('are not retried after HTTP %i', (status) => {
    expect(isRetryableRead(new ApiError('x', status))).toBe(false);
  });

  it('are retried after a network failure, before or after sending', () => {
    expect(isRetryableRead(new NetworkError('refused', true))).toBe(true);
    expect(isRetryableRead(new NetworkError('reset', false))).toBe(true);
  });

  it('are not retried after a configuration error or an error nobody classified', () => {
    expect(isRetryableRead(new ConfigError('bad'))).toBe(false);
    expect(isRetryableRead(new Error('?'))).toBe(false);
  });

  it('retry a malformed body once', () => {
    expect(isRetryableRead(malformed(), [])).toBe(true);
  });

  it('do not retry a malformed body a second time, whatever failed in between', () => {
    expect(isRetryableRead(malformed(), [malformed(), new ApiError('x', 503)])).toBe(false);
  });

  it('still retry other failures after a malformed body', () => {
    expect(isRetryableRead(new ApiError('x', 503), [malformed()])).toBe(true);
  });
});

describe('analytics reads', () => {
  it("call a 429 a pause (the request budget's), not a retry", () => {
    expect(retryAnalyticsRead(new RateLimitedError('slow down'))).toBe('pause');
  });

  it('are retried after what any read is retried after', () => {
    expect(retryAnalyticsRead(new ApiError('x', 503))).toBe(true);
    expect(retryAnalyticsRead(new ApiError('x', 408))).toBe(true);
  });

  it('retry a malformed body only once', () => {
    expect(retryAnalyticsRead(malformed(), [malformed()])).toBe(false);
  });
});

describe('what a failed POST says about the send', () => {
  it.each([
    ['a connection refused before sending', new NetworkError('refused', true)],
    ['a configuration error', new ConfigError('empty prompt')],
    ['a deadline reached before any attempt', new DeadlineExceededError('no time left')],
    ['a deadline reached after a failure before sending', new DeadlineExceededError('gave up', { cause: new NetworkError('refused', true) })],
    ['a budget with no room', new BudgetExhaustedError('no room', 0)],
  ])('%s: not sent', (_name, error) => {
    expect(sendOutcome(error)).toBe('not-sent');
  });

  it.each([400, 401, 403, 404, 409, 429])('HTTP %i: refused by the service', (status) => {
    expect(sendOutcome(status === 429 ? new RateLimitedError('slow down') : new ApiError('x', status))).toBe('refused');
  });

  it.each([
    ['HTTP 408', new ApiError('x', 408)],
    ['HTTP 500', new ApiError('x', 500)],
    ['HTTP 503', new ApiError('x', 503)],
    ['a redirect (303 answers a POST that was processed)', new ApiError('x', 303)],
    ['a reset after sending', new NetworkError('reset', false)],
    ['a 2xx body that is unreadable', malformed()],
    ['a send already found uncertain', new SendUncertainError('maybe')],
    ['a deadline reached after a 5xx', new DeadlineExceededError('gave up', { cause: new ApiError('x', 503) })],
    ['an error nobody classified', new Error('?')],
    ['a thrown non-error', 'aborted'],
  ])('%s: uncertain', (_name, error) => {
    expect(sendOutcome(error)).toBe('uncertain');
  });

  it('agrees with provablyNotSent and isUncertainSend on every case', () => {
    const errors = [
      new NetworkError('refused', true),
      new NetworkError('reset', false),
      new ApiError('x', 408),
      new ApiError('x', 404),
      new RateLimitedError('slow down'),
      malformed(),
      new Error('?'),
    ];
    for (const error of errors) {
      expect(provablyNotSent(error)).toBe(sendOutcome(error) !== 'uncertain');
      expect(isUncertainSend(error)).toBe(sendOutcome(error) === 'uncertain');
    }
  });
});

describe('sending again', () => {
  it('happens after a 429 or a failure before sending', () => {
    expect(isRetryableSend(new RateLimitedError('slow down'))).toBe(true);
    expect(isRetryableSend(new NetworkError('refused', true))).toBe(true);
  });

  it('never happens after an uncertain failure', () => {
    for (const error of [new ApiError('x', 408), new ApiError('x', 500), new NetworkError('reset', false), malformed()]) {
      expect(isRetryableSend(error)).toBe(false);
    }
  });

  it('does not happen after a refusal that a second identical request cannot change', () => {
    expect(isRetryableSend(new ApiError('x', 400))).toBe(false);
    expect(isRetryableSend(new ApiError('x', 404))).toBe(false);
  });
});

describe('out of credits', () => {
  it('is any 402, whatever its text', () => {
    expect(isOutOfCredits(new ApiError('HTTP 402 from the API', 402))).toBe(true);
    expect(isRetryableSend(new ApiError('HTTP 402 from the API', 402))).toBe(false);
  });

  it('is another 4xx whose error names credits', () => {
    expect(isOutOfCredits(new ApiError('access denied (403): Insufficient AI credits', 403))).toBe(true);
    expect(isOutOfCredits(new ApiError('request refused as invalid (400): no agent credit left', 400))).toBe(true);
  });

  it('is not a 4xx that does not name credits, nor a 408, a 429 or a 5xx that does', () => {
    expect(isOutOfCredits(new ApiError('request refused as invalid (400): prompt too long', 400))).toBe(false);
    expect(isOutOfCredits(new ApiError('timeout (408): credits service slow', 408))).toBe(false);
    expect(isOutOfCredits(new RateLimitedError('rate limited (429): credits refill hourly'))).toBe(false);
    expect(isOutOfCredits(new ApiError('HTTP 500: credits service down', 500))).toBe(false);
    expect(isOutOfCredits(new NetworkError('credits', true))).toBe(false);
  });
});

describe('errors', () => {
  it('carry no retryable flag of their own that could disagree with the policy', () => {
    expect('retryable' in new ApiError('x', 408)).toBe(false);
    expect('retryable' in new MalformedResponseError('x')).toBe(false);
  });
});
