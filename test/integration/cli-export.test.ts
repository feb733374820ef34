/**
 * `mintlify-exporter export`: `main(argv, io)` in process with captured io against the
 * sandbox over real HTTP on 127.0.0.1, plus one spawn of the real bin to prove it works end
 * to end. Bad input must exit 2 with one line on stderr before any request is sent.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { main, type CliIo } from '../../functions/cli.js';
import { startSandbox, type Sandbox } from '../../sandbox/index.js';
import { readParquet } from '../helpers/duckdb.js';
import {
  expectDayMatches,
  filesContaining,
  listFiles,
  makeTempDir,
  readLocalDay,
  removeTempDirs,
  visitorRequests,
} from '../helpers/export-fixtures.js';

const run = promisify(execFile);
const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const API_KEY = 'mint_clitest_S3CR3T_0f1e2d3c4b5a';
const NOW = Date.parse('2026-03-10T05:00:00.000Z');
const YESTERDAY = '2026-03-09';

let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await startSandbox({
    apiKey: API_KEY,
    projects: [
      { id: 'proj_a', paths: 300, exact: true },
      { id: 'proj_b', paths: 40, exact: true },
    ],
  });
});

afterEach(async () => {
  sandbox.clearFaults();
  sandbox.clearRequests();
  await removeTempDirs();
});

afterAll(async () => {
  await sandbox?.close();
});

interface Captured {
  readonly io: CliIo;
  readonly stdout: () => string;
  readonly stderr: () => string;
}

function captureIo(env: Record<string, string | undefined>): Captured {
  let out = '';
  let err = '';
  return {
    io: {
      stdout: { write: (text: string) => (out += text) },
      stderr: { write: (text: string) => (err += text), isTTY: false },
      env,
      now: () => NOW,
      stopSignal: new Promise<void>(() => undefined),
    },
    stdout: () => out,
    stderr: () => err,
  };
}

/** The environment of a user pointing the CLI at the sandbox with a key. */
function sandboxEnv(extra: Record<string, string> = {}): Record<string, string> {
  return { MINTLIFY_API_URL: sandbox.url, MINTLIFY_API_KEY: API_KEY, API_TIMEOUT_MS: '5000', ...extra };
}

async function runCli(argv: string[], env: Record<string, string | undefined> = sandboxEnv()) {
  const captured = captureIo(env);
  const code = await main(argv, captured.io);
  return { code, stdout: captured.stdout(), stderr: captured.stderr() };
}

