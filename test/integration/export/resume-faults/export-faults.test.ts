/**
 * Every sandbox fault against the export of one unit (visitors of one project for one day),
 * over real HTTP on 127.0.0.1. A unit either comes out exactly right (the retries and the
 * budget recover) or ends cleanly: no manifest and no half file under the tables, the pages
 * that arrived kept in the staging area for the next run (or dropped when they broke a stop
 * rule), and a previous complete export of the day kept, or losing only its manifest when the
 * new files were being written. The run's clock is fake: budget pauses and backoffs are
 * recorded, not slept.
 */
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PlannedUnit } from '../../../../functions/export/plan.js';
import type { ExportPolicy, RunControl } from '../../../../functions/export/policy.js';
import { runUnits, type RunDeps, type RunSummary } from '../../../../functions/export/run-units.js';
import type { Destination } from '../../../../functions/shared/storage/destination.js';
import { createLocalDestination } from '../../../../functions/shared/storage/destination-local.js';
import { createS3Destination } from '../../../../functions/shared/storage/destination-s3.js';
import type { FaultRule, Sandbox } from '../../../../sandbox/index.js';
import { fakeClock, type FakeClock } from '../../../helpers/clock.js';
import { useSandbox } from '../../../helpers/emulators.js';
import { startS3Sqs, type S3Sqs } from '../../../../scripts/lib/s3-sqs.js';
import { expectDayMatches } from '../../../helpers/expected-rows.js';
import { listFiles, makeTempDir, stagingFiles, tableFiles } from '../../../helpers/files.js';
import { dayFiles } from '../../../helpers/layout.js';
import { readLocalDay } from '../../../helpers/read-back.js';
import { successfulOffsets, visitorRequests } from '../../../helpers/request-log.js';
import { exportDeps, failingDestination, manifestOf, plannedUnit, statuses, testSettings, unitOf, type ExportDepsOptions } from '../../../helpers/run-deps.js';

const API_KEY = 'mint_faulttest_K3Y_0123456789abcdef';
/** 600 rows: pages at offsets 0, 250 and 500; faults hit the middle one. */
const PROJECT = 'proj_faults';
const DAY = '2026-01-20';
const EXPORTED_AT = Date.parse('2026-01-21T02:30:00.000Z');
const ALL_OFFSETS = [0, 250, 500];
const UNIT = unitOf(PROJECT, DAY);
/** The unit's staging folder. */
const STAGING = `_staging/visitors/dt=${DAY}/${PROJECT}/`;

let sandbox: Sandbox;
let aws: S3Sqs;

useSandbox({ apiKey: API_KEY, projects: [{ id: PROJECT, paths: 600, exact: true }] }, (started) => (sandbox = started), {
  clearAfterEach: true,
  removeTempDirsAfterEach: true,
});

beforeAll(async () => {
  aws = await startS3Sqs();
});

afterAll(async () => {
  await aws?.close();
});

interface RunOptions {
  readonly clock?: FakeClock;
  readonly client?: ExportDepsOptions['client'];
  readonly settings?: Partial<ExportPolicy>;
  readonly control?: RunControl;
  readonly units?: readonly PlannedUnit[];
}

/** One run of `units` (default: the unit) on a fresh budget, with its deps for inspection. */
async function run(destination: Destination, options: RunOptions = {}): Promise<{ summary: RunSummary; deps: RunDeps & { clock: FakeClock } }> {
  const deps = exportDeps({
    sandbox,
    destination,
    clock: options.clock ?? fakeClock(EXPORTED_AT),
    ...(options.client ? { client: options.client } : {}),
  });
  const summary = await runUnits({ units: options.units ?? [plannedUnit(UNIT)], policy: testSettings(options.settings), control: options.control ?? {}, deps });
  return { summary, deps };
}

/** The offsets of the unit's requests, in order, faulted ones included. */
function requestedOffsets(): number[] {
  return visitorRequests(sandbox, { projectId: PROJECT }).map((entry) => Number(entry.query['offset']));
}

/** A complete export of the day, to check what a failed re-run does to it. */
async function exportCleanDay(dir: string): Promise<Record<string, Buffer>> {
  const { summary } = await run(createLocalDestination(dir));
  manifestOf(summary.units[0]);
  sandbox.clearRequests();
  const files = dayFiles(dir, PROJECT, DAY);
  return {
    pages: await readFile(files.pages),
    totals: await readFile(files.totals),
    manifest: await readFile(files.manifest),
  };
}

