/**
 * One writer per unit, between real processes: two CLI `export` runs on one machine share the
 * local state folder (ledger and leases, EXPORT_STATE_DIR) and the destination; each unit is
 * fetched and written by exactly one of them, and every manifest describes the files in place.
 * And a single `export` stopped by SIGTERM or SIGINT: it stops promptly with exit 130, leaves
 * the unit's checkpoint, and a re-run finishes it.
 *
 * The sandbox runs in this process with latency, so the children's requests overlap; its
 * request log says which pages were fetched, and how often.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { UnitResult } from '../../../../functions/export/run-units.js';
import type { Unit } from '../../../../functions/export/unit-id.js';
import { createLocalDestination } from '../../../../functions/shared/storage/destination-local.js';
import { startSandbox, type Sandbox } from '../../../../sandbox/index.js';
import { expectedTables } from '../../../helpers/expected-rows.js';
import { makeTempDir, removeTempDirs, stagingFiles } from '../../../helpers/files.js';
import { readCheckpointFile, readExportedUnit } from '../../../helpers/read-back.js';
import { analyticsRequests, pageOf, pagesServed, repeatedPages } from '../../../helpers/request-log.js';
import { spawnCli, waitUntil } from '../../../helpers/cli.js';

/** 600 visitor paths a day; with EXPORT_PAGE_LIMIT=100, six pages per unit. */
const PROJECT = 'proj_synth_600';
const PAGES_PER_UNIT = 6;
const DAYS = ['2026-10-01', '2026-10-02', '2026-10-03', '2026-10-04'];

const sandboxes: Sandbox[] = [];

afterEach(async () => {
  await Promise.all(sandboxes.splice(0).map((sandbox) => sandbox.close()));
  await removeTempDirs();
});

async function setUp(latencyMs: number) {
  const sandbox = await startSandbox({ latencyMs });
  sandboxes.push(sandbox);
  const out = await makeTempDir('writers');
  const state = await makeTempDir('writers-state');
  const env = {
    MINTLIFY_API_URL: sandbox.url,
    MINTLIFY_API_KEY: sandbox.apiKey,
    EXPORT_STATE_DIR: state,
    EXPORT_PAGE_LIMIT: '100',
    API_TIMEOUT_MS: '10000',
    HOME: state,
  };
  return { sandbox, out, env };
}

function visitorsUnit(day: string): Unit & { readonly dataset: 'visitors' } {
  return { dataset: 'visitors', projectId: PROJECT, day };
}

interface JsonUnit {
  readonly date: string;
  readonly status: UnitResult['status'];
}

describe('two export processes on the same units', () => {
  it('each unit is fetched and written by exactly one of them; both exit, and every manifest describes the files in place', async () => {
    const { sandbox, out, env } = await setUp(25);
    // The first request to arrive is held 1.5 s: the other process starts and plans meanwhile,
    // so both work on the same units at the same time, whichever starts first.
    sandbox.addFault({ route: 'visitors', kind: 'slow', delayMs: 1_500 });
    const argv = ['export', '--from', DAYS[0] as string, '--to', '2026-10-05', '--project', PROJECT, '--dataset', 'visitors', '--out', out, '--json'];

    const children = [spawnCli(argv, env), spawnCli(argv, env)];
    const exits = await Promise.all(children.map((child) => child.exited));

    // Both ran (neither crashed); one that found a unit leased by the other reports it skipped.
    const reports = children.map((child) => JSON.parse(child.stdout()) as { ok: boolean; units: JsonUnit[] });
    for (const [i, exit] of exits.entries()) expect(exit.code).toBe(reports[i]?.ok ? 0 : 1);
    for (const day of DAYS) {
      const outcomes = reports.map((report) => report.units.find((unit) => unit.date === day)?.status ?? 'not planned').sort();
      expect(outcomes, day).toEqual(expect.arrayContaining(['complete']));
      expect(
        outcomes.filter((status) => status === 'complete'),
        day,
      ).toHaveLength(1);
      expect(['skipped', 'not planned'], day).toContain(outcomes.find((status) => status !== 'complete'));
    }
    // The run whose end-of-run look at the units the other held came last saw every unit
    // complete, its own or the other's: it succeeded. (Not necessarily the process that exits
    // last: under load one may look, then exit after the other has finished and exited.)
    expect(
      reports.some((report, i) => report.ok && exits[i]?.code === 0),
      children.map((child) => child.stderr()).join('\n'),
    ).toBe(true);
    // Both did part of the work, and met at least once on a unit the other held.
    for (const report of reports) expect(report.units.filter((unit) => unit.status === 'complete').length).toBeGreaterThan(0);
    expect(reports.flatMap((report) => report.units).filter((unit) => unit.status === 'skipped').length).toBeGreaterThan(0);
    // Each page of each unit was fetched once: no unit was exported by both.
    expect(pagesServed(sandbox.requests)).toHaveLength(DAYS.length * PAGES_PER_UNIT);
    expect(repeatedPages(sandbox.requests)).toEqual([]);
    const destination = createLocalDestination(out);
    for (const day of DAYS) {
      const { manifest, tables } = await readExportedUnit(destination, visitorsUnit(day));
      expect(manifest).toMatchObject({ pages: PAGES_PER_UNIT, runs: 1 });
      expect(tables).toEqual(expectedTables(sandbox.data, visitorsUnit(day)));
    }
    expect(await stagingFiles(out)).toEqual([]);
  });
});

describe('an export process stopped by the user', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)(
    'stops at the first %s at once with exit 130 and a checkpoint; a re-run finishes the unit, fetching again at most the page in flight',
    async (signal) => {
      const { sandbox, out, env } = await setUp(80);
      const argv = ['export', '--date', DAYS[0] as string, '--project', PROJECT, '--dataset', 'visitors', '--out', out];
      const first = spawnCli(argv, env);
      await waitUntil(() => analyticsRequests(sandbox.requests).length >= 3, 'the export has sent its 3rd request');

      const signalledAt = Date.now();
      first.child.kill(signal);
      const exit = await first.exited;

      // At once: it did not wait out the request in flight (API_TIMEOUT_MS); that it sent no
      // more is counted below (at most the page in flight fetched again).
      expect(Date.now() - signalledAt).toBeLessThan(Number(env.API_TIMEOUT_MS));
      expect(exit).toEqual({ code: 130, signal: null });
      expect(first.stdout()).toMatch(new RegExp(`partial  visitors ${PROJECT} ${DAYS[0]}: \\d page\\(s\\) staged \\(stopped\\); a re-run resumes it`));
      expect(first.stderr()).toContain('Export stopped: re-run the same command to resume');
      const stopped = analyticsRequests(sandbox.requests);
      const checkpoint = await readCheckpointFile(out, visitorsUnit(DAYS[0] as string));
      expect(checkpoint?.state.pages).toBeGreaterThanOrEqual(2);

      const rerun = spawnCli(argv, env);
      expect((await rerun.exited).code).toBe(0);

      // The stop aborts the request in flight: it was paid for, but its page never arrived.
      const inFlight = stopped.slice(checkpoint?.state.pages ?? 0).map(pageOf);
      expect(inFlight.length).toBeLessThanOrEqual(1);
      expect(repeatedPages(sandbox.requests)).toEqual(inFlight);
      const destination = createLocalDestination(out);
      const { manifest, tables } = await readExportedUnit(destination, visitorsUnit(DAYS[0] as string));
      expect(manifest).toMatchObject({ pages: PAGES_PER_UNIT, runs: 2 });
      expect(tables).toEqual(expectedTables(sandbox.data, visitorsUnit(DAYS[0] as string)));
    },
  );
});
