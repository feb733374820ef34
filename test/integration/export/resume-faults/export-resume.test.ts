/**
 * A unit stopped in the middle — a hard kill of the CLI, a failed S3 write, a deadline —
 * resumes from its checkpoint on the next run: pages that arrived are never paid for again,
 * and the result is the same as an uninterrupted export's. A checkpoint that no longer fits
 * the day (its totals changed, the API refuses its cursor, it is too old) restarts the unit
 * cleanly instead. Both paging kinds: offsets (visitors) and cursors (assistant, searches).
 *
 * The witness is the sandbox's request log: each page a run fetched, named by its offset or
 * cursor. A page is fetched twice only when it arrived but could never be kept: it was in
 * flight when the process was killed, or the write that would have staged it failed.
 */
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DATASETS } from '../../../../functions/export/datasets.js';
import { tablesOf } from '../../../../functions/warehouse/catalog.js';
import { runExport, type RunResult } from '../../../../functions/export/run.js';
import type { Unit } from '../../../../functions/export/unit-id.js';
import type { Destination } from '../../../../functions/shared/storage/destination.js';
import { createLocalDestination } from '../../../../functions/shared/storage/destination-local.js';
import { createS3Destination } from '../../../../functions/shared/storage/destination-s3.js';
import { DestinationError } from '../../../../functions/shared/errors.js';
import { startSandbox, type RequestLogEntry, type Sandbox } from '../../../../sandbox/index.js';
import { fakeClock, type FakeClock } from '../../../helpers/clock.js';
import { startS3Sqs, type S3Sqs } from '../../../../scripts/lib/s3-sqs.js';
import { expectedTables } from '../../../helpers/expected-rows.js';
import { listFiles, makeTempDir, removeTempDirs, stagingFiles } from '../../../helpers/files.js';
import { readCheckpointFile, readExportedUnit, readUnitTables, type UnitTables } from '../../../helpers/read-back.js';
import { analyticsRequests, pageOf, repeatedPages } from '../../../helpers/request-log.js';
import { exportDeps, failingDestination, statuses, testSettings } from '../../../helpers/run-deps.js';
import { runCliInProcess, spawnCli, waitUntil } from '../../../helpers/cli.js';
import { cliEnv } from '../../../helpers/env.js';

/** 600 rows a day in every dataset. */
const PROJECT = 'proj_synth_600';
const DAY = '2026-10-01';
/** 100 rows a page: six pages per unit, whatever the dataset. */
const PAGE_LIMIT = 100;
const START = Date.parse('2026-10-02T03:00:00.000Z');
const MINUTE = 60_000;

let aws: S3Sqs;
const sandboxes: Sandbox[] = [];

beforeAll(async () => {
  aws = await startS3Sqs();
});

afterEach(async () => {
  await Promise.all(sandboxes.splice(0).map((sandbox) => sandbox.close()));
  await removeTempDirs();
});

afterAll(async () => {
  await aws?.close();
});

async function sandboxOn(clock?: FakeClock, options: { readonly seed?: number; readonly latencyMs?: number } = {}): Promise<Sandbox> {
  const sandbox = await startSandbox({ ...(clock ? { now: clock.now } : {}), ...options });
  sandboxes.push(sandbox);
  return sandbox;
}

function unitOf(dataset: Unit['dataset']): Unit {
  return { dataset, projectId: PROJECT, day: DAY };
}

/** One run of the unit (in process) against `sandbox`, on `clock`, into `destination`. */
async function runUnit(
  sandbox: Sandbox,
  destination: Destination,
  clock: FakeClock,
  dataset: Unit['dataset'],
  options: { readonly deadline?: number; readonly fetch?: typeof fetch; readonly pageLimit?: number } = {},
): Promise<RunResult> {
  const deps = exportDeps({ sandbox, destination, clock, ...(options.fetch ? { client: { fetch: options.fetch } } : {}) });
  const settings = testSettings({ pageLimit: options.pageLimit ?? PAGE_LIMIT });
  const control = options.deadline !== undefined ? { deadline: options.deadline } : {};
  return runExport({ kind: 'days', days: [DAY], projects: [PROJECT], datasets: [dataset] }, settings, control, deps);
}

const references = new Map<Unit['dataset'], Promise<UnitTables>>();

