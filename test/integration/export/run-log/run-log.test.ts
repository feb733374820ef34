/**
 * The run log (issue 11): every export run — `runExport`, the CLI, the hourly and manual
 * Lambda invokes — appends one JSON record under `<dest>/export_runs/dt=YYYY-MM-DD/<runId>.json`
 * when it ends, also when a unit fails and when the run itself throws. Runs go over real HTTP
 * on 127.0.0.1 to the sandbox, into a local directory and into the S3 emulator (fauxqs); the
 * Lambda's state table lives in dynalite. Every record is read back by DuckDB with the Glue
 * types of `export_runs`, mapped from tables.ts through the same function that writes the
 * Glue table, so a column that drifts from what the writer puts fails here.
 */
import { GetObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createExportDeps } from '../../../../functions/export/deps.js';
import { createHandler } from '../../../../functions/export/handler.js';
import type { RunRecord } from '../../../../functions/export/run-log.js';
import type { ExportPolicy, RunControl } from '../../../../functions/export/policy.js';
import { runExport, type RunRequest, type RunResult } from '../../../../functions/export/run.js';
import type { BudgetSpec } from '../../../../functions/shared/pacing/budget-spec.js';
import { loadConfig } from '../../../../functions/settings/config.js';
import type { Destination } from '../../../../functions/shared/storage/destination.js';
import { createLocalDestination } from '../../../../functions/shared/storage/destination-local.js';
import { createS3Destination } from '../../../../functions/shared/storage/destination-s3.js';
import { DestinationError } from '../../../../functions/shared/errors.js';
import { EXPORT_RUNS } from '../../../../functions/warehouse/tables.js';
import { glueTypeOf } from '../../../../infra/constructs/warehouse.js';
import { startSandbox, type Sandbox } from '../../../../sandbox/index.js';
import { runCliAt } from '../../../helpers/cli.js';
import { fakeClock, type FakeClock } from '../../../helpers/clock.js';
import { createStateTable, startDynamo, type Dynamo } from '../../../helpers/emulators.js';
import { startS3Sqs, type S3Sqs } from '../../../../scripts/lib/s3-sqs.js';
import { exportFunctionEnv } from '../../../helpers/env.js';
import { filesContaining, listFiles, makeTempDir, removeTempDirs } from '../../../helpers/files.js';
import { lambdaContext, scheduledEvent } from '../../../helpers/lambda-events.js';
import { aRunRecord, runRecordsIn } from '../../../helpers/layout.js';
import { queryDuckDb } from '../../../helpers/read-back.js';
import { exportDeps, testSettings } from '../../../helpers/run-deps.js';

/** A distinctive key, so any leak of it is easy to find. */
const API_KEY = 'mint_runlogtest_S3CR3T_7e6d5c4b3a29';
/** 300 rows: two pages (offsets 0 and 250). */
const TWO_PAGES = 'proj_a';
/** 40 rows: one page. */
const ONE_PAGE = 'proj_b';
const DAY = '2026-02-10';
const STARTED_AT = Date.parse('2026-02-12T02:30:00.000Z');
/** The UTC day the runs above start on: the record's `dt` folder. */
const RUN_DAY = '2026-02-12';
/** The hourly event (and the Lambda's clock) for the handler tests. */
const EVENT_TIME = '2026-03-01T02:30:00.000Z';
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

let sandbox: Sandbox;
let aws: S3Sqs;
let dynamo: Dynamo;

beforeAll(async () => {
  [sandbox, aws, dynamo] = await Promise.all([
    startSandbox({
      apiKey: API_KEY,
      projects: [
        { id: TWO_PAGES, paths: 300, exact: true },
        { id: ONE_PAGE, paths: 40, exact: true },
      ],
    }),
    startS3Sqs(),
    startDynamo(),
  ]);
});

afterEach(async () => {
  vi.useRealTimers();
  sandbox.clearFaults();
  sandbox.clearRequests();
  await removeTempDirs();
});

afterAll(async () => {
  await Promise.all([sandbox?.close(), aws?.close(), dynamo?.close()]);
});

// --- Glue types → DuckDB types ---------------------------------------------------------------

