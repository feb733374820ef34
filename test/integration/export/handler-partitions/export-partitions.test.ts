/**
 * Each committed day registered in Glue (functions/warehouse/partitions.ts): the hourly handler in
 * process, against the sandbox API, a local lake, its state table in dynalite, and the real
 * Glue SDK client talking to a loopback Glue stand-in (test/helpers/glue-stand-in.ts).
 * Visitors only: two tables (visitors_totals, visitors_pages), two projects a day; and the run
 * log's day (export_runs), registered by the run that wrote its record.
 */
import { GlueClient } from '@aws-sdk/client-glue';
import type { Metrics } from '@aws-lambda-powertools/metrics';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createExportDeps } from '../../../../functions/export/deps.js';
import { createHandler } from '../../../../functions/export/handler.js';
import { PENDING_PARTITIONS_PREFIX, type PendingPartition } from '../../../../functions/warehouse/partitions.js';
import { loadConfig } from '../../../../functions/settings/config.js';
import { EXPORT_METRICS } from '../../../../functions/shared/metric-names.js';
import { createDynamoStore } from '../../../../functions/shared/storage/shared-store-dynamo.js';
import { startSandbox, type Sandbox } from '../../../../sandbox/index.js';
import { createStateTable, startDynamo, type Dynamo } from '../../../helpers/emulators.js';
import { TEST_REGION } from '../../../../scripts/lib/s3-sqs.js';
import { exportFunctionEnv } from '../../../helpers/env.js';
import { listFiles, makeTempDir, removeTempDirs } from '../../../helpers/files.js';
import { parquetTable, startGlueStandIn, type GlueStandIn } from '../../../helpers/glue-stand-in.js';
import { lambdaContext, scheduledEvent } from '../../../helpers/lambda-events.js';
import { statuses } from '../../../helpers/run-deps.js';

const API_KEY = 'mint_partitiontest_S3CR3T_1a2b3c4d';
const PROJECTS = ['proj_a', 'proj_b'];
const DATABASE = 'mintlify_analytics';
const LAKE = 's3://lake-bucket/mintlify';
const EVENT_TIME = '2026-03-01T02:30:00Z';
const DAY = '2026-02-28';
/** The next hour: nothing new is due. */
const NEXT_HOUR = '2026-03-01T03:30:00Z';

let sandbox: Sandbox;
let dynamo: Dynamo;
let glue: GlueStandIn;

beforeAll(async () => {
  [sandbox, dynamo, glue] = await Promise.all([
    startSandbox({
      apiKey: API_KEY,
      projects: [
        { id: 'proj_a', paths: 30, exact: true },
        { id: 'proj_b', paths: 20, exact: true },
      ],
    }),
    startDynamo(),
    startGlueStandIn(DATABASE, {
      visitors_totals: parquetTable(`${LAKE}/visitors_totals/`),
      visitors_pages: parquetTable(`${LAKE}/visitors_pages`),
      export_runs: parquetTable(`${LAKE}/export_runs/`),
    }),
  ]);
});

afterEach(async () => {
  glue.calls.length = 0;
  await removeTempDirs();
});

afterAll(async () => {
  await Promise.all([sandbox?.close(), dynamo?.close(), glue?.close()]);
});

/** Metrics as the handler adds them, by name (the last value): Powertools' own, published nowhere. */
function recordingMetrics() {
  const added = new Map<string, number>();
  const metrics: Pick<Metrics, 'addMetric' | 'publishStoredMetrics'> = {
    addMetric(name, _unit, value) {
      added.set(name, value);
      return metrics as Metrics;
    },
    publishStoredMetrics: () => metrics as Metrics,
  };
  return { added, metrics };
}

/** The handler as deployed, with `env` on top, the Glue client at the stand-in. */
async function loadHandler(env: Record<string, string | undefined> = { EXPORT_GLUE_DATABASE: DATABASE }) {
  const dir = await makeTempDir();
  const table = await createStateTable(dynamo.client);
  const config = loadConfig(
    exportFunctionEnv({ apiUrl: sandbox.url, projectIds: PROJECTS.join(','), destination: dir, stateTable: table }, { MINTLIFY_API_KEY: API_KEY, ...env }),
  );
  const client = new GlueClient({ endpoint: glue.endpoint, region: TEST_REGION, credentials: { accessKeyId: 'test', secretAccessKey: 'test' } });
  const recorded = recordingMetrics();
  const handler = createHandler({ ...createExportDeps(config, { dynamo: () => dynamo.client, glue: client }), metrics: recorded.metrics });
  return { handler, dir, metrics: recorded.added, state: createDynamoStore({ tableName: table, client: dynamo.client }) };
}

const allBatchCalls = () =>
  glue.calls.filter((call) => call.target === 'AWSGlue.BatchCreatePartition').map((call) => `${call.table} ${call.partitions.join(';')}`);
