/**
 * The local state of the CLI is private and a broken one says so in one line: `.state` (the
 * budget ledger, leases) and `.followup-state` are 0700 with 0600 files whatever the umask; a
 * ledger that is not one, or that holds absurd times, is named, never a RangeError; and an
 * unexpected failure prints its message once ("error: …", not "error: Error: …").
 */
import { mkdir, readdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Sandbox } from '../../../sandbox/index.js';
import { main } from '../../../functions/cli.js';
import { openStateStore } from '../../../functions/follow-up/open-state-store.js';
import { LEDGER_KEY } from '../../../functions/shared/pacing/budget.js';
import { createLocalStore } from '../../../functions/shared/storage/shared-store-local.js';
import { makeTempDir } from '../../helpers/files.js';
import { runCliInProcess } from '../../helpers/cli.js';
import { cliEnv } from '../../helpers/env.js';
import { useSandbox } from '../../helpers/emulators.js';

const PROJECT = 'proj_synth_600';
const NOW = Date.parse('2026-10-09T06:00:00.000Z');
let sandbox: Sandbox;

useSandbox({}, (started) => (sandbox = started));

const modeOf = async (file: string) => (await stat(file)).mode & 0o777;

describe('the local state', () => {
  it('is a 0700 folder of 0600 files, even under a permissive umask', async () => {
    const out = await makeTempDir('private');
    const umask = process.umask(0o000);
    try {
      const result = await runCliInProcess(['export', '--date', '2026-10-08', '--project', PROJECT, '--dataset', 'caller_stats', '--out', out], {
        env: { MINTLIFY_API_URL: sandbox.url, MINTLIFY_API_KEY: sandbox.apiKey },
        now: () => NOW,
      });
      expect(result.code).toBe(0);
    } finally {
      process.umask(umask);
    }
    const state = path.join(out, '.state');
    expect(await modeOf(state)).toBe(0o700);
    const files = await readdir(state);
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) expect(await modeOf(path.join(state, file))).toBe(0o600);
  });

  it('keeps follow-up state in a 0700 folder of 0600 files', async () => {
    const dir = path.join(await makeTempDir('followup-private'), '.followup-state');
    const umask = process.umask(0o000);
    try {
      const store = openStateStore({}, { localDir: dir });
      const record = { requestId: 'req-1', projectId: 'proj_1', jobId: 'job_1', promptLength: 5, promptSha256: 'ab', failures: 0, attempts: 0, expiresAt: 0 };
      await store.put({ ...record, phase: 'pending', pendingSince: 0 }, undefined);
    } finally {
      process.umask(umask);
    }
    expect(await modeOf(dir)).toBe(0o700);
    const files = await readdir(dir);
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) expect(await modeOf(path.join(dir, file))).toBe(0o600);
  });
});

describe('a broken ledger', () => {
  const status = async (stateDir: string) =>
    runCliInProcess(['status', '--days', '1', '--project', PROJECT, '--out', await makeTempDir('broken-out')], {
      env: { MINTLIFY_API_URL: sandbox.url, MINTLIFY_API_KEY: sandbox.apiKey, EXPORT_STATE_DIR: stateDir },
      now: () => NOW,
    });

  it('that is not a ledger: one line naming the file and the fix, exit 2', async () => {
    const stateDir = await makeTempDir('broken-ledger');
    await mkdir(stateDir, { recursive: true });
    await writeFile(path.join(stateDir, 'budget%2Fledger.json'), '{"starts": [1, 2');

    const result = await status(stateDir);

    expect(result.code).toBe(2);
    expect(result.stderr.trimEnd().split('\n')).toEqual([
      expect.stringMatching(/^error: .*budget%2Fledger\.json is not a state document of this exporter: delete it/),
    ]);
  });

  it('that holds times no clock can show: status says so, no RangeError', async () => {
    const stateDir = await makeTempDir('absurd-ledger');
    await createLocalStore(stateDir).update(LEDGER_KEY, () => ({
      value: { starts: [1e20, -1e20], pausedUntil: 1e300, rateLimited: 1, consecutive429: 1 },
      result: undefined,
    }));

    const result = await status(stateDir);

    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^PROBLEM: the ledger holds a pause until .*longer than the budget window \(1h\)/m);
  });
});

describe('an unexpected failure', () => {
  it('prints its message once after "error:", without a doubled "Error:"', async () => {
    let stderr = '';
    const code = await main(['plan', '--project', PROJECT, '--out', await makeTempDir('epipe')], {
      stdout: {
        write: () => {
          throw new Error('write EPIPE: the reader of stdout went away');
        },
      },
      stderr: { write: (text: string) => (stderr += text) },
      env: await cliEnv(sandbox),
      now: () => NOW,
      stopSignal: new Promise<void>(() => undefined),
    });

    expect(code).toBe(1);
    expect(stderr).toBe('error: write EPIPE: the reader of stdout went away\n');
  });
});
