/**
 * The sandbox's budget mode over real HTTP on 127.0.0.1: the service's shared analytics
 * rate limit (N requests per window, every analytics endpoint together, agent endpoints
 * not included) in fixed and rolling windows, on a fake clock so hours pass in milliseconds.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox, type BudgetOptions, type Sandbox, type SandboxOptions } from '../../../sandbox/index.js';
import { fakeClock } from '../../helpers/clock.js';

const HOUR = 3_600_000;
const MINUTE = 60_000;
/** 2026-01-15T10:00:00Z: a whole hour, so fixed 1h windows start here. */
const START = Date.UTC(2026, 0, 15, 10, 0, 0);
const ONE_DAY = 'dateFrom=2026-01-14&dateTo=2026-01-15';

const open: Sandbox[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((sandbox) => sandbox.close()));
});

async function start(options: SandboxOptions): Promise<Sandbox> {
  const sandbox = await startSandbox(options);
  open.push(sandbox);
  return sandbox;
}

function budget(requests: number, window: 'fixed' | 'rolling', extra: Partial<BudgetOptions> = {}): BudgetOptions {
  return { requests, windowMs: HOUR, window, ...extra };
}

async function analytics(sandbox: Sandbox, path = 'views', key = sandbox.apiKey): Promise<Response> {
  return fetch(`${sandbox.url}/v1/analytics/proj_small/${path}?${ONE_DAY}`, { headers: { authorization: `Bearer ${key}` } });
}

async function statuses(sandbox: Sandbox, count: number, path = 'views'): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < count; i++) out.push((await analytics(sandbox, path)).status);
  return out;
}

