/**
 * Text from the service never reaches a terminal raw (issue 28): a failure message holding a
 * right-to-left override and a zero-width space, written to the failure record by `export`, is
 * shown by `export`, `status` and `status --json` with those characters as visible escapes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../../sandbox/index.js';
import { runCliInProcess } from '../../helpers/cli.js';
import { cliEnv } from '../../helpers/env.js';
import { makeTempDir, removeTempDirs } from '../../helpers/files.js';

const PROJECT = 'proj_synth_600';
const DAY = '2026-10-07';
const NOW = Date.parse('2026-10-09T06:00:00.000Z');
const HOSTILE = 'blocked: see gnp\u202E.exe\u200B now';
/** What a terminal must never receive raw. */
const RAW = /[\u202E\u200B\u0080-\u009f]/;

let sandbox: Sandbox;
let out: string;
let env: Record<string, string>;

beforeAll(async () => {
  sandbox = await startSandbox();
  out = await makeTempDir('display');
  env = await cliEnv(sandbox, {});
  sandbox.addFault({ route: 'visitors', kind: 'status', status: 403, error: HOSTILE });
  const exported = await runCliInProcess(['export', '--date', DAY, '--project', PROJECT, '--dataset', 'visitors', '--out', out], { env, now: () => NOW });
  expect(exported.code).toBe(1);
  expect(exported.stderr).not.toMatch(RAW);
});

afterAll(async () => {
  await sandbox?.close();
  await removeTempDirs();
});

describe('status shows text from the service safely', () => {
  const statusArgv = () => ['status', '--date', DAY, '--project', PROJECT, '--dataset', 'visitors', '--out', out];

  it('writes the override and the zero-width space as escapes in the failure line', async () => {
    const { code, stdout, stderr } = await runCliInProcess(statusArgv(), { env, now: () => NOW });

    expect(code, stderr).toBe(0);
    expect(stdout).not.toMatch(RAW);
    expect(stdout).toContain('gnp\\u202E.exe\\u200B now');
  });

  it('--json holds no raw override, and its strings show the escapes', async () => {
    const { stdout } = await runCliInProcess([...statusArgv(), '--json'], { env, now: () => NOW });

    expect(stdout).not.toMatch(RAW);
    const units = (JSON.parse(stdout) as { units: { error?: string }[] }).units;
    expect(units[0]?.error).toContain('gnp\\u202E.exe\\u200B now');
  });
});
