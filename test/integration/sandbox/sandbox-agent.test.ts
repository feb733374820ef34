/**
 * The sandbox's agent endpoints over real HTTP on 127.0.0.1, driven by a fake clock: the
 * follow-up state machine, 409 on active, stale reads, the rate limit and agent faults.
 */
import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox, type JobRecord, type Sandbox, type SandboxOptions } from '../../../sandbox/index.js';

const PROJECT = 'proj_small';
const START = Date.UTC(2026, 0, 20, 12, 0, 0);
const PR_LINK = /^https:\/\/github\.com\/[^/]+\/[^/]+\/pull\/(\d+)$/;

interface Harness {
  sandbox: Sandbox;
  advance(ms: number): void;
  send(jobId: string, prompt: string, projectId?: string): Promise<Response>;
  get(jobId: string, projectId?: string): Promise<Response>;
}

const open: Sandbox[] = [];

async function startHarness(options: Omit<SandboxOptions, 'now'> = {}): Promise<Harness> {
  let clock = START;
  const sandbox = await startSandbox({ ...options, now: () => clock });
  open.push(sandbox);
  const headers = { authorization: `Bearer ${sandbox.apiKey}`, 'content-type': 'application/json' };
  const jobUrl = (projectId: string, jobId: string): string => `${sandbox.url}/v2/agent/${projectId}/job/${jobId}`;
  return {
    sandbox,
    advance: (ms) => {
      clock += ms;
    },
    send: (jobId, prompt, projectId = PROJECT) => fetch(`${jobUrl(projectId, jobId)}/message`, { method: 'POST', headers, body: JSON.stringify({ prompt }) }),
    get: (jobId, projectId = PROJECT) => fetch(jobUrl(projectId, jobId), { headers }),
  };
}

async function job(response: Response | Promise<Response>): Promise<JobRecord> {
  const resolved = await response;
  expect(resolved.status).toBe(200);
  return (await resolved.json()) as JobRecord;
}

function pullNumber(prLink: string | null): number {
  const match = PR_LINK.exec(prLink ?? '');
  if (!match) throw new Error(`not a PR link: ${String(prLink)}`);
  return Number(match[1]);
}

afterEach(async () => {
  await Promise.all(open.splice(0).map((sandbox) => sandbox.close()));
});