describe('sandbox request budget', () => {
  describe('fixed window', () => {
    it('answers 429 {error} beyond the budget, with Retry-After until the window ends', async () => {
      const clock = fakeClock(START + 20 * MINUTE);
      const sandbox = await start({ now: clock.now, budget: budget(3, 'fixed') });

      const allowed = await statuses(sandbox, 3);
      const refused = await analytics(sandbox);

      expect(allowed).toEqual([200, 200, 200]);
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toBe(String(40 * 60));
      expect(await refused.json()).toEqual({ error: expect.stringMatching(/3 analytics requests/) });
    });

    it('logs the refused request with status 429 and overBudget', async () => {
      const sandbox = await start({ now: fakeClock(START).now, budget: budget(1, 'fixed') });

      await statuses(sandbox, 2);

      expect(sandbox.requests).toEqual([
        expect.objectContaining({ route: 'views', status: 200 }),
        expect.objectContaining({ route: 'views', status: 429, overBudget: true }),
      ]);
    });

    it('starts counting again at the start of the next window', async () => {
      const clock = fakeClock(START + 59 * MINUTE);
      const sandbox = await start({ now: clock.now, budget: budget(2, 'fixed') });
      await statuses(sandbox, 2);

      const before = await statuses(sandbox, 1);
      clock.advance(MINUTE);
      const after = await statuses(sandbox, 3);

      expect(before).toEqual([429]);
      expect(after).toEqual([200, 200, 429]);
    });

    it('shares one budget among every analytics endpoint', async () => {
      const sandbox = await start({ now: fakeClock(START).now, budget: budget(6, 'fixed') });
      const paths = ['visitors', 'views', 'searches', 'feedback', 'feedback/by-page', 'assistant', 'assistant/caller-stats'];

      const answers: number[] = [];
      for (const path of paths) answers.push((await analytics(sandbox, path)).status);

      expect(answers).toEqual([200, 200, 200, 200, 200, 200, 429]);
      expect(sandbox.budgetState()).toMatchObject({ used: 6, remaining: 0 });
    });

    it('counts a 400 and a 404 against the budget, as the service counts every request', async () => {
      const sandbox = await start({ now: fakeClock(START).now, budget: budget(3, 'fixed') });

      const bad = await fetch(`${sandbox.url}/v1/analytics/proj_small/views?limit=0`, { headers: { authorization: `Bearer ${sandbox.apiKey}` } });
      const unknown = await fetch(`${sandbox.url}/v1/analytics/proj_nope/views`, { headers: { authorization: `Bearer ${sandbox.apiKey}` } });

      expect([bad.status, unknown.status]).toEqual([400, 404]);
      expect(sandbox.budgetState()?.used).toBe(2);
    });

    it('counts a request answered by an injected fault', async () => {
      const sandbox = await start({ now: fakeClock(START).now, budget: budget(3, 'fixed') });
      sandbox.addFault({ kind: 'server-error' });

      const faulted = await analytics(sandbox);

      expect(faulted.status).toBe(500);
      expect(sandbox.budgetState()?.used).toBe(1);
    });

    it('spends nothing on a request with a bad key', async () => {
      const sandbox = await start({ now: fakeClock(START).now, budget: budget(3, 'fixed') });

      const rejected = await analytics(sandbox, 'views', 'mint_wrong_1111111111111111');

      expect(rejected.status).toBe(401);
      expect(sandbox.budgetState()?.used).toBe(0);
    });

    it('does not count the refused requests themselves', async () => {
      const clock = fakeClock(START);
      const sandbox = await start({ now: clock.now, budget: budget(2, 'fixed') });

      await statuses(sandbox, 10);

      expect(sandbox.budgetState()).toMatchObject({ used: 2, remaining: 0, resetAt: START + HOUR });
    });

    it('runs a day of hourly schedule in milliseconds on the fake clock', async () => {
      const clock = fakeClock(START);
      const sandbox = await start({ now: clock.now, budget: budget(4, 'fixed') });

      const perHour: number[] = [];
      for (let hour = 0; hour < 24; hour++) {
        const answers = await statuses(sandbox, 6, 'assistant');
        perHour.push(answers.filter((status) => status === 200).length);
        clock.advance(HOUR);
      }

      expect(perHour).toEqual(Array.from({ length: 24 }, () => 4));
    });
  });

  describe('rolling window', () => {
    it('frees a slot when the oldest counted request is one window old', async () => {
      const clock = fakeClock(START);
      const sandbox = await start({ now: clock.now, budget: budget(3, 'rolling') });
      for (const minute of [0, 10, 20]) {
        clock.set(START + minute * MINUTE);
        await statuses(sandbox, 1);
      }

      clock.set(START + 30 * MINUTE);
      const refused = await analytics(sandbox);
      clock.set(START + HOUR);
      const freed = await statuses(sandbox, 2);

      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toBe(String(30 * 60));
      expect(freed).toEqual([200, 429]);
    });

    it('does not reset at the top of the hour', async () => {
      const clock = fakeClock(START + 50 * MINUTE);
      const sandbox = await start({ now: clock.now, budget: budget(2, 'rolling') });
      await statuses(sandbox, 2);

      clock.set(START + HOUR + MINUTE);
      const refused = await analytics(sandbox);

      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toBe(String(49 * 60));
    });

    it('reports resetAt as the moment the oldest counted request leaves the window', async () => {
      const clock = fakeClock(START);
      const sandbox = await start({ now: clock.now, budget: budget(5, 'rolling') });
      await statuses(sandbox, 1);
      clock.advance(15 * MINUTE);
      await statuses(sandbox, 2);

      expect(sandbox.budgetState()).toEqual({
        requests: 5,
        windowMs: HOUR,
        window: 'rolling',
        retryAfter: true,
        used: 3,
        remaining: 2,
        resetAt: START + HOUR,
      });
    });
  });

  describe('Retry-After', () => {
    it.each(['fixed', 'rolling'] as const)('sends no Retry-After in a %s window when retryAfter is false', async (window) => {
      const sandbox = await start({ now: fakeClock(START).now, budget: budget(1, window, { retryAfter: false }) });
      await statuses(sandbox, 1);

      const refused = await analytics(sandbox);

      expect(refused.status).toBe(429);
      expect(refused.headers.has('retry-after')).toBe(false);
      expect(await refused.json()).toEqual({ error: expect.any(String) });
    });

    it('sends at least 1 second when the slot frees in under a second', async () => {
      const clock = fakeClock(START + HOUR - 300);
      const sandbox = await start({ now: clock.now, budget: budget(1, 'fixed') });
      await statuses(sandbox, 1);

      const refused = await analytics(sandbox);

      expect(refused.headers.get('retry-after')).toBe('1');
    });
  });

  describe('agent endpoints', () => {
    it('never counts agent requests against the analytics budget', async () => {
      const sandbox = await start({ now: fakeClock(START).now, budget: budget(1, 'fixed') });
      const headers = { authorization: `Bearer ${sandbox.apiKey}`, 'content-type': 'application/json' };

      const agent: number[] = [];
      for (let i = 0; i < 3; i++) {
        agent.push((await fetch(`${sandbox.url}/v2/agent/proj_small/job/job_demo_1`, { headers })).status);
      }
      agent.push(
        (await fetch(`${sandbox.url}/v2/agent/proj_small/job/job_demo_1/message`, { method: 'POST', headers, body: JSON.stringify({ prompt: 'hi' }) })).status,
      );
      const analyticsStatus = (await analytics(sandbox)).status;

      expect(agent).toEqual([200, 200, 200, 200]);
      expect(analyticsStatus).toBe(200);
      expect(sandbox.budgetState()?.used).toBe(1);
    });
  });

  describe('control', () => {
    it('has no budget unless one is configured', async () => {
      const sandbox = await start({ now: fakeClock(START).now });

      const answers = await statuses(sandbox, 5);
      const overHttp = await (await fetch(`${sandbox.url}/_sandbox/budget`)).json();

      expect(answers).toEqual([200, 200, 200, 200, 200]);
      expect(sandbox.budgetState()).toBeNull();
      expect(overHttp).toEqual({ budget: null });
    });

    it('reports used, remaining and resetAt over the control API', async () => {
      const clock = fakeClock(START + 5 * MINUTE);
      const sandbox = await start({ now: clock.now, budget: budget(10, 'fixed') });
      await statuses(sandbox, 4);

      const body = await (await fetch(`${sandbox.url}/_sandbox/budget`)).json();

      expect(body).toEqual({
        budget: { requests: 10, windowMs: HOUR, window: 'fixed', retryAfter: true, used: 4, remaining: 6, resetAt: START + HOUR },
      });
    });

    it('sets a budget at run time over the control API, keeping what was already counted', async () => {
      const sandbox = await start({ now: fakeClock(START).now, budget: budget(10, 'fixed') });
      await statuses(sandbox, 2);

      const set = await fetch(`${sandbox.url}/_sandbox/budget`, {
        method: 'POST',
        body: JSON.stringify({ requests: 3, windowMs: HOUR, window: 'rolling', retryAfter: false }),
      });
      const answers = await statuses(sandbox, 2);

      expect(set.status).toBe(200);
      expect(answers).toEqual([200, 429]);
      expect(sandbox.budgetState()).toMatchObject({ window: 'rolling', retryAfter: false, used: 3 });
    });

    it('forgets what was counted when the control API is asked to reset', async () => {
      const sandbox = await start({ now: fakeClock(START).now, budget: budget(2, 'fixed') });
      await statuses(sandbox, 2);

      await fetch(`${sandbox.url}/_sandbox/budget`, { method: 'POST', body: JSON.stringify({ ...budget(2, 'fixed'), reset: true }) });

      expect(await statuses(sandbox, 1)).toEqual([200]);
    });

    it('removes the budget on DELETE', async () => {
      const sandbox = await start({ now: fakeClock(START).now, budget: budget(1, 'fixed') });
      await statuses(sandbox, 1);

      const removed = await fetch(`${sandbox.url}/_sandbox/budget`, { method: 'DELETE' });

      expect(removed.status).toBe(204);
      expect(await statuses(sandbox, 3)).toEqual([200, 200, 200]);
    });

    it('switches budgets in process with setBudget and resetBudget', async () => {
      const sandbox = await start({ now: fakeClock(START).now });
      sandbox.setBudget(budget(1, 'rolling'));

      const limited = await statuses(sandbox, 2);
      sandbox.resetBudget();
      const afterReset = await statuses(sandbox, 1);
      sandbox.setBudget(null);
      const unlimited = await statuses(sandbox, 2);

      expect([...limited, ...afterReset, ...unlimited]).toEqual([200, 429, 200, 200, 200]);
    });

    it('refuses an invalid budget in the options, in setBudget and over the control API', async () => {
      await expect(startSandbox({ budget: { requests: 0, windowMs: HOUR, window: 'fixed' } })).rejects.toThrow(/requests/);
      const sandbox = await start({ now: fakeClock(START).now });

      expect(() => sandbox.setBudget({ requests: 5, windowMs: HOUR, window: 'sliding' as 'fixed' })).toThrow(/window/);
      const posted = await fetch(`${sandbox.url}/_sandbox/budget`, { method: 'POST', body: JSON.stringify({ requests: 5 }) });
      expect(posted.status).toBe(400);
      expect(sandbox.budgetState()).toBeNull();
    });
  });

  describe('competing clients', () => {
    it('lets a competing client spend budget in process with spendBudget', async () => {
      const sandbox = await start({ now: fakeClock(START).now, budget: budget(5, 'fixed') });

      const spent = sandbox.spendBudget(4);
      const answers = await statuses(sandbox, 2);

      expect(spent).toBe(4);
      expect(answers).toEqual([200, 429]);
      expect(sandbox.requests).toHaveLength(2);
    });

    it('lets a competing client spend budget over the control API, and says how much fitted', async () => {
      const sandbox = await start({ now: fakeClock(START).now, budget: budget(3, 'fixed') });
      await statuses(sandbox, 1);

      const response = await fetch(`${sandbox.url}/_sandbox/budget/spend`, { method: 'POST', body: JSON.stringify({ count: 5 }) });

      expect(await response.json()).toEqual({ spent: 2, budget: expect.objectContaining({ used: 3, remaining: 0 }) });
      expect((await analytics(sandbox)).status).toBe(429);
    });

    it('counts a competing client that simply calls the API with the key', async () => {
      const sandbox = await start({ now: fakeClock(START).now, budget: budget(3, 'fixed') });

      await statuses(sandbox, 2, 'searches');

      expect(sandbox.budgetState()).toMatchObject({ used: 2, remaining: 1 });
    });
  });

  describe('clock', () => {
    it('moves the sandbox clock over the control API, so an out-of-process window passes', async () => {
      const sandbox = await start({ now: fakeClock(START).now, budget: budget(1, 'rolling') });
      await statuses(sandbox, 1);

      const moved = await fetch(`${sandbox.url}/_sandbox/clock`, { method: 'POST', body: JSON.stringify({ advanceMs: HOUR }) });

      expect(await moved.json()).toEqual({ now: START + HOUR, offsetMs: HOUR });
      expect(sandbox.now()).toBe(START + HOUR);
      expect(await statuses(sandbox, 1)).toEqual([200]);
    });

    it('sets the sandbox clock to an ISO timestamp over the control API', async () => {
      const sandbox = await start({ now: fakeClock(START).now });

      const set = await fetch(`${sandbox.url}/_sandbox/clock`, { method: 'POST', body: JSON.stringify({ now: '2026-02-01T00:00:00Z' }) });
      const read = await (await fetch(`${sandbox.url}/_sandbox/clock`)).json();

      expect(set.status).toBe(200);
      expect(read).toEqual({ now: Date.UTC(2026, 1, 1), offsetMs: Date.UTC(2026, 1, 1) - START });
    });

    it('stamps the request log with the sandbox clock', async () => {
      const sandbox = await start({ now: fakeClock(START).now });

      await statuses(sandbox, 1);

      expect(sandbox.requests[0]?.startedAt).toBe(START);
    });

    it('ends the default date window (no dateFrom, no dateTo) today by the sandbox clock', async () => {
      const clock = fakeClock(Date.UTC(2026, 0, 15, 12));
      const sandbox = await start({ now: clock.now });

      const response = await fetch(`${sandbox.url}/v1/analytics/proj_small/assistant/caller-stats`, {
        headers: { authorization: `Bearer ${sandbox.apiKey}` },
      });

      let expected = 0;
      for (let day = Date.UTC(2025, 11, 17); day <= Date.UTC(2026, 0, 15); day += 86_400_000) {
        expected += sandbox.data.rowCount('assistant', 'proj_small', new Date(day).toISOString().slice(0, 10));
      }
      expect(((await response.json()) as { total: number }).total).toBe(expected);
    });
  });
});