/** DuckDB's type for a Glue/Hive type string (`bigint`, `array<struct<a:string>>`, …). */
function duckDbTypeOf(glueType: string): string {
  const scalars: Record<string, string> = {
    string: 'VARCHAR',
    bigint: 'BIGINT',
    timestamp: 'TIMESTAMP',
    date: 'DATE',
    double: 'DOUBLE',
    boolean: 'BOOLEAN',
  };
  const scalar = scalars[glueType];
  if (scalar !== undefined) return scalar;
  const array = /^array<(.*)>$/.exec(glueType);
  if (array) return `${duckDbTypeOf(array[1] ?? '')}[]`;
  const struct = /^struct<(.*)>$/.exec(glueType);
  if (struct) {
    const fields = splitTopLevel(struct[1] ?? '').map((field) => {
      const colon = field.indexOf(':');
      return `"${field.slice(0, colon)}" ${duckDbTypeOf(field.slice(colon + 1))}`;
    });
    return `STRUCT(${fields.join(', ')})`;
  }
  throw new Error(`no DuckDB type for the Glue type ${glueType}: extend duckDbTypeOf`);
}

/** `a:string,b:array<x>` → `['a:string', 'b:array<x>']` (commas inside `<…>` kept). */
function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '<') depth++;
    else if (text[i] === '>') depth--;
    else if (text[i] === ',' && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
}

/** `export_runs` as the Glue table declares it, in DuckDB types, in column order. */
const RUN_LOG_COLUMNS: readonly (readonly [string, string])[] = EXPORT_RUNS.columns.map((column) => [
  column.name,
  duckDbTypeOf(glueTypeOf(column).inputString),
]);

function sqlString(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

/** `read_json` over every record under `root`, with the Glue types, `dt` from the folder. */
function runLogSource(root: string): string {
  const columns = RUN_LOG_COLUMNS.map(([name, type]) => `${sqlString(name)}: ${sqlString(type)}`).join(', ');
  const glob = path.join(root, 'export_runs', '*', '*.json');
  return `read_json(${sqlString(glob)}, format = 'newline_delimited', columns = {${columns}}, hive_partitioning = true)`;
}

/** Every record under `root`, read by DuckDB with the Glue types, oldest run first. */
async function readRunLog(root: string): Promise<Record<string, unknown>[]> {
  return queryDuckDb(`SELECT * FROM ${runLogSource(root)} ORDER BY started_at, run_id`);
}

// --- destinations ----------------------------------------------------------------------------

interface Target {
  readonly destination: Destination;
  /** Keys written, relative to the destination, sorted. */
  keys(): Promise<string[]>;
  /** A local folder holding a copy of everything written (the folder itself when local). */
  copy(): Promise<string>;
}

async function localTarget(): Promise<Target> {
  const dir = await makeTempDir('run-log');
  return { destination: createLocalDestination(dir), keys: () => listFiles(dir), copy: async () => dir };
}

async function s3Target(): Promise<Target> {
  const bucket = await aws.createBucket();
  const prefix = 'warehouse/mintlify';
  const keys = async () => {
    const listed = await aws.s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: `${prefix}/` }));
    return (listed.Contents ?? []).map((object) => (object.Key ?? '').slice(prefix.length + 1)).sort();
  };
  return {
    destination: createS3Destination({ bucket, prefix, client: aws.s3 }),
    keys,
    async copy() {
      const dir = await makeTempDir('run-log-s3');
      for (const key of await keys()) {
        const response = await aws.s3.send(new GetObjectCommand({ Bucket: bucket, Key: `${prefix}/${key}` }));
        const file = path.join(dir, ...key.split('/'));
        await mkdir(path.dirname(file), { recursive: true });
        await writeFile(file, await response.Body!.transformToByteArray());
      }
      return dir;
    },
  };
}

/** A destination whose reads fail: planning (which reads the manifests) throws, writes work. */
function unreadable(inner: Destination): Destination {
  const refuse = async (): Promise<never> => {
    throw new DestinationError(`cannot read ${inner.url}: injected read failure`);
  };
  return {
    url: inner.url,
    openWrite: (key, options) => inner.openWrite(key, options),
    put: (key, body, options) => inner.put(key, body, options),
    get: refuse,
    exists: refuse,
    list: refuse,
    delete: (key) => inner.delete(key),
    probe: () => inner.probe(),
  };
}

interface RunOptions {
  readonly clock?: FakeClock;
  readonly budget?: BudgetSpec;
  readonly settings?: Partial<ExportPolicy>;
  readonly control?: RunControl;
}

/** One `runExport` of visitors for `days` × `projects` (forced) into `destination`, on a fake clock at STARTED_AT. */
function exportRun(destination: Destination, days: string[], projects: string[], options: RunOptions = {}): Promise<RunResult> {
  const deps = exportDeps({
    sandbox,
    destination,
    clock: options.clock ?? fakeClock(STARTED_AT),
    ...(options.budget ? { budget: options.budget } : {}),
  });
  const request: RunRequest = { kind: 'days', days, projects, force: true };
  return runExport(request, testSettings(options.settings), options.control ?? {}, deps);
}

