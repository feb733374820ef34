/**
 * The Iceberg tables kept in step through Athena (functions/export/iceberg/): the hourly handler
 * in process against the sandbox API, a local lake, its state table in dynalite, and the real
 * `@aws-sdk/client-athena` talking to a loopback Athena stand-in (test/helpers/athena-stand-in.ts)
 * — and the Glue stand-in for the partitions the same run registers. One MERGE per table and
 * batch of at most 100 days; a failed one kept in the state, counted, and run again by the next
 * run; the weekly OPTIMIZE and VACUUM on a scheduled run; retention's and `forget`'s DELETEs.
 */
import { AthenaClient } from '@aws-sdk/client-athena';
import { GlueClient } from '@aws-sdk/client-glue';
import type { Metrics } from '@aws-lambda-powertools/metrics';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createExportDeps } from '../../../functions/export/deps.js';
import { forgetPeople } from '../../../functions/export/forget/index.js';
import { createHandler } from '../../../functions/export/handler.js';
import { exportPolicy } from '../../../functions/export/policy.js';
import { PENDING_EXPIRY_PREFIX, PENDING_MERGES_PREFIX, type PendingStatement } from '../../../functions/export/iceberg/pending.js';
import { createIcebergSync } from '../../../functions/export/iceberg/sync.js';
import { loadConfig } from '../../../functions/settings/config.js';
import { addDays } from '../../../functions/shared/dates.js';
import { EXPORT_METRICS } from '../../../functions/shared/metric-names.js';
import { hmacOf, keyIdOf } from '../../../functions/shared/personal-data/index.js';
import { createDynamoStore } from '../../../functions/shared/storage/shared-store-dynamo.js';
import { createMemoryStore } from '../../../functions/shared/storage/shared-store.js';
import { startSandbox, type Sandbox } from '../../../sandbox/index.js';
import { startAthenaStandIn, type AthenaStandIn } from '../../helpers/athena-stand-in.js';
import { createStateTable, startDynamo, TEST_REGION, type Dynamo } from '../../helpers/emulators.js';
import { exportFunctionEnv } from '../../helpers/env.js';
import { makeTempDir, removeTempDirs } from '../../helpers/files.js';
import { parquetTable, startGlueStandIn, type GlueStandIn } from '../../helpers/glue-stand-in.js';
import { lambdaContext, scheduledEvent } from '../../helpers/lambda-events.js';
import { TEST_PERSONAL_DATA_KEY } from '../../helpers/run-deps.js';

const API_KEY = 'mint_icebergtest_S3CR3T_1a2b3c4d';
const PROJECTS = ['proj_a', 'proj_b'];
const DATABASE = 'mintlify_analytics';
const WORKGROUP = 'mintlify-exporter-iceberg';
const DAYS = ['2026-02-26', '2026-02-27', '2026-02-28'];
/** The latest due day is 2026-02-28, exported already: a scheduled run at this time has no unit to do. */
const EVENT_TIME = '2026-03-01T02:30:00Z';

let sandbox: Sandbox;
let dynamo: Dynamo;
let glue: GlueStandIn;
let athena: AthenaStandIn;
const credentials = { accessKeyId: 'test', secretAccessKey: 'test' };

beforeAll(async () => {
  [sandbox, dynamo, glue, athena] = await Promise.all([
    startSandbox({
      apiKey: API_KEY,
      projects: [
        { id: 'proj_a', paths: 30, exact: true },
        { id: 'proj_b', paths: 20, exact: true },
      ],
    }),
    startDynamo(),
    startGlueStandIn(DATABASE, {
      visitors_totals: parquetTable('s3://b/visitors_totals/'),
      visitors_pages: parquetTable('s3://b/visitors_pages/'),
      feedback: parquetTable('s3://b/feedback/'),
    }),
    startAthenaStandIn({ workgroup: WORKGROUP, rowsOf: (sql) => (sql.startsWith('MERGE') ? 42 : 0) }),
  ]);
});