describe('faults the retries and the budget recover from', () => {
  const recoverable: { name: string; rule: FaultRule; clientTimeoutMs?: number }[] = [
    { name: '429 without Retry-After', rule: { kind: 'rate-limit' } },
    { name: '429 with Retry-After 0', rule: { kind: 'rate-limit', retryAfter: 0 } },
    { name: '429 with Retry-After 2', rule: { kind: 'rate-limit', retryAfter: 2 } },
    { name: '500 server error', rule: { kind: 'server-error' } },
    { name: '503 server error, twice', rule: { kind: 'server-error', status: 503, times: 2 } },
    { name: 'HTML 502 error page', rule: { kind: 'html-error' } },
    { name: 'slow response beyond the client timeout', rule: { kind: 'slow', delayMs: 3_000 }, clientTimeoutMs: 300 },
    { name: 'dropped connection', rule: { kind: 'drop' } },
    { name: 'malformed JSON', rule: { kind: 'malformed-json' } },
    { name: 'wrong types', rule: { kind: 'wrong-types' } },
  ];

  it.each(recoverable)('a $name at offset 250 still yields the exact day, each page fetched successfully once', async ({ rule, clientTimeoutMs }) => {
    const dir = await makeTempDir();
    sandbox.addFault({ route: 'visitors', projectId: PROJECT, offset: 250, ...rule });

    const { summary } = await run(createLocalDestination(dir), clientTimeoutMs ? { client: { timeoutMs: clientTimeoutMs } } : {});

    const manifest = manifestOf(summary.units[0]);
    const requests = visitorRequests(sandbox, { projectId: PROJECT });
    const times = rule.times ?? 1;
    expect(requests.filter((entry) => entry.fault === rule.kind)).toHaveLength(times);
    expect(successfulOffsets(requests)).toEqual(ALL_OFFSETS);
    expect(manifest.requests).toEqual({ successful: 3, sent: 3 + times, retried: times });
    expectDayMatches(await readLocalDay(dir, PROJECT, DAY), sandbox, PROJECT, DAY);
  });

  it('pauses every request for exactly the Retry-After the server asked for', async () => {
    sandbox.addFault({ route: 'visitors', projectId: PROJECT, offset: 0, kind: 'rate-limit', retryAfter: 7 });

    const { deps } = await run(createLocalDestination(await makeTempDir()));

    expect(deps.clock.sleeps).toEqual([7_000]);
  });

  it.each([
    ['0', { retryAfter: 0 }],
    ['nothing', {}],
  ])('backs off 30 s when a 429 says %s for Retry-After', async (_name, retryAfter) => {
    sandbox.addFault({ route: 'visitors', projectId: PROJECT, offset: 0, kind: 'rate-limit', ...retryAfter });

    const { deps } = await run(createLocalDestination(await makeTempDir()));

    expect(deps.clock.sleeps).toEqual([30_000]);
  });

  it('takes every attempt from the budget, the failed ones included', async () => {
    sandbox.addFault({ route: 'visitors', projectId: PROJECT, offset: 250, kind: 'server-error', times: 2 });

    const { summary, deps } = await run(createLocalDestination(await makeTempDir()));

    expect(summary.requests).toBe(5);
    expect(deps.gate.stats.admitted).toBe(visitorRequests(sandbox, { projectId: PROJECT }).length);
    expect(deps.gate.stats.admitted).toBe(5);
  });
});

