/** The `follow-up` command against the sandbox on 127.0.0.1, with the local state store. */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../sandbox/index.js';
import { runConsumeCommand, runFollowUpCommand, type FollowUpCommandIo } from '../../functions/follow-up/commands.js';

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

function io() {
  const out: string[] = [];
  const err: string[] = [];
  const value: FollowUpCommandIo = {
    stdout: { write: (t: string) => out.push(t) },
    stderr: { write: (t: string) => err.push(t) },
    env: { EXPORT_DESTINATION: dir },
    resolveApiTarget: async () => ({ baseUrl: sandbox.url, apiKey: sandbox.apiKey, close: async () => undefined }),
    setExitCode: () => undefined,
    settings: { schedule: { minIntervalMs: 50, fraction: 0.1, maxIntervalMs: 500, jitter: 0 }, grace: { ms: 300, reads: 3 }, activeDeferMs: 50 },
  };
  return { value, out, err };
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

    await expect(
      runConsumeCommand({ queueUrl: 'https://sqs.eu-west-1.amazonaws.com/123456789012/prompts.fifo' }, guarded),
    ).rejects.toThrow(/MINTLIFY_API_KEY is not set: consuming a remote queue needs the admin key/);
    expect(targets).toBe(0);
  });
});