/** The record as written (parsed JSON) of every run under `root`, oldest first. */
async function writtenRecords(root: string): Promise<RunRecord[]> {
  const files = runRecordsIn(await listFiles(root));
  const records = await Promise.all(files.map(async (file) => JSON.parse(await readFile(path.join(root, file), 'utf8')) as RunRecord));
  return records.sort((a, b) => a.started_at.localeCompare(b.started_at) || a.run_id.localeCompare(b.run_id));
}

/** The one record under `root` (fails unless there is exactly one). */
async function onlyRecord(root: string): Promise<RunRecord> {
  const records = await writtenRecords(root);
  expect(records).toHaveLength(1);
  return records[0] as RunRecord;
}

/** What DuckDB reads for a record of a run that started at STARTED_AT and took no time, with these counts. */
function expectedRow(fields: Partial<RunRecord>): Record<string, unknown> {
  return {
    run_id: expect.stringMatching(/^2026-02-12T02-30-00Z-[0-9a-f]{8}$/),
    trigger: 'cli',
    started_at: new Date(STARTED_AT).toISOString(),
    finished_at: new Date(STARTED_AT).toISOString(),
    units_done: 0,
    units_partial: 0,
    units_failed: 0,
    units_skipped: 0,
    requests: 0,
    retries: 0,
    rate_limited: 0,
    budget_wait_ms: 0,
    backlog_requests: 0,
    failures: [],
    units_drift: 0,
    failed_requests: 0,
    iceberg_statements: null,
    ...fields,
    dt: RUN_DAY,
  };
}

// --- the runs ---------------------------------------------------------------------------------

describe.each([
  ['a local directory', localTarget],
  ['the S3 emulator', s3Target],
])('the run log in %s', (_name, openTarget) => {
  it('records a run that completes every unit, with its units and requests', async () => {
    const target = await openTarget();

    const result = await exportRun(target.destination, [DAY], [TWO_PAGES, ONE_PAGE]);

    expect(runRecordsIn(await target.keys())).toEqual([aRunRecord(STARTED_AT)]);
    const rows = await readRunLog(await target.copy());
    expect(rows).toEqual([expectedRow({ run_id: result.runId, units_done: 2, requests: 3 })]);
  });

  it('records a run in which a unit fails, naming its dataset, project, day and error', async () => {
    const target = await openTarget();
    sandbox.addFault({ route: 'visitors', projectId: TWO_PAGES, kind: 'repeat-page', offset: 250, times: Infinity });

    const result = await exportRun(target.destination, [DAY], [TWO_PAGES, ONE_PAGE]);

    expect(result.failed).toBe(1);
    expect(runRecordsIn(await target.keys())).toEqual([aRunRecord(STARTED_AT)]);
    const rows = await readRunLog(await target.copy());
    expect(rows).toEqual([
      expectedRow({
        units_done: 1,
        units_failed: 1,
        requests: 3,
        // A unit that failed is still to do: its estimate stays in the backlog.
        backlog_requests: 1,
        failures: [{ dataset: 'visitors', project_id: TWO_PAGES, date: DAY, error: expect.stringMatching(/^PaginationError: visitors proj_a 2026-02-10: /) }],
        // Both pages of the failed unit (the second repeats the first).
        failed_requests: 2,
      }),
    ]);
  });

  it('counts the units whose answers had fields or values this version does not know', async () => {
    const target = await openTarget();
    sandbox.addFault({ route: 'visitors', projectId: TWO_PAGES, kind: 'drift', times: Infinity });

    const result = await exportRun(target.destination, [DAY], [TWO_PAGES, ONE_PAGE]);

    expect(result.driftUnits).toBe(1);
    const rows = await readRunLog(await target.copy());
    expect(rows).toEqual([expectedRow({ run_id: result.runId, units_done: 2, requests: 3, units_drift: 1 })]);
  });

  it('never writes the API key, even when the failed request answered with it', async () => {
    const target = await openTarget();
    sandbox.addFault({ route: 'visitors', projectId: ONE_PAGE, kind: 'status', status: 400, error: `invalid key ${API_KEY} for this project` });

    await exportRun(target.destination, [DAY], [ONE_PAGE]);

    const copy = await target.copy();
    const [row] = await readRunLog(copy);
    expect(row?.['failures']).toEqual([
      { dataset: 'visitors', project_id: ONE_PAGE, date: DAY, error: expect.stringContaining('invalid key [redacted] for this project') },
    ]);
    expect(await filesContaining(copy, API_KEY)).toEqual([]);
  });

  it('records a run that throws while planning, with one failure of null dataset, project and day, and still throws', async () => {
    const target = await openTarget();

    const run = exportRun(unreadable(target.destination), [DAY], [ONE_PAGE]);

    await expect(run).rejects.toMatchObject({ name: 'DestinationError' });
    expect(runRecordsIn(await target.keys())).toEqual([aRunRecord(STARTED_AT)]);
    const rows = await readRunLog(await target.copy());
    expect(rows).toEqual([
      expectedRow({
        failures: [{ dataset: null, project_id: null, date: null, error: expect.stringMatching(/^DestinationError: cannot read .*injected read failure$/) }],
      }),
    ]);
    expect(sandbox.requests).toEqual([]);
  });
});