describe('faults that fail the unit cleanly', () => {
  const inconsistent: { name: string; rule: FaultRule; message: RegExp }[] = [
    { name: 'an empty page with hasMore:true', rule: { kind: 'empty-page-has-more' }, message: /empty but says hasMore=true/ },
    { name: 'a repeated page', rule: { kind: 'repeat-page' }, message: /repeats the previous page/ },
    { name: 'totals that change between pages', rule: { kind: 'totals-change' }, message: /totals changed between pages/ },
    { name: 'a duplicate path', rule: { kind: 'duplicate-paths' }, message: /appeared again/ },
  ];

  it.each(inconsistent)('$name fails the unit with a PaginationError and stops paging', async ({ rule, message }) => {
    sandbox.addFault({ route: 'visitors', projectId: PROJECT, offset: 250, ...rule });

    const { summary } = await run(createLocalDestination(await makeTempDir()));

    expect(summary).toMatchObject({ ok: false, failed: 1, units: [{ status: 'failed', error: expect.stringMatching(/^PaginationError: /) }] });
    expect(summary.units[0]).toMatchObject({ error: expect.stringMatching(message) });
    expect(requestedOffsets()).toEqual([0, 250]);
  });

  it.each(inconsistent)('$name leaves no table file and drops the staged pages, keeping only the failure for status', async ({ rule }) => {
    const dir = await makeTempDir();
    sandbox.addFault({ route: 'visitors', projectId: PROJECT, offset: 250, ...rule });

    await run(createLocalDestination(dir));

    expect(await listFiles(dir)).toEqual([`${STAGING}failure.json`]);
  });

  it.each(inconsistent)('$name during a re-run keeps the previous complete export of the day byte for byte', async ({ rule }) => {
    const dir = await makeTempDir();
    const before = await exportCleanDay(dir);
    sandbox.addFault({ route: 'visitors', projectId: PROJECT, offset: 250, ...rule });

    const { summary } = await run(createLocalDestination(dir), { clock: fakeClock(EXPORTED_AT + 1) });

    expect(summary.failed).toBe(1);
    const files = dayFiles(dir, PROJECT, DAY);
    expect(await readFile(files.pages)).toEqual(before['pages']);
    expect(await readFile(files.totals)).toEqual(before['totals']);
    expect(await readFile(files.manifest)).toEqual(before['manifest']);
    expect((await listFiles(dir)).filter((file) => file.endsWith('.tmp'))).toEqual([]);
  });

  it('fails with the last error when the retries are exhausted, after 1 + maxRetries attempts', async () => {
    const dir = await makeTempDir();
    sandbox.addFault({ route: 'visitors', projectId: PROJECT, offset: 250, kind: 'server-error', status: 503, times: Infinity });

    const { summary } = await run(createLocalDestination(dir), { client: { maxRetries: 2 } });

    expect(summary.units[0]).toMatchObject({ status: 'failed', error: expect.stringMatching(/^ApiError: HTTP 503/) });
    expect(visitorRequests(sandbox, { projectId: PROJECT }).filter((entry) => entry.query['offset'] === '250')).toHaveLength(3);
    expect(await tableFiles(dir)).toEqual([]);
  });

  it('keeps the pages that arrived before a failed request, for the next run', async () => {
    const dir = await makeTempDir();
    sandbox.addFault({ route: 'visitors', projectId: PROJECT, offset: 250, kind: 'server-error', status: 503, times: Infinity });

    await run(createLocalDestination(dir), { client: { maxRetries: 2 } });

    expect(await stagingFiles(dir)).toEqual([`${STAGING}checkpoint.json`, `${STAGING}failure.json`, `${STAGING}page-000000.json`]);
  });

  it('finishes a failed unit in the next run without fetching its staged pages again', async () => {
    const dir = await makeTempDir();
    sandbox.addFault({ route: 'visitors', projectId: PROJECT, offset: 250, kind: 'server-error', status: 503, times: Infinity });
    await run(createLocalDestination(dir), { client: { maxRetries: 2 } });
    sandbox.clearFaults();
    sandbox.clearRequests();

    const { summary } = await run(createLocalDestination(dir), { clock: fakeClock(EXPORTED_AT + 3_600_000) });

    expect(requestedOffsets()).toEqual([250, 500]);
    expect(manifestOf(summary.units[0])).toMatchObject({ pages: 3, runs: 2 });
    expectDayMatches(await readLocalDay(dir, PROJECT, DAY), sandbox, PROJECT, DAY);
    expect(await stagingFiles(dir)).toEqual([]);
  });

  it('counts the requests of every run that worked on a unit in its manifest', async () => {
    const dir = await makeTempDir();
    sandbox.addFault({ route: 'visitors', projectId: PROJECT, offset: 250, kind: 'server-error', status: 503, times: Infinity });
    await run(createLocalDestination(dir), { client: { maxRetries: 2 } });
    sandbox.clearFaults();

    const { summary } = await run(createLocalDestination(dir), { clock: fakeClock(EXPORTED_AT + 3_600_000) });

    const sent = visitorRequests(sandbox, { projectId: PROJECT }).length;
    expect(sent).toBe(6);
    expect(manifestOf(summary.units[0]).requests).toEqual({ successful: 3, sent, retried: 2 });
  });

  it('fails at once on a 403 without retrying and names what to fix', async () => {
    const dir = await makeTempDir();
    sandbox.addFault({ route: 'visitors', projectId: PROJECT, offset: 0, kind: 'status', status: 403 });

    const { summary } = await run(createLocalDestination(dir));

    expect(summary.units[0]).toMatchObject({ status: 'failed', error: expect.stringMatching(/^ApiError: access denied \(403\).*scope/) });
    expect(visitorRequests(sandbox, { projectId: PROJECT })).toHaveLength(1);
    expect(await listFiles(dir)).toEqual([`${STAGING}failure.json`]);
  });
});

