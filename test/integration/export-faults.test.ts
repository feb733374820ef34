/**
 * Every sandbox fault against the export, over real HTTP on 127.0.0.1. A day either comes
 * out exactly right (the retries recover) or fails cleanly: no manifest and no half file,
 * and a previous complete export of the day is kept or loses only its manifest, as the
 * TSDoc of `exportDay` promises. The client runs with tiny backoffs and its waits are
 * recorded instead of slept, so Retry-After is checked without waiting for it.
 */
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { readFile } from 'node:fs/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { exportDay, exportDays, type ExportDeps, type Manifest } from '../../functions/export/run.js';
import type { ApiClient } from '../../functions/shared/api-types.js';
import type { Destination } from '../../functions/shared/destination.js';
import { createLocalDestination } from '../../functions/shared/destination-local.js';
import { createS3Destination } from '../../functions/shared/destination-s3.js';
import { startSandbox, type FaultRule, type Sandbox } from '../../sandbox/index.js';
import { startS3Sqs, type S3Sqs } from '../helpers/emulators.js';
import {
  dayFiles,
  expectDayMatches,
  failingDestination,
  fastApiClient,
  listFiles,
  makeTempDir,
  readLocalDay,
  recordingSleep,
  removeTempDirs,
  successfulOffsets,
  visitorRequests,
} from '../helpers/export-fixtures.js';

const API_KEY = 'mint_faulttest_K3Y_0123456789abcdef';
/** 600 rows: pages at offsets 0, 250 and 500; faults hit the middle one. */
const PROJECT = 'proj_faults';
const DAY = '2026-01-20';
const EXPORTED_AT = Date.parse('2026-01-21T02:30:00.000Z');
const ALL_OFFSETS = [0, 250, 500];

let sandbox: Sandbox;
let aws: S3Sqs;

beforeAll(async () => {
  [sandbox, aws] = await Promise.all([
    startSandbox({ apiKey: API_KEY, projects: [{ id: PROJECT, paths: 600, exact: true }] }),
    startS3Sqs(),
  ]);
});

afterEach(async () => {
  sandbox.clearFaults();
  sandbox.clearRequests();
  await removeTempDirs();
});

afterAll(async () => {
  await Promise.all([sandbox?.close(), aws?.close()]);
});

const options = { limit: 250, maxPages: 10_000, exportedAt: EXPORTED_AT };

function deps(destination: Destination, api: ApiClient = fastApiClient(sandbox)): ExportDeps {
  return { api, destination, now: () => EXPORTED_AT };
}

/** A complete export of the day, to check what a failed re-run does to it. */
async function exportCleanDay(dir: string): Promise<Record<string, Buffer>> {
  await exportDay({ projectId: PROJECT, day: DAY }, options, deps(createLocalDestination(dir)));
  sandbox.clearRequests();
  const files = dayFiles(dir, PROJECT, DAY);
  return {
    pages: await readFile(files.pages),
    totals: await readFile(files.totals),
    manifest: await readFile(files.manifest),
  };
}

describe('faults the retries recover from', () => {
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
    const api = fastApiClient(sandbox, { sleep: recordingSleep().sleep, ...(clientTimeoutMs ? { timeoutMs: clientTimeoutMs } : {}) });

    const manifest = await exportDay({ projectId: PROJECT, day: DAY }, options, deps(createLocalDestination(dir), api));

    const requests = visitorRequests(sandbox, { projectId: PROJECT });
    const times = rule.times ?? 1;
    expect(requests.filter((entry) => entry.fault === rule.kind)).toHaveLength(times);
    expect(successfulOffsets(requests)).toEqual(ALL_OFFSETS);
    expect(manifest.requests).toMatchObject({ successful: 3, retried: times });
    expectDayMatches(await readLocalDay(dir, PROJECT, DAY), sandbox, PROJECT, DAY);
  });

  it('waits exactly the Retry-After the server asked for, and backs off when it says 0 or nothing', async () => {
    const waitsFor = async (rule: FaultRule): Promise<number[]> => {
      sandbox.addFault({ route: 'visitors', projectId: PROJECT, offset: 0, ...rule });
      const recorded = recordingSleep();
      await exportDay({ projectId: PROJECT, day: DAY }, options, deps(createLocalDestination(await makeTempDir()), fastApiClient(sandbox, { sleep: recorded.sleep })));
      return recorded.waits;
    };

    expect(await waitsFor({ kind: 'rate-limit', retryAfter: 7 })).toEqual([7_000]);
    const [afterZero, ...restZero] = await waitsFor({ kind: 'rate-limit', retryAfter: 0 });
    const [afterNone, ...restNone] = await waitsFor({ kind: 'rate-limit' });

    expect(restZero).toEqual([]);
    expect(restNone).toEqual([]);
    // Backoff of the first retry with minDelayMs 1, maxDelayMs 5: equal jitter in [0.5, 1] ms.
    expect(afterZero).toBeLessThanOrEqual(5);
    expect(afterNone).toBeLessThanOrEqual(5);
  });
});

