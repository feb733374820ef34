/**
 * `mintlify-exporter export`: `main(argv, io)` in process with captured io against the
 * sandbox over real HTTP on 127.0.0.1, on a fake clock (budget waits are not slept), plus one
 * spawn of the real bin to prove it works end to end. Bad input must exit 2 with one line on
 * stderr before any request is sent; exit 0 means every unit is complete, 1 that one is not,
 * 130 that the user stopped the run. Visitors only (`EXPORT_DATASETS`).
 */
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../../../sandbox/index.js';
import { REPO_ROOT, runCliInProcess } from '../../../helpers/cli.js';
import { fakeClock } from '../../../helpers/clock.js';
import { expectDayMatches } from '../../../helpers/expected-rows.js';
import { filesContaining, listFiles, makeTempDir } from '../../../helpers/files.js';
import { aRunRecord, runIndexOf, runRecordsIn } from '../../../helpers/layout.js';
import { readLocalDay, readParquet } from '../../../helpers/read-back.js';
import { successfulOffsets, visitorRequests } from '../../../helpers/request-log.js';
import { useSandbox } from '../../../helpers/emulators.js';

const run = promisify(execFile);
const API_KEY = 'mint_clitest_S3CR3T_0f1e2d3c4b5a';
const NOW = Date.parse('2026-03-10T05:00:00.000Z');
const YESTERDAY = '2026-03-09';

let sandbox: Sandbox;

useSandbox(
  {
    apiKey: API_KEY,
    projects: [
      { id: 'proj_a', paths: 300, exact: true },
      { id: 'proj_b', paths: 40, exact: true },
    ],
  },
  (started) => (sandbox = started),
  { clearAfterEach: true, removeTempDirsAfterEach: true },
);

/** The environment of a user pointing the CLI at the sandbox with a key. */
function sandboxEnv(extra: Record<string, string> = {}): Record<string, string> {
  return { MINTLIFY_API_URL: sandbox.url, MINTLIFY_API_KEY: API_KEY, API_TIMEOUT_MS: '5000', EXPORT_DATASETS: 'visitors', ...extra };
}

/** The CLI in process on a fresh fake clock at NOW (budget waits are not slept); `stopSignal` is the user's Ctrl-C. */
function runCli(argv: string[], env: Record<string, string | undefined> = sandboxEnv(), stopSignal?: Promise<void>, forceStopSignal?: Promise<void>) {
  const clock = fakeClock(NOW);
  return runCliInProcess(argv, {
    env,
    now: clock.now,
    sleep: clock.sleep,
    ...(stopSignal ? { stopSignal } : {}),
    ...(forceStopSignal ? { forceStopSignal } : {}),
  });
}

/** Resolves once the sandbox has seen a request matching `match` (polled: the sandbox runs in this process). */
function once(match: (entry: (typeof sandbox.requests)[number]) => boolean): { readonly seen: Promise<void>; cancel(): void } {
  let timer: NodeJS.Timeout | undefined;
  const seen = new Promise<void>((resolve) => {
    timer = setInterval(() => {
      if (!sandbox.requests.some(match)) return;
      clearInterval(timer);
      resolve();
    }, 5);
  });
  return { seen, cancel: () => clearInterval(timer) };
}