afterEach(async () => {
  athena.queries.length = 0;
  athena.calls.length = 0;
  await removeTempDirs();
});

afterAll(async () => {
  await Promise.all([sandbox?.close(), dynamo?.close(), glue?.close(), athena?.close()]);
});

const athenaClient = () => new AthenaClient({ endpoint: athena.endpoint, region: TEST_REGION, credentials });

/** The handler as deployed with `tableFormat=iceberg`'s environment, its clients at the stand-ins; polls wait on no real timer. */
async function loadHandler(extra: Record<string, string> = {}) {
  const dir = await makeTempDir();
  const table = await createStateTable(dynamo.client);
  const config = loadConfig(
    exportFunctionEnv(
      { apiUrl: sandbox.url, projectIds: PROJECTS.join(','), destination: dir, stateTable: table },
      { MINTLIFY_API_KEY: API_KEY, EXPORT_GLUE_DATABASE: DATABASE, EXPORT_ICEBERG_DATABASE: DATABASE, EXPORT_ATHENA_WORKGROUP: WORKGROUP, ...extra },
    ),
  );
  const waits: number[] = [];
  const added = new Map<string, number>();
  const metrics: Pick<Metrics, 'addMetric' | 'publishStoredMetrics'> = {
    addMetric(name, _unit, value) {
      added.set(name, value);
      return metrics as Metrics;
    },
    publishStoredMetrics: () => metrics as Metrics,
  };
  const deps = createExportDeps(config, {
    dynamo: () => dynamo.client,
    glue: new GlueClient({ endpoint: glue.endpoint, region: TEST_REGION, credentials }),
    athena: athenaClient(),
    sleep: async (ms) => void waits.push(ms),
  });
  const handler = createHandler({ ...deps, metrics });
  return { handler, deps, dir, config, waits, metrics: added, state: createDynamoStore({ tableName: table, client: dynamo.client }) };
}

const merges = () => athena.queries.filter((q) => q.sql.startsWith('MERGE INTO'));
/** The Iceberg table and the days a MERGE names. */
const mergeOf = (sql: string) => ({
  table: /^MERGE INTO "mintlify_analytics"\."(\w+)"/.exec(sql)?.[1],
  days: /WHERE f\.dt IN \(([^)]*)\)/
    .exec(sql)?.[1]
    ?.split(', ')
    .map((day) => day.slice(1, -1)),
});