describe('faults that fail the day cleanly', () => {
  const inconsistent: { name: string; rule: FaultRule; message: RegExp }[] = [
    { name: 'an empty page with hasMore:true', rule: { kind: 'empty-page-has-more' }, message: /empty but says hasMore=true/ },
    { name: 'a repeated page', rule: { kind: 'repeat-page' }, message: /repeats the previous page/ },
    { name: 'totals that change between pages', rule: { kind: 'totals-change' }, message: /site totals changed between pages/ },
    { name: 'a duplicate path', rule: { kind: 'duplicate-paths' }, message: /appeared again/ },
  ];

  it.each(inconsistent)('$name fails with a PaginationError, stops paging and leaves no file', async ({ rule, message }) => {
    const dir = await makeTempDir();
    sandbox.addFault({ route: 'visitors', projectId: PROJECT, offset: 250, ...rule });

    const failure = exportDay({ projectId: PROJECT, day: DAY }, options, deps(createLocalDestination(dir)));

    await expect(failure).rejects.toMatchObject({ name: 'PaginationError', message: expect.stringMatching(message) });
    expect(visitorRequests(sandbox, { projectId: PROJECT }).map((entry) => Number(entry.query['offset']))).toEqual([0, 250]);
    expect(await listFiles(dir)).toEqual([]);
  });

  it.each(inconsistent)('$name during a re-run keeps the previous complete export of the day byte for byte', async ({ rule }) => {
    const dir = await makeTempDir();
    const before = await exportCleanDay(dir);
    sandbox.addFault({ route: 'visitors', projectId: PROJECT, offset: 250, ...rule });

    await expect(exportDay({ projectId: PROJECT, day: DAY }, { ...options, exportedAt: EXPORTED_AT + 1 }, deps(createLocalDestination(dir)))).rejects.toThrow();

    const files = dayFiles(dir, PROJECT, DAY);
    expect(await readFile(files.pages)).toEqual(before['pages']);
    expect(await readFile(files.totals)).toEqual(before['totals']);
    expect(await readFile(files.manifest)).toEqual(before['manifest']);
    expect((await listFiles(dir)).filter((file) => file.endsWith('.tmp'))).toEqual([]);
  });

  it('fails with the last error when the retries are exhausted, after 1 + maxRetries attempts', async () => {
    const dir = await makeTempDir();
    sandbox.addFault({ route: 'visitors', projectId: PROJECT, offset: 250, kind: 'server-error', status: 503, times: Infinity });
    const api = fastApiClient(sandbox, { maxRetries: 2, sleep: recordingSleep().sleep });

    const failure = exportDay({ projectId: PROJECT, day: DAY }, options, deps(createLocalDestination(dir), api));

    await expect(failure).rejects.toMatchObject({ name: 'ApiError', status: 503 });
    expect(visitorRequests(sandbox, { projectId: PROJECT }).filter((entry) => entry.query['offset'] === '250')).toHaveLength(3);
    expect(await listFiles(dir)).toEqual([]);
  });

  it('fails at once, without sleeping, when the Retry-After would pass the deadline', async () => {
    const dir = await makeTempDir();
    sandbox.addFault({ route: 'visitors', projectId: PROJECT, offset: 250, kind: 'rate-limit', retryAfter: 60, times: Infinity });
    const recorded = recordingSleep();

    const failure = exportDay(
      { projectId: PROJECT, day: DAY },
      { ...options, deadline: Date.now() + 10_000 },
      deps(createLocalDestination(dir), fastApiClient(sandbox, { sleep: recorded.sleep })),
    );

    await expect(failure).rejects.toMatchObject({ name: 'RateLimitedError' });
    expect(recorded.waits).toEqual([]);
    expect(visitorRequests(sandbox, { projectId: PROJECT }).filter((entry) => entry.query['offset'] === '250')).toHaveLength(1);
    expect(await listFiles(dir)).toEqual([]);
  });

  it('starts no day and sends no request once the deadline has passed', async () => {
    const dir = await makeTempDir();

    const summary = await exportDays([{ projectId: PROJECT, day: DAY }], { ...options, deadline: Date.now() - 1 }, deps(createLocalDestination(dir)));

    expect(summary).toMatchObject({ ok: false, failed: 1, exported: 0, requests: 0 });
    expect(summary.days[0]).toMatchObject({ ok: false, error: expect.stringMatching(/^DeadlineExceededError/) });
    expect(sandbox.requests).toEqual([]);
    expect(await listFiles(dir)).toEqual([]);
  });

  it('fails at once on a 403 without retrying and names what to fix', async () => {
    const dir = await makeTempDir();
    sandbox.addFault({ route: 'visitors', projectId: PROJECT, offset: 0, kind: 'status', status: 403 });

    const failure = exportDay({ projectId: PROJECT, day: DAY }, options, deps(createLocalDestination(dir)));

    await expect(failure).rejects.toMatchObject({ name: 'ApiError', status: 403, message: expect.stringMatching(/scope/) });
    expect(visitorRequests(sandbox, { projectId: PROJECT })).toHaveLength(1);
    expect(await listFiles(dir)).toEqual([]);
  });
});

