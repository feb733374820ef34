/**
 * The visitors export end to end over real HTTP on 127.0.0.1: `runExport` against the sandbox
 * API, a local directory and an S3-compatible server (fauxqs) as destinations, every Parquet
 * file read back with DuckDB and compared value for value with the sandbox's data. Runs use
 * a generous in-memory request budget on a fake clock (`exportDeps`).
 */
import { GetObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runExport, type RunResult } from '../../../../functions/export/run.js';
import { runUnits } from '../../../../functions/export/run-units.js';
import type { Manifest } from '../../../../functions/export/manifest.js';
import type { Destination } from '../../../../functions/shared/storage/destination.js';
import { createLocalDestination } from '../../../../functions/shared/storage/destination-local.js';
import { createS3Destination } from '../../../../functions/shared/storage/destination-s3.js';
import type { AppLogger } from '../../../../functions/shared/logger.js';
import type { Sandbox } from '../../../../sandbox/index.js';
import { fakeClock } from '../../../helpers/clock.js';
import { useSandbox } from '../../../helpers/emulators.js';
import { startS3Sqs, type S3Sqs } from '../../../../scripts/lib/s3-sqs.js';
import { expectDayMatches, PAGES_COLUMNS } from '../../../helpers/expected-rows.js';
import { filesContaining, listFiles, makeTempDir } from '../../../helpers/files.js';
import { aRunRecord, runIndexOf, dayFiles, runRecordsIn, withoutRunRecords } from '../../../helpers/layout.js';
import { queryDuckDb, readDestinationDay, readLocalDay, readParquet, readParquetBytes } from '../../../helpers/read-back.js';
import { successfulOffsets, visitorRequests } from '../../../helpers/request-log.js';
import { exportDeps, manifestOf, plannedUnit, statuses, testSettings } from '../../../helpers/run-deps.js';

/** A distinctive key, so any leak of it is easy to find. */
const API_KEY = 'mint_exporttest_S3CR3T_9f8e7d6c5b4a';
const DAY = '2026-02-10';
const NEXT_DAY = '2026-02-11';
const EXPORTED_AT = Date.parse('2026-02-12T02:30:00.000Z');

let sandbox: Sandbox;
let aws: S3Sqs;

useSandbox({ apiKey: API_KEY }, (started) => (sandbox = started), { clearAfterEach: true, removeTempDirsAfterEach: true });

beforeAll(async () => {
  aws = await startS3Sqs();
});

afterAll(async () => {
  await aws?.close();
});

const settings = testSettings();

/** Exports `days` × `projects` (visitors) to `destination` in one run starting at `now`. */
function exportTo(
  destination: Destination,
  days: string[],
  projects: string[],
  options: { readonly now?: number; readonly force?: boolean; readonly logger?: AppLogger } = {},
): Promise<RunResult> {
  const deps = exportDeps({
    sandbox,
    destination,
    clock: fakeClock(options.now ?? EXPORTED_AT),
    ...(options.logger ? { logger: options.logger, client: { logger: options.logger } } : {}),
  });
  return runExport({ kind: 'days', days, projects, force: options.force ?? true }, settings, {}, deps);
}

/** Exports one day of one project to a local directory (again, when it is complete) and returns its manifest. */
async function exportLocal(projectId: string, day: string, dir: string, now = EXPORTED_AT): Promise<Manifest> {
  const result = await exportTo(createLocalDestination(dir), [day], [projectId], { now });
  return manifestOf(result.units[0]);
}