describe('a run that runs out of budget or time', () => {
  it('stops a unit without sleeping when the Retry-After would pass the deadline, keeping its pages', async () => {
    const dir = await makeTempDir();
    sandbox.addFault({ route: 'visitors', projectId: PROJECT, offset: 250, kind: 'rate-limit', retryAfter: 60, times: Infinity });
    const clock = fakeClock(EXPORTED_AT);

    const { summary } = await run(createLocalDestination(dir), { clock, control: { deadline: EXPORTED_AT + 10_000 } });

    expect(summary).toMatchObject({ ok: false, failed: 0, partial: 1, units: [{ status: 'partial', why: 'budget', pages: 1 }] });
    expect(clock.sleeps).toEqual([]);
    expect(requestedOffsets()).toEqual([0, 250]);
    expect(await listFiles(dir)).toEqual([`${STAGING}checkpoint.json`, `${STAGING}page-000000.json`]);
  });

  it('finishes a unit stopped by the budget in a later run without fetching a page twice', async () => {
    const dir = await makeTempDir();
    sandbox.addFault({ route: 'visitors', projectId: PROJECT, offset: 250, kind: 'rate-limit', retryAfter: 60, times: 1 });
    await run(createLocalDestination(dir), { control: { deadline: EXPORTED_AT + 10_000 } });
    sandbox.clearRequests();

    const { summary } = await run(createLocalDestination(dir), { clock: fakeClock(EXPORTED_AT + 3_600_000) });

    expect(successfulOffsets(visitorRequests(sandbox, { projectId: PROJECT }))).toEqual([250, 500]);
    expect(manifestOf(summary.units[0])).toMatchObject({ pages: 3, runs: 2 });
    expectDayMatches(await readLocalDay(dir, PROJECT, DAY), sandbox, PROJECT, DAY);
    expect(await stagingFiles(dir)).toEqual([]);
  });

  it('reports the units after a unit stopped by the budget as pending, without a request', async () => {
    sandbox.addFault({ route: 'visitors', projectId: PROJECT, offset: 0, kind: 'rate-limit', retryAfter: 60, times: 1 });
    const units = [plannedUnit(UNIT), plannedUnit(unitOf(PROJECT, '2026-01-21'))];

    const { summary } = await run(createLocalDestination(await makeTempDir()), { units, control: { deadline: EXPORTED_AT + 10_000 } });

    expect(statuses(summary)).toEqual([`visitors ${PROJECT} ${DAY} partial`, `visitors ${PROJECT} 2026-01-21 pending`]);
    expect(visitorRequests(sandbox, { projectId: PROJECT, day: '2026-01-21' })).toEqual([]);
  });

  it('starts no unit and sends no request once the deadline has passed', async () => {
    const dir = await makeTempDir();

    const { summary } = await run(createLocalDestination(dir), { control: { deadline: EXPORTED_AT - 1 } });

    expect(summary).toMatchObject({ ok: false, failed: 0, completed: 0, pending: 1, requests: 0 });
    expect(summary.units[0]).toMatchObject({ status: 'pending' });
    expect(sandbox.requests).toEqual([]);
    expect(await listFiles(dir)).toEqual([]);
  });
});