describe('the record itself', () => {
  it('is one line of JSON whose keys are the columns of export_runs, in order, with ISO timestamps to the millisecond', async () => {
    const dir = await makeTempDir('run-log');

    await exportRun(createLocalDestination(dir), [DAY], [ONE_PAGE]);

    const [file] = runRecordsIn(await listFiles(dir));
    const text = await readFile(path.join(dir, file ?? ''), 'utf8');
    expect(text.endsWith('\n')).toBe(true);
    expect(text.trimEnd()).not.toContain('\n');
    const record = JSON.parse(text) as Record<string, unknown>;
    expect(Object.keys(record)).toEqual(EXPORT_RUNS.columns.map((column) => column.name));
    expect(record['started_at']).toMatch(ISO_MS);
    expect(record['finished_at']).toMatch(ISO_MS);
  });

  it('is named after its run id under the day the run started', async () => {
    const dir = await makeTempDir('run-log');

    const result = await exportRun(createLocalDestination(dir), [DAY], [ONE_PAGE]);

    expect(runRecordsIn(await listFiles(dir))).toEqual([`export_runs/dt=${RUN_DAY}/${result.runId}.json`]);
  });

  it('reads back in DuckDB with the Glue types of export_runs, one row per run', async () => {
    const dir = await makeTempDir('run-log');
    const destination = createLocalDestination(dir);
    await exportRun(destination, [DAY], [ONE_PAGE], { clock: fakeClock(STARTED_AT) });
    sandbox.addFault({ route: 'visitors', projectId: ONE_PAGE, kind: 'empty-page-has-more', times: Infinity });
    await exportRun(destination, [DAY], [TWO_PAGES, ONE_PAGE], { clock: fakeClock(STARTED_AT + 3_600_000) });
    await exportRun(unreadable(destination), [DAY], [ONE_PAGE], { clock: fakeClock(STARTED_AT + 7_200_000) }).catch(() => undefined);

    const described = await queryDuckDb(`DESCRIBE SELECT * FROM ${runLogSource(dir)}`);
    const rows = await readRunLog(dir);

    const unquoted = (type: string) => type.replaceAll('"', '');
    expect(described.map((row) => [row['column_name'], unquoted(String(row['column_type']))])).toEqual([
      ...RUN_LOG_COLUMNS.map(([name, type]) => [name, unquoted(type)]),
      ['dt', 'DATE'],
    ]);
    const written = await writtenRecords(dir);
    expect(written).toHaveLength(3);
    expect(rows).toEqual(written.map((record) => ({ ...record, dt: RUN_DAY })));
  });
});

describe('the numbers of a run', () => {
  it('counts every request, the 429 received, the retry it caused and the pause it asked for', async () => {
    const dir = await makeTempDir('run-log');
    sandbox.addFault({ route: 'visitors', projectId: TWO_PAGES, kind: 'rate-limit', retryAfter: 30, offset: 250 });

    await exportRun(createLocalDestination(dir), [DAY], [TWO_PAGES]);

    expect(await onlyRecord(dir)).toMatchObject({
      units_done: 1,
      requests: 3,
      retries: 1,
      rate_limited: 1,
      budget_wait_ms: 30_000,
      finished_at: new Date(STARTED_AT + 30_000).toISOString(),
    });
  });

  it('adds up the time spent waiting for the request budget, on the fake clock', async () => {
    const dir = await makeTempDir('run-log');
    const oneAnHour: BudgetSpec = { requests: 1, windowMs: 3_600_000, text: '1/1h' };

    await exportRun(createLocalDestination(dir), [DAY, '2026-02-11'], [ONE_PAGE], { budget: oneAnHour });

    expect(await onlyRecord(dir)).toMatchObject({
      units_done: 2,
      requests: 2,
      rate_limited: 0,
      budget_wait_ms: 3_600_000,
      finished_at: new Date(STARTED_AT + 3_600_000).toISOString(),
    });
  });

  it('estimates the requests of the units the deadline left unstarted from the last complete day', async () => {
    const dir = await makeTempDir('run-log');
    const destination = createLocalDestination(dir);
    // A complete day of two pages: the estimate of the next days of that project.
    await exportRun(destination, ['2026-02-09'], [TWO_PAGES], { clock: fakeClock(STARTED_AT - 60_000) });
    sandbox.clearRequests();

    await exportRun(destination, [DAY, '2026-02-11'], [TWO_PAGES], { control: { deadline: STARTED_AT } });

    const records = await writtenRecords(dir);
    expect(records).toHaveLength(2);
    expect(records[1]).toMatchObject({ units_done: 0, units_partial: 0, units_skipped: 2, requests: 0, backlog_requests: 4, failures: [] });
    expect(sandbox.requests).toEqual([]);
  });
});