describe('export to a local directory', () => {
  it('writes a day whose Parquet files hold exactly the sandbox rows and totals', async () => {
    const dir = await makeTempDir();

    await exportLocal('proj_small', DAY, dir);

    const exportedAt = expectDayMatches(await readLocalDay(dir, 'proj_small', DAY), sandbox, 'proj_small', DAY);
    expect(exportedAt).toBe(new Date(EXPORTED_AT).toISOString());
  });

  it('writes the two Parquet files, the manifest, its month’s index of units and the run record at the documented keys and nothing else', async () => {
    const dir = await makeTempDir();

    await exportLocal('proj_small', DAY, dir);

    expect(await listFiles(dir)).toEqual([
      runIndexOf(EXPORTED_AT),
      `_index/visitors/month=${DAY.slice(0, 7)}.json`,
      `_manifests/visitors/dt=${DAY}/proj_small.json`,
      aRunRecord(EXPORTED_AT),
      `visitors_pages/dt=${DAY}/proj_small.parquet`,
      `visitors_totals/dt=${DAY}/proj_small.parquet`,
    ]);
  });

  it('records the unit, its totals, its rows, files and bytes per table and its requests in the manifest', async () => {
    const dir = await makeTempDir();
    const expected = sandbox.expectedDay('proj_small', DAY);
    const pages = Math.ceil(expected.visitors.length / 250);

    await exportLocal('proj_small', DAY, dir);

    const files = dayFiles(dir, 'proj_small', DAY);
    const manifest = JSON.parse(await readFile(files.manifest, 'utf8')) as Manifest;
    expect(manifest).toMatchObject({
      version: 2,
      dataset: 'visitors',
      projectId: 'proj_small',
      date: DAY,
      window: { dateFrom: DAY, dateTo: NEXT_DAY },
      exportedAt: new Date(EXPORTED_AT).toISOString(),
      finishedAt: new Date(EXPORTED_AT).toISOString(),
      totals: expected.totals,
      rows: { visitors_totals: 1, visitors_pages: expected.visitors.length },
      files: { visitors_pages: `visitors_pages/dt=${DAY}/proj_small.parquet`, visitors_totals: `visitors_totals/dt=${DAY}/proj_small.parquet` },
      bytes: { visitors_pages: (await stat(files.pages)).size, visitors_totals: (await stat(files.totals)).size },
      pages,
      requests: { successful: pages, sent: pages, retried: 0 },
      runs: 1,
    });
  });

  it('asks for the window [D, D+1) with limit=250 and consecutive offsets', async () => {
    const dir = await makeTempDir();
    const rows = sandbox.expectedDay('proj_medium', DAY).visitors.length;

    await exportLocal('proj_medium', DAY, dir);

    const requests = visitorRequests(sandbox, { projectId: 'proj_medium' });
    expect(requests.map((entry) => entry.query)).toEqual(
      Array.from({ length: Math.ceil(rows / 250) }, (_, page) => ({
        dateFrom: DAY,
        dateTo: NEXT_DAY,
        limit: '250',
        offset: String(page * 250),
      })),
    );
  });

  it('reads back with hive_partitioning as VARCHAR, DATE, BIGINT and TIMESTAMP columns plus dt', async () => {
    const dir = await makeTempDir();
    await exportLocal('proj_small', DAY, dir);
    await exportLocal('proj_small', NEXT_DAY, dir);

    const pages = await readParquet(path.join(dir, 'visitors_pages', '*', '*.parquet'), { hivePartitioning: true, orderBy: 'dt, path' });
    const totals = await readParquet(path.join(dir, 'visitors_totals', '*', '*.parquet'), { hivePartitioning: true, orderBy: 'dt' });

    expect(pages.columns.slice(0, PAGES_COLUMNS.length)).toEqual(PAGES_COLUMNS);
    expect(pages.columns.map((column) => column.name)).toContain('dt');
    expect(totals.columns.map((column) => column.name)).toContain('dt');
    const expectedCount = sandbox.expectedDay('proj_small', DAY).visitors.length + sandbox.expectedDay('proj_small', NEXT_DAY).visitors.length;
    expect(pages.rows.length).toBe(expectedCount);
    for (const row of [...pages.rows, ...totals.rows]) expect(row['dt']).toBe(row['date']);
    expect(totals.rows.map((row) => row['dt'])).toEqual([DAY, NEXT_DAY]);
  });

  it('exports the 20,000-path day of proj_large with exactly 80 successful page requests and no offset fetched twice', async () => {
    const dir = await makeTempDir();

    await exportLocal('proj_large', DAY, dir);

    const requests = visitorRequests(sandbox, { projectId: 'proj_large' });
    expect(requests).toHaveLength(80);
    expect(successfulOffsets(requests)).toEqual(Array.from({ length: 80 }, (_, page) => page * 250));
    expectDayMatches(await readLocalDay(dir, 'proj_large', DAY), sandbox, 'proj_large', DAY);
  });

  it('replaces a day on a forced re-run: same files and one more run record, same row count, not doubled, with the new exported_at', async () => {
    const dir = await makeTempDir();
    const later = EXPORTED_AT + 3_600_000;
    await exportLocal('proj_small', DAY, dir);
    const before = await listFiles(dir);

    await exportLocal('proj_small', DAY, dir, later);

    const after = await listFiles(dir);
    expect(withoutRunRecords(after)).toEqual(withoutRunRecords(before));
    expect(runRecordsIn(after)).toEqual([aRunRecord(EXPORTED_AT), aRunRecord(later)]);
    const [count] = await queryDuckDb(`SELECT count(*) AS n FROM read_parquet('${path.join(dir, 'visitors_pages', '**', '*.parquet').replaceAll("'", "''")}')`);
    expect(count?.['n']).toBe(sandbox.expectedDay('proj_small', DAY).visitors.length);
    const exportedAt = expectDayMatches(await readLocalDay(dir, 'proj_small', DAY), sandbox, 'proj_small', DAY);
    expect(exportedAt).toBe(new Date(later).toISOString());
  });

  it('skips a complete day without a request when the re-run is not forced', async () => {
    const dir = await makeTempDir();
    await exportLocal('proj_small', DAY, dir);
    const before = await readFile(dayFiles(dir, 'proj_small', DAY).manifest);
    sandbox.clearRequests();

    const result = await exportTo(createLocalDestination(dir), [DAY], ['proj_small'], { now: EXPORTED_AT + 60_000, force: false });

    expect(result).toMatchObject({ ok: true, units: [], requests: 0 });
    expect(sandbox.requests).toEqual([]);
    expect(await readFile(dayFiles(dir, 'proj_small', DAY).manifest)).toEqual(before);
  });

  it('counts a unit another run finished after this run planned it as done, without a request', async () => {
    const dir = await makeTempDir();
    await exportLocal('proj_small', DAY, dir);
    sandbox.clearRequests();
    // Planned while it was missing; by the time this run holds its lease, its manifest is there.
    const planned = plannedUnit({ dataset: 'visitors', projectId: 'proj_small', day: DAY, reason: 'missing', force: false });
    const deps = exportDeps({ sandbox, destination: createLocalDestination(dir), clock: fakeClock(EXPORTED_AT + 60_000) });

    const summary = await runUnits({ units: [planned], policy: settings, deps });

    expect(summary.units).toEqual([expect.objectContaining({ status: 'skipped', why: 'complete' })]);
    expect(summary).toMatchObject({ ok: true, requests: 0, backlogRequests: 0 });
    expect(sandbox.requests).toEqual([]);
  });

  it('runs several projects and days in one request and writes every one of them', async () => {
    const dir = await makeTempDir();

    const result = await exportTo(createLocalDestination(dir), [DAY, NEXT_DAY], ['proj_small', 'proj_medium']);

    expect(result).toMatchObject({ ok: true, completed: 4, failed: 0 });
    for (const day of [DAY, NEXT_DAY]) {
      for (const projectId of ['proj_small', 'proj_medium']) {
        expectDayMatches(await readLocalDay(dir, projectId, day), sandbox, projectId, day);
      }
    }
  });
});

