/**
 * `mintlify-exporter doctor`: one line per check, ✓ or ✗ with the fix, exit 0 when all pass and 1
 * otherwise. Against the sandbox over HTTP (in process): every check passes and the key's one
 * request is counted in the budget ledger; a destination that is a file is named with its fix;
 * a sandbox project the key cannot see fails the key check. And the bin as a user runs it, with
 * no key: the embedded sandbox passes.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../../sandbox/index.js';
import { runCliInProcess, runSpawnedCli } from '../../helpers/cli.js';
import { useSandbox } from '../../helpers/emulators.js';
import { cliEnv, hostEnv, noAwsSetup } from '../../helpers/env.js';
import { makeTempDir, removeTempDirs } from '../../helpers/files.js';

const NOW = Date.parse('2026-03-10T06:00:00Z');
let sandbox: Sandbox;
useSandbox({ apiKey: 'mint_doctortest_0123456789abcdef', projects: [{ id: 'proj_a', paths: 5 }] }, (s) => (sandbox = s));

afterAll(async () => {
  await removeTempDirs();
});

async function doctor(args: readonly string[], env: Record<string, string>) {
  return runCliInProcess(['doctor', ...args], { env, now: () => NOW, sleep: async () => undefined });
}

describe('doctor', () => {
  it('passes every check against the sandbox, one ✓ line each, and counts its one request against the budget', async () => {
    const out = await makeTempDir('doctor-lake');
    const env = await cliEnv(sandbox, { MINTLIFY_PROJECT_IDS: 'proj_a', ANALYTICS_BUDGET: '90/1h' });
    sandbox.clearRequests();

    const first = await doctor(['--out', out], env);
    const second = await doctor(['--out', out], env);

    expect(first.code, first.stdout + first.stderr).toBe(0);
    const lines = first.stdout.trim().split('\n');
    expect(lines.slice(0, -1).every((line) => line.startsWith('✓ '))).toBe(true);
    expect(lines.slice(0, -1).map((line) => line.slice(2, line.indexOf(':')))).toEqual(['settings', 'projects', 'destination', 'budget ledger', 'key']);
    expect(first.stdout).toContain(`✓ destination: ${out} is writable`);
    expect(first.stdout).toContain('✓ budget ledger: 0 of 90 request(s) used');
    expect(first.stdout).toContain('answered for proj_a (1 request, counted against the budget)');
    expect(lines.at(-1)).toBe('All 5 checks passed.');
    expect(sandbox.requests.filter((r) => r.projectId === 'proj_a').map((r) => r.status)).toEqual([200, 200]);
    expect(second.stdout).toContain('✓ budget ledger: 1 of 90 request(s) used');
  });

  it('names a destination that is a file, with its fix, and exits 1', async () => {
    const folder = await makeTempDir('doctor-broken');
    const file = path.join(folder, 'data');
    await writeFile(file, 'not a folder');

    const run = await doctor(['--out', file], await cliEnv(sandbox, { MINTLIFY_PROJECT_IDS: 'proj_a' }));

    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(
      new RegExp(`^✗ destination: --out: .*${file.replaceAll('/', '\\/')}.*\\(ENOTDIR\\): a file and a folder have the same name there; move one away$`, 'm'),
    );
    expect(run.stdout.trim().split('\n').at(-1)).toBe('1 of 5 check(s) failed: fix each ✗ line above, then run doctor again.');
  });

  it('fails the key check for a project the key cannot see, naming it', async () => {
    const run = await doctor(['--out', await makeTempDir('doctor-lake')], await cliEnv(sandbox, { MINTLIFY_PROJECT_IDS: 'proj_nobody' }));

    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/^✗ key: .*proj_nobody/m);
  });

  it('passes on the embedded sandbox with no key (the bin, as a user runs it)', async () => {
    const folder = await makeTempDir('doctor-bin');
    const run = await runSpawnedCli(['doctor', '--out', path.join(folder, 'data')], {
      ...hostEnv(),
      ...noAwsSetup(folder),
      HOME: folder,
      EXPORT_STATE_DIR: path.join(folder, 'state'),
    });

    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toContain("✓ projects: the embedded sandbox's (no MINTLIFY_API_KEY)");
    expect(run.stdout).toContain('All 5 checks passed.');
  }, 60_000);
});