describe('mintlify-exporter export: bad input', () => {
  it.each([
    ['an unknown flag', ['--bogus'], {}],
    ['an impossible date', ['--date', '2026-02-30'], {}],
    ['--from after --to', ['--from', '2026-03-05', '--to', '2026-03-01'], {}],
    ['--date with --from', ['--date', '2026-03-01', '--from', '2026-02-01', '--to', '2026-02-02'], {}],
    ['--from without --to', ['--from', '2026-03-01'], {}],
    ['an empty --from/--to range', ['--from', '2026-03-01', '--to', '2026-03-01'], {}],
    ['an unknown --dataset', ['--dataset', 'visits'], {}],
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

  it("names --out, not EXPORT_DESTINATION, when --out is ''", async () => {
    const { code, stderr } = await runCli(['export', '--project', 'proj_a', '--out', '']);

    expect(code).toBe(2);
    expect(stderr).toMatch(/^error: --out is empty: /);
    expect(sandbox.requests).toEqual([]);
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
      completed: 1,
      failed: 0,
      requests: 1,
      units: [
        {
          dataset: 'visitors',
          projectId: 'proj_b',
          date: '2026-02-01',
          reason: 'requested',
          status: 'complete',
          rows: 40,
          pages: 1,
          requests: 1,
          runs: 1,
          files: { visitors_pages: 'visitors_pages/dt=2026-02-01/proj_b.parquet', visitors_totals: 'visitors_totals/dt=2026-02-01/proj_b.parquet' },
        },
      ],
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
    expect(stdout).toContain('2 of 2 unit(s) exported');
    for (const projectId of ['proj_a', 'proj_b']) expectDayMatches(await readLocalDay(out, projectId, '2026-02-01'), sandbox, projectId, '2026-02-01');
  });

  it('exits 1 naming the failed unit when a fault makes it fail, after writing the others', async () => {
    const out = await makeTempDir('cli');
    sandbox.addFault({ route: 'visitors', projectId: 'proj_a', kind: 'repeat-page', offset: 250, times: Infinity });

    const { code, stdout, stderr } = await runCli(['export', '--date', '2026-02-01', '--project', 'proj_a', '--project', 'proj_b', '--out', out]);

    expect(code).toBe(1);
    expect(stdout).toMatch(/FAILED +visitors proj_a 2026-02-01: PaginationError/);
    expect(stderr).toContain('Export incomplete: visitors proj_a 2026-02-01 failed (see FAILED above); a re-run retries them\n');
    const files = await listFiles(out);
    expect(files.filter((file) => file.startsWith('_manifests/'))).toEqual(['_manifests/visitors/dt=2026-02-01/proj_b.json']);
    expect(runRecordsIn(files)).toEqual([aRunRecord(NOW)]);
    expect(`${stdout}${stderr}`).not.toContain(API_KEY);
    expect(await filesContaining(out, API_KEY)).toEqual([]);
  });

  it('prints a line on stderr for each retry: the request, the wait and what failed', async () => {
    const out = await makeTempDir('cli');
    sandbox.addFault({ route: 'visitors', projectId: 'proj_b', kind: 'server-error', status: 503, times: 1 });

    const { code, stderr } = await runCli(['export', '--date', '2026-02-01', '--project', 'proj_b', '--out', out]);

    expect(code).toBe(0);
    expect(stderr).toMatch(/^retrying GET \/v1\/analytics\/proj_b\/visitors in \d+(\.\d)? s \(attempt 1 failed: HTTP 503 from the API \(server error\)/m);
  });

  it('skips a complete unit on a re-run and sends no request', async () => {
    const out = await makeTempDir('cli');
    const argv = ['export', '--date', '2026-02-01', '--project', 'proj_b', '--out', out];
    await runCli(argv);
    sandbox.clearRequests();

    const { code, stdout } = await runCli(argv);

    expect(code).toBe(0);
    expect(stdout).toContain('Nothing to do: every unit is complete (--force exports them again).');
    expect(sandbox.requests).toEqual([]);
  });

  it('exports a complete unit again with --force', async () => {
    const out = await makeTempDir('cli');
    const argv = ['export', '--date', '2026-02-01', '--project', 'proj_b', '--out', out];
    await runCli(argv);
    sandbox.clearRequests();

    const { code, stdout } = await runCli([...argv, '--force']);

    expect(code).toBe(0);
    expect(stdout).toMatch(/ok +visitors proj_b 2026-02-01: 40 row/);
    expect(visitorRequests(sandbox, { projectId: 'proj_b' })).toHaveLength(1);
    expectDayMatches(await readLocalDay(out, 'proj_b', '2026-02-01'), sandbox, 'proj_b', '2026-02-01');
  });

  it('a stop while a page is on its way lets it arrive and keeps it: exit 130, and the re-run pays for no page twice', async () => {
    const out = await makeTempDir('cli');
    sandbox.addFault({ route: 'visitors', projectId: 'proj_a', kind: 'slow', delayMs: 2_000, offset: 250 });
    const stop = once((entry) => entry.projectId === 'proj_a' && entry.query['offset'] === '250');
    const argv = ['export', '--date', '2026-02-01', '--project', 'proj_a', '--project', 'proj_b', '--out', out];

    const { code, stdout, stderr } = await runCli(argv, sandboxEnv(), stop.seen).finally(() => stop.cancel());

    // The page at offset 250 was on its way: it arrived and was the last one of proj_a.
    expect(code).toBe(130);
    expect(stdout).toMatch(/ok +visitors proj_a 2026-02-01: 300 row\(s\), 2 page\(s\), 2 request\(s\)/);
    expect(stdout).toMatch(/pending +visitors proj_b 2026-02-01: not started/);
    expect(stderr).toContain('Stopping: the request in flight finishes (at most 5 s) and its page is kept. Ctrl-C again stops at once');
    expect(stderr).toContain('Export stopped: re-run the same command to resume');
    sandbox.clearFaults();
    sandbox.clearRequests();

    const rerun = await runCli(argv);

    expect(rerun.code).toBe(0);
    expect(successfulOffsets(visitorRequests(sandbox, { projectId: 'proj_a' }))).toEqual([]);
    expectDayMatches(await readLocalDay(out, 'proj_a', '2026-02-01'), sandbox, 'proj_a', '2026-02-01');
  });

  it('a second stop ends at once, says what it costs, and the re-run fetches only the page that was dropped', async () => {
    const out = await makeTempDir('cli');
    // The page is held 20 s: a run that waited for it could not end sooner (a bound that holds under load).
    sandbox.addFault({ route: 'visitors', projectId: 'proj_a', kind: 'slow', delayMs: 20_000, offset: 250 });
    const stop = once((entry) => entry.projectId === 'proj_a' && entry.query['offset'] === '250');
    const argv = ['export', '--date', '2026-02-01', '--project', 'proj_a', '--project', 'proj_b', '--out', out];
    const forceStop = stop.seen.then(() => new Promise<void>((resolve) => setTimeout(resolve, 50)));

    const started = Date.now();
    const { code, stdout, stderr } = await runCli(argv, sandboxEnv(), stop.seen, forceStop).finally(() => stop.cancel());

    expect(code).toBe(130);
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(stdout).toMatch(/partial +visitors proj_a 2026-02-01: 1 page\(s\) staged \(stopped\); a re-run resumes it/);
    expect(stderr).toContain('Stopping now: a page on its way is dropped; the next run fetches it again (one more request).');
    expect((await listFiles(out)).filter((file) => !file.startsWith('.state/'))).toEqual([
      runIndexOf(NOW),
      '_staging/visitors/dt=2026-02-01/proj_a/checkpoint.json',
      '_staging/visitors/dt=2026-02-01/proj_a/page-000000.json',
      aRunRecord(NOW),
    ]);
    sandbox.clearFaults();
    sandbox.clearRequests();

    const rerun = await runCli(argv);

    expect(rerun.code).toBe(0);
    expect(successfulOffsets(visitorRequests(sandbox, { projectId: 'proj_a' }))).toEqual([250]);
    expectDayMatches(await readLocalDay(out, 'proj_a', '2026-02-01'), sandbox, 'proj_a', '2026-02-01');
  });

  it('fails in one line before any request when --out cannot be written', async () => {
    const dir = await makeTempDir('cli');
    const notADirectory = path.join(dir, 'a-file');
    await writeFile(notADirectory, 'not a directory');

    const { code, stderr } = await runCli(['export', '--date', '2026-02-01', '--project', 'proj_b', '--out', notADirectory]);

    expect(code).toBe(2);
    expect(stderr).toMatch(/^error: --out: Could not .*a-file.*\(ENOTDIR\)/);
    expect(stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(sandbox.requests).toEqual([]);
  });

  it('without MINTLIFY_API_KEY starts the embedded sandbox and exports yesterday relative to now', async () => {
    const out = await makeTempDir('cli');
    const reference = await startSandbox();
    try {
      const { code, stderr } = await runCli(['export', '--project', 'proj_small', '--out', out], {
        MINTLIFY_PROJECT_IDS: undefined,
        EXPORT_DATASETS: 'visitors',
      });

      expect(code).toBe(0);
      expect(stderr).toContain('embedded sandbox');
      expect(sandbox.requests).toEqual([]);
      expect(await listFiles(out)).toEqual([
        // The run log's index of the month, and the month's index of units (issue 50).
        runIndexOf(NOW),
        `_index/visitors/month=${YESTERDAY.slice(0, 7)}.json`,
        // No personal-data key: visitors hash nothing, so none is generated (no PERSONAL_DATA_KEY set).
        `_manifests/visitors/dt=${YESTERDAY}/proj_small.json`,
        aRunRecord(NOW),
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

    expect(JSON.parse(stdout)).toMatchObject({
      ok: true,
      completed: 1,
      units: [{ dataset: 'visitors', projectId: 'proj_b', date: '2026-02-01', status: 'complete' }],
    });
    expect(`${stdout}${stderr}`).not.toContain(API_KEY);
    expect(visitorRequests(sandbox, { projectId: 'proj_b' })).toHaveLength(1);
    expectDayMatches(await readLocalDay(out, 'proj_b', '2026-02-01'), sandbox, 'proj_b', '2026-02-01');
  });
});