describe('export to S3 (fauxqs on loopback)', () => {
  async function s3Destination(prefix: string): Promise<{ bucket: string; destination: Destination }> {
    const bucket = await aws.createBucket();
    return { bucket, destination: createS3Destination({ bucket, prefix, client: aws.s3 }) };
  }

  async function keysOf(bucket: string): Promise<string[]> {
    const listed = await aws.s3.send(new ListObjectsV2Command({ Bucket: bucket }));
    return (listed.Contents ?? []).map((object) => object.Key ?? '').sort();
  }

  async function object(bucket: string, key: string): Promise<Uint8Array> {
    const response = await aws.s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    return response.Body!.transformToByteArray();
  }

  it('writes a day under the prefix whose files read back equal to the sandbox data', async () => {
    const { bucket, destination } = await s3Destination('warehouse/mintlify');

    await exportTo(destination, [DAY], ['proj_medium']);

    expect(await keysOf(bucket)).toEqual([
      runIndexOf(EXPORTED_AT, 'warehouse/mintlify/'),
      `warehouse/mintlify/_index/visitors/month=${DAY.slice(0, 7)}.json`,
      `warehouse/mintlify/_manifests/visitors/dt=${DAY}/proj_medium.json`,
      aRunRecord(EXPORTED_AT, 'warehouse/mintlify/'),
      `warehouse/mintlify/visitors_pages/dt=${DAY}/proj_medium.parquet`,
      `warehouse/mintlify/visitors_totals/dt=${DAY}/proj_medium.parquet`,
    ]);
    const exported = {
      pages: await readParquetBytes(await object(bucket, `warehouse/mintlify/visitors_pages/dt=${DAY}/proj_medium.parquet`)),
      totals: await readParquetBytes(await object(bucket, `warehouse/mintlify/visitors_totals/dt=${DAY}/proj_medium.parquet`)),
    };
    expectDayMatches(exported, sandbox, 'proj_medium', DAY);
    const manifest = JSON.parse(
      Buffer.from(await object(bucket, `warehouse/mintlify/_manifests/visitors/dt=${DAY}/proj_medium.json`)).toString('utf8'),
    ) as Manifest;
    expect(manifest.rows['visitors_pages']).toBe(sandbox.expectedDay('proj_medium', DAY).visitors.length);
  });

  it('replaces a day on a forced re-run in S3 with the same objects, one more run record and the new export', async () => {
    const { bucket, destination } = await s3Destination('again');
    const run = (now: number) => exportTo(destination, [DAY], ['proj_small'], { now });
    await run(EXPORTED_AT);
    const before = await keysOf(bucket);

    const result = await run(EXPORTED_AT + 60_000);

    expect(result.ok).toBe(true);
    const after = await keysOf(bucket);
    expect(withoutRunRecords(after, 'again/')).toEqual(withoutRunRecords(before, 'again/'));
    expect(runRecordsIn(after, 'again/')).toEqual([aRunRecord(EXPORTED_AT, 'again/'), aRunRecord(EXPORTED_AT + 60_000, 'again/')]);
    const exportedAt = expectDayMatches(await readDestinationDay(destination, 'proj_small', DAY), sandbox, 'proj_small', DAY);
    expect(exportedAt).toBe(new Date(EXPORTED_AT + 60_000).toISOString());
  });
});

