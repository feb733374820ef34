/**
 * The Iceberg tables kept in step through Athena (functions/export/iceberg/): the hourly handler
 * in process against the sandbox API, a local lake, its state table in dynalite, and the real
 * `@aws-sdk/client-athena` talking to a loopback Athena stand-in (test/helpers/athena-stand-in.ts)
 * — and the Glue stand-in for the partitions the same run registers. One MERGE per table and
 * batch of at most 100 days; a failed one kept in the state, counted, and run again by the next
 * run; the weekly OPTIMIZE and VACUUM on a scheduled run; retention's DELETEs (in the run's retention step) and `forget`'s;
 * each statement in the run's `export_runs` record, read back by DuckDB.
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { AthenaClient } from '@aws-sdk/client-athena';
import { GlueClient } from '@aws-sdk/client-glue';
import type { Metrics } from '@aws-lambda-powertools/metrics';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createExportDeps } from '../../../functions/export/deps.js';
import { retentionCutoff } from '../../../functions/export/retention.js';
import { forgetPeople } from '../../../functions/export/forget/index.js';
import { createHandler } from '../../../functions/export/handler.js';
import { exportPolicy } from '../../../functions/export/policy.js';
import {
  PENDING_EXPIRY_PREFIX,
  PENDING_MERGES_PREFIX,
  pendingBook,
  pendingMergeKey,
  type PendingStatement,
} from '../../../functions/export/iceberg/pending.js';
import { runExport } from '../../../functions/export/run.js';
import { createIcebergSync, MAINTENANCE_EVERY_MS } from '../../../functions/export/iceberg/sync.js';
import { loadConfig } from '../../../functions/settings/config.js';
import { duckDbType } from '../../../functions/warehouse/duckdb.js';
import { sqlString } from '../../../functions/warehouse/sql.js';
import { EXPORT_RUNS } from '../../../functions/warehouse/tables.js';
import { addDays } from '../../../functions/shared/dates.js';
import { EXPORT_METRICS } from '../../../functions/shared/metric-names.js';
import { hmacOf, keyIdOf } from '../../../functions/shared/personal-data/index.js';
import { createDynamoStore } from '../../../functions/shared/storage/shared-store-dynamo.js';
import { createMemoryStore } from '../../../functions/shared/storage/shared-store.js';
import { createLocalDestination } from '../../../functions/shared/storage/destination-local.js';
import { DestinationError } from '../../../functions/shared/errors.js';
import { startSandbox, type Sandbox } from '../../../sandbox/index.js';
import { startAthenaStandIn, type AthenaStandIn } from '../../helpers/athena-stand-in.js';
import { createStateTable, startDynamo, type Dynamo } from '../../helpers/emulators.js';
import { TEST_REGION } from '../../../scripts/lib/s3-sqs.js';
import { exportFunctionEnv } from '../../helpers/env.js';
import { makeTempDir, removeTempDirs } from '../../helpers/files.js';
import { parquetTable, startGlueStandIn, type GlueStandIn } from '../../helpers/glue-stand-in.js';
import { lambdaContext, scheduledEvent } from '../../helpers/lambda-events.js';
import { queryDuckDb } from '../../helpers/read-back.js';
import { exportDeps, TEST_PERSONAL_DATA_KEY, testSettings } from '../../helpers/run-deps.js';

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
async function loadHandler(extra: Record<string, string> = {}, lake?: { readonly dir: string; readonly table: string }) {
  const dir = lake?.dir ?? (await makeTempDir());
  const table = lake?.table ?? (await createStateTable(dynamo.client));
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
  return { handler, deps, dir, table, config, waits, metrics: added, state: createDynamoStore({ tableName: table, client: dynamo.client }) };
}

const merges = () => athena.queries.filter((q) => q.sql.startsWith('MERGE INTO'));

/** Every run record under `root`, read by DuckDB with the columns of `export_runs` (as the Glue table declares them), oldest first. */
async function readRunLog(root: string): Promise<Record<string, unknown>[]> {
  const columns = EXPORT_RUNS.columns.map((column) => `${sqlString(column.name)}: ${sqlString(duckDbType(column))}`).join(', ');
  const glob = path.join(root, 'export_runs', '*', '*.json');
  return queryDuckDb(
    `SELECT * FROM read_json(${sqlString(glob)}, format = 'newline_delimited', columns = {${columns}}, hive_partitioning = true) ORDER BY run_id`,
  );
}
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

  it("keeps each statement's query id, rows and bytes scanned in the run log, which DuckDB reads beside a record written before the column", async () => {
    const { handler, dir } = await loadHandler();
    athena.failNext(1, 'failed');

    const result = await handler({ from: DAYS[0], to: '2026-03-01' }, lambdaContext());
    // A record of an older version: no iceberg_statements key.
    const [folder] = await readdir(path.join(dir, 'export_runs'));
    const [file] = await readdir(path.join(dir, 'export_runs', folder ?? ''));
    const written = JSON.parse(await readFile(path.join(dir, 'export_runs', folder ?? '', file ?? ''), 'utf8')) as Record<string, unknown>;
    const { iceberg_statements: _kept, ...older } = written;
    await writeFile(path.join(dir, 'export_runs', folder ?? '', '0000-older-run.json'), `${JSON.stringify({ ...older, run_id: '0000-older-run' })}\n`);

    const [old, row] = await readRunLog(dir);

    expect(row?.['run_id']).toBe(result.runId);
    // DuckDB gives a BIGINT inside a struct as a bigint.
    const [totals, pages] = merges();
    expect(row?.['iceberg_statements']).toEqual([
      {
        kind: 'merge',
        table_name: 'visitors_totals',
        first_day: DAYS[0],
        last_day: DAYS[2],
        days: 3n,
        query_id: totals?.id,
        state: 'FAILED',
        changed_rows: null,
        bytes_scanned: BigInt((totals?.sql.length ?? 0) * 100),
        error: 'failed: ICEBERG_COMMIT_ERROR: scripted failure',
      },
      {
        kind: 'merge',
        table_name: 'visitors_pages',
        first_day: DAYS[0],
        last_day: DAYS[2],
        days: 3n,
        query_id: pages?.id,
        state: 'SUCCEEDED',
        changed_rows: 42n,
        bytes_scanned: BigInt((pages?.sql.length ?? 0) * 100),
        error: null,
      },
    ]);
    expect(old).toMatchObject({ run_id: '0000-older-run', units_done: row?.['units_done'], iceberg_statements: null });
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

  it("deletes the days past retention from the personal tables' Iceberg tables in the run's retention step, and logs the DELETEs", async () => {
    const first = await loadHandler({ EXPORT_DATASETS: 'feedback' });
    await first.handler({ date: DAYS[2] }, lambdaContext());
    athena.queries.length = 0;
    const { handler, dir } = await loadHandler({ EXPORT_DATASETS: 'feedback', PERSONAL_DATA_RETENTION_DAYS: '30' }, first);

    const result = await handler(scheduledEvent(EVENT_TIME), lambdaContext());

    const cutoff = retentionCutoff(30, Date.now());
    expect(result.retention).toBeDefined();
    expect(athena.queries.filter((q) => q.sql.startsWith('DELETE FROM')).map((q) => q.sql)).toEqual(
      ['searches', 'feedback', 'assistant_conversations'].map((table) => `DELETE FROM "mintlify_analytics"."iceberg_${table}" WHERE dt < DATE '${cutoff}'`),
    );
    const [row] = (await readRunLog(dir)).filter((r) => r['run_id'] === result.runId);
    const logged = (row?.['iceberg_statements'] ?? []) as { kind: string; table_name: string }[];
    expect(logged.filter((s) => s.kind === 'expire').map((s) => s.table_name)).toEqual(['searches', 'feedback', 'assistant_conversations']);
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

  it('compacts and vacuums again once 7 days have passed since the last upkeep, not before', async () => {
    const store = createMemoryStore();
    const start = Date.parse('2026-03-01T02:30:00Z');
    const upkeepAt = async (at: number) => {
      athena.queries.length = 0;
      await createIcebergSync({ athena: athenaClient(), workgroup: WORKGROUP, database: DATABASE, store, now: () => at, sleep: async () => undefined }).flush({
        maintenance: true,
      });
      return athena.queries.filter((q) => /^(OPTIMIZE|VACUUM) /.test(q.sql)).length;
    };

    expect(await upkeepAt(start)).toBe(20);
    expect(await upkeepAt(start + MAINTENANCE_EVERY_MS - 60_000)).toBe(0);
    expect(await upkeepAt(start + MAINTENANCE_EVERY_MS)).toBe(20);
  });

  it('merges the days left by an earlier run even when this run throws, and its export_runs record keeps the statement', async () => {
    const dir = await makeTempDir();
    const store = createMemoryStore();
    await pendingBook(store).remember(
      pendingMergeKey('visitors_totals', DAYS[0] as string),
      { table: 'visitors_totals', day: DAYS[0] as string, error: 'failed' },
      0,
    );
    const local = createLocalDestination(dir);
    // Planning reads the manifests: a destination that cannot be read makes the run throw; the run log is still written.
    const refuse = async (): Promise<never> => {
      throw new DestinationError(`cannot read ${local.url}: injected read failure`);
    };
    const destination = { ...local, get: refuse, exists: refuse, list: refuse };
    const deps = exportDeps({ sandbox, destination, store });
    const iceberg = createIcebergSync({ athena: athenaClient(), workgroup: WORKGROUP, database: DATABASE, store, now: deps.now, sleep: async () => undefined });

    await expect(runExport({ kind: 'days', days: [DAYS[1] as string], projects: ['proj_a'] }, testSettings(), {}, { ...deps, iceberg })).rejects.toThrow(
      /injected read failure/,
    );

    expect(merges().map((q) => mergeOf(q.sql))).toEqual([{ table: 'iceberg_visitors_totals', days: [DAYS[0]] }]);
    const [row] = await readRunLog(dir);
    expect(row?.['failures']).toEqual([expect.objectContaining({ dataset: null, error: expect.stringContaining('injected read failure') })]);
    expect(row?.['iceberg_statements']).toEqual([
      expect.objectContaining({ kind: 'merge', table_name: 'visitors_totals', state: 'SUCCEEDED', query_id: merges()[0]?.id }),
    ]);
    expect(await store.list(PENDING_MERGES_PREFIX)).toEqual([]);
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
