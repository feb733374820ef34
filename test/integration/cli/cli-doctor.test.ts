/**
 * `mintlify-exporter doctor`: one line per check, ✓ or ✗ with the fix, exit 0 when all pass and 1
 * otherwise. Against the sandbox over HTTP (in process): every check passes and the key's one
 * request is counted in the budget ledger; a destination that is a file is named with its fix;
 * a sandbox project the key cannot see fails the key check. And the bin as a user runs it, with
 * no key: the embedded sandbox passes. With a state table and a queue configured (dynalite and
 * fauxqs on loopback, the bin as a user runs it): a line each, ✓ when they answer, ✗ with the fix
 * for a table or queue that does not exist.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../../sandbox/index.js';
import { runCliInProcess, runSpawnedCli } from '../../helpers/cli.js';
import { createStateTable, startDynamo, useSandbox, type Dynamo } from '../../helpers/emulators.js';
import { startS3Sqs, TEST_REGION, type S3Sqs } from '../../../scripts/lib/s3-sqs.js';
import { cliEnv, hostEnv, noAwsSetup } from '../../helpers/env.js';
import { makeTempDir, removeTempDirs } from '../../helpers/files.js';

const NOW = Date.parse('2026-03-10T06:00:00Z');
let sandbox: Sandbox;
useSandbox({ apiKey: 'mint_doctortest_0123456789abcdef', projects: [{ id: 'proj_a', paths: 5 }] }, (s) => (sandbox = s));

afterAll(async () => {
  await removeTempDirs();
});

async function doctor(args: readonly string[], env: Record<string, string>) {
  return runCliInProcess(['doctor', ...args], { env, now: () => NOW, sleep: async () => undefined });
}

describe('doctor', () => {
  it('passes every check against the sandbox, one ✓ line each, and counts its one request against the budget', async () => {
    const out = await makeTempDir('doctor-lake');
    const env = await cliEnv(sandbox, { MINTLIFY_PROJECT_IDS: 'proj_a', ANALYTICS_BUDGET: '90/1h' });
    sandbox.clearRequests();

    const first = await doctor(['--out', out], env);
    const second = await doctor(['--out', out], env);

    expect(first.code, first.stdout + first.stderr).toBe(0);
    const lines = first.stdout.trim().split('\n');
    expect(lines.slice(0, -1).every((line) => line.startsWith('✓ '))).toBe(true);
    expect(lines.slice(0, -1).map((line) => line.slice(2, line.indexOf(':')))).toEqual(['settings', 'projects', 'destination', 'budget ledger', 'key']);
    expect(first.stdout).toContain(`✓ destination: ${out} is writable`);
    expect(first.stdout).toContain('✓ budget ledger: 0 of 90 request(s) used');
    expect(first.stdout).toContain('answered for proj_a (1 request, counted against the budget)');
    expect(lines.at(-1)).toBe('All 5 checks passed.');
    expect(sandbox.requests.filter((r) => r.projectId === 'proj_a').map((r) => r.status)).toEqual([200, 200]);
    expect(second.stdout).toContain('✓ budget ledger: 1 of 90 request(s) used');
  });

  it('names a destination that is a file, with its fix, and exits 1', async () => {
    const folder = await makeTempDir('doctor-broken');
    const file = path.join(folder, 'data');
    await writeFile(file, 'not a folder');

    const run = await doctor(['--out', file], await cliEnv(sandbox, { MINTLIFY_PROJECT_IDS: 'proj_a' }));

    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(
      new RegExp(`^✗ destination: --out: .*${file.replaceAll('/', '\\/')}.*\\(ENOTDIR\\): a file and a folder have the same name there; move one away$`, 'm'),
    );
    expect(run.stdout.trim().split('\n').at(-1)).toBe('1 of 5 check(s) failed: fix each ✗ line above, then run doctor again.');
  });

  it('fails the key check for a project the key cannot see, naming it', async () => {
    const run = await doctor(['--out', await makeTempDir('doctor-lake')], await cliEnv(sandbox, { MINTLIFY_PROJECT_IDS: 'proj_nobody' }));

    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/^✗ key: .*proj_nobody/m);
  });

  it('passes on the embedded sandbox with no key (the bin, as a user runs it)', async () => {
    const folder = await makeTempDir('doctor-bin');
    const run = await runSpawnedCli(['doctor', '--out', path.join(folder, 'data')], {
      ...hostEnv(),
      ...noAwsSetup(folder),
      HOME: folder,
      EXPORT_STATE_DIR: path.join(folder, 'state'),
    });

    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toContain("✓ projects: the embedded sandbox's (no MINTLIFY_API_KEY)");
    expect(run.stdout).toContain('All 5 checks passed.');
  }, 60_000);
});

describe('doctor with a state table and a queue configured', () => {
  let dynamo: Dynamo;
  let aws: S3Sqs;
  beforeAll(async () => {
    [dynamo, aws] = await Promise.all([startDynamo(), startS3Sqs()]);
  });
  afterAll(async () => {
    await Promise.all([dynamo?.close(), aws?.close()]);
  });

  const awsEnv = (folder: string) => ({
    ...hostEnv(),
    ...noAwsSetup(folder),
    HOME: folder,
    MINTLIFY_API_URL: sandbox.url,
    MINTLIFY_API_KEY: sandbox.apiKey,
    MINTLIFY_PROJECT_IDS: 'proj_a',
    PERSONAL_DATA_KEY: 'k'.repeat(64),
    AWS_REGION: TEST_REGION,
    AWS_ACCESS_KEY_ID: 'test',
    AWS_SECRET_ACCESS_KEY: 'test',
    AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
    AWS_ENDPOINT_URL_SQS: aws.endpoint,
  });

  it('checks each one, a line each: ✓ when they answer, ✗ with the fix when they do not exist; exit 0, then 1', async () => {
    const folder = await makeTempDir('doctor-stores');
    const table = await createStateTable(dynamo.client);
    const queue = await aws.createQueue();
    const good = { ...awsEnv(folder), EXPORT_STATE_TABLE: table, FOLLOWUP_DEAD_LETTER_QUEUE_URL: queue };
    const missingQueue = queue.replace(/[^/]+$/, 'no-such-queue');
    const bad = { ...awsEnv(folder), EXPORT_STATE_TABLE: table, FOLLOWUP_STATE_TABLE: 'no-such-table', FOLLOWUP_DEAD_LETTER_QUEUE_URL: missingQueue };

    const passing = await runSpawnedCli(['doctor', '--out', path.join(folder, 'data')], good, { entry: 'source' });
    const failing = await runSpawnedCli(['doctor', '--out', path.join(folder, 'data')], bad, { entry: 'source' });

    expect(passing.code, passing.stdout + passing.stderr).toBe(0);
    expect(passing.stdout).toContain(`✓ state table ${table} (EXPORT_STATE_TABLE): reachable, ACTIVE`);
    expect(passing.stdout).toContain(`✓ queue ${queue} (FOLLOWUP_DEAD_LETTER_QUEUE_URL): reachable, 0 message(s) waiting`);
    expect(passing.stdout).toMatch(/^✓ AWS region and credentials: found \(needed for the state table .*, the queue .*\)$/m);
    expect(
      passing.stdout
        .trim()
        .split('\n')
        .slice(0, -1)
        .filter((line) => !line.startsWith('✓ ')),
    ).toEqual([]);

    expect(failing.code, failing.stdout + failing.stderr).toBe(1);
    expect(failing.stdout).toContain(`✓ state table ${table} (EXPORT_STATE_TABLE): reachable, ACTIVE`);
    expect(failing.stdout).toMatch(
      /^✗ state table no-such-table \(FOLLOWUP_STATE_TABLE\): no such state table in this account and region: set FOLLOWUP_STATE_TABLE to the deployed stack's state table/m,
    );
    expect(failing.stdout).toContain(
      `✗ queue ${missingQueue} (FOLLOWUP_DEAD_LETTER_QUEUE_URL): no such queue in this account and region: set FOLLOWUP_DEAD_LETTER_QUEUE_URL to the deployed stack's queue`,
    );
    expect(failing.stdout.trim().split('\n').at(-1)).toMatch(/^2 of \d+ check\(s\) failed/);
  }, 120_000);
});
