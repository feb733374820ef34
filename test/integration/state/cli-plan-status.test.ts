/**
 * `plan` and `status` on known states of a destination — complete, partial, missing, failed —
 * read from the manifests, checkpoints and failure records, with the budget line from the
 * shared ledger; and `export` refusing a destination it cannot write. None of them may send an
 * API request: MINTLIFY_API_URL points at a sandbox whose request log must stay empty.
 *
 * The CLI runs in process (`main()` with captured io) on a fixed clock.
 */
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../../sandbox/index.js';
import { HOUR_MS } from '../../helpers/clock.js';
import { startS3Sqs, type S3Sqs } from '../../../scripts/lib/s3-sqs.js';
import { listFiles, makeTempDir, removeTempDirs } from '../../helpers/files.js';
import { analyticsRequests } from '../../helpers/request-log.js';
import { runCliInProcess, spawnCli } from '../../helpers/cli.js';
import { cliEnv } from '../../helpers/env.js';

const PROJECT = 'proj_synth_600';
/** 06:00 UTC: with the default 2 settle hours, 2026-10-08 is the latest due day. */
const NOW = Date.parse('2026-10-09T06:00:00.000Z');
/** When the known state was made: the ledger holds its requests until 06:50. */
const SETUP_AT = NOW - 10 * 60_000;
/** Exactly the requests the setup makes: the budget is spent until 06:50. */
const BUDGET = '18/1h';

let sandbox: Sandbox;
let aws: S3Sqs;
let out: string;
let env: Record<string, string>;

/**
 * The known state, visitors and searches of one project:
 *
 * | day        | visitors                                  | searches          |
 * |------------|-------------------------------------------|-------------------|
 * | 2026-10-04 | complete, 6 pages (limit 100)             | missing           |
 * | 2026-10-05 | complete, 3 pages (the latest manifest)   | complete, 6 pages |
 * | 2026-10-06 | partial: 1 page staged, then a 403        | missing           |
 * | 2026-10-07 | failed: a 403 on its first page           | missing           |
 * | 2026-10-08 | missing                                   | missing           |
 */
beforeAll(async () => {
  [sandbox, aws] = await Promise.all([startSandbox(), startS3Sqs()]);
  out = await makeTempDir('plan');
  env = await cliEnv(sandbox, { ANALYTICS_BUDGET: BUDGET });
  const exportDay = async (day: string, dataset: string, extraEnv: Record<string, string> = {}) =>
    runCliInProcess(['export', '--date', day, '--project', PROJECT, '--dataset', dataset, '--out', out], { env: { ...env, ...extraEnv }, now: () => SETUP_AT });

  expect((await exportDay('2026-10-04', 'visitors', { EXPORT_PAGE_LIMIT: '100' })).code).toBe(0);
  expect((await exportDay('2026-10-05', 'visitors')).code).toBe(0);
  expect((await exportDay('2026-10-05', 'searches')).code).toBe(0);
  sandbox.addFault({ route: 'visitors', kind: 'status', status: 403, offset: 250 });
  expect((await exportDay('2026-10-06', 'visitors')).code).toBe(1);
  sandbox.addFault({ route: 'visitors', kind: 'status', status: 403, offset: 0 });
  expect((await exportDay('2026-10-07', 'visitors')).code).toBe(1);
  expect(analyticsRequests(sandbox.requests)).toHaveLength(18);
  sandbox.clearRequests();
});

afterAll(async () => {
  await Promise.all([sandbox?.close(), aws?.close()]);
  await removeTempDirs();
});

async function cli(argv: readonly string[], options: { readonly now?: number; readonly extraEnv?: Record<string, string> } = {}) {
  const result = await runCliInProcess(argv, { env: { ...env, ...options.extraEnv }, now: () => options.now ?? NOW });
  return { ...result, requests: sandbox.requests.length };
}

const FORBIDDEN = /access denied \(403\)/;