describe('the Iceberg tables through Athena', () => {
  it('merges the days a run committed: one statement per table, in the workgroup, each logged with its query id, rows and bytes', async () => {
    const { handler, waits } = await loadHandler();

    const result = await handler({ from: DAYS[0], to: '2026-03-01' }, lambdaContext());

    expect(result.completed).toBe(DAYS.length * PROJECTS.length);
    expect(merges().map((q) => mergeOf(q.sql))).toEqual([
      { table: 'iceberg_visitors_totals', days: DAYS },
      { table: 'iceberg_visitors_pages', days: DAYS },
    ]);
    expect(athena.queries.every((q) => q.workgroup === WORKGROUP && q.database === DATABASE)).toBe(true);
    expect(result.iceberg?.failed).toBe(0);
    expect(result.iceberg?.statements).toEqual(
      merges().map((q) => expect.objectContaining({ kind: 'merge', queryId: q.id, state: 'SUCCEEDED', rows: 42, bytesScanned: q.sql.length * 100 })),
    );
    // Each statement was polled while RUNNING, on the injected sleep.
    expect(waits.filter((ms) => ms === 500)).toHaveLength(2);
    // A run asked for by hand does no weekly upkeep.
    expect(athena.queries.filter((q) => /^(OPTIMIZE|VACUUM) /.test(q.sql))).toEqual([]);
  });

  it('keeps a failed MERGE for the next run, warns and counts it, and the next run merges those days and forgets it', async () => {
    const { handler, metrics, state } = await loadHandler();
    athena.failNext(1, 'failed');

    const first = await handler({ from: DAYS[0], to: '2026-03-01' }, lambdaContext());

    expect(first.iceberg?.failed).toBe(1);
    expect(first.iceberg?.statements[0]).toMatchObject({ kind: 'merge', table: 'visitors_totals', state: 'FAILED' });
    expect(first.iceberg?.statements[0]?.error).toContain('ICEBERG_COMMIT_ERROR');
    expect(metrics.get(EXPORT_METRICS.icebergFailed)).toBe(1);
    const pending = (await state.list<PendingStatement>(PENDING_MERGES_PREFIX)).map((item) => item.value);
    expect(pending.map((p) => `${p.table} ${p.day} ${p.attempts}`).sort()).toEqual(DAYS.map((day) => `visitors_totals ${day} 1`));
    athena.queries.length = 0;

    const second = await handler(scheduledEvent(EVENT_TIME), lambdaContext());

    expect(second.completed).toBe(0);
    expect(merges().map((q) => mergeOf(q.sql))).toEqual([{ table: 'iceberg_visitors_totals', days: DAYS }]);
    expect(metrics.get(EXPORT_METRICS.icebergFailed)).toBe(0);
    expect(await state.list(PENDING_MERGES_PREFIX)).toEqual([]);
  });

  it('compacts and vacuums every table once a week, on a scheduled run', async () => {
    const { handler } = await loadHandler();

    await handler(scheduledEvent(EVENT_TIME), lambdaContext());
    const upkeep = athena.queries.filter((q) => /^(OPTIMIZE|VACUUM) /.test(q.sql)).map((q) => q.sql);
    athena.queries.length = 0;
    await handler(scheduledEvent('2026-03-01T03:30:00Z'), lambdaContext());

    expect(upkeep).toHaveLength(20);
    expect(upkeep).toContain('OPTIMIZE mintlify_analytics.iceberg_feedback REWRITE DATA USING BIN_PACK');
    expect(upkeep).toContain('VACUUM mintlify_analytics.iceberg_feedback');
    expect(athena.queries.filter((q) => /^(OPTIMIZE|VACUUM) /.test(q.sql))).toEqual([]);
  });

  it('forget deletes the people from the Iceberg tables in the same step', async () => {
    const { handler, deps, config } = await loadHandler({ EXPORT_DATASETS: 'feedback' });
    await handler({ date: DAYS[2] }, lambdaContext());
    athena.queries.length = 0;

    const result = await forgetPeople(
      { addresses: ['ana.silva@example.com'], dryRun: false },
      {
        destination: deps.destination,
        policy: exportPolicy(config).personalData,
        key: TEST_PERSONAL_DATA_KEY,
        keyId: keyIdOf(TEST_PERSONAL_DATA_KEY),
        now: Date.now,
        iceberg: deps.icebergForget(),
      },
    );

    expect(result.dryRun).toBe(false);
    expect(athena.queries.map((q) => q.sql.replace(/'[0-9a-f]{64}'/g, '<hmac>'))).toEqual([
      expect.stringMatching(/^DELETE FROM "mintlify_analytics"\."iceberg_feedback" WHERE \("contact" IN \(<hmac>(, <hmac>)*\)\)$/),
    ]);
    expect(athena.queries[0]?.sql).toContain(`'${hmacOf(TEST_PERSONAL_DATA_KEY, 'ana.silva@example.com')}'`);
  });

  it('leaves an erasure unfinished when the Iceberg DELETE fails: forget again finishes it', async () => {
    const { handler, deps, config } = await loadHandler({ EXPORT_DATASETS: 'feedback' });
    await handler({ date: DAYS[2] }, lambdaContext());
    const forget = () =>
      forgetPeople(
        { addresses: ['ana.silva@example.com'], dryRun: false },
        {
          destination: deps.destination,
          policy: exportPolicy(config).personalData,
          key: TEST_PERSONAL_DATA_KEY,
          keyId: keyIdOf(TEST_PERSONAL_DATA_KEY),
          now: Date.now,
          iceberg: deps.icebergForget(),
        },
      );
    athena.failNext(1, 'failed');

    await expect(forget()).rejects.toThrow(/Iceberg table of feedback still holds the rows: failed: ICEBERG_COMMIT_ERROR/);
    const again = await forget();

    expect(again.erasure?.resumed).toBe(true);
    expect(athena.queries.filter((q) => q.sql.startsWith('DELETE FROM')).map((q) => q.state)).toEqual(['FAILED', 'SUCCEEDED']);
  });
});