/**
 * The same unit exported without interruption (once per dataset for the whole file), from a
 * sandbox of the same seed — the same data, without the latency a test may have given its
 * own — and read back with DuckDB: the reference an interrupted export must equal.
 */
function uninterruptedExport(dataset: Unit['dataset']): Promise<UnitTables> {
  let reference = references.get(dataset);
  if (!reference) {
    reference = (async () => {
      const sandbox = await startSandbox();
      try {
        const destination = createLocalDestination(await makeTempDir('reference'));
        const result = await runUnit(sandbox, destination, fakeClock(START), dataset);
        expect(result.ok).toBe(true);
        return await readUnitTables(destination, unitOf(dataset));
      } finally {
        await sandbox.close();
      }
    })();
    references.set(dataset, reference);
  }
  return reference;
}

/** A fetch that moves `clock` forward by `ms` while request number `at` (1-based) is in flight. */
function slowRequest(clock: FakeClock, at: number, ms: number): typeof fetch {
  let sent = 0;
  return async (input, init) => {
    sent += 1;
    const response = await fetch(input, init);
    if (sent === at) clock.advance(ms);
    return response;
  };
}

/** Entries logged after the first `count` (the requests of a later run). */
function entriesAfter(entries: readonly RequestLogEntry[], count: number): RequestLogEntry[] {
  return entries.slice(count);
}

/**
 * Files of the dataset's tables and manifests that a warehouse would see (hidden temp files
 * of an interrupted write are skipped by globs and by Athena).
 */
async function visibleUnitFiles(root: string, dataset: Unit['dataset']): Promise<string[]> {
  const prefixes = [...tablesOf(DATASETS[dataset]).map((table) => `${table.prefix}/`), `_manifests/${dataset}/`];
  return (await listFiles(root)).filter((file) => prefixes.some((prefix) => file.startsWith(prefix)) && !(file.split('/').pop() ?? '').startsWith('.'));
}

async function s3Keys(bucket: string, prefix: string): Promise<string[]> {
  const listed = await aws.s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix }));
  return (listed.Contents ?? []).map((object) => object.Key ?? '').sort();
}

describe('a hard kill (SIGKILL) of the CLI in the middle of a unit', () => {
  it.each(['visitors', 'assistant'] as const)(
    '%s: a re-run resumes from the checkpoint; only the page in flight at the kill is fetched again, and the files equal an uninterrupted export',
    async (dataset) => {
      // Latency keeps each page in flight long enough to kill the process while it waits.
      const sandbox = await sandboxOn(undefined, { latencyMs: 150 });
      const out = await makeTempDir('resume');
      const state = await makeTempDir('resume-state');
      const env = {
        MINTLIFY_API_URL: sandbox.url,
        MINTLIFY_API_KEY: sandbox.apiKey,
        EXPORT_STATE_DIR: state,
        EXPORT_PAGE_LIMIT: String(PAGE_LIMIT),
        API_TIMEOUT_MS: '5000',
        HOME: state,
      };
      const argv = ['export', '--date', DAY, '--project', PROJECT, '--dataset', dataset, '--out', out];
      const child = spawnCli(argv, env);

      await waitUntil(() => analyticsRequests(sandbox.requests).length >= 4, 'the child has sent its 4th request');
      // Killed while the 4th page is in flight, but not inside an update of the shared state
      // (the lease is renewed just after a request leaves). A lock of the local state store
      // left by a killed process is broken at once (it names its holder), so this only keeps the
      // kill where the test means it to be.
      await waitUntil(async () => (await listFiles(state)).every((file) => !file.endsWith('.lock')), 'no state lock is held');
      child.child.kill('SIGKILL');
      expect((await child.exited).signal).toBe('SIGKILL');

      const killed = analyticsRequests(sandbox.requests);
      const checkpoint = await readCheckpointFile(out, unitOf(dataset));
      // Each page is staged before the next request leaves: all but (at most) the last request
      // sent had arrived and been kept when the process died.
      expect(checkpoint?.state.pages).toBeGreaterThanOrEqual(killed.length - 1);
      expect(checkpoint?.state.pages).toBeLessThanOrEqual(killed.length);
      expect(await visibleUnitFiles(out, dataset)).toEqual([]);

      // The killed run's lease lasts its 10 minutes: the re-run comes after it has expired.
      const rerun = await runCliInProcess(argv, { env, now: () => Date.now() + 11 * MINUTE });

      expect(rerun.code).toBe(0);
      const inFlight = killed.slice(checkpoint?.state.pages ?? 0).map(pageOf);
      expect(inFlight.length).toBeLessThanOrEqual(1);
      // The one exception to "never a page twice": the request in flight when the process was
      // killed was paid for, but its answer never arrived.
      expect(repeatedPages(sandbox.requests)).toEqual(inFlight);
      expect(pageOf(entriesAfter(analyticsRequests(sandbox.requests), killed.length)[0] as RequestLogEntry)).toBe(
        pageOf(killed[checkpoint?.state.pages ?? 0] as RequestLogEntry),
      );
      const destination = createLocalDestination(out);
      const { manifest, tables } = await readExportedUnit(destination, unitOf(dataset));
      expect(manifest).toMatchObject({ pages: 6, runs: 2 });
      expect(tables).toEqual(expectedTables(sandbox.data, unitOf(dataset)));
      expect(tables).toEqual(await uninterruptedExport(dataset));
      expect(await stagingFiles(out)).toEqual([]);
    },
  );
});