describe('mintlify-exporter status', () => {
  /** `out` is known once beforeAll has run. */
  const argv = () => ['status', '--days', '5', '--project', PROJECT, '--dataset', 'visitors', '--dataset', 'searches', '--out', out];

  it('--json shows each day × dataset complete, partial x/~y, failed with its reason, or missing, and the budget; no request sent', async () => {
    const { code, stdout, requests } = await cli([...argv(), '--json']);

    expect(code).toBe(0);
    expect(requests).toBe(0);
    expect(stdout.trimEnd().split('\n')).toHaveLength(1);
    const status = JSON.parse(stdout) as { units: Record<string, unknown>[] };
    const unit = (date: string, dataset: string, cell: Record<string, unknown>) => ({ dataset, projectId: PROJECT, date, ...cell });
    expect(status).toEqual({
      destination: out,
      days: ['2026-10-04', '2026-10-05', '2026-10-06', '2026-10-07', '2026-10-08'],
      nextDueAt: '2026-10-10T02:00:00.000Z',
      units: [
        unit('2026-10-04', 'visitors', { state: 'complete', rows: 600, requests: 6 }),
        unit('2026-10-04', 'searches', { state: 'missing' }),
        unit('2026-10-05', 'visitors', { state: 'complete', rows: 600, requests: 3 }),
        unit('2026-10-05', 'searches', { state: 'complete', rows: 600, requests: 6 }),
        // 1 page staged of the 3 the latest manifest (2026-10-05, not 2026-10-04's 6) needed.
        unit('2026-10-06', 'visitors', { state: 'partial', pages: 1, estimate: 3, error: expect.stringMatching(FORBIDDEN) }),
        unit('2026-10-06', 'searches', { state: 'missing' }),
        unit('2026-10-07', 'visitors', {
          state: 'failed',
          error: expect.stringMatching(FORBIDDEN),
          at: new Date(SETUP_AT).toISOString(),
          // A 403 is the dataset's, not the unit's: no backoff (the next run tries again).
          attempts: 0,
          requests: 1,
        }),
        unit('2026-10-07', 'searches', { state: 'missing' }),
        unit('2026-10-08', 'visitors', { state: 'missing' }),
        unit('2026-10-08', 'searches', { state: 'missing' }),
      ],
      // What is left, estimated as `plan` does: 7 units, 32 requests, 50 min until 18 may start, the other 14 a window later.
      todo: { units: 7, requests: 32, budgetMs: 50 * 60_000 + HOUR_MS, guessed: 0, typical: 0, floors: 0 },
      budget: { budget: BUDGET, used: 18, nextStartAt: '2026-10-09T06:50:00.000Z', pausedUntil: null, rateLimited: 0, limit: 18 },
    });
  });

  it('prints one row per day with a cell per dataset, the failures with their reasons, and the budget line; no request sent', async () => {
    const { code, stdout, requests } = await cli(argv());

    expect(code).toBe(0);
    expect(requests).toBe(0);
    const lines = stdout.trimEnd().split('\n');
    const row = (day: string) => (lines.find((line) => line.startsWith(day)) ?? '').split(/\s{2,}|\s(?=\S)/).filter(Boolean);
    expect(row('2026-10-04')).toEqual(['2026-10-04', PROJECT, 'complete', 'missing']);
    expect(row('2026-10-05')).toEqual(['2026-10-05', PROJECT, 'complete', 'complete']);
    expect(row('2026-10-06')).toEqual(['2026-10-06', PROJECT, 'partial', '1/~3', 'missing']);
    expect(row('2026-10-07')).toEqual(['2026-10-07', PROJECT, 'FAILED', 'missing']);
    expect(row('2026-10-08')).toEqual(['2026-10-08', PROJECT, 'missing', 'missing']);
    const failures = lines.slice(lines.indexOf('Failures (the next run retries them):') + 1).filter((line) => line.startsWith('  '));
    expect(failures).toEqual([
      expect.stringMatching(new RegExp(`^  visitors ${PROJECT} 2026-10-06: ApiError: access denied \\(403\\)`)),
      expect.stringMatching(new RegExp(`^  visitors ${PROJECT} 2026-10-07: ApiError: access denied \\(403\\)`)),
    ]);
    expect(lines.at(-2)).toBe('3 of 10 unit(s) complete; 7 to do, about 32 request(s): the budget needs up to 1 h 50 min.');
    expect(lines.at(-1)).toBe('Budget 18/1h: 18 request(s) in the last 1h; the next request may start at 2026-10-09T06:50:00Z (in 50 min 00 s).');
  });

  it('--from/--to shows exactly that range, whenever it was, with what is left of it; no request sent', async () => {
    // A month later: --days would have to count back 35 days to reach these.
    const later = NOW + 30 * 24 * HOUR_MS;
    const { code, stdout, requests } = await cli(
      ['status', '--from', '2026-10-05', '--to', '2026-10-07', '--project', PROJECT, '--dataset', 'visitors', '--dataset', 'searches', '--out', out, '--json'],
      { now: later },
    );

    expect(code).toBe(0);
    expect(requests).toBe(0);
    const status = JSON.parse(stdout) as { days: string[]; units: { date: string; dataset: string; state: string }[]; todo: unknown };
    expect(status.days).toEqual(['2026-10-05', '2026-10-06']);
    expect(status.units.map((u) => `${u.date} ${u.dataset} ${u.state}`)).toEqual([
      '2026-10-05 visitors complete',
      '2026-10-05 searches complete',
      '2026-10-06 visitors partial',
      '2026-10-06 searches missing',
    ]);
    // The partial unit's 2 pages left and the searches day's 6; the window of the setup is long past.
    expect(status.todo).toEqual({ units: 2, requests: 8, budgetMs: 0, guessed: 0, typical: 0, floors: 0 });
  });

  it('--date shows one day', async () => {
    const { code, stdout } = await cli(['status', '--date', '2026-10-07', '--project', PROJECT, '--dataset', 'visitors', '--out', out]);

    expect(code).toBe(0);
    const rows = stdout.split('\n').filter((line) => /^\d{4}-/.test(line));
    expect(rows.map((line) => line.split(/\s+/).slice(0, 3))).toEqual([['2026-10-07', PROJECT, 'FAILED']]);
    expect(stdout).toContain('0 of 1 unit(s) complete; 1 to do, about 3 request(s)');
  });

  it('refuses --days with --from/--to, exit 2, before reading anything', async () => {
    const { code, stdout, stderr } = await cli(['status', '--days', '3', '--from', '2026-10-05', '--to', '2026-10-07', '--project', PROJECT, '--out', out]);

    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toBe('error: give --days or --date / --from --to, not both\n');
  });

  it('says the next request may start now once the window has passed', async () => {
    const { code, stdout, requests } = await cli(argv(), { now: SETUP_AT + HOUR_MS });

    expect(code).toBe(0);
    expect(requests).toBe(0);
    expect(stdout.trimEnd().split('\n').at(-1)).toBe('Budget 18/1h: 0 request(s) in the last 1h; the next request may start now.');
  });
});