describe('sandbox agent jobs', () => {
  it('seeds demo jobs with old PR links and an archived job in each default project', async () => {
    const { get } = await startHarness();

    const demo = await job(get('job_demo_2'));
    const archived = await job(get('job_archived'));

    expect(demo).toMatchObject({ id: 'job_demo_2', status: 'completed', model: expect.any(String) });
    expect(demo.prLink).toMatch(PR_LINK);
    expect(demo.source).toEqual({ repository: expect.any(String), ref: expect.any(String) });
    expect(archived).toMatchObject({ status: 'archived', archivedAt: expect.any(String) });
  });

  it('makes the job active on an accepted prompt, then completed with a new PR link', async () => {
    const { send, get, advance } = await startHarness({ agent: { activeMs: 5_000 } });
    const before = await job(get('job_demo_1'));

    const accepted = await job(send('job_demo_1', 'Document the new webhook retries'));
    const during = await job(get('job_demo_1'));
    advance(5_000);
    const after = await job(get('job_demo_1'));

    expect(accepted).toMatchObject({ status: 'active', prLink: null });
    expect(during).toMatchObject({ status: 'active', prLink: null });
    expect(after.status).toBe('completed');
    expect(pullNumber(after.prLink)).toBeGreaterThan(pullNumber(before.prLink));
  });

  it('numbers the PRs of successive runs in increasing order', async () => {
    const { send, get, advance } = await startHarness({ agent: { activeMs: 1_000 } });

    await send('job_demo_1', 'first');
    advance(1_000);
    const first = await job(get('job_demo_1'));
    await send('job_demo_1', 'second');
    advance(1_000);
    const second = await job(get('job_demo_1'));

    expect(pullNumber(second.prLink)).toBeGreaterThan(pullNumber(first.prLink));
  });

  it.each([
    ['[fail]', 'failed', null],
    ['[archive]', 'archived', null],
    ['[no-changes]', 'completed', null],
  ])('ends a run whose prompt contains %s as %s', async (marker, status, prLink) => {
    const { send, get, advance } = await startHarness();

    await send('job_demo_3', `Please try ${marker} this`);
    advance(2_000);

    expect(await job(get('job_demo_3'))).toMatchObject({ status, prLink });
  });

  it('follows a scripted run: outcome, PR link and duration', async () => {
    const { sandbox, send, get, advance } = await startHarness();
    sandbox.scriptNextRun(PROJECT, 'job_demo_1', {
      outcome: 'completed',
      prLink: 'https://github.com/acme/docs/pull/7',
      activeMs: 60_000,
    });

    await send('job_demo_1', 'anything');
    advance(59_999);
    const during = await job(get('job_demo_1'));
    advance(1);
    const after = await job(get('job_demo_1'));

    expect(during.status).toBe('active');
    expect(after).toMatchObject({ status: 'completed', prLink: 'https://github.com/acme/docs/pull/7' });
  });

  it('archives a job by script and sets archivedAt', async () => {
    const { sandbox, send, get, advance } = await startHarness();
    sandbox.scriptNextRun(PROJECT, 'job_demo_1', { outcome: 'archived', activeMs: 100 });

    await send('job_demo_1', 'anything');
    advance(100);

    expect(await job(get('job_demo_1'))).toMatchObject({
      status: 'archived',
      archivedAt: new Date(START + 100).toISOString(),
    });
  });

  it('answers 409 to a prompt sent while the job is active and records a violation', async () => {
    const { sandbox, send } = await startHarness();

    await send('job_demo_1', 'first');
    const second = await send('job_demo_1', 'second');

    expect(second.status).toBe(409);
    expect(await second.json()).toEqual({ error: 'job is active' });
    const state = sandbox.getJobState(PROJECT, 'job_demo_1');
    expect(state?.violations).toHaveLength(1);
    expect(state?.prompts).toHaveLength(1);
  });

  it('records no violation when the next prompt waits for the run to end', async () => {
    const { sandbox, send, advance } = await startHarness();

    await send('job_demo_1', 'first');
    advance(2_000);
    const second = await send('job_demo_1', 'second');

    expect(second.status).toBe(200);
    expect(sandbox.getJobState(PROJECT, 'job_demo_1')?.violations).toEqual([]);
  });

  it('answers 409 to a prompt for a job created active', async () => {
    const { sandbox, send } = await startHarness();
    sandbox.createJob(PROJECT, { id: 'job_busy', status: 'active' });

    expect((await send('job_busy', 'hello')).status).toBe(409);
  });

  it('answers 400 to a prompt for an archived job', async () => {
    const { send } = await startHarness();

    const response = await send('job_archived', 'hello');

    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: expect.any(String) });
  });

  it('answers 404 for an unknown job on both endpoints', async () => {
    const { send, get } = await startHarness();

    const posted = await send('job_missing', 'hello');
    const read = await get('job_missing');
    const otherProject = await get('job_demo_1', 'proj_unknown');

    expect([posted.status, read.status, otherProject.status]).toEqual([404, 404, 404]);
    expect(await posted.json()).toEqual({ error: expect.any(String) });
  });

  it.each([
    ['an empty prompt', JSON.stringify({ prompt: '' })],
    ['a missing prompt', JSON.stringify({ text: 'hi' })],
    ['a non-string prompt', JSON.stringify({ prompt: 42 })],
    ['a body that is not JSON', 'prompt=hello'],
  ])('answers 400 with {error} to %s', async (_name, body) => {
    const { sandbox } = await startHarness();

    const response = await fetch(`${sandbox.url}/v2/agent/${PROJECT}/job/job_demo_1/message`, {
      method: 'POST',
      headers: { authorization: `Bearer ${sandbox.apiKey}`, 'content-type': 'application/json' },
      body,
    });

    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: expect.any(String) });
    expect(sandbox.getJobState(PROJECT, 'job_demo_1')?.prompts).toEqual([]);
  });

  it('refuses a missing key with 401 and an assistant key with 403', async () => {
    const { sandbox } = await startHarness();
    const url = `${sandbox.url}/v2/agent/${PROJECT}/job/job_demo_1`;

    const missing = await fetch(url);
    const assistant = await fetch(url, { headers: { authorization: 'Bearer mint_dsc_abc' } });

    expect([missing.status, assistant.status]).toEqual([401, 403]);
  });

  it('shows the previous terminal state in the POST response and the first stale reads', async () => {
    const { sandbox, send, get, advance } = await startHarness({ agent: { activeMs: 10_000 } });
    const before = await job(get('job_demo_1'));
    sandbox.scriptNextRun(PROJECT, 'job_demo_1', { outcome: 'completed', staleReads: 2 });

    const posted = await job(send('job_demo_1', 'update the quickstart'));
    const stale1 = await job(get('job_demo_1'));
    const stale2 = await job(get('job_demo_1'));
    const fresh = await job(get('job_demo_1'));
    advance(10_000);
    const done = await job(get('job_demo_1'));

    for (const stale of [posted, stale1, stale2]) {
      expect(stale).toMatchObject({ status: 'completed', prLink: before.prLink });
    }
    expect(fresh).toMatchObject({ status: 'active', prLink: null });
    expect(done.status).toBe('completed');
    expect(done.prLink).not.toBe(before.prLink);
  });

  it('records accepted prompts by hash, never by text', async () => {
    const { sandbox, send } = await startHarness();
    const prompt = 'Rewrite the SSO guide for Okta';

    await send('job_demo_1', prompt);

    const state = sandbox.getJobState(PROJECT, 'job_demo_1');
    expect(state?.prompts).toEqual([{ promptSha256: createHash('sha256').update(prompt).digest('hex'), acceptedAt: START }]);
    expect(JSON.stringify(state)).not.toContain(prompt);
    expect(JSON.stringify(sandbox.requests)).not.toContain(prompt);
    expect(JSON.stringify(sandbox.requests)).not.toContain(sandbox.apiKey);
  });

  describe('rate limit', () => {
    async function harnessWithJobs(agent: SandboxOptions['agent']): Promise<Harness> {
      const harness = await startHarness({ agent: { activeMs: 0, ...agent } });
      for (const id of ['job_a', 'job_b', 'job_c', 'job_d']) harness.sandbox.createJob(PROJECT, { id });
      return harness;
    }

    it('answers 429 with Retry-After until a slot frees once the hourly limit is used', async () => {
      const { send, advance } = await harnessWithJobs({ rateLimitPerHour: 3 });
      await send('job_a', 'one');
      advance(600_000);
      await send('job_b', 'two');
      await send('job_c', 'three');

      const limited = await send('job_d', 'four');

      expect(limited.status).toBe(429);
      expect(await limited.json()).toEqual({ error: expect.any(String) });
      expect(limited.headers.get('retry-after')).toBe('3000');
    });

    it('accepts again once the oldest prompt leaves the trailing hour', async () => {
      const { sandbox, send, advance } = await harnessWithJobs({ rateLimitPerHour: 2 });
      await send('job_a', 'one');
      await send('job_b', 'two');
      const limited = await send('job_c', 'three');
      advance(3_600_000);

      const accepted = await send('job_c', 'three');

      expect([limited.status, accepted.status]).toEqual([429, 200]);
      expect(sandbox.getJobState(PROJECT, 'job_c')?.prompts).toHaveLength(1);
    });

    it('counts prompts per project', async () => {
      const { sandbox, send } = await harnessWithJobs({ rateLimitPerHour: 1 });
      sandbox.createJob('proj_medium', { id: 'job_a' });
      await send('job_a', 'one');

      const otherProject = await send('job_a', 'one', 'proj_medium');

      expect(otherProject.status).toBe(200);
    });

    it('omits Retry-After when configured with retryAfterSeconds null', async () => {
      const { send } = await harnessWithJobs({ rateLimitPerHour: 1, retryAfterSeconds: null });
      await send('job_a', 'one');

      const limited = await send('job_b', 'two');

      expect(limited.status).toBe(429);
      expect(limited.headers.has('retry-after')).toBe(false);
    });

    it('uses a fixed Retry-After when configured with retryAfterSeconds', async () => {
      const { send } = await harnessWithJobs({ rateLimitPerHour: 1, retryAfterSeconds: 0 });
      await send('job_a', 'one');

      const limited = await send('job_b', 'two');

      expect(limited.headers.get('retry-after')).toBe('0');
    });
  });

  describe('faults', () => {
    it('accepts the prompt but drops the connection for drop-after-accept', async () => {
      const { sandbox, send } = await startHarness({ agent: { rateLimitPerHour: 1 } });
      sandbox.createJob(PROJECT, { id: 'job_other' });
      sandbox.addFault({ kind: 'drop-after-accept', route: 'agent-message' });

      await expect(send('job_demo_1', 'hello')).rejects.toThrow();

      expect(sandbox.getJobState(PROJECT, 'job_demo_1')).toMatchObject({ status: 'active', prompts: [expect.anything()] });
      expect(sandbox.requests.at(-1)).toMatchObject({ route: 'agent-message', status: 0, fault: 'drop-after-accept' });
      expect((await send('job_other', 'next')).status).toBe(429);
    });

    it('does not accept the prompt when the connection is dropped before', async () => {
      const { sandbox, send } = await startHarness();
      sandbox.addFault({ kind: 'drop', route: 'agent-message' });

      await expect(send('job_demo_1', 'hello')).rejects.toThrow();

      expect(sandbox.getJobState(PROJECT, 'job_demo_1')).toMatchObject({ status: 'completed', prompts: [] });
    });

    it('does not accept the prompt on an injected server error', async () => {
      const { sandbox, send } = await startHarness();
      sandbox.addFault({ kind: 'server-error', route: 'agent-message', status: 502 });

      const response = await send('job_demo_1', 'hello');

      expect(response.status).toBe(502);
      expect(sandbox.getJobState(PROJECT, 'job_demo_1')?.prompts).toEqual([]);
    });

    it('in drift mode sends a running job as the unknown status queued, with a new field, then its terminal status', async () => {
      const { sandbox, send, get, advance } = await startHarness({ drift: true, agent: { activeMs: 1_000 } });

      const accepted = await job(send('job_demo_1', 'hello'));
      const running = await job(get('job_demo_1'));
      advance(5_000);
      const ended = await job(get('job_demo_1'));

      expect(accepted).toMatchObject({ status: 'queued', usage: { credits: 1 } });
      expect(running).toMatchObject({ status: 'queued', usage: { credits: 1 } });
      expect(ended.status).toBe(sandbox.getJobState(PROJECT, 'job_demo_1')?.status);
      expect(['completed', 'archived', 'failed']).toContain(ended.status);
    });

    it('answers a job read with wrong types for wrong-types', async () => {
      const { sandbox, get } = await startHarness();
      sandbox.addFault({ kind: 'wrong-types', route: 'agent-get' });

      const body = (await (await get('job_demo_1')).json()) as Record<string, unknown>;

      // A new status string is not a wrong type (see drift): the status is not a string at all.
      expect(typeof body.status).toBe('number');
      expect(typeof body.prLink).toBe('number');
    });

    it('never applies a visitors-only fault to the agent endpoints', async () => {
      const { sandbox, get } = await startHarness();
      sandbox.addFault({ kind: 'empty-page-has-more' });

      const read = await get('job_demo_1');

      expect(read.status).toBe(200);
      expect(sandbox.requests.at(-1)?.fault).toBeUndefined();
    });
  });

  describe('control API', () => {
    it('creates, scripts and inspects jobs over HTTP', async () => {
      const { sandbox, send, get, advance } = await startHarness();
      const control = `${sandbox.url}/_sandbox/jobs/${PROJECT}`;

      const created = await fetch(control, { method: 'POST', body: JSON.stringify({ id: 'job_remote' }) });
      const scripted = await fetch(`${control}/job_remote/script`, {
        method: 'POST',
        body: JSON.stringify({ outcome: 'failed', activeMs: 10 }),
      });
      await send('job_remote', 'hello');
      advance(10);
      const read = await job(get('job_remote'));
      const state = (await (await fetch(`${control}/job_remote`)).json()) as { prompts: unknown[] };

      expect([created.status, scripted.status]).toEqual([201, 204]);
      expect(read.status).toBe('failed');
      expect(state.prompts).toHaveLength(1);
    });
  });
});
