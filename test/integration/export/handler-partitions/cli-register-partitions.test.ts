/**
 * `mintlify-exporter register-partitions`: an existing deployment's past days registered in
 * Glue once. A lake exported by the CLI (no EXPORT_GLUE_DATABASE: nothing registered then), then
 * the command in process, its real Glue SDK client talking to the loopback Glue stand-in; and an
 * `export` with EXPORT_GLUE_DATABASE, which registers what it commits.
 */
import { GlueClient } from '@aws-sdk/client-glue';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../../../sandbox/index.js';
import { runCliAt, runCliInProcess, runSpawnedCli } from '../../../helpers/cli.js';
import { TEST_REGION } from '../../../../scripts/lib/s3-sqs.js';
import { cliEnv, noAwsSetup } from '../../../helpers/env.js';
import { makeTempDir, removeTempDirs } from '../../../helpers/files.js';
import { parquetTable, startGlueStandIn, type GlueStandIn } from '../../../helpers/glue-stand-in.js';

const API_KEY = 'mint_registertest_0123456789abcdef';
const DATABASE = 'mintlify_analytics';
const NOW = Date.parse('2026-02-12T06:00:00Z');
const DAYS = ['2026-02-09', '2026-02-10', '2026-02-11'];
const TABLES = ['visitors_totals', 'visitors_pages', 'assistant_caller_stats', 'export_runs'];

let sandbox: Sandbox;
let glue: GlueStandIn;
let lake: string;

beforeAll(async () => {
  [sandbox, glue] = await Promise.all([
    startSandbox({ apiKey: API_KEY, projects: ['proj_a', 'proj_b'].map((id) => ({ id, paths: 20, exact: true })) }),
    startGlueStandIn(DATABASE, Object.fromEntries(TABLES.map((table) => [table, parquetTable(`s3://lake/mintlify/${table}/`)]))),
  ]);
  lake = await makeTempDir('lake');
  const exported = await runCliAt(
    sandbox,
    [
      'export',
      '--project',
      'proj_a',
      '--project',
      'proj_b',
      '--from',
      DAYS[0] as string,
      '--to',
      '2026-02-12',
      '--dataset',
      'visitors',
      '--dataset',
      'caller_stats',
      '--out',
      lake,
      '--json',
    ],
    { now: NOW },
  );
  expect(exported.code, exported.stderr).toBe(0);
}, 60_000);

beforeEach(() => {
  glue.calls.length = 0;
  for (const table of TABLES) glue.partitions(DATABASE, table).clear();
});

afterAll(async () => {
  await Promise.all([sandbox?.close(), glue?.close()]);
  await removeTempDirs();
});

/** The real SDK client, at the stand-in. */
const standInClient = () => new GlueClient({ endpoint: glue.endpoint, region: TEST_REGION, credentials: { accessKeyId: 'test', secretAccessKey: 'test' } });

async function register(args: readonly string[], env: Record<string, string> = { EXPORT_GLUE_DATABASE: DATABASE }) {
  return runCliInProcess(['register-partitions', '--out', lake, ...args], {
    env: await cliEnv(sandbox, env),
    now: () => NOW,
    extra: { clients: { glue: standInClient() } },
  });
}

const registered = () => TABLES.map((table) => `${table}: ${[...glue.partitions(DATABASE, table).keys()].sort().join(' ')}`);

describe('export with EXPORT_GLUE_DATABASE', () => {
  it('registers the days it commits, and says on stderr which one it leaves for the next run — exit 0, the day is exported', async () => {
    const out = await makeTempDir('lake-glue');
    glue.failNext(1, 'refused');
    const env = await cliEnv(sandbox, { API_TIMEOUT_MS: '5000', ANALYTICS_BUDGET: '100000/1h', EXPORT_GLUE_DATABASE: DATABASE });

    const run = await runCliInProcess(['export', '--project', 'proj_a', '--date', '2026-02-11', '--dataset', 'visitors', '--out', out], {
      env,
      now: () => NOW,
      sleep: async () => undefined,
      extra: { clients: { glue: standInClient() } },
    });

    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(
      `warning: could not register the Glue partition: the next run tries again (${DATABASE}.visitors_totals dt=2026-02-11: Glue refused partition dt=2026-02-11`,
    );
    // The run log registers the day of its own record (the run's day), in the run that writes it (issue 53).
    expect(registered()).toEqual([
      'visitors_totals: ',
      'visitors_pages: 2026-02-11',
      'assistant_caller_stats: ',
      `export_runs: ${new Date(NOW).toISOString().slice(0, 10)}`,
    ]);
  });
});