describe('mintlify-exporter plan', () => {
  const argv = () => [
    'plan',
    '--from',
    '2026-10-04',
    '--to',
    '2026-10-09',
    '--project',
    PROJECT,
    '--dataset',
    'visitors',
    '--dataset',
    'searches',
    '--out',
    out,
  ];

  it('--json lists the units still to do with estimates from the nearest manifest, the budget and the time it needs; no request sent', async () => {
    const { code, stdout, requests } = await cli([...argv(), '--json']);

    expect(code).toBe(0);
    expect(requests).toBe(0);
    expect(stdout.trimEnd().split('\n')).toHaveLength(1);
    const unit = (date: string, dataset: string, estimate: number) => ({
      dataset,
      projectId: PROJECT,
      date,
      reason: 'requested',
      estimate,
      // The nearest complete day of the same dataset and project.
      estimateFrom: { projectId: PROJECT, date: '2026-10-05' },
    });
    expect(JSON.parse(stdout)).toEqual({
      destination: out,
      units: [
        unit('2026-10-04', 'searches', 6),
        // Partial: what is left of the nearest manifest's 3 pages.
        unit('2026-10-06', 'visitors', 2),
        unit('2026-10-06', 'searches', 6),
        unit('2026-10-07', 'visitors', 3),
        unit('2026-10-07', 'searches', 6),
        unit('2026-10-08', 'visitors', 3),
        unit('2026-10-08', 'searches', 6),
      ],
      requests: 32,
      budget: { budget: BUDGET, used: 18, nextStartAt: '2026-10-09T06:50:00.000Z', pausedUntil: null, rateLimited: 0, limit: 18 },
      // 50 min until the window has room for 18, then the other 14 a window after those.
      budgetMs: 50 * 60_000 + HOUR_MS,
    });
  });

  it('prints the units, their estimates, the budget line and the time the budget needs; no request sent', async () => {
    const { code, stdout, requests } = await cli(argv());

    expect(code).toBe(0);
    expect(requests).toBe(0);
    const lines = stdout.trimEnd().split('\n');
    expect(lines[0]).toBe(`Plan for ${out}: 7 unit(s), about 32 request(s)`);
    expect(lines.slice(1, 8).map((line) => line.trim().split(/\s+/))).toEqual([
      ['requested', '2026-10-04', PROJECT, 'searches', '~6', 'request(s)'],
      ['requested', '2026-10-06', PROJECT, 'visitors', '~2', 'request(s)'],
      ['requested', '2026-10-06', PROJECT, 'searches', '~6', 'request(s)'],
      ['requested', '2026-10-07', PROJECT, 'visitors', '~3', 'request(s)'],
      ['requested', '2026-10-07', PROJECT, 'searches', '~6', 'request(s)'],
      ['requested', '2026-10-08', PROJECT, 'visitors', '~3', 'request(s)'],
      ['requested', '2026-10-08', PROJECT, 'searches', '~6', 'request(s)'],
    ]);
    expect(lines[8]).toBe('Budget 18/1h: 18 request(s) in the last 1h; the next request may start at 2026-10-09T06:50:00Z (in 50 min 00 s).');
    expect(lines[9]).toBe('The budget needs up to 1 h 50 min for these requests.');
  });

  it('without dates lists the latest due day first, then the partial unit, then the missing days of the heal window; no request sent', async () => {
    const { code, stdout, requests } = await cli(['plan', '--project', PROJECT, '--dataset', 'visitors', '--out', out, '--json']);

    expect(code).toBe(0);
    expect(requests).toBe(0);
    const { units } = JSON.parse(stdout) as { units: { date: string; reason: string; estimate: number }[] };
    expect(units.map((u) => `${u.reason} ${u.date} ~${u.estimate}`)).toEqual([
      'latest 2026-10-08 ~3',
      'partial 2026-10-06 ~2',
      // Nearest to these days is 2026-10-04 (6 pages of 100 rows), not the latest manifest.
      'missing 2026-10-01 ~6',
      'missing 2026-10-02 ~6',
      'missing 2026-10-03 ~6',
      'missing 2026-10-07 ~3',
    ]);
  });
});

