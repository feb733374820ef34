/**
 * The hourly export's Lambda handler, in process, against the sandbox over real HTTP on
 * 127.0.0.1, a local directory or the S3 emulator, and its state table (budget ledger, unit
 * leases, backlog) in dynalite. Each test builds the handler from the configuration the deployed
 * function would have — with a fresh state table — and the emulators' clients
 * (`createExportDeps`); the tests of the deployed wiring itself (`handlerFromEnvironment`) give
 * the SDK its endpoints through the environment. Visitors only (`EXPORT_DATASETS`), the day due
 * two hours after it ends (`EXPORT_SETTLE_HOURS`), no heal window unless a test asks for one.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { BacklogEntry } from '../../../../functions/export/plan.js';
import { createExportDeps } from '../../../../functions/export/deps.js';
import { createHandler, handlerFromEnvironment } from '../../../../functions/export/handler.js';
import type { RunResult } from '../../../../functions/export/run.js';
import { loadConfig } from '../../../../functions/settings/config.js';
import { LEDGER_KEY, type LedgerDoc } from '../../../../functions/shared/pacing/budget.js';
import { createS3Destination } from '../../../../functions/shared/storage/destination-s3.js';
import { createDynamoStore } from '../../../../functions/shared/storage/shared-store-dynamo.js';
import type { SharedStore } from '../../../../functions/shared/storage/shared-store.js';
import { startSandbox, type Sandbox } from '../../../../sandbox/index.js';
import { createStateTable, startDynamo, type Dynamo } from '../../../helpers/emulators.js';
import { startS3Sqs, TEST_REGION, type S3Sqs } from '../../../../scripts/lib/s3-sqs.js';
import { exportFunctionEnv } from '../../../helpers/env.js';
import { expectDayMatches } from '../../../helpers/expected-rows.js';
import { filesContaining, listFiles, makeTempDir, removeTempDirs, tableFiles } from '../../../helpers/files.js';
import { lambdaContext, scheduledEvent } from '../../../helpers/lambda-events.js';
import { aRunRecord, runIndexOf, dayFiles } from '../../../helpers/layout.js';
import { readDestinationDay, readLocalDay } from '../../../helpers/read-back.js';
import { visitorRequests } from '../../../helpers/request-log.js';
import { statuses } from '../../../helpers/run-deps.js';

const API_KEY = 'mint_handlertest_S3CR3T_4a5b6c7d8e9f';
const PROJECTS = ['proj_a', 'proj_b'];
const EVENT_TIME = '2026-03-01T02:30:00Z';
/** Due at EVENT_TIME: it ended 2.5 h before, more than EXPORT_SETTLE_HOURS. */
const TARGET_DAY = '2026-02-28';

type Handler = (event: unknown, context: ReturnType<typeof lambdaContext>) => Promise<RunResult>;

let sandbox: Sandbox;
let aws: S3Sqs;
let dynamo: Dynamo;
const savedEnv = new Map<string, string | undefined>();

