/**
 * The CLI with the deployment's state table (`EXPORT_STATE_TABLE`): a laptop backfill that
 * shares the hourly Lambda's budget ledger, and "did yesterday land?". The real CLI process,
 * its DynamoDB client built from the environment (AWS_ENDPOINT_URL_DYNAMODB → dynalite on
 * 127.0.0.1), the sandbox as the API; a table that does not exist, in this process with the
 * emulator's client.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LEDGER_KEY, type LedgerDoc } from '../../../functions/shared/pacing/budget.js';
import { createDynamoStore } from '../../../functions/shared/storage/shared-store-dynamo.js';
import { startSandbox, type Sandbox } from '../../../sandbox/index.js';
import { runCliInProcess, spawnCli } from '../../helpers/cli.js';
import { createStateTable, startDynamo, type Dynamo } from '../../helpers/emulators.js';
import { TEST_REGION } from '../../../scripts/lib/s3-sqs.js';
import { makeTempDir, removeTempDirs } from '../../helpers/files.js';
import { analyticsRequests } from '../../helpers/request-log.js';

const PROJECT = 'proj_small';
const DAY = '2026-02-10';

let sandbox: Sandbox;
let dynamo: Dynamo;

beforeAll(async () => {
  [sandbox, dynamo] = await Promise.all([startSandbox({ projects: [{ id: PROJECT, paths: 40, exact: true }] }), startDynamo()]);
});

afterAll(async () => {
  await Promise.all([sandbox?.close(), dynamo?.close()]);
  await removeTempDirs();
});

async function run(args: readonly string[], env: Record<string, string>) {
  const child = spawnCli(args, env);
  const { code } = await child.exited;
  return { code, stdout: child.stdout(), stderr: child.stderr() };
}

describe('export, plan and status with EXPORT_STATE_TABLE', () => {
  it('share the budget ledger in the table, their DynamoDB client built from the environment', async () => {
    const table = await createStateTable(dynamo.client);
    const out = await makeTempDir('cli-table');
    const env = {
      MINTLIFY_API_URL: sandbox.url,
      MINTLIFY_API_KEY: sandbox.apiKey,
      EXPORT_STATE_TABLE: table,
      ANALYTICS_BUDGET: '50/1h',
      AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
      AWS_REGION: TEST_REGION,
      AWS_ACCESS_KEY_ID: 'test',
      AWS_SECRET_ACCESS_KEY: 'test',
      AWS_EC2_METADATA_DISABLED: 'true',
      HOME: out,
    };
    const scope = ['--project', PROJECT, '--dataset', 'visitors', '--out', out];

    const before = await run(['plan', '--date', DAY, ...scope, '--json'], env);
    const exported = await run(['export', '--date', DAY, ...scope, '--json'], env);
    const planned = await run(['plan', '--date', DAY, ...scope, '--json'], env);
    const status = await run(['status', '--days', '1', ...scope, '--json'], env);

    expect(before.stderr).not.toMatch(/error/);
    expect(before.code).toBe(0);
    expect(JSON.parse(before.stdout)).toMatchObject({ budget: { budget: '50/1h', used: 0 } });
    expect(exported.stderr).not.toMatch(/error/);
    expect(exported.code).toBe(0);
    const sent = analyticsRequests(sandbox.requests).length;
    expect(JSON.parse(exported.stdout)).toMatchObject({ ok: true, completed: 1, requests: sent });
    const ledger = await createDynamoStore({ tableName: table, client: dynamo.client }).get<LedgerDoc>(LEDGER_KEY);
    expect(ledger?.starts).toHaveLength(sent);
    expect(planned.code).toBe(0);
    expect(JSON.parse(planned.stdout)).toMatchObject({ budget: { used: sent } });
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ budget: { budget: '50/1h', used: sent } });
  });

  it.each(['status', 'plan', 'export'])('%s with a table that does not exist: one line naming EXPORT_STATE_TABLE, exit 2, no request sent', async (command) => {
    const out = await makeTempDir('cli-no-table');
    const env = { MINTLIFY_API_URL: sandbox.url, MINTLIFY_API_KEY: sandbox.apiKey, EXPORT_STATE_TABLE: 'no-such-table', HOME: out };
    sandbox.clearRequests();

    const result = await runCliInProcess([command, '--date', DAY, '--project', PROJECT, '--dataset', 'visitors', '--out', out], {
      env,
      now: Date.now,
      extra: { clients: { dynamo: dynamo.client } },
    });

    expect(result.stderr).toMatch(
      /^error: the DynamoDB table no-such-table named by EXPORT_STATE_TABLE does not exist in us-east-1: set EXPORT_STATE_TABLE to /,
    );
    expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(result.code).toBe(2);
    expect(analyticsRequests(sandbox.requests)).toEqual([]);
  });
});