describe('a destination that fails in the middle of a day', () => {
  it('leaves no manifest and no file when the pages file fails after its first bytes', async () => {
    const dir = await makeTempDir();
    const destination = failingDestination(createLocalDestination(dir), { keyPattern: /^visitors_pages\//, afterBytes: 1_000 });

    await expect(exportDay({ projectId: PROJECT, day: DAY }, options, deps(destination))).rejects.toThrow();

    expect(destination.failures).toEqual([`visitors_pages/dt=${DAY}/${PROJECT}.parquet`]);
    expect(await listFiles(dir)).toEqual([]);
  });

  it('on a re-run, removes the manifest and keeps the previous pages file whole when the new one fails', async () => {
    const dir = await makeTempDir();
    const before = await exportCleanDay(dir);
    const destination = failingDestination(createLocalDestination(dir), { keyPattern: /^visitors_pages\//, afterBytes: 1_000 });

    await expect(exportDay({ projectId: PROJECT, day: DAY }, options, deps(destination))).rejects.toThrow();

    const files = dayFiles(dir, PROJECT, DAY);
    expect(await listFiles(dir)).toEqual([`visitors_pages/dt=${DAY}/${PROJECT}.parquet`, `visitors_totals/dt=${DAY}/${PROJECT}.parquet`]);
    expect(await readFile(files.pages)).toEqual(before['pages']);
  });

  it('leaves no manifest when the totals file fails after the pages file was written', async () => {
    const dir = await makeTempDir();
    const destination = failingDestination(createLocalDestination(dir), { keyPattern: /^visitors_totals\//, afterBytes: 10 });

    await expect(exportDay({ projectId: PROJECT, day: DAY }, options, deps(destination))).rejects.toThrow();

    expect(destination.failures).toEqual([`visitors_totals/dt=${DAY}/${PROJECT}.parquet`]);
    expect(await listFiles(dir)).toEqual([`visitors_pages/dt=${DAY}/${PROJECT}.parquet`]);
  });

  it('leaves no manifest and no object in S3 when the upload of the pages file fails', async () => {
    const bucket = await aws.createBucket();
    const destination = failingDestination(createS3Destination({ bucket, prefix: 'exports', client: aws.s3 }), {
      keyPattern: /^visitors_pages\//,
      afterBytes: 1_000,
    });

    await expect(exportDay({ projectId: PROJECT, day: DAY }, options, deps(destination))).rejects.toThrow();

    expect(destination.failures).toEqual([`visitors_pages/dt=${DAY}/${PROJECT}.parquet`]);
    const listed = await aws.s3.send(new ListObjectsV2Command({ Bucket: bucket }));
    expect(listed.Contents ?? []).toEqual([]);
  });

  it('writes the other days of the run when one day fails', async () => {
    const dir = await makeTempDir();
    sandbox.addFault({ route: 'visitors', projectId: PROJECT, offset: 0, kind: 'empty-page-has-more' });
    const nextDay = '2026-01-21';

    const summary = await exportDays(
      [
        { projectId: PROJECT, day: DAY },
        { projectId: PROJECT, day: nextDay },
      ],
      options,
      deps(createLocalDestination(dir)),
    );

    expect(summary).toMatchObject({ ok: false, exported: 1, failed: 1 });
    expect(summary.days.map((day) => day.ok)).toEqual([false, true]);
    const manifest = JSON.parse(await readFile(dayFiles(dir, PROJECT, nextDay).manifest, 'utf8')) as Manifest;
    expect(manifest.date).toBe(nextDay);
    expect((await listFiles(dir)).some((file) => file.includes(`dt=${DAY}`))).toBe(false);
    expectDayMatches(await readLocalDay(dir, PROJECT, nextDay), sandbox, PROJECT, nextDay);
  });
});