beforeAll(async () => {
  [sandbox, aws, dynamo] = await Promise.all([
    startSandbox({
      apiKey: API_KEY,
      projects: [
        { id: 'proj_a', paths: 300, exact: true },
        { id: 'proj_b', paths: 40, exact: true },
      ],
    }),
    startS3Sqs(),
    startDynamo(),
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
  await Promise.all([sandbox?.close(), aws?.close(), dynamo?.close()]);
});

/** Sets (a string) or removes (undefined) environment variables until the end of the test. */
function setEnv(env: Record<string, string | undefined>): void {
  for (const [name, value] of Object.entries(env)) {
    if (!savedEnv.has(name)) savedEnv.set(name, process.env[name]);
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
}

/** The configuration of the deployed function, writing to `destination`, its ledger in `table`. */
function functionEnv(destination: string, table: string, env: Record<string, string | undefined>): Record<string, string | undefined> {
  return exportFunctionEnv({ apiUrl: sandbox.url, projectIds: PROJECTS.join(','), destination, stateTable: table }, { MINTLIFY_API_KEY: API_KEY, ...env });
}

/**
 * The handler with the configuration the deployed function would have, a new state table and
 * the emulators' clients. Returns the handler and the state table as a store, to look into.
 */
async function loadHandler(destination: string, env: Record<string, string | undefined> = {}): Promise<{ handler: Handler; state: SharedStore }> {
  const table = await createStateTable(dynamo.client);
  const config = loadConfig(functionEnv(destination, table, env));
  const handler = createHandler(createExportDeps(config, { dynamo: () => dynamo.client, s3: aws.s3 }));
  return { handler, state: createDynamoStore({ tableName: table, client: dynamo.client }) };
}

/**
 * The deployed wiring: the handler reads `env` on its first invocation and the SDK clients
 * find the emulators through the process environment (`AWS_ENDPOINT_URL_*`), as in Lambda.
 */
async function loadDeployedHandler(destination: string, env: Record<string, string | undefined> = {}): Promise<Handler> {
  const table = await createStateTable(dynamo.client);
  setEnv({
    AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
    AWS_REGION: TEST_REGION,
    AWS_ACCESS_KEY_ID: 'test',
    AWS_SECRET_ACCESS_KEY: 'test',
    AWS_EC2_METADATA_DISABLED: 'true',
    POWERTOOLS_METRICS_NAMESPACE: 'MintlifyExporterTest',
    ...Object.fromEntries(Object.entries(env).filter(([name]) => name.startsWith('AWS_'))),
  });
  return handlerFromEnvironment(functionEnv(destination, table, env));
}

/** The distinct `dateFrom` of the visitors requests the sandbox saw, sorted. */
function requestedDays(): string[] {
  return [...new Set(visitorRequests(sandbox).map((entry) => entry.query['dateFrom'] ?? ''))].sort();
}

async function manifests(dir: string): Promise<string[]> {
  return (await listFiles(dir)).filter((file) => file.startsWith('_manifests/')).sort();
}

async function backlogOf(state: SharedStore): Promise<BacklogEntry[]> {
  return (await state.list<BacklogEntry>('backlog/')).map((item) => item.value);
}

describe('the hourly run', () => {
  it('exports the latest due day for every project', async () => {
    const dir = await makeTempDir();
    const { handler } = await loadHandler(dir);

    const result = await handler(scheduledEvent(EVENT_TIME), lambdaContext());

    expect(statuses(result)).toEqual([`visitors proj_a ${TARGET_DAY} complete`, `visitors proj_b ${TARGET_DAY} complete`]);
    expect(result.units.map((unit) => unit.reason)).toEqual(['latest', 'latest']);
    expect(requestedDays()).toEqual([TARGET_DAY]);
    for (const projectId of PROJECTS) {
      expectDayMatches(await readLocalDay(dir, projectId, TARGET_DAY), sandbox, projectId, TARGET_DAY);
    }
  });

  it('does not export a day until EXPORT_SETTLE_HOURS after it ends', async () => {
    const dir = await makeTempDir();
    const { handler } = await loadHandler(dir);

    const result = await handler(scheduledEvent('2026-03-01T01:30:00Z'), lambdaContext());

    expect(result.units.map((unit) => unit.day)).toEqual(['2026-02-27', '2026-02-27']);
    expect(requestedDays()).toEqual(['2026-02-27']);
  });

  it('sends no request for a day that is already complete', async () => {
    const dir = await makeTempDir();
    const { handler } = await loadHandler(dir);
    await handler(scheduledEvent(EVENT_TIME), lambdaContext());
    sandbox.clearRequests();

    const result = await handler(scheduledEvent('2026-03-01T03:30:00Z'), lambdaContext());

    expect(result).toMatchObject({ ok: true, units: [], requests: 0 });
    expect(sandbox.requests).toEqual([]);
  });

  it('plans from the event time, not the clock, when an event is retried after the next midnight', async () => {
    const dir = await makeTempDir();
    const { handler } = await loadHandler(dir);
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-03-01T02:30:04Z'));
    sandbox.addFault({ route: 'visitors', projectId: 'proj_a', kind: 'empty-page-has-more' });
    await expect(handler(scheduledEvent(EVENT_TIME), lambdaContext())).rejects.toMatchObject({ name: 'ExportIncompleteError' });
    sandbox.clearRequests();

    vi.setSystemTime(new Date('2026-03-02T03:00:00Z'));
    const retried = await handler(scheduledEvent(EVENT_TIME), lambdaContext());

    expect(statuses(retried)).toEqual([`visitors proj_a ${TARGET_DAY} complete`]);
    expect(requestedDays()).toEqual([TARGET_DAY]);
    expect(await manifests(dir)).toEqual(PROJECTS.map((id) => `_manifests/visitors/dt=${TARGET_DAY}/${id}.json`));
    const manifest = JSON.parse(await readFile(dayFiles(dir, 'proj_a', TARGET_DAY).manifest, 'utf8')) as { exportedAt: string };
    expect(manifest.exportedAt).toBe('2026-03-02T03:00:00.000Z');
  });

  it('also exports the heal-window days without a manifest and does not re-fetch the ones that have one', async () => {
    const dir = await makeTempDir();
    const { handler } = await loadHandler(dir, { EXPORT_HEAL_DAYS: '3' });
    await handler({ date: '2026-02-26' }, lambdaContext());
    sandbox.clearRequests();

    const result = await handler(scheduledEvent(EVENT_TIME), lambdaContext());

    expect(result.units.map((unit) => `${unit.reason} ${unit.day} ${unit.projectId} ${unit.status}`)).toEqual([
      `latest ${TARGET_DAY} proj_a complete`,
      `latest ${TARGET_DAY} proj_b complete`,
      'missing 2026-02-25 proj_a complete',
      'missing 2026-02-25 proj_b complete',
      'missing 2026-02-27 proj_a complete',
      'missing 2026-02-27 proj_b complete',
    ]);
    expect(requestedDays()).toEqual(['2026-02-25', '2026-02-27', TARGET_DAY]);
    expect(visitorRequests(sandbox, { day: '2026-02-26' })).toEqual([]);
    expect(result.missingDays).toBe(0);
    expect(await manifests(dir)).toHaveLength(8);
  });

  it('records every analytics request in the budget ledger of its state table', async () => {
    const dir = await makeTempDir();
    const { handler, state } = await loadHandler(dir);

    const result = await handler(scheduledEvent(EVENT_TIME), lambdaContext());

    const ledger = await state.get<LedgerDoc>(LEDGER_KEY);
    expect(result.requests).toBe(3);
    expect(ledger?.starts).toHaveLength(sandbox.requests.length);
    expect(sandbox.requests).toHaveLength(3);
  });

  it('starts no unit when the invocation has too little time left, and returns them pending without an error, writing only the run record', async () => {
    const dir = await makeTempDir();
    const { handler } = await loadHandler(dir);
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date(EVENT_TIME));

    const result = await handler(scheduledEvent(EVENT_TIME), lambdaContext(15_000));

    expect(result).toMatchObject({ ok: false, failed: 0, pending: 2, requests: 0 });
    expect(sandbox.requests).toEqual([]);
    expect(await listFiles(dir)).toEqual([runIndexOf(Date.parse(EVENT_TIME)), aRunRecord(Date.parse(EVENT_TIME))]);
  });

  it('throws after writing the other units when one fails, naming the failed one', async () => {
    const dir = await makeTempDir();
    const { handler } = await loadHandler(dir);
    sandbox.addFault({ route: 'visitors', projectId: 'proj_a', kind: 'empty-page-has-more', times: Infinity });

    const invocation = handler(scheduledEvent(EVENT_TIME), lambdaContext());

    await expect(invocation).rejects.toMatchObject({
      name: 'ExportIncompleteError',
      message: expect.stringContaining(`visitors proj_a ${TARGET_DAY}`),
    });
    expect(await manifests(dir)).toEqual([`_manifests/visitors/dt=${TARGET_DAY}/proj_b.json`]);
    expectDayMatches(await readLocalDay(dir, 'proj_b', TARGET_DAY), sandbox, 'proj_b', TARGET_DAY);
  });

  it('writes the day to s3://bucket/prefix with the SDK configured from the environment', async () => {
    const bucket = await aws.createBucket();
    const handler = await loadDeployedHandler(`s3://${bucket}/hourly`, {
      AWS_ENDPOINT_URL_S3: aws.endpoint,
      AWS_REQUEST_CHECKSUM_CALCULATION: 'WHEN_REQUIRED',
      AWS_RESPONSE_CHECKSUM_VALIDATION: 'WHEN_REQUIRED',
    });

    const result = await handler(scheduledEvent(EVENT_TIME), lambdaContext());

    expect(result.ok).toBe(true);
    const destination = createS3Destination({ bucket, prefix: 'hourly', client: aws.s3 });
    for (const projectId of PROJECTS) {
      expectDayMatches(await readDestinationDay(destination, projectId, TARGET_DAY), sandbox, projectId, TARGET_DAY);
      expect(await destination.exists(`_manifests/visitors/dt=${TARGET_DAY}/${projectId}.json`)).toBe(true);
    }
  });
});

describe('a manual invoke', () => {
  it('exports the one day of a {date} invoke for the configured projects', async () => {
    const dir = await makeTempDir();
    const { handler } = await loadHandler(dir);

    const result = await handler({ date: '2026-01-05' }, lambdaContext());

    expect(result.ok).toBe(true);
    expect(requestedDays()).toEqual(['2026-01-05']);
    for (const projectId of PROJECTS) expectDayMatches(await readLocalDay(dir, projectId, '2026-01-05'), sandbox, projectId, '2026-01-05');
  });

  it('exports the day of a {date} invoke again even when it is complete', async () => {
    const dir = await makeTempDir();
    const { handler } = await loadHandler(dir);
    await handler({ date: '2026-01-05' }, lambdaContext());
    sandbox.clearRequests();

    const result = await handler({ date: '2026-01-05' }, lambdaContext());

    expect(statuses(result)).toEqual(['visitors proj_a 2026-01-05 complete', 'visitors proj_b 2026-01-05 complete']);
    expect(requestedDays()).toEqual(['2026-01-05']);
  });

  it('exports every day of [from, to) of a {from, to} invoke', async () => {
    const dir = await makeTempDir();
    const { handler } = await loadHandler(dir);

    const result = await handler({ from: '2026-02-27', to: '2026-03-01', projects: ['proj_b'] }, lambdaContext());

    expect(result.units.map((unit) => unit.day)).toEqual(['2026-02-27', '2026-02-28']);
    for (const day of ['2026-02-27', '2026-02-28']) expectDayMatches(await readLocalDay(dir, 'proj_b', day), sandbox, 'proj_b', day);
    expect(await manifests(dir)).toHaveLength(2);
  });

  it('exports only the projects a {projects} invoke names', async () => {
    const dir = await makeTempDir();
    const { handler } = await loadHandler(dir);

    const result = await handler({ projects: ['proj_b'], date: TARGET_DAY }, lambdaContext());

    expect(result.units.map((unit) => unit.projectId)).toEqual(['proj_b']);
    expect(new Set(visitorRequests(sandbox).map((entry) => entry.projectId))).toEqual(new Set(['proj_b']));
    expect(await manifests(dir)).toEqual([`_manifests/visitors/dt=${TARGET_DAY}/proj_b.json`]);
  });

  it('keeps a request that does not fit in its run as a backlog entry', async () => {
    const dir = await makeTempDir();
    const { handler, state } = await loadHandler(dir);

    const result = await handler({ date: '2026-01-05' }, lambdaContext(15_000));

    expect(result).toMatchObject({ failed: 0, pending: 2 });
    expect(await backlogOf(state)).toMatchObject([{ days: ['2026-01-05'], projects: PROJECTS, datasets: ['visitors'] }]);
  });

  it('leaves no backlog entry once its request is complete', async () => {
    const dir = await makeTempDir();
    const { handler, state } = await loadHandler(dir);

    const result = await handler({ date: '2026-01-05' }, lambdaContext());

    expect(result.ok).toBe(true);
    expect(await backlogOf(state)).toEqual([]);
  });

  it('has its backlog drained by the next hourly run, which then removes the entry', async () => {
    const dir = await makeTempDir();
    const { handler, state } = await loadHandler(dir);
    await handler({ date: '2026-01-05' }, lambdaContext(15_000));

    const result = await handler(scheduledEvent(EVENT_TIME), lambdaContext());

    expect(result.units.map((unit) => `${unit.reason} ${unit.day} ${unit.projectId} ${unit.status}`)).toEqual([
      `latest ${TARGET_DAY} proj_a complete`,
      `latest ${TARGET_DAY} proj_b complete`,
      'backfill 2026-01-05 proj_a complete',
      'backfill 2026-01-05 proj_b complete',
    ]);
    for (const projectId of PROJECTS) expectDayMatches(await readLocalDay(dir, projectId, '2026-01-05'), sandbox, projectId, '2026-01-05');
    expect(await backlogOf(state)).toEqual([]);
  });
});

describe('refusals', () => {
  it.each([
    ['an impossible date', { date: '2026-02-30' }, /does not exist in the calendar/],
    ['an unknown field', { day: '2026-02-01' }, /invalid export event/],
    ['date together with from/to', { date: '2026-02-01', from: '2026-02-01', to: '2026-02-02' }, /either "date" or "from"\/"to"/],
    ['an empty range', { from: '2026-02-01', to: '2026-02-01' }, /"from" 2026-02-01 "to" 2026-02-01 is empty/],
    ['a scheduled event with a bad time', { ...scheduledEvent(EVENT_TIME), time: 'last night' }, /invalid "time"/],
  ])('refuses %s with a ConfigError saying what to send, before any request', async (_name, event, message) => {
    const dir = await makeTempDir();
    const { handler } = await loadHandler(dir);

    await expect(handler(event, lambdaContext())).rejects.toMatchObject({ name: 'ConfigError', message: expect.stringMatching(message) });
    expect(sandbox.requests).toEqual([]);
    expect(await listFiles(dir)).toEqual([]);
  });

  it('refuses to run without EXPORT_STATE_TABLE, where its budget ledger lives, before any request', async () => {
    const dir = await makeTempDir();
    const handler = await loadDeployedHandler(dir, { EXPORT_STATE_TABLE: undefined });

    const invocation = handler(scheduledEvent(EVENT_TIME), lambdaContext());

    await expect(invocation).rejects.toMatchObject({ name: 'ConfigError', message: expect.stringContaining('EXPORT_STATE_TABLE') });
    expect(sandbox.requests).toEqual([]);
  });

  it('fails before any request when the destination cannot be written', async () => {
    const dir = await makeTempDir();
    const notADirectory = path.join(dir, 'a-file');
    await writeFile(notADirectory, 'not a directory');
    const { handler } = await loadHandler(notADirectory);

    const invocation = handler(scheduledEvent(EVENT_TIME), lambdaContext());

    await expect(invocation).rejects.toMatchObject({ name: 'DestinationError' });
    expect(sandbox.requests).toEqual([]);
  });
});

describe('the API key', () => {
  it('never appears in the logs, the result, the error or the files', async () => {
    const dir = await makeTempDir();
    const { handler } = await loadHandler(dir);
    const output: string[] = [];
    for (const stream of [process.stdout, process.stderr]) {
      vi.spyOn(stream, 'write').mockImplementation((chunk: string | Uint8Array) => {
        output.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
        return true;
      });
    }
    // The 401 comes last: it stops the run (every unit would get it), after proj_a's retry.
    sandbox.addFault({ route: 'visitors', projectId: 'proj_a', kind: 'server-error', offset: 0 });
    sandbox.addFault({ route: 'visitors', projectId: 'proj_b', kind: 'status', status: 401 });

    const error = await handler(scheduledEvent(EVENT_TIME), lambdaContext()).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    vi.restoreAllMocks();

    const logs = output.join('');
    expect(error).toMatchObject({ name: 'ExportIncompleteError' });
    expect(logs).toContain('retrying API request');
    expect(logs).toContain('unit failed');
    expect(logs).not.toContain(API_KEY);
    expect(String((error as Error).message)).not.toContain(API_KEY);
    expect(await filesContaining(dir, API_KEY)).toEqual([]);
    expect((await tableFiles(dir)).filter((file) => file.startsWith('_manifests/'))).toEqual([`_manifests/visitors/dt=${TARGET_DAY}/proj_a.json`]);
  });
});