describe('a destination that fails in the middle of a unit', () => {
  it('leaves no manifest and no table file when the pages file fails after its first bytes', async () => {
    const dir = await makeTempDir();
    const destination = failingDestination(createLocalDestination(dir), { keyPattern: /^visitors_pages\//, afterBytes: 1_000 });

    const { summary } = await run(destination);

    expect(summary.units[0]).toMatchObject({ status: 'failed' });
    expect(destination.failures).toEqual([`visitors_pages/dt=${DAY}/${PROJECT}.parquet`]);
    expect(await tableFiles(dir)).toEqual([]);
  });

  it('on a forced re-run, keeps the previous pages file and its manifest whole when the new file fails while it is written', async () => {
    const dir = await makeTempDir();
    const before = await exportCleanDay(dir);
    const destination = failingDestination(createLocalDestination(dir), { keyPattern: /^visitors_pages\//, afterBytes: 1_000 });

    await run(destination);

    const files = dayFiles(dir, PROJECT, DAY);
    expect(await tableFiles(dir)).toEqual([
      `_index/visitors/month=${DAY.slice(0, 7)}.json`,
      `_manifests/visitors/dt=${DAY}/${PROJECT}.json`,
      `visitors_pages/dt=${DAY}/${PROJECT}.parquet`,
      `visitors_totals/dt=${DAY}/${PROJECT}.parquet`,
    ]);
    expect(await readFile(files.pages)).toEqual(before['pages']);
    expect(await readFile(files.manifest)).toEqual(before['manifest']);
  });

  it('keeps the previous manifest and files of a complete day when the new pages file fails at its last bytes', async () => {
    const dir = await makeTempDir();
    const before = await exportCleanDay(dir);
    // Fail while the footer is written: every page arrived, the new file is not complete.
    const destination = failingDestination(createLocalDestination(dir), {
      keyPattern: /^visitors_pages\//,
      afterBytes: before['pages']!.length - 16,
    });

    const { summary } = await run(destination, { clock: fakeClock(EXPORTED_AT + 1) });

    expect(summary.failed).toBe(1);
    const files = dayFiles(dir, PROJECT, DAY);
    expect(await readFile(files.manifest)).toEqual(before['manifest']);
    expect(await readFile(files.pages)).toEqual(before['pages']);
    expect(await readFile(files.totals)).toEqual(before['totals']);
  });

  it('leaves no manifest when the totals file fails after the pages file was written', async () => {
    const dir = await makeTempDir();
    const destination = failingDestination(createLocalDestination(dir), { keyPattern: /^visitors_totals\//, afterBytes: 10 });

    await run(destination);

    expect(destination.failures).toEqual([`visitors_totals/dt=${DAY}/${PROJECT}.parquet`]);
    expect(await tableFiles(dir)).toEqual([`visitors_pages/dt=${DAY}/${PROJECT}.parquet`]);
  });

  it('finishes the unit in the next run from its staged pages, the last one included, fetching no page again', async () => {
    const dir = await makeTempDir();
    await run(failingDestination(createLocalDestination(dir), { keyPattern: /^visitors_pages\//, afterBytes: 1_000 }));
    sandbox.clearRequests();

    const { summary } = await run(createLocalDestination(dir));

    expect(requestedOffsets()).toEqual([]);
    manifestOf(summary.units[0]);
    expectDayMatches(await readLocalDay(dir, PROJECT, DAY), sandbox, PROJECT, DAY);
  });

  it('leaves no manifest and no table object in S3 when the upload of the pages file fails', async () => {
    const bucket = await aws.createBucket();
    const destination = failingDestination(createS3Destination({ bucket, prefix: 'exports', client: aws.s3 }), {
      keyPattern: /^visitors_pages\//,
      afterBytes: 1_000,
    });

    await run(destination);

    expect(destination.failures).toEqual([`visitors_pages/dt=${DAY}/${PROJECT}.parquet`]);
    const listed = await aws.s3.send(new ListObjectsV2Command({ Bucket: bucket }));
    expect((listed.Contents ?? []).map((object) => object.Key).filter((key) => !key?.startsWith('exports/_staging/'))).toEqual([]);
  });

  it('writes the other units of the run when one unit fails', async () => {
    const dir = await makeTempDir();
    sandbox.addFault({ route: 'visitors', projectId: PROJECT, offset: 0, kind: 'empty-page-has-more' });
    const nextDay = '2026-01-21';

    const { summary } = await run(createLocalDestination(dir), { units: [plannedUnit(UNIT), plannedUnit(unitOf(PROJECT, nextDay))] });

    expect(summary).toMatchObject({ ok: false, completed: 1, failed: 1 });
    expect(statuses(summary)).toEqual([`visitors ${PROJECT} ${DAY} failed`, `visitors ${PROJECT} ${nextDay} complete`]);
    expect(manifestOf(summary.units[1]).date).toBe(nextDay);
    expect((await tableFiles(dir)).some((file) => file.includes(`dt=${DAY}`))).toBe(false);
    expectDayMatches(await readLocalDay(dir, PROJECT, nextDay), sandbox, PROJECT, nextDay);
  });
});
