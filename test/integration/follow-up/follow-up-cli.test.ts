/** The `follow-up` command against the sandbox on 127.0.0.1, with the local state store. */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createLocalStore } from '../../../functions/shared/storage/shared-store-local.js';
import { startSandbox, type Sandbox } from '../../../sandbox/index.js';
import { runConsumeCommand } from '../../../functions/cli/consume.js';
import { runFollowUpCommand } from '../../../functions/cli/follow-up.js';
import type { FollowUpCommandIo } from '../../../functions/cli/follow-up-deps.js';

let sandbox: Sandbox;
let dir: string;
beforeAll(async () => {
  sandbox = await startSandbox({ agent: { activeMs: 200 } });
  dir = await mkdtemp(join(tmpdir(), 'followup-cli-'));
});
afterAll(async () => {
  await sandbox?.close();
  await rm(dir, { recursive: true, force: true });
});

afterEach(() => {
  sandbox.clearFaults();
});

/**
 * The command's IO. `stopAfterMs` presses Ctrl-C after that long — also a safety net, so a
 * command that would wait for minutes ends within the test.
 */
function io(options: { stopAfterMs?: number; settings?: FollowUpCommandIo['settings'] } = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const value: FollowUpCommandIo = {
    stdout: { write: (t: string) => out.push(t) },
    stderr: { write: (t: string) => err.push(t) },
    env: { EXPORT_DESTINATION: dir },
    resolveApiTarget: async () => ({ baseUrl: sandbox.url, apiKey: sandbox.apiKey, close: async () => undefined }),
    setExitCode: () => undefined,
    settings: {
      schedule: { minIntervalMs: 50, fraction: 0.1, maxIntervalMs: 500, jitter: 0 },
      grace: { ms: 300, reads: 3 },
      activeDeferMs: 50,
      ...options.settings,
    },
    ...(options.stopAfterMs === undefined ? {} : { stopSignal: new Promise<void>((resolve) => setTimeout(resolve, options.stopAfterMs).unref()) }),
  };
  return { value, out, err };
}

/** The phase of the record the command keeps for `requestId` in its local state folder. */
async function phaseOf(requestId: string): Promise<string | undefined> {
  return (await createLocalStore(join(dir, '.followup-state')).get<{ phase?: string }>(requestId))?.phase;
}