describe('register-partitions', () => {
  it("registers every day the lake holds in each of its tables, and the run log's, one call per table, and again finds them there", async () => {
    const first = await register([]);

    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toBe(`Registered 10 partition(s) of 4 table(s) in the Glue database ${DATABASE} (a partition already there counts)\n`);
    // The export's run record is of the day it ran.
    const days = (table: string) => (table === 'export_runs' ? ['2026-02-12'] : DAYS);
    expect(registered()).toEqual(TABLES.map((table) => `${table}: ${days(table).join(' ')}`));
    const batches = glue.calls.filter((call) => call.target === 'AWSGlue.BatchCreatePartition');
    expect(batches.map((call) => `${call.table} ${call.partitions.join(',')}`).sort()).toEqual(
      TABLES.map((table) => `${table} ${days(table).join(',')}`).sort(),
    );
    expect(glue.partitions(DATABASE, 'assistant_caller_stats').get('2026-02-10')?.storageDescriptor['Location']).toBe(
      's3://lake/mintlify/assistant_caller_stats/dt=2026-02-10/',
    );

    const again = await register([]);

    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('Registered 10 partition(s)');
  });

  it('registers only the days of --from/--to and of --dataset', async () => {
    const run = await register(['--from', '2026-02-10', '--to', '2026-02-11', '--dataset', 'caller_stats', '--json']);

    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ database: DATABASE, registered: 1 });
    expect(registered()).toEqual(['visitors_totals: ', 'visitors_pages: ', 'assistant_caller_stats: 2026-02-10', 'export_runs: ']);
  });

  it('exits 1 naming each partition Glue refused', async () => {
    glue.failNext(1, 'refused');

    const run = await register(['--dataset', 'visitors']);

    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`error: Glue refused partition dt=2026-02-09 of ${DATABASE}.visitors_totals (InternalServiceException: scripted refusal)`);
    expect(registered()).toEqual(['visitors_totals: ', `visitors_pages: ${DAYS.join(' ')}`, 'assistant_caller_stats: ', 'export_runs: ']);
  });

  it('refuses to run without EXPORT_GLUE_DATABASE, in one line, exit 2', async () => {
    const run = await register([], {});

    expect(run.code).toBe(2);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toContain("EXPORT_GLUE_DATABASE is not set: set it to the stack's GlueDatabase output");
    expect(glue.calls).toEqual([]);
  });

  it('without an AWS region or credentials says so in one line, exit 2, before reading the lake (the CLI as a user runs it)', async () => {
    const folder = await makeTempDir('no-aws');
    const env = { ...(await cliEnv(sandbox, { EXPORT_GLUE_DATABASE: DATABASE })), ...noAwsSetup(folder) };

    const noRegion = await runSpawnedCli(['register-partitions', '--out', lake], env, { entry: 'source' });
    const noCredentials = await runSpawnedCli(['register-partitions', '--out', lake], { ...env, AWS_REGION: TEST_REGION }, { entry: 'source' });

    expect(noRegion.code, noRegion.stderr).toBe(2);
    expect(noRegion.stderr.trim().split('\n')).toEqual([
      `error: no AWS region: set AWS_REGION (or a region in the AWS profile) — register-partitions writes partitions to the Glue database ${DATABASE}`,
    ]);
    expect(noRegion.stdout).toBe('');
    expect(noCredentials.code, noCredentials.stderr).toBe(2);
    expect(noCredentials.stderr.trim().split('\n')).toHaveLength(1);
    expect(noCredentials.stderr).toMatch(/^error: no AWS credentials \(.+\): set AWS_PROFILE, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY/);
  }, 60_000);
});