// --- triggers ----------------------------------------------------------------------------------

type Handler = (event: unknown, context: ReturnType<typeof lambdaContext>) => Promise<RunResult>;

/** The export Lambda as deployed (state table in dynalite) writing into `dir`, its clock at EVENT_TIME. */
async function loadHandler(dir: string): Promise<Handler> {
  const stateTable = await createStateTable(dynamo.client);
  const config = loadConfig(exportFunctionEnv({ apiUrl: sandbox.url, projectIds: ONE_PAGE, destination: dir, stateTable }, { MINTLIFY_API_KEY: API_KEY }));
  const handler = createHandler(createExportDeps(config, { dynamo: () => dynamo.client }));
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(new Date(EVENT_TIME));
  return handler;
}

/** Silences the handler's log lines and metrics (stdout) for the duration of `work`. */
async function quietly<T>(work: () => Promise<T>): Promise<T> {
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
  try {
    return await work();
  } finally {
    spy.mockRestore();
  }
}

describe('the trigger of a run', () => {
  it('is cli for the CLI', async () => {
    const out = await makeTempDir('run-log-cli');

    const { code } = await runCliAt(sandbox, ['export', '--date', DAY, '--project', ONE_PAGE, '--out', out], {
      now: STARTED_AT,
      env: { EXPORT_DATASETS: 'visitors' },
    });

    expect(code).toBe(0);
    expect(runRecordsIn(await listFiles(out))).toEqual([aRunRecord(STARTED_AT)]);
    expect(await onlyRecord(out)).toMatchObject({ trigger: 'cli', units_done: 1, requests: 1 });
  });

  it('is schedule for the hourly scheduled event', async () => {
    const dir = await makeTempDir('run-log-lambda');
    const handler = await loadHandler(dir);

    await quietly(() => handler(scheduledEvent(EVENT_TIME), lambdaContext()));

    expect(runRecordsIn(await listFiles(dir))).toEqual([aRunRecord(Date.parse(EVENT_TIME))]);
    expect(await onlyRecord(dir)).toMatchObject({ trigger: 'schedule', units_done: 1, requests: 1 });
  });

  it.each([
    ['a bare {} invoke', {}, 1],
    ['a {date} invoke', { date: '2026-02-20' }, 1],
    ['a {from, to} invoke', { from: '2026-02-20', to: '2026-02-22' }, 2],
  ])('is manual for %s', async (_name, event, days) => {
    const dir = await makeTempDir('run-log-lambda');
    const handler = await loadHandler(dir);

    await quietly(() => handler(event, lambdaContext()));

    expect(runRecordsIn(await listFiles(dir))).toEqual([aRunRecord(Date.parse(EVENT_TIME))]);
    expect(await onlyRecord(dir)).toMatchObject({ trigger: 'manual', units_done: days, requests: days, units_failed: 0 });
  });

  it('is recorded by the Lambda before it throws for a failed unit', async () => {
    const dir = await makeTempDir('run-log-lambda');
    const handler = await loadHandler(dir);
    sandbox.addFault({ route: 'visitors', projectId: ONE_PAGE, kind: 'empty-page-has-more', times: Infinity });

    const invocation = quietly(() => handler(scheduledEvent(EVENT_TIME), lambdaContext()));

    await expect(invocation).rejects.toMatchObject({ name: 'ExportIncompleteError' });
    expect(await onlyRecord(dir)).toMatchObject({
      trigger: 'schedule',
      units_failed: 1,
      failures: [{ dataset: 'visitors', project_id: ONE_PAGE, date: '2026-02-28', error: expect.stringMatching(/^PaginationError: /) }],
    });
  });
});