describe('mintlify-exporter export: bad input', () => {
  it.each([
    ['an unknown flag', ['--bogus'], {}],
    ['an impossible date', ['--date', '2026-02-30'], {}],
    ['--from after --to', ['--from', '2026-03-05', '--to', '2026-03-01'], {}],
    ['--date with --from', ['--date', '2026-03-01', '--from', '2026-02-01', '--to', '2026-02-02'], {}],
    ['--from without --to', ['--from', '2026-03-01'], {}],
    ['a day that is not over yet', ['--date', new Date(NOW).toISOString().slice(0, 10)], {}],
    ['a range reaching into today', ['--from', '2026-03-01', '--to', new Date(NOW + 86_400_000).toISOString().slice(0, 10)], {}],
    ['a project id that is not one', ['--project', 'proj/../x'], {}],
    ['a key without mint_', [], { MINTLIFY_API_KEY: 'sk_live_0123456789' }],
    ['an assistant (mint_dsc_) key', [], { MINTLIFY_API_KEY: 'mint_dsc_0123456789' }],
  ])('exits 2 on %s with one line on stderr and no request sent', async (_name, flags, env) => {
    const out = await makeTempDir('cli');

    const { code, stdout, stderr } = await runCli(['export', '--project', 'proj_a', '--out', out, ...flags], sandboxEnv(env));

    expect(code).toBe(2);
    expect(stderr.endsWith('\n')).toBe(true);
    expect(stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(stdout).toBe('');
    expect(sandbox.requests).toEqual([]);
    expect(await listFiles(out)).toEqual([]);
  });

  it('never echoes a rejected key on stderr', async () => {
    const { code, stderr } = await runCli(['export', '--project', 'proj_a'], sandboxEnv({ MINTLIFY_API_KEY: 'sk_live_NOT_A_MINT_KEY_42' }));

    expect(code).toBe(2);
    expect(stderr).toMatch(/MINTLIFY_API_KEY/);
    expect(stderr).not.toContain('sk_live_NOT_A_MINT_KEY_42');
  });
});

describe('mintlify-exporter export', () => {
  it('--json prints exactly one JSON object on stdout describing the run', async () => {
    const out = await makeTempDir('cli');

    const { code, stdout } = await runCli(['export', '--date', '2026-02-01', '--project', 'proj_b', '--out', out, '--json']);

    expect(code).toBe(0);
    expect(stdout.endsWith('\n')).toBe(true);
    expect(stdout.trimEnd().split('\n')).toHaveLength(1);
    const summary = JSON.parse(stdout) as Record<string, unknown>;
    expect(summary).toMatchObject({
      ok: true,
      exported: 1,
      failed: 0,
      days: [{ projectId: 'proj_b', date: '2026-02-01', ok: true, pages: 40, totals: sandbox.expectedDay('proj_b', '2026-02-01').totals }],
    });
  });

  it('writes every day of a multi-day --from/--to export', async () => {
    const out = await makeTempDir('cli');
    const days = ['2026-02-26', '2026-02-27', '2026-02-28', '2026-03-01'];

    const { code } = await runCli(['export', '--from', '2026-02-26', '--to', '2026-03-02', '--project', 'proj_b', '--out', out]);

    expect(code).toBe(0);
    for (const day of days) expectDayMatches(await readLocalDay(out, 'proj_b', day), sandbox, 'proj_b', day);
    const all = await readParquet(path.join(out, 'visitors_totals', '*', '*.parquet'), { hivePartitioning: true, orderBy: 'dt' });
    expect(all.rows.map((row) => row['dt'])).toEqual(days);
  });

  it('exports each --project given, repeated', async () => {
    const out = await makeTempDir('cli');

    const { code, stdout } = await runCli(['export', '--date', '2026-02-01', '--project', 'proj_a', '--project', 'proj_b', '--out', out]);

    expect(code).toBe(0);
    expect(stdout).toContain('2 of 2 day(s) exported');
    for (const projectId of ['proj_a', 'proj_b']) expectDayMatches(await readLocalDay(out, projectId, '2026-02-01'), sandbox, projectId, '2026-02-01');
  });

  it('exits 1 naming the failed day when a fault makes it fail, after writing the others', async () => {
    const out = await makeTempDir('cli');
    sandbox.addFault({ route: 'visitors', projectId: 'proj_a', kind: 'repeat-page', offset: 250, times: Infinity });

    const { code, stdout, stderr } = await runCli(['export', '--date', '2026-02-01', '--project', 'proj_a', '--project', 'proj_b', '--out', out]);

    expect(code).toBe(1);
    expect(stderr).toContain('proj_a 2026-02-01');
    expect(stdout).toMatch(/FAILED proj_a 2026-02-01: PaginationError/);
    expect((await listFiles(out)).filter((file) => file.startsWith('_manifests/'))).toEqual(['_manifests/visitors/dt=2026-02-01/proj_b.json']);
    expect(`${stdout}${stderr}`).not.toContain(API_KEY);
    expect(await filesContaining(out, API_KEY)).toEqual([]);
  });

  it('without MINTLIFY_API_KEY starts the embedded sandbox and exports yesterday relative to now', async () => {
    const out = await makeTempDir('cli');
    const reference = await startSandbox();
    try {
      const { code, stderr } = await runCli(['export', '--project', 'proj_small', '--out', out], { MINTLIFY_PROJECT_IDS: undefined });

      expect(code).toBe(0);
      expect(stderr).toContain('embedded sandbox');
      expect(sandbox.requests).toEqual([]);
      expect(await listFiles(out)).toEqual([
        `_manifests/visitors/dt=${YESTERDAY}/proj_small.json`,
        `visitors_pages/dt=${YESTERDAY}/proj_small.parquet`,
        `visitors_totals/dt=${YESTERDAY}/proj_small.parquet`,
      ]);
      expectDayMatches(await readLocalDay(out, 'proj_small', YESTERDAY), reference, 'proj_small', YESTERDAY);
    } finally {
      await reference.close();
    }
  });

  it('runs end to end through the real bin with node', async () => {
    const out = await makeTempDir('cli');

    const { stdout, stderr } = await run(
      process.execPath,
      ['bin/mintlify-exporter.js', 'export', '--date', '2026-02-01', '--project', 'proj_b', '--out', out, '--json'],
      {
        cwd: REPO_ROOT,
        env: { PATH: process.env['PATH'] ?? '', HOME: out, ...sandboxEnv() },
        timeout: 60_000,
      },
    );

    expect(JSON.parse(stdout)).toMatchObject({ ok: true, exported: 1, days: [{ projectId: 'proj_b', date: '2026-02-01', ok: true }] });
    expect(`${stdout}${stderr}`).not.toContain(API_KEY);
    expect(visitorRequests(sandbox, { projectId: 'proj_b' })).toHaveLength(1);
    expectDayMatches(await readLocalDay(out, 'proj_b', '2026-02-01'), sandbox, 'proj_b', '2026-02-01');
  });
});
