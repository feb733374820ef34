/**
 * A `follow-up` killed (`kill -9`) while its POST is in flight leaves a claim in the local
 * state. The claimant's process is gone, so the next run on this machine must not wait out the
 * claim's lease (minutes): it records the request as `uncertain` at once — never a second POST.
 * Real CLI processes against the sandbox on 127.0.0.1.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createLocalStore } from '../../../functions/shared/storage/shared-store-local.js';
import type { Sandbox } from '../../../sandbox/index.js';
import { makeTempDir } from '../../helpers/files.js';
import { spawnCli, waitUntil } from '../../helpers/cli.js';
import { useSandbox } from '../../helpers/emulators.js';
import { SANDBOX_POLLS } from '../../helpers/env.js';

const PROJECT = 'proj_small';
const JOB = 'job_dead_claimant';
const REQUEST = 'req-dead-claimant';

let sandbox: Sandbox;

useSandbox({}, (started) => (sandbox = started));

describe('a follow-up whose claimant was killed during the POST', () => {
  it('is recorded as uncertain by the next run at once, without waiting out the claim and without a second POST', async () => {
    // Prepare: a POST that hangs, a first run killed while it waits for the answer
    sandbox.createJob(PROJECT, { id: JOB, status: 'completed', prLink: null });
    sandbox.addFault({ route: 'agent-message', kind: 'slow', delayMs: 60_000 });
    const dest = await makeTempDir('dead-claimant');
    const env = { MINTLIFY_API_URL: sandbox.url, MINTLIFY_API_KEY: sandbox.apiKey, EXPORT_DESTINATION: dest, HOME: dest, ...SANDBOX_POLLS };
    const args = ['follow-up', '--project', PROJECT, '--job', JOB, '--prompt', 'tidy the FAQ', '--request-id', REQUEST, '--json'];
    const records = createLocalStore(join(dest, '.followup-state'));
    const first = spawnCli(args, env);
    await waitUntil(
      async () => (await records.get<{ phase: string }>(REQUEST))?.phase === 'claimed' && sandbox.requests.some((r) => r.route === 'agent-message'),
      'the first run claimed and posted',
      30_000,
    );
    first.child.kill('SIGKILL');
    await first.exited;
    sandbox.clearFaults();

    // Act: the same request again; a run that waits for the dead claim is stopped after 30 s
    const started = Date.now();
    const second = spawnCli(args, env);
    const guard = setTimeout(() => second.child.kill('SIGKILL'), 30_000);
    const { code } = await second.exited;
    clearTimeout(guard);
    const ms = Date.now() - started;

    // Assess
    expect(ms, second.stderr()).toBeLessThan(15_000);
    expect(code).toBe(1);
    expect(JSON.parse(second.stdout())).toMatchObject({ requestId: REQUEST, status: 'uncertain' });
    expect(sandbox.requests.filter((r) => r.route === 'agent-message')).toHaveLength(1);
    expect(await records.get(REQUEST)).toMatchObject({ phase: 'done', outcome: 'uncertain' });
  }, 90_000);
});
