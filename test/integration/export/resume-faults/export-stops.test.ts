/**
 * A failure every other unit would meet too stops the units that share its cause, at its first
 * occurrence: a refused key (401) stops the run, a 403 stops its dataset, an API nobody listens
 * on stops the run without spending budget, and a storm of server errors across units trips
 * the circuit breaker. The CLI runs in process against the sandbox, on a fake clock.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import type { Sandbox } from '../../../../sandbox/index.js';
import { makeTempDir } from '../../../helpers/files.js';
import { analyticsRequests } from '../../../helpers/request-log.js';
import { runCliInProcess } from '../../../helpers/cli.js';
import { cliEnv } from '../../../helpers/env.js';
import { useSandbox } from '../../../helpers/emulators.js';

const PROJECT = 'proj_synth_600';
const NOW = Date.parse('2026-10-09T06:00:00.000Z');
let sandbox: Sandbox;

useSandbox({}, (started) => (sandbox = started), { clearAfterEach: true });

async function exportDays(args: readonly string[], extraEnv: Record<string, string> = {}) {
  const env = await cliEnv(sandbox, { ANALYTICS_BUDGET: '90/1h', ...extraEnv });
  const out = await makeTempDir('stops');
  let t = NOW;
  const result = await runCliInProcess(['export', '--from', '2026-10-05', '--to', '2026-10-08', '--project', PROJECT, ...args, '--out', out], {
    env,
    now: () => t,
    sleep: async (ms) => {
      t += ms;
    },
  });
  const status = await runCliInProcess(['status', '--json', '--days', '1', '--project', PROJECT, '--out', out], { env, now: () => t });
  return { ...result, budgetUsed: (JSON.parse(status.stdout) as { budget: { used: number } }).budget.used };
}

const failedLines = (stdout: string) => stdout.split('\n').filter((line) => line.startsWith('FAILED'));

describe('a refused key (401)', () => {
  it('stops the run at the first unit: one request, and (nothing else done) one line saying why, exit 2', async () => {
    sandbox.addFault({ kind: 'status', status: 401, error: 'Invalid API key', times: Infinity });

    const result = await exportDays(['--dataset', 'visitors', '--dataset', 'searches']);

    expect(result.code).toBe(2);
    expect(analyticsRequests(sandbox.requests)).toHaveLength(1);
    expect(result.stdout).toBe('');
    expect(result.stderr.split('\n').filter((line) => !/^(Plan: |\[\d+\/\d+\] exporting )/.test(line) && line !== '')).toEqual([
      expect.stringMatching(/^error: API key rejected \(401\): .*MINTLIFY_API_KEY/),
    ]);
  });

  it('a key refused after some units were exported: the summary with the stop, exit 2', async () => {
    sandbox.addFault({ route: 'searches', kind: 'status', status: 401, error: 'Invalid API key', times: Infinity });

    const result = await exportDays(['--dataset', 'visitors', '--dataset', 'searches']);

    expect(result.code).toBe(2);
    expect(result.stdout.split('\n').filter((line) => line.startsWith('ok '))).toEqual([expect.stringContaining('visitors proj_synth_600 2026-10-05')]);
    expect(failedLines(result.stdout)).toHaveLength(1);
    expect(result.stderr).toMatch(/^Stopped early: API key rejected \(401\): .*\(4 more unit\(s\) not tried\)$/m);
  });
});

describe('a forbidden dataset (403)', () => {
  it('stops the units of that dataset and exports the others', async () => {
    sandbox.addFault({ route: 'visitors', kind: 'status', status: 403, error: 'Forbidden', times: Infinity });

    const result = await exportDays(['--dataset', 'visitors', '--dataset', 'searches']);

    expect(result.code).toBe(1);
    const requests = analyticsRequests(sandbox.requests);
    expect(requests.filter((r) => r.route === 'visitors')).toHaveLength(1);
    expect(result.stdout.split('\n').filter((line) => line.startsWith('ok ') && line.includes('searches'))).toHaveLength(3);
    expect(failedLines(result.stdout)).toHaveLength(1);
    expect(result.stderr).toMatch(/^Stopped early: visitors: access denied \(403\) .*scope.*plan.*IP allowlist.* \(2 more unit\(s\) not tried\)$/m);
  });
});

describe('an API nobody listens on', () => {
  it('spends no budget, and says once, in one line, the URL, the cause and MINTLIFY_API_URL: exit 2', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise((resolve) => closed.close(resolve));

    const result = await exportDays(['--dataset', 'visitors'], { MINTLIFY_API_URL: url });

    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    const reports = result.stderr.split('\n').filter((line) => !/^(Plan: |\[\d+\/\d+\] exporting )/.test(line) && line !== '');
    expect(reports).toEqual([expect.stringMatching(new RegExp(`^error: the API at ${url} could not be reached \\(ECONNREFUSED: .*MINTLIFY_API_URL`))]);
    expect(result.budgetUsed).toBe(0);
  });
});

describe('a storm of server errors', () => {
  it('trips the circuit breaker instead of paying nine attempts per unit', async () => {
    sandbox.addFault({ kind: 'server-error', status: 503, times: Infinity });

    const result = await exportDays(['--dataset', 'visitors', '--dataset', 'searches']);

    expect(result.code).toBe(1);
    expect(analyticsRequests(sandbox.requests)).toHaveLength(12);
    expect(result.stderr).toMatch(/^Stopped early: the API failed 12 requests in a row across units \(last: HTTP 503.* \(4 more unit\(s\) not tried\)$/m);
  });
});
