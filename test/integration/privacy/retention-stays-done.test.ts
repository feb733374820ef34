/**
 * Issue 42, retention that says so and stays done: the CLI run with PERSONAL_DATA_RETENTION_DAYS
 * prints one line of what it expired, leaves a record per unit and removes the day folders it
 * emptied; later, without the variable (a laptop backfill), `status` says `expired`, `plan`
 * plans none of those units and `export` asks the service for none of them — `--force` does.
 */
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../../sandbox/index.js';
import { runCliAt } from '../../helpers/cli.js';
import { makeTempDir, removeTempDirs } from '../../helpers/files.js';
import { unitRequests } from '../../helpers/request-log.js';

const API_KEY = 'mint_retention_done_0123456789abcdef';
const PROJECT = 'proj_kept';
const DATASETS = ['visitors', 'feedback'] as const;
/** The clock: 2026-02-11, so with 3 days of retention the first day kept is 2026-02-08. */
const NOW = Date.parse('2026-02-11T04:00:00.000Z');
const FIRST = '2026-02-05';
const LAST = '2026-02-10';
const EXPIRED = ['2026-02-05', '2026-02-06', '2026-02-07'];

let sandbox: Sandbox;
let dir: string;
let retentionRun: { code: number; stdout: string };
const api = () => ({ url: sandbox.url, apiKey: API_KEY });
const scope = ['--project', PROJECT, ...DATASETS.flatMap((d) => ['--dataset', d])];

beforeAll(async () => {
  sandbox = await startSandbox({ apiKey: API_KEY, projects: [{ id: PROJECT, paths: 20, exact: true, rows: { feedback: 30 } }] });
  dir = await makeTempDir('retention-done');
  const first = await runCliAt(api(), ['export', '--from', FIRST, '--to', LAST, ...scope, '--out', dir], { now: NOW });
  expect(first.code).toBe(0);
  retentionRun = await runCliAt(api(), ['export', '--date', LAST, ...scope, '--out', dir], { now: NOW, env: { PERSONAL_DATA_RETENTION_DAYS: '3' } });
}, 120_000);

afterAll(async () => {
  await sandbox?.close();
  await removeTempDirs();
});

describe('retention that says so and stays done', () => {
  it('the run prints one line of what it expired', () => {
    expect(retentionRun.code).toBe(0);
    const lines = retentionRun.stdout.split('\n').filter((line) => line.startsWith('expired '));
    // Per expired day of feedback: its manifest and its table file.
    expect(lines).toEqual([`expired ${EXPIRED.length * 2} file(s) of ${EXPIRED.length} day(s) before 2026-02-08 (PERSONAL_DATA_RETENTION_DAYS=3)`]);
  });

  it('leaves a record per expired unit and removes the day folders it emptied', async () => {
    const records = await readdir(path.join(dir, '_privacy', 'expired', 'feedback'));
    expect(records.sort()).toEqual(EXPIRED.map((day) => `dt=${day}`));
    const feedbackDays = await readdir(path.join(dir, 'feedback'));
    expect(feedbackDays.sort()).toEqual(['dt=2026-02-08', 'dt=2026-02-09', 'dt=2026-02-10']);
    expect((await readdir(path.join(dir, '_manifests', 'feedback'))).sort()).toEqual(['dt=2026-02-08', 'dt=2026-02-09', 'dt=2026-02-10']);
  });

  it('status without the variable says expired', async () => {
    const cli = await runCliAt(api(), ['status', '--from', FIRST, '--to', LAST, ...scope, '--out', dir, '--json'], { now: NOW });

    expect(cli.code).toBe(0);
    const units: { dataset: string; date: string; state: string }[] = JSON.parse(cli.stdout).units;
    expect(units.filter((unit) => unit.state === 'expired').map((unit) => `${unit.dataset} ${unit.date}`)).toEqual(EXPIRED.map((day) => `feedback ${day}`));
    expect(units.filter((unit) => unit.state !== 'expired').every((unit) => unit.state === 'complete')).toBe(true);
  });

  it('plan without the variable plans none of those units', async () => {
    const cli = await runCliAt(api(), ['plan', '--from', FIRST, '--to', LAST, ...scope, '--out', dir, '--json'], { now: NOW });

    expect(cli.code).toBe(0);
    expect(JSON.parse(cli.stdout).units).toEqual([]);
  });

  it('export without the variable asks the service for none of them; --force does', async () => {
    const seen = sandbox.requests.length;

    const again = await runCliAt(api(), ['export', '--from', FIRST, '--to', LAST, ...scope, '--out', dir], { now: NOW });

    expect(again.code).toBe(0);
    const log = sandbox.requests.slice(seen);
    expect(EXPIRED.flatMap((day) => unitRequests(log, 'feedback', PROJECT, day))).toEqual([]);

    const forced = await runCliAt(api(), ['export', '--date', EXPIRED[0] as string, '--dataset', 'feedback', '--project', PROJECT, '--out', dir, '--force'], {
      now: NOW,
    });
    expect(forced.code).toBe(0);
    expect(unitRequests(sandbox.requests.slice(seen), 'feedback', PROJECT, EXPIRED[0] as string).length).toBeGreaterThan(0);
    const status = await runCliAt(api(), ['status', '--date', EXPIRED[0] as string, '--dataset', 'feedback', '--project', PROJECT, '--out', dir, '--json'], {
      now: NOW,
    });
    expect(JSON.parse(status.stdout).units.map((unit: { state: string }) => unit.state)).toEqual(['complete']);
  });
});