describe('the sync of one run (the real SDK at the stand-in)', () => {
  const syncOf = (store = createMemoryStore()) =>
    createIcebergSync({ athena: athenaClient(), workgroup: WORKGROUP, database: DATABASE, store, now: Date.now, sleep: async () => undefined });

  it('merges 250 committed days of a table in batches of 100, 100 and 50', async () => {
    const sync = syncOf();
    const days = Array.from({ length: 250 }, (_, i) => addDays('2025-06-01', i));
    for (const day of days) sync.committed({ dataset: 'visitors', day });

    const summary = await sync.flush({ maintenance: false });

    expect(merges().map((q) => `${mergeOf(q.sql).table} ${mergeOf(q.sql).days?.length}`)).toEqual([
      'iceberg_visitors_totals 100',
      'iceberg_visitors_totals 100',
      'iceberg_visitors_totals 50',
      'iceberg_visitors_pages 100',
      'iceberg_visitors_pages 100',
      'iceberg_visitors_pages 50',
    ]);
    expect(summary.statements.map((s) => s.days)).toContainEqual({ first: '2025-06-01', last: addDays('2025-06-01', 99), count: 100 });
  });

  it("deletes retention's days from the personal tables, keeps a failed DELETE and runs it on the next run even with nothing new expired", async () => {
    const store = createMemoryStore();
    athena.failNext(1, 'failed');

    await syncOf(store).expire('2026-01-01', ['2025-12-30']);
    const first = athena.queries.map((q) => q.sql);
    athena.queries.length = 0;
    await syncOf(store).expire('2026-01-02', []);
    const second = athena.queries.map((q) => q.sql);
    athena.queries.length = 0;
    await syncOf(store).expire('2026-01-03', []);

    expect(first).toEqual([
      'DELETE FROM "mintlify_analytics"."iceberg_searches" WHERE dt < DATE \'2026-01-01\'',
      'DELETE FROM "mintlify_analytics"."iceberg_feedback" WHERE dt < DATE \'2026-01-01\'',
      'DELETE FROM "mintlify_analytics"."iceberg_assistant_conversations" WHERE dt < DATE \'2026-01-01\'',
    ]);
    expect(second).toEqual(['DELETE FROM "mintlify_analytics"."iceberg_searches" WHERE dt < DATE \'2026-01-02\'']);
    expect(athena.queries).toEqual([]);
    expect(await store.list(PENDING_EXPIRY_PREFIX)).toEqual([]);
  });

  it('calls Athena no more in a run once it does not answer, and keeps every day for the next run', async () => {
    const store = createMemoryStore();
    const sync = syncOf(store);
    sync.committed({ dataset: 'visitors', day: '2026-02-01' });
    athena.failNext(3, 'unavailable');

    const summary = await sync.flush({ maintenance: true });

    expect(athena.calls.filter((c) => c.target === 'AmazonAthena.StartQueryExecution')).toHaveLength(3);
    expect(summary.failed).toBe(2);
    expect(summary.statements[1]?.error).toMatch(/^not tried: Athena did not answer earlier in this run/);
    expect((await store.list<PendingStatement>(PENDING_MERGES_PREFIX)).map((item) => item.key).sort()).toEqual([
      'iceberg-merges/visitors_pages/2026-02-01',
      'iceberg-merges/visitors_totals/2026-02-01',
    ]);
  });
});