describe('the API key', () => {
  it('appears in no file written and no log line, even when requests are retried, rate limited or refused', async () => {
    const dir = await makeTempDir();
    const lines: string[] = [];
    const capture =
      (level: string) =>
      (...args: unknown[]) => {
        lines.push(
          `${level} ${JSON.stringify(args, (_key, value: unknown) => (value instanceof Error ? `${value.name}: ${value.message} ${String(value.stack)}` : value))}`,
        );
      };
    const logger: AppLogger = { debug: capture('debug'), info: capture('info'), warn: capture('warn'), error: capture('error') };
    sandbox.addFault({ route: 'visitors', projectId: 'proj_small', kind: 'server-error', offset: 0 });
    sandbox.addFault({ route: 'visitors', projectId: 'proj_small', kind: 'rate-limit', offset: 250 });
    sandbox.addFault({ route: 'visitors', kind: 'status', status: 401, projectId: 'proj_medium' });

    const result = await exportTo(createLocalDestination(dir), [DAY], ['proj_small', 'proj_medium'], { logger });

    expect(statuses(result)).toEqual([`visitors proj_small ${DAY} complete`, `visitors proj_medium ${DAY} failed`]);
    expect(lines.some((line) => line.includes('retrying API request'))).toBe(true);
    expect(lines.some((line) => line.includes('analytics rate limited (429)'))).toBe(true);
    expect(lines.some((line) => line.includes('unit failed'))).toBe(true);
    expect(lines.filter((line) => line.includes(API_KEY))).toEqual([]);
    expect(JSON.stringify(result)).not.toContain(API_KEY);
    expect(await listFiles(dir)).toContain(`_manifests/visitors/dt=${DAY}/proj_small.json`);
    expect(await filesContaining(dir, API_KEY)).toEqual([]);
  });
});
