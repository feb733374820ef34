/**
 * The nightly export's Lambda handler, in process, against the sandbox over real HTTP on
 * 127.0.0.1 and a local directory or the S3 emulator. The handler reads its configuration
 * from `process.env` when it is imported, so each test sets the environment and imports a
 * fresh copy of the module.
 */
import { readFile } from 'node:fs/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { RunResult } from '../../functions/export/run.js';
import { createS3Destination } from '../../functions/shared/destination-s3.js';
import { startSandbox, type Sandbox } from '../../sandbox/index.js';
import { startS3Sqs, TEST_REGION, type S3Sqs } from '../helpers/emulators.js';
import {
  dayFiles,
  expectDayMatches,
  filesContaining,
  lambdaContext,
  listFiles,
  makeTempDir,
  readDestinationDay,
  readLocalDay,
  removeTempDirs,
  scheduledEvent,
  visitorRequests,
} from '../helpers/export-fixtures.js';

const API_KEY = 'mint_handlertest_S3CR3T_4a5b6c7d8e9f';
const PROJECTS = ['proj_a', 'proj_b'];
const EVENT_TIME = '2026-03-01T02:30:00Z';
const TARGET_DAY = '2026-02-28';

type Handler = (event: unknown, context: ReturnType<typeof lambdaContext>) => Promise<RunResult>;

let sandbox: Sandbox;
let aws: S3Sqs;
const savedEnv = new Map<string, string | undefined>();

beforeAll(async () => {
  [sandbox, aws] = await Promise.all([
    startSandbox({
      apiKey: API_KEY,
      projects: [
        { id: 'proj_a', paths: 300, exact: true },
        { id: 'proj_b', paths: 40, exact: true },
      ],
    }),
    startS3Sqs(),
  ]);
});

afterEach(async () => {
  vi.useRealTimers();
  vi.restoreAllMocks();
  for (const [name, value] of savedEnv) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  savedEnv.clear();
  sandbox.clearFaults();
  sandbox.clearRequests();
  await removeTempDirs();
});

afterAll(async () => {
  await Promise.all([sandbox?.close(), aws?.close()]);
});

function setEnv(env: Record<string, string>): void {
  for (const [name, value] of Object.entries(env)) {
    if (!savedEnv.has(name)) savedEnv.set(name, process.env[name]);
    process.env[name] = value;
  }
}

/** Sets the environment the deployed function would have and imports a fresh handler. */
async function loadHandler(destination: string, env: Record<string, string> = {}): Promise<Handler> {
  setEnv({
    MINTLIFY_API_KEY: API_KEY,
    MINTLIFY_API_URL: sandbox.url,
    MINTLIFY_PROJECT_IDS: PROJECTS.join(','),
    EXPORT_DESTINATION: destination,
    EXPORT_HEAL_DAYS: '0',
    POWERTOOLS_METRICS_NAMESPACE: 'MintlifyExporterTest',
    ...env,
  });
  vi.resetModules();
  const module = await import('../../functions/export/handler.js');
  return module.handler as Handler;
}

/** The distinct `dateFrom` of the visitors requests the sandbox saw, sorted. */
function requestedDays(): string[] {
  return [...new Set(visitorRequests(sandbox).map((entry) => entry.query['dateFrom'] ?? ''))].sort();
}

async function manifestDays(dir: string): Promise<string[]> {
  return (await listFiles(dir)).filter((file) => file.startsWith('_manifests/')).sort();
}