describe('mintlify-exporter export: a destination it cannot write costs no request', () => {
  /** Asserts a non-zero exit, one clear line on stderr naming `what`, and no API request. */
  function expectRefusedBeforeAnyRequest(result: { code: number | null; stdout: string; stderr: string }, what: RegExp): void {
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr.endsWith('\n')).toBe(true);
    expect(result.stderr.trimEnd().split('\n')).toEqual([expect.stringMatching(what)]);
    expect(sandbox.requests).toEqual([]);
  }

  const exportTo = (dest: string) => ['export', '--date', '2026-10-08', '--project', PROJECT, '--dataset', 'visitors', '--out', dest];

  it('--out naming a file: one line about the file, exit 2', async () => {
    const file = path.join(await makeTempDir('probe'), 'not-a-directory');
    await writeFile(file, 'a file where a directory should be\n');

    const result = await cli(exportTo(file));

    expectRefusedBeforeAnyRequest(result, /^error: --out: Could not .*not-a-directory.*\(ENOTDIR\): a file and a folder have the same name there/);
    expect(await listFiles(path.dirname(file))).toEqual(['not-a-directory']);
  });

  it('--out naming a directory the CLI cannot write: one line naming the cause, exit 2 (the real process, wherever the repository lives)', async () => {
    // The real CLI runs as the user running the tests, so it can read the repository wherever
    // it was cloned (a 0700 folder, as root). Permission bits stop anyone but root; nothing
    // stops root but the file system itself, so as root the folder lies under a regular file:
    // no user can create it (ENOTDIR), which is as unwritable as a destination gets.
    const parent = await makeTempDir('probe');
    const asRoot = process.getuid?.() === 0;
    let unwritable: string;
    if (asRoot) {
      await writeFile(path.join(parent, 'a-file'), 'a file where a folder should be\n');
      unwritable = path.join(parent, 'a-file', 'read-only');
    } else {
      unwritable = path.join(parent, 'read-only');
      await mkdir(unwritable);
      await chmod(unwritable, 0o555);
    }
    const home = await makeTempDir('probe-home');

    const child = spawnCli(exportTo(unwritable), { ...env, HOME: home, EXPORT_STATE_DIR: home });
    const { code } = await child.exited;

    const cause = asRoot ? /\(ENOTDIR\): a file and a folder have the same name there/ : /\((EACCES|EPERM)\): check the permissions of the directory/;
    expectRefusedBeforeAnyRequest(
      { code, stdout: child.stdout(), stderr: child.stderr() },
      new RegExp(`^error: --out: Could not .*read-only.*${cause.source}`),
    );
    expect(await listFiles(parent)).toEqual(asRoot ? ['a-file'] : []);
  });

  it('--out naming an S3 bucket that does not exist: one line naming the bucket, exit 2', async () => {
    const result = await runCliInProcess(exportTo('s3://no-such-bucket-here/exports'), {
      env,
      now: () => NOW,
      // The export commands take their S3 client from this test hook: the emulator's.
      extra: { clients: { s3: aws.s3 } },
    });

    expectRefusedBeforeAnyRequest(result, /^error: --out: S3 .*no-such-bucket-here/);
  });
});