/** The dataset tables' registrations (the run log's are {@link runLogCalls}). */
const batchCalls = () => allBatchCalls().filter((call) => !call.startsWith('export_runs '));
const runLogCalls = () => allBatchCalls().filter((call) => call.startsWith('export_runs '));
/** The days of the run records in the lake at `dir`. */
const runDays = async (dir: string) => [...new Set((await listFiles(dir)).flatMap((file) => /^export_runs\/dt=([\d-]+)\//.exec(file)?.[1] ?? []))];

describe('each committed day is registered in Glue', () => {
  it("calls BatchCreatePartition for each table of each committed unit, with the table's descriptor at the day's folder", async () => {
    const { handler, metrics, state, dir } = await loadHandler();
    glue.partitions(DATABASE, 'visitors_totals').clear();
    glue.partitions(DATABASE, 'visitors_pages').clear();

    const result = await handler(scheduledEvent(EVENT_TIME), lambdaContext());

    expect(statuses(result)).toEqual([`visitors proj_a ${DAY} complete`, `visitors proj_b ${DAY} complete`]);
    // Once per committed unit and table: the second project's unit finds the partition there.
    expect(batchCalls()).toEqual([`visitors_totals ${DAY}`, `visitors_pages ${DAY}`, `visitors_totals ${DAY}`, `visitors_pages ${DAY}`]);
    const partition = glue.partitions(DATABASE, 'visitors_pages').get(DAY);
    expect(partition?.storageDescriptor).toEqual({ ...parquetTable('').storageDescriptor, Location: `${LAKE}/visitors_pages/dt=${DAY}/` });
    expect(glue.partitions(DATABASE, 'visitors_totals').get(DAY)?.storageDescriptor['Location']).toBe(`${LAKE}/visitors_totals/dt=${DAY}/`);
    // The run log's day, registered by the run that wrote it (once).
    const [runDay] = await runDays(dir);
    expect(runLogCalls()).toEqual([`export_runs ${runDay}`]);
    expect(glue.partitions(DATABASE, 'export_runs').get(runDay as string)?.storageDescriptor['Location']).toBe(`${LAKE}/export_runs/dt=${runDay}/`);
    // "Already exists" is a success: nothing failed, nothing left for the next run.
    expect(metrics.get(EXPORT_METRICS.partitionsFailed)).toBe(0);
    expect(await state.list(PENDING_PARTITIONS_PREFIX)).toEqual([]);
  });

  it('leaves the registrations of a run whose Glue does not answer to the next run, after one call — the units stay committed', async () => {
    const { handler, dir, metrics, state } = await loadHandler();
    glue.partitions(DATABASE, 'visitors_totals').clear();
    glue.partitions(DATABASE, 'visitors_pages').clear();
    glue.partitions(DATABASE, 'export_runs').clear();
    // proj_a's first registration fails after the SDK's three attempts; the run calls Glue no more.
    glue.failNext(3, 'unavailable');

    const result = await handler(scheduledEvent(EVENT_TIME), lambdaContext());

    expect(result.ok).toBe(true);
    expect((await listFiles(dir)).filter((file) => file.startsWith('_manifests/'))).toHaveLength(2);
    expect(batchCalls()).toEqual([`visitors_totals ${DAY}`, `visitors_totals ${DAY}`, `visitors_totals ${DAY}`]);
    // Four of the units, and the run log's day (not tried: Glue did not answer).
    expect(metrics.get(EXPORT_METRICS.partitionsFailed)).toBe(5);
    const [runDay] = await runDays(dir);
    const pending = (await state.list<PendingPartition>(PENDING_PARTITIONS_PREFIX)).map(
      (item) => `${item.value.table} ${item.value.day} ${item.value.attempts}`,
    );
    expect(pending.sort()).toEqual([`export_runs ${runDay} 1`, `visitors_pages ${DAY} 2`, `visitors_totals ${DAY} 2`]);
    glue.calls.length = 0;

    const next = await handler(scheduledEvent(NEXT_HOUR), lambdaContext());

    expect(next.units).toEqual([]);
    expect(batchCalls().sort()).toEqual([`visitors_pages ${DAY}`, `visitors_totals ${DAY}`]);
    expect(glue.partitions(DATABASE, 'visitors_pages').has(DAY)).toBe(true);
    expect(glue.partitions(DATABASE, 'visitors_totals').has(DAY)).toBe(true);
    expect(glue.partitions(DATABASE, 'export_runs').has(runDay as string)).toBe(true);
    expect(metrics.get(EXPORT_METRICS.partitionsFailed)).toBe(0);
    expect(await state.list(PENDING_PARTITIONS_PREFIX)).toEqual([]);
  });

  it('keeps a partition Glue refused for the next run, and clears it when another unit of the day registers it', async () => {
    const { handler, metrics, state } = await loadHandler();
    glue.partitions(DATABASE, 'visitors_totals').clear();
    glue.partitions(DATABASE, 'visitors_pages').clear();
    // proj_a's visitors_totals is refused (a per-entry error, Glue answers); proj_b's registers it.
    glue.failNext(1, 'refused');

    const result = await handler(scheduledEvent(EVENT_TIME), lambdaContext());

    expect(result.ok).toBe(true);
    expect(batchCalls()).toEqual([`visitors_totals ${DAY}`, `visitors_pages ${DAY}`, `visitors_totals ${DAY}`, `visitors_pages ${DAY}`]);
    expect(metrics.get(EXPORT_METRICS.partitionsFailed)).toBe(1);
    expect(glue.partitions(DATABASE, 'visitors_totals').has(DAY)).toBe(true);
    expect(await state.list(PENDING_PARTITIONS_PREFIX)).toEqual([]);
  });

  it('registers nothing without EXPORT_GLUE_DATABASE', async () => {
    const { handler, metrics } = await loadHandler({});

    const result = await handler(scheduledEvent(EVENT_TIME), lambdaContext());

    expect(result.ok).toBe(true);
    expect(glue.calls).toEqual([]);
    expect(metrics.has(EXPORT_METRICS.partitionsFailed)).toBe(false);
  });
});
