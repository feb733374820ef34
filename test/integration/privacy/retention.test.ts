/**
 * Issue 33, retention: with PERSONAL_DATA_RETENTION_DAYS, a run deletes the days past the
 * limit of the tables holding personal columns (feedback, searches, assistant conversations)
 * and only those; `status` shows their units `expired`; no run plans them again, `--force`
 * and the scheduled heal window included.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runExport } from '../../../functions/export/run.js';
import { createLocalDestination } from '../../../functions/shared/storage/destination-local.js';
import { addDays } from '../../../functions/shared/dates.js';
import { startSandbox, type Sandbox } from '../../../sandbox/index.js';
import { runCliAt, runCliInProcess } from '../../helpers/cli.js';
import { listFiles, makeTempDir, removeTempDirs } from '../../helpers/files.js';
import { DATASET_CLIENT, exportDeps, testSettings } from '../../helpers/run-deps.js';

const API_KEY = 'mint_retention_test_0123456789abcdef';
const PROJECT = 'proj_kept';
const DATASETS = ['visitors', 'searches', 'feedback', 'assistant'] as const;
/** The run's clock: 2026-02-11, so with 3 days of retention the first day kept is 2026-02-08. */
const START = Date.parse('2026-02-11T04:00:00.000Z');
const DAYS = ['2026-02-05', '2026-02-06', '2026-02-07', '2026-02-08', '2026-02-09', '2026-02-10'];
const EXPIRED = ['2026-02-05', '2026-02-06', '2026-02-07'];
const RETENTION = 3;

let sandbox: Sandbox;
let dir: string;
let before: string[];

const run = (days: readonly string[], options: { retentionDays?: number; force?: boolean } = {}) =>
  runExport(
    { kind: 'days', days, projects: [PROJECT], datasets: [...DATASETS], force: options.force === true },
    testSettings({ datasets: [...DATASETS], ...(options.retentionDays !== undefined ? { retentionDays: options.retentionDays } : {}) }),
    {},
    exportDeps({ sandbox, destination: createLocalDestination(dir), start: START, client: DATASET_CLIENT }),
  );

beforeAll(async () => {
  sandbox = await startSandbox({
    apiKey: API_KEY,
    projects: [{ id: PROJECT, paths: 20, exact: true, rows: { views: 20, searches: 40, feedback: 30, assistant: 40 } }],
  });
  dir = await makeTempDir('retention');
  const first = await run(DAYS);
  expect(first.completed).toBe(DAYS.length * DATASETS.length);
  before = await listFiles(dir);
  // The next run, with retention on, exports nothing new (every unit is complete) but deletes.
  await run([DAYS.at(-1) as string], { retentionDays: RETENTION });
}, 120_000);

afterAll(async () => {
  await sandbox?.close();
  await removeTempDirs();
});

const dayOf = (key: string) => /\/dt=(\d{4}-\d{2}-\d{2})\//.exec(key)?.[1];
const PERSONAL_PREFIXES = ['feedback/', 'searches/', 'assistant_conversations/', '_manifests/feedback/', '_manifests/searches/', '_manifests/assistant/'];

describe('PERSONAL_DATA_RETENTION_DAYS', () => {
  it('deletes the days past the limit of the tables holding personal columns, with their manifests', async () => {
    const after = await listFiles(dir);
    const personalExpired = before.filter((key) => PERSONAL_PREFIXES.some((p) => key.startsWith(p)) && EXPIRED.includes(dayOf(key) ?? ''));

    expect(personalExpired.length).toBe(EXPIRED.length * 6);
    expect(after.filter((key) => personalExpired.includes(key))).toEqual([]);
  });

  it('keeps every other file: the days within the limit, and the tables without personal columns on every day', async () => {
    const after = await listFiles(dir);
    const kept = before.filter((key) => !(PERSONAL_PREFIXES.some((p) => key.startsWith(p)) && EXPIRED.includes(dayOf(key) ?? '')));

    expect(kept.filter((key) => !after.includes(key))).toEqual([]);
    expect(
      after
        .filter((key) => key.startsWith('searches_totals/') || key.startsWith('visitors_pages/'))
        .map(dayOf)
        .sort(),
    ).toEqual([...DAYS, ...DAYS].sort());
  });

  it('status shows the expired units expired, the others complete', async () => {
    const cli = await runCliInProcess(['status', '--from', DAYS[0] as string, '--to', DAYS.at(-1) as string, '--project', PROJECT, '--out', dir, '--json'], {
      env: { PERSONAL_DATA_RETENTION_DAYS: String(RETENTION), EXPORT_STATE_DIR: await makeTempDir('retention-state') },
      now: () => START,
    });

    expect(cli.code).toBe(0);
    const units: { dataset: string; date: string; state: string }[] = JSON.parse(cli.stdout).units;
    const shown = [...new Set(units.map((unit) => unit.date))];
    expect(shown).toEqual(expect.arrayContaining([...EXPIRED, '2026-02-08']));
    const expected = shown.flatMap((day) =>
      DATASETS.map((dataset) => ({ dataset, date: day, state: dataset !== 'visitors' && EXPIRED.includes(day) ? 'expired' : 'complete' })),
    );
    expect(units.map(({ dataset, date, state }) => ({ dataset, date, state }))).toEqual(expect.arrayContaining(expected));
    expect(units.filter((unit) => DATASETS.includes(unit.dataset as never))).toHaveLength(expected.length);
  });

  it("export's last line says how many units of the days asked for expired, never that every unit is complete (issue 56)", async () => {
    const args = ['export', '--from', EXPIRED[0] as string, '--to', '2026-02-08', '--project', PROJECT, '--out', dir];
    const env = { PERSONAL_DATA_RETENTION_DAYS: String(RETENTION), EXPORT_DATASETS: DATASETS.join(','), EXPORT_STATE_DIR: await makeTempDir('retention-cli') };

    const cli = await runCliAt(sandbox, args, { now: START, env });

    expect(cli.code).toBe(0);
    // visitors of those days are complete; feedback, searches and assistant expired: 3 days × 3 datasets.
    expect(cli.stdout).not.toContain('every unit is complete (');
    expect(cli.stdout).toContain('Nothing to do: every unit is complete or expired — 9 expired (retention)');
    const forced = await runCliAt(sandbox, [...args, '--force'], { now: START, env });
    expect(forced.stdout).toMatch(/^3 of 3 unit\(s\) exported .*; 9 unit\(s\) of the days asked for expired \(retention/m);
  });

  it('the next run plans none of them, even with --force, and writes nothing back', async () => {
    const files = await listFiles(dir);

    const forced = await run(EXPIRED, { retentionDays: RETENTION, force: true });

    expect(forced.units.map((unit) => `${unit.dataset} ${unit.day}`).sort()).toEqual(EXPIRED.map((day) => `visitors ${day}`).sort());
    expect((await listFiles(dir)).filter((key) => !files.includes(key) && !key.startsWith('export_runs/'))).toEqual([]);
    expect(addDays(EXPIRED.at(-1) as string, 1)).toBe('2026-02-08');
  });
});