describe('follow-up command', () => {
  it('waits for completion, prints status changes on stderr and one JSON object on stdout', async () => {
    sandbox.createJob('proj_small', { id: 'job_cli_1', status: 'completed', prLink: null });
    const { value, out, err } = io();

    const code = await runFollowUpCommand({ project: 'proj_small', job: 'job_cli_1', prompt: 'tidy the FAQ', wait: true, json: true }, value);

    expect(code).toBe(0);
    expect(out).toHaveLength(1);
    const result = JSON.parse(out[0] as string);
    expect(result).toMatchObject({ status: 'completed', job: { id: 'job_cli_1', status: 'completed' } });
    expect(result.prLink).toMatch(/^https:\/\/github\.com\//);
    expect(err.join('')).toContain('job_cli_1: active');
    expect(await readdir(join(dir, 'followup_outcomes'))).toHaveLength(1);
  });

  it('says how long it waits when the API answers 429, instead of sitting silent', async () => {
    sandbox.createJob('proj_small', { id: 'job_cli_429', status: 'completed', prLink: null });
    sandbox.addFault({ route: 'agent-message', kind: 'rate-limit', retryAfter: 1 });
    const { value, err } = io();

    const code = await runFollowUpCommand({ project: 'proj_small', job: 'job_cli_429', prompt: 'tidy the FAQ', wait: true, json: true }, value);

    expect(code).toBe(0);
    expect(err.join('')).toMatch(
      /^retrying POST \/v2\/agent\/proj_small\/job\/job_cli_429\/message in 1\.0 s, as the API asked \(attempt 1 failed: rate limited \(429\)/m,
    );
  });

  it('exits 1 when the job ends failed', async () => {
    sandbox.createJob('proj_small', { id: 'job_cli_2', status: 'completed', prLink: null });
    sandbox.scriptNextRun('proj_small', 'job_cli_2', { outcome: 'failed' });
    const { value, out } = io();

    const code = await runFollowUpCommand({ project: 'proj_small', job: 'job_cli_2', prompt: 'x', wait: true }, value);

    expect(code).toBe(1);
    expect(out.join('')).toMatch(/^failed/);
  });

  it('returns once sent with --no-wait', async () => {
    sandbox.createJob('proj_small', { id: 'job_cli_3', status: 'completed', prLink: null });
    const { value, out } = io();

    const code = await runFollowUpCommand({ project: 'proj_small', job: 'job_cli_3', prompt: 'x', wait: false }, value);

    expect(code).toBe(0);
    expect(out.join('')).toMatch(/^sent/);
    expect(sandbox.getJobState('proj_small', 'job_cli_3')?.prompts).toHaveLength(1);
  });

  it('returns at once with --no-wait when the job is active, saying the prompt is not sent and how to go on', async () => {
    sandbox.createJob('proj_small', { id: 'job_cli_busy', status: 'active' });
    const { value, out } = io({ stopAfterMs: 5_000 });
    const started = Date.now();

    const code = await runFollowUpCommand(
      { project: 'proj_small', job: 'job_cli_busy', prompt: 'x', requestId: 'req-cli-busy', wait: false, json: true },
      value,
    );

    expect(Date.now() - started).toBeLessThan(5_000); // before the stop at 5 s: it ended by itself
    expect(code).toBe(1);
    expect(JSON.parse(out.join(''))).toMatchObject({ requestId: 'req-cli-busy', status: 'not_sent', reason: 'job is active' });
    expect(await phaseOf('req-cli-busy')).toBe('pending');
    expect(sandbox.getJobState('proj_small', 'job_cli_busy')?.prompts).toHaveLength(0);
  });

  it('gives a prompt up, exit 1, when the job stays active past the defer bound', async () => {
    sandbox.createJob('proj_small', { id: 'job_cli_stuck', status: 'active' });
    const { value, out, err } = io({ stopAfterMs: 5_000, settings: { maxDeferMs: 300 } });
    const started = Date.now();

    const code = await runFollowUpCommand({ project: 'proj_small', job: 'job_cli_stuck', prompt: 'x', wait: true }, value);

    expect(Date.now() - started).toBeLessThan(5_000); // before the stop at 5 s: it ended by itself
    expect(code).toBe(1);
    expect(out.join('')).toMatch(/^rejected/);
    expect(err.join('')).toContain('not sent within 300 ms (FOLLOWUP_MAX_DEFER_MINUTES): job is active');
    expect(sandbox.getJobState('proj_small', 'job_cli_stuck')?.prompts).toHaveLength(0);
  });

  it('stops at once on Ctrl-C while the job read is being retried, without counting a failure', async () => {
    sandbox.createJob('proj_small', { id: 'job_cli_down', status: 'completed' });
    sandbox.addFault({ kind: 'server-error', route: 'agent-get', times: Infinity });
    const { value, out } = io({ stopAfterMs: 300 });
    const started = Date.now();

    const code = await runFollowUpCommand({ project: 'proj_small', job: 'job_cli_down', prompt: 'x', requestId: 'req-cli-down', wait: true }, value);

    expect(Date.now() - started).toBeLessThan(2_000);
    expect(code).toBe(1);
    expect(out.join('')).toMatch(/^not_sent/);
    expect(await phaseOf('req-cli-down')).toBeUndefined();
  });

  it("returns a second run of the same request as soon as the first has finished, not after the first one's lease", async () => {
    sandbox.createJob('proj_small', { id: 'job_cli_twice', status: 'completed', prLink: null });
    const flags = { project: 'proj_small', job: 'job_cli_twice', prompt: 'tidy the glossary', requestId: 'req-cli-twice', wait: true, json: true };
    const first = runFollowUpCommand(flags, io().value);
    while ((await phaseOf('req-cli-twice')) !== 'sent') await new Promise((resolve) => setTimeout(resolve, 5));
    const second = io({ stopAfterMs: 10_000 });
    const started = Date.now();

    const code = await runFollowUpCommand(flags, second.value);

    expect(Date.now() - started).toBeLessThan(5_000);
    expect(code).toBe(0);
    expect(JSON.parse(second.out.join(''))).toMatchObject({ status: 'duplicate' });
    expect(await first).toBe(0);
    expect(sandbox.getJobState('proj_small', 'job_cli_twice')?.prompts).toHaveLength(1);
  });

  it('refuses an empty prompt before any request', async () => {
    const { value } = io();
    sandbox.clearRequests();
    await expect(runFollowUpCommand({ project: 'proj_small', job: 'job_demo_1', prompt: ' ', wait: true }, value)).rejects.toThrow(/--prompt is empty/);
    expect(sandbox.requests).toHaveLength(0);
  });

  it('refuses to consume a remote queue without an API key, before touching the queue or the sandbox', async () => {
    const { value } = io();
    let targets = 0;
    const guarded = { ...value, resolveApiTarget: async () => ((targets += 1), value.resolveApiTarget({} as never)) };

    await expect(runConsumeCommand({ queueUrl: 'https://sqs.eu-west-1.amazonaws.com/123456789012/prompts.fifo' }, guarded)).rejects.toThrow(
      /MINTLIFY_API_KEY is not set: consuming a remote queue needs the admin key/,
    );
    expect(targets).toBe(0);
  });
});