describe('export handler', () => {
  it('exports the day before the scheduled event for every project', async () => {
    const dir = await makeTempDir();
    const handler = await loadHandler(dir);

    const result = await handler(scheduledEvent(EVENT_TIME), lambdaContext());

    expect(result.days.map((day) => [day.projectId, day.day, day.ok])).toEqual([
      ['proj_a', TARGET_DAY, true],
      ['proj_b', TARGET_DAY, true],
    ]);
    expect(requestedDays()).toEqual([TARGET_DAY]);
    for (const projectId of PROJECTS) {
      expectDayMatches(await readLocalDay(dir, projectId, TARGET_DAY), sandbox, projectId, TARGET_DAY);
    }
  });

  it('exports the same day when the same event is retried after the next midnight', async () => {
    const dir = await makeTempDir();
    const handler = await loadHandler(dir);
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-03-01T02:30:04Z'));
    await handler(scheduledEvent(EVENT_TIME), lambdaContext());
    sandbox.clearRequests();

    vi.setSystemTime(new Date('2026-03-02T00:05:00Z'));
    const retried = await handler(scheduledEvent(EVENT_TIME), lambdaContext());

    expect(retried.days.map((day) => day.day)).toEqual([TARGET_DAY, TARGET_DAY]);
    expect(requestedDays()).toEqual([TARGET_DAY]);
    expect(await manifestDays(dir)).toEqual(PROJECTS.map((id) => `_manifests/visitors/dt=${TARGET_DAY}/${id}.json`));
    const manifest = JSON.parse(await readFile(dayFiles(dir, 'proj_a', TARGET_DAY).manifest, 'utf8')) as { exportedAt: string };
    expect(manifest.exportedAt).toBe('2026-03-02T00:05:00.000Z');
  });

  it('also exports the heal-window days without a manifest and does not re-fetch the ones that have one', async () => {
    const dir = await makeTempDir();
    const handler = await loadHandler(dir, { EXPORT_HEAL_DAYS: '3' });
    await handler({ date: '2026-02-26' }, lambdaContext());
    sandbox.clearRequests();

    const result = await handler(scheduledEvent(EVENT_TIME), lambdaContext());

    expect(result.days.map((day) => `${day.day} ${day.projectId}`)).toEqual([
      '2026-02-25 proj_a',
      '2026-02-25 proj_b',
      '2026-02-27 proj_a',
      '2026-02-27 proj_b',
      '2026-02-28 proj_a',
      '2026-02-28 proj_b',
    ]);
    expect(requestedDays()).toEqual(['2026-02-25', '2026-02-27', '2026-02-28']);
    expect(visitorRequests(sandbox, { day: '2026-02-26' })).toEqual([]);
    expect(result.missingDays).toBe(0);
    expect(await manifestDays(dir)).toHaveLength(8);
  });

  it('exports the one day of a manual {date} invoke for the configured projects', async () => {
    const dir = await makeTempDir();
    const handler = await loadHandler(dir);

    const result = await handler({ date: '2026-01-05' }, lambdaContext());

    expect(result.ok).toBe(true);
    expect(requestedDays()).toEqual(['2026-01-05']);
    for (const projectId of PROJECTS) expectDayMatches(await readLocalDay(dir, projectId, '2026-01-05'), sandbox, projectId, '2026-01-05');
  });

  it('exports every day of [from, to) of a manual {from, to} invoke', async () => {
    const dir = await makeTempDir();
    const handler = await loadHandler(dir);

    const result = await handler({ from: '2026-02-27', to: '2026-03-02', projects: ['proj_b'] }, lambdaContext());

    expect(result.days.map((day) => day.day)).toEqual(['2026-02-27', '2026-02-28', '2026-03-01']);
    for (const day of ['2026-02-27', '2026-02-28', '2026-03-01']) expectDayMatches(await readLocalDay(dir, 'proj_b', day), sandbox, 'proj_b', day);
    expect(await manifestDays(dir)).toHaveLength(3);
  });

  it('exports only the projects a manual {projects} invoke names', async () => {
    const dir = await makeTempDir();
    const handler = await loadHandler(dir);

    const result = await handler({ projects: ['proj_b'], date: TARGET_DAY }, lambdaContext());

    expect(result.days.map((day) => day.projectId)).toEqual(['proj_b']);
    expect(new Set(visitorRequests(sandbox).map((entry) => entry.projectId))).toEqual(new Set(['proj_b']));
    expect(await manifestDays(dir)).toEqual([`_manifests/visitors/dt=${TARGET_DAY}/proj_b.json`]);
  });

  it('throws after writing the other days when one day fails, naming the failed day', async () => {
    const dir = await makeTempDir();
    const handler = await loadHandler(dir);
    sandbox.addFault({ route: 'visitors', projectId: 'proj_a', kind: 'empty-page-has-more', times: Infinity });

    const invocation = handler(scheduledEvent(EVENT_TIME), lambdaContext());

    await expect(invocation).rejects.toMatchObject({
      name: 'ExportIncompleteError',
      retryable: true,
      message: expect.stringContaining(`proj_a ${TARGET_DAY}`),
    });
    expect(await manifestDays(dir)).toEqual([`_manifests/visitors/dt=${TARGET_DAY}/proj_b.json`]);
    expectDayMatches(await readLocalDay(dir, 'proj_b', TARGET_DAY), sandbox, 'proj_b', TARGET_DAY);
  });

  it.each([
    ['an impossible date', { date: '2026-02-30' }, /does not exist in the calendar/],
    ['an unknown field', { day: '2026-02-01' }, /invalid export event/],
    ['date together with from/to', { date: '2026-02-01', from: '2026-02-01', to: '2026-02-02' }, /either "date" or "from"\/"to"/],
    ['a scheduled event with a bad time', { ...scheduledEvent(EVENT_TIME), time: 'last night' }, /invalid "time"/],
  ])('refuses %s with a ConfigError saying what to send, before any request', async (_name, event, message) => {
    const dir = await makeTempDir();
    const handler = await loadHandler(dir);

    await expect(handler(event, lambdaContext())).rejects.toMatchObject({ name: 'ConfigError', message: expect.stringMatching(message) });
    expect(sandbox.requests).toEqual([]);
    expect(await listFiles(dir)).toEqual([]);
  });

  it('starts no new day when the invocation has too little time left, and throws so it is retried', async () => {
    const dir = await makeTempDir();
    const handler = await loadHandler(dir);

    const invocation = handler(scheduledEvent(EVENT_TIME), lambdaContext(15_000));

    await expect(invocation).rejects.toMatchObject({ name: 'ExportIncompleteError', message: expect.stringContaining(`proj_b ${TARGET_DAY}`) });
    expect(sandbox.requests).toEqual([]);
    expect(await listFiles(dir)).toEqual([]);
  });

  it('writes the day to s3://bucket/prefix with the SDK configured from the environment', async () => {
    const bucket = await aws.createBucket();
    const handler = await loadHandler(`s3://${bucket}/nightly`, {
      AWS_ENDPOINT_URL_S3: aws.endpoint,
      AWS_REGION: TEST_REGION,
      AWS_ACCESS_KEY_ID: 'test',
      AWS_SECRET_ACCESS_KEY: 'test',
      AWS_REQUEST_CHECKSUM_CALCULATION: 'WHEN_REQUIRED',
      AWS_RESPONSE_CHECKSUM_VALIDATION: 'WHEN_REQUIRED',
      AWS_EC2_METADATA_DISABLED: 'true',
    });

    const result = await handler(scheduledEvent(EVENT_TIME), lambdaContext());

    expect(result.ok).toBe(true);
    const destination = createS3Destination({ bucket, prefix: 'nightly', client: aws.s3 });
    for (const projectId of PROJECTS) {
      expectDayMatches(await readDestinationDay(destination, projectId, TARGET_DAY), sandbox, projectId, TARGET_DAY);
      expect(await destination.exists(`_manifests/visitors/dt=${TARGET_DAY}/${projectId}.json`)).toBe(true);
    }
  });

  it('never writes the API key to its logs, its result, its error or its files', async () => {
    const dir = await makeTempDir();
    const handler = await loadHandler(dir);
    const output: string[] = [];
    for (const stream of [process.stdout, process.stderr]) {
      vi.spyOn(stream, 'write').mockImplementation((chunk: string | Uint8Array) => {
        output.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
        return true;
      });
    }
    sandbox.addFault({ route: 'visitors', projectId: 'proj_b', kind: 'rate-limit', offset: 0 });
    sandbox.addFault({ route: 'visitors', projectId: 'proj_a', kind: 'status', status: 401 });

    const error = await handler(scheduledEvent(EVENT_TIME), lambdaContext()).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    vi.restoreAllMocks();

    const logs = output.join('');
    expect(error).toMatchObject({ name: 'ExportIncompleteError' });
    expect(logs).toContain('retrying API request');
    expect(logs).toContain('day failed');
    expect(logs).not.toContain(API_KEY);
    expect(String((error as Error).message)).not.toContain(API_KEY);
    expect(await filesContaining(dir, API_KEY)).toEqual([]);
    expect(await manifestDays(dir)).toEqual([`_manifests/visitors/dt=${TARGET_DAY}/proj_b.json`]);
  });
});