describe('an S3 write that fails in the middle of a unit (fauxqs)', () => {
  /** A destination whose put of the unit's third staged page fails, as S3 answering 500 would. */
  function failingThirdPage(inner: Destination): Destination & { readonly failed: string[] } {
    const failed: string[] = [];
    return {
      ...inner,
      url: inner.url,
      failed,
      openWrite: (key, options) => inner.openWrite(key, options),
      get: (key) => inner.get(key),
      exists: (key) => inner.exists(key),
      delete: (key) => inner.delete(key),
      probe: () => inner.probe(),
      async put(key, body, options) {
        if (/\/page-000002\.json$/.test(key)) {
          failed.push(key);
          throw new DestinationError(`S3 PutObject of ${key} failed (InternalError): injected`);
        }
        return inner.put(key, body, options);
      },
    };
  }

  it.each(['visitors', 'assistant'] as const)(
    '%s: the re-run resumes from the checkpoint in S3; only the page whose staging failed is fetched again, and the files equal an uninterrupted export',
    async (dataset) => {
      const clock = fakeClock(START);
      const sandbox = await sandboxOn(clock);
      const bucket = await aws.createBucket();
      const s3 = createS3Destination({ bucket, prefix: 'warehouse', client: aws.s3 });
      const failing = failingThirdPage(s3);

      const first = await runUnit(sandbox, failing, clock, dataset);

      expect(statuses(first)).toEqual([`${dataset} ${PROJECT} ${DAY} failed`]);
      expect(failing.failed).toHaveLength(1);
      const beforeRerun = analyticsRequests(sandbox.requests);
      expect(beforeRerun).toHaveLength(3);
      expect(await s3Keys(bucket, 'warehouse/_staging/')).toEqual([
        `warehouse/_staging/${dataset}/dt=${DAY}/${PROJECT}/checkpoint.json`,
        `warehouse/_staging/${dataset}/dt=${DAY}/${PROJECT}/failure.json`,
        `warehouse/_staging/${dataset}/dt=${DAY}/${PROJECT}/page-000000.json`,
        `warehouse/_staging/${dataset}/dt=${DAY}/${PROJECT}/page-000001.json`,
      ]);

      clock.advance(10 * MINUTE);
      const second = await runUnit(sandbox, s3, clock, dataset);

      expect(second.ok).toBe(true);
      const rerun = entriesAfter(analyticsRequests(sandbox.requests), beforeRerun.length);
      // The third page arrived but its staging write failed, so it was never kept: the
      // re-run starts with it, and it is the only page fetched twice.
      expect(rerun.map(pageOf)[0]).toBe(pageOf(beforeRerun[2] as RequestLogEntry));
      expect(rerun).toHaveLength(4);
      expect(repeatedPages(sandbox.requests)).toEqual([pageOf(beforeRerun[2] as RequestLogEntry)]);
      const { manifest, tables } = await readExportedUnit(s3, unitOf(dataset));
      expect(manifest).toMatchObject({ pages: 6, runs: 2 });
      expect(tables).toEqual(expectedTables(sandbox.data, unitOf(dataset)));
      expect(tables).toEqual(await uninterruptedExport(dataset));
      expect(await s3Keys(bucket, 'warehouse/_staging/')).toEqual([]);
    },
  );

  it.each(['visitors', 'assistant'] as const)(
    '%s: a failed upload of the tables after the last page leaves every page staged: the re-run fetches no page again',
    async (dataset) => {
      const clock = fakeClock(START);
      const sandbox = await sandboxOn(clock);
      const bucket = await aws.createBucket();
      const s3 = createS3Destination({ bucket, prefix: 'warehouse', client: aws.s3 });
      // Small tables are uploaded when the unit commits: the upload fails after its first bytes.
      const failing = failingDestination(s3, { keyPattern: /^(visitors_pages|assistant_conversations)\//, afterBytes: 10 });

      const first = await runUnit(sandbox, failing, clock, dataset);

      expect(statuses(first)).toEqual([`${dataset} ${PROJECT} ${DAY} failed`]);
      expect(failing.failures).toHaveLength(1);
      expect(analyticsRequests(sandbox.requests)).toHaveLength(6);

      const second = await runUnit(sandbox, s3, clock, dataset);

      expect(second.ok).toBe(true);
      expect(analyticsRequests(sandbox.requests)).toHaveLength(6);
      expect(repeatedPages(sandbox.requests)).toEqual([]);
      const { manifest, tables } = await readExportedUnit(s3, unitOf(dataset));
      expect(manifest).toMatchObject({ pages: 6, runs: 2 });
      expect(tables).toEqual(expectedTables(sandbox.data, unitOf(dataset)));
      expect(await s3Keys(bucket, 'warehouse/_staging/')).toEqual([]);
    },
  );
});

describe('a deadline that passes in the middle of a unit', () => {
  it.each(['visitors', 'assistant'] as const)(
    '%s: the run stops with a checkpoint, sending nothing after the deadline; the next run resumes without fetching a page twice',
    async (dataset) => {
      const clock = fakeClock(START);
      const sandbox = await sandboxOn(clock);
      const out = await makeTempDir('resume');
      const destination = createLocalDestination(out);

      // The deadline passes while the third page is in flight.
      const first = await runUnit(sandbox, destination, clock, dataset, { deadline: START + 5 * MINUTE, fetch: slowRequest(clock, 3, 10 * MINUTE) });

      expect(first.units).toMatchObject([{ status: 'partial', why: 'deadline', pages: 3 }]);
      expect(analyticsRequests(sandbox.requests)).toHaveLength(3);
      expect(await visibleUnitFiles(out, dataset)).toEqual([]);

      const second = await runUnit(sandbox, destination, clock, dataset, { deadline: clock.now() + 15 * MINUTE });

      expect(second.ok).toBe(true);
      expect(analyticsRequests(sandbox.requests)).toHaveLength(6);
      expect(repeatedPages(sandbox.requests)).toEqual([]);
      const { manifest, tables } = await readExportedUnit(destination, unitOf(dataset));
      expect(manifest).toMatchObject({ pages: 6, runs: 2 });
      expect(tables).toEqual(expectedTables(sandbox.data, unitOf(dataset)));
      expect(tables).toEqual(await uninterruptedExport(dataset));
      expect(await stagingFiles(out)).toEqual([]);
    },
  );
});

describe('a day whose data changed between the interrupted run and the resume', () => {
  it.each([
    ['visitors', 'its totals changed'],
    ['searches', 'the API refuses its cursor'],
  ] as const)(
    '%s: a checkpoint that no longer fits (%s) restarts the unit: the files hold only the new data and the manifest describes them',
    async (dataset, _why) => {
      const clock = fakeClock(START);
      const before = await sandboxOn(clock, { seed: 42 });
      // The same API later: the day's data was recomputed (another seed: other totals, other cursors).
      const later = await sandboxOn(clock, { seed: 43 });
      const unit = unitOf(dataset);
      expect(expectedTables(later.data, unit)).not.toEqual(expectedTables(before.data, unit));
      const out = await makeTempDir('resume');
      const destination = createLocalDestination(out);
      const first = await runUnit(before, destination, clock, dataset, { deadline: START + 5 * MINUTE, fetch: slowRequest(clock, 2, 10 * MINUTE) });
      expect(first.units).toMatchObject([{ status: 'partial', pages: 2 }]);
      const checkpoint = await readCheckpointFile(out, unit);
      const state = checkpoint?.state;
      const position = state?.kind === 'offset' ? `offset=${state.offset}` : `cursor=${state?.kind === 'cursor' ? state.cursor : undefined}`;

      const second = await runUnit(later, destination, clock, dataset);

      expect(second.ok).toBe(true);
      // The first request checks the checkpoint against the day and finds it stale (other
      // totals; or a 400 for a cursor the API no longer knows); then the unit starts over.
      const requests = analyticsRequests(later.requests);
      expect(requests.map((entry) => [pageOf(entry), entry.status])[0]).toEqual([
        `${dataset} ${PROJECT} ${DAY} ${position}`,
        dataset === 'visitors' ? 200 : 400,
      ]);
      expect(requests.slice(1).map(pageOf)[0]).toBe(dataset === 'visitors' ? `visitors ${PROJECT} ${DAY} offset=0` : `searches ${PROJECT} ${DAY} first`);
      expect(requests.slice(1).filter((entry) => entry.status === 200)).toHaveLength(6);
      expect(repeatedPages(requests.slice(1))).toEqual([]);
      const { manifest, tables } = await readExportedUnit(destination, unit);
      expect(manifest.pages).toBe(6);
      expect(tables).toEqual(expectedTables(later.data, unit));
      expect(manifest.totals).toEqual(
        dataset === 'visitors' ? later.data.day('visitors', PROJECT, DAY).totals : { totalSearches: later.data.day('searches', PROJECT, DAY).totalSearches },
      );
      expect(await stagingFiles(out)).toEqual([]);
    },
  );
});

describe('a checkpoint older than EXPORT_CHECKPOINT_MAX_AGE_HOURS', () => {
  /** Leaves a visitors checkpoint of two pages: the CLI export fails on the third (403). */
  async function interruptedExport(sandbox: Sandbox, env: Record<string, string>, out: string): Promise<void> {
    sandbox.addFault({ route: 'visitors', kind: 'status', status: 403, offset: 200 });
    const first = await runCliInProcess(['export', '--date', DAY, '--project', PROJECT, '--dataset', 'visitors', '--out', out], { env, now: () => START });
    expect(first.code).toBe(1);
    expect((await readCheckpointFile(out, unitOf('visitors')))?.state.pages).toBe(2);
  }

  async function setUp() {
    const sandbox = await sandboxOn();
    const out = await makeTempDir('resume');
    const env = await cliEnv(sandbox, { EXPORT_PAGE_LIMIT: String(PAGE_LIMIT), EXPORT_CHECKPOINT_MAX_AGE_HOURS: '2' });
    await interruptedExport(sandbox, env, out);
    return { sandbox, out, env, argv: ['export', '--date', DAY, '--project', PROJECT, '--dataset', 'visitors', '--out', out] };
  }

  it('restarts the unit from its first page, and the files equal the data', async () => {
    const { sandbox, out, env, argv } = await setUp();
    const earlier = analyticsRequests(sandbox.requests).length;

    const rerun = await runCliInProcess(argv, { env, now: () => START + 3 * 3_600_000 });

    expect(rerun.code).toBe(0);
    const pages = entriesAfter(analyticsRequests(sandbox.requests), earlier).map(pageOf);
    expect(pages).toEqual([0, 100, 200, 300, 400, 500].map((offset) => `visitors ${PROJECT} ${DAY} offset=${offset}`));
    const destination = createLocalDestination(out);
    const { manifest, tables } = await readExportedUnit(destination, unitOf('visitors'));
    expect(manifest).toMatchObject({ pages: 6, runs: 1 });
    expect(tables).toEqual(expectedTables(sandbox.data, unitOf('visitors')));
    expect(await stagingFiles(out)).toEqual([]);
  });

  it('is resumed while it is younger than the limit', async () => {
    const { sandbox, env, argv } = await setUp();
    const earlier = analyticsRequests(sandbox.requests).length;

    const rerun = await runCliInProcess(argv, { env, now: () => START + 2 * 3_600_000 - 1 });

    expect(rerun.code).toBe(0);
    const pages = entriesAfter(analyticsRequests(sandbox.requests), earlier).map(pageOf);
    expect(pages).toEqual([200, 300, 400, 500].map((offset) => `visitors ${PROJECT} ${DAY} offset=${offset}`));
  });
});
