/**
 * The first ordinary mistakes of a new user (issue 25) cost nothing and are said once: the real
 * CLI runs as a child process, and each test checks its exit code, its one line on stderr and
 * the requests the stand-in API received (a loopback server that counts them, or the
 * sandbox's request log).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../sandbox/index.js';
import { runSpawnedCli } from '../helpers/cli.js';
import { hostEnv, noAwsSetup } from '../helpers/env.js';
import { makeTempDir, removeTempDirs } from '../helpers/files.js';

const DAY = '2026-11-01';

/** A loopback server that counts what it receives and answers every request 500. */
let counting: Server;
let countingUrl: string;
let received = 0;
let sandbox: Sandbox;

beforeAll(async () => {
  counting = createServer((req, res) => {
    received += 1;
    req.resume();
    res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"stand-in"}');
  });
  await new Promise<void>((resolve) => counting.listen(0, '127.0.0.1', resolve));
  countingUrl = `http://127.0.0.1:${(counting.address() as AddressInfo).port}`;
  sandbox = await startSandbox();
});

afterAll(async () => {
  await Promise.all([new Promise((resolve) => counting.close(resolve)), sandbox.close()]);
  await removeTempDirs();
});

/** The CLI's source in a child process with `env` (plus a fresh state folder and destination, and no AWS setup). */
async function cli(args: readonly string[], env: Record<string, string>) {
  const scratch = await makeTempDir('mistakes');
  const run = await runSpawnedCli(args, {
    ...hostEnv(),
    ...noAwsSetup(scratch),
    EXPORT_STATE_DIR: `${scratch}/state`,
    EXPORT_DESTINATION: `${scratch}/data`,
    ...env,
  });
  const lines = run.stderr.split('\n').filter((line) => line.trim() !== '');
  return { ...run, lines };
}

describe('no MINTLIFY_API_KEY while something points at the real API', () => {
  it('MINTLIFY_PROJECT_IDS naming a project the embedded sandbox does not serve: exit 2, one line naming MINTLIFY_API_KEY, no sandbox started', async () => {
    const run = await cli(['export', '--date', DAY], { MINTLIFY_PROJECT_IDS: 'docs_acme' });

    expect(run.code, run.stderr).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.lines).toEqual([
      expect.stringMatching(/^error: MINTLIFY_API_KEY is not set.*MINTLIFY_PROJECT_IDS names docs_acme.*set MINTLIFY_API_KEY.*unset MINTLIFY_PROJECT_IDS/),
    ]);
    expect(run.stderr).not.toContain('embedded sandbox API at');
  });

  it('MINTLIFY_API_URL set: exit 2, one line naming MINTLIFY_API_KEY, and no request reaches that URL', async () => {
    received = 0;

    const run = await cli(['export', '--date', DAY, '--project', 'proj_small'], { MINTLIFY_API_URL: countingUrl });

    expect(run.code, run.stderr).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.lines).toEqual([expect.stringMatching(/^error: MINTLIFY_API_KEY is not set.*MINTLIFY_API_URL.*set MINTLIFY_API_KEY.*unset MINTLIFY_API_URL/)]);
    expect(received).toBe(0);
  });

  it('--project naming a project the embedded sandbox does not serve: exit 2, one line naming MINTLIFY_API_KEY and --project', async () => {
    const run = await cli(['export', '--date', DAY, '--project', 'docs_acme'], {});

    expect(run.code, run.stderr).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.lines).toEqual([expect.stringMatching(/^error: MINTLIFY_API_KEY is not set, and --project names docs_acme.*set MINTLIFY_API_KEY/)]);
  });

  it('the sandbox projects (or none named) still use the embedded sandbox without a key', async () => {
    const run = await cli(['export', '--date', DAY, '--dataset', 'visitors'], { MINTLIFY_PROJECT_IDS: 'proj_small,proj_synth_5' });

    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('using the embedded sandbox API at');
  });
});
