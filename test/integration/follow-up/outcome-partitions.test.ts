/**
 * The follow-up function of one organisation registers each outcome's day in Glue
 * (`followup_outcomes`, `dt` only) in the run that writes it: the dependencies the Lambda wires
 * (follow-up/deps.ts, as handler.ts builds them from `EXPORT_GLUE_DATABASE`) write the outcome,
 * then create its day's partition in the Glue stand-in — once per day, at the table's folder —
 * and a Glue that refuses never fails the outcome.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GlueClient } from '@aws-sdk/client-glue';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFollowUpDeps } from '../../../functions/follow-up/deps.js';
import { buildOutcome } from '../../../functions/follow-up/outcome.js';
import { TEST_REGION } from '../../../scripts/lib/s3-sqs.js';
import { parquetTable, startGlueStandIn, type GlueStandIn } from '../../helpers/glue-stand-in.js';

const DATABASE = 'mintlify_analytics';
const silent = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

let glue: GlueStandIn;
let dir: string;

beforeAll(async () => {
  glue = await startGlueStandIn(DATABASE, { followup_outcomes: parquetTable('s3://lake/mintlify/followup_outcomes/') });
  dir = mkdtempSync(join(tmpdir(), 'outcome-partitions-'));
});

afterAll(async () => {
  await glue?.close();
  rmSync(dir, { recursive: true, force: true });
});

const outcome = (requestId: string, finishedAt: string) =>
  buildOutcome({
    requestId,
    projectId: 'proj_small',
    jobId: 'job_1',
    kind: 'follow_up',
    promptLength: 3,
    promptSha256: 'a'.repeat(64),
    status: 'completed',
    finishedAt: Date.parse(finishedAt),
    polls: 1,
    attempts: 1,
  });

function depsFor(glueDatabase: string | undefined, client: GlueClient, lake: string) {
  return createFollowUpDeps(
    { destination: lake, apiTimeoutMs: 5_000, ...(glueDatabase !== undefined ? { glueDatabase } : {}) },
    {
      api: { baseUrl: 'http://127.0.0.1:9', apiKey: 'mint_unused_0123456789' },
      localStateDir: join(lake, 'state'),
      clients: { glue: client },
      logger: silent,
      metrics: { count: () => undefined },
      owner: 'test',
    },
  );
}

describe("the follow-up function's outcome days in Glue (one organisation)", () => {
  it("registers each outcome's day once, at the table's folder, after writing the outcome", async () => {
    const client = new GlueClient({ endpoint: glue.endpoint, region: TEST_REGION, credentials: { accessKeyId: 'test', secretAccessKey: 'test' } });
    const lake = join(dir, 'one');
    const deps = depsFor(DATABASE, client, lake);
    await deps.outcomes.write(outcome('r-1', '2026-11-17T10:00:00Z'));
    await deps.outcomes.write(outcome('r-2', '2026-11-17T11:00:00Z'));
    await deps.outcomes.write(outcome('r-3', '2026-11-18T01:00:00Z'));

    expect(readdirSync(join(lake, 'followup_outcomes')).sort()).toEqual(['dt=2026-11-17', 'dt=2026-11-18']);
    const registered = glue.partitions(DATABASE, 'followup_outcomes');
    expect([...registered.keys()].sort()).toEqual(['2026-11-17', '2026-11-18']);
    expect(registered.get('2026-11-18')?.storageDescriptor['Location']).toBe('s3://lake/mintlify/followup_outcomes/dt=2026-11-18/');
    // One registration per day, not one per outcome.
    expect(glue.calls.filter((call) => call.target.endsWith('BatchCreatePartition'))).toHaveLength(2);
    client.destroy();
  });

  it('writes the outcome when Glue does not answer, and registers nothing without EXPORT_GLUE_DATABASE', async () => {
    const down = new GlueClient({
      endpoint: 'http://127.0.0.1:9',
      region: TEST_REGION,
      maxAttempts: 1,
      credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    });
    const lake = join(dir, 'down');
    await depsFor(DATABASE, down, lake).outcomes.write(outcome('r-4', '2026-11-19T10:00:00Z'));
    expect(readdirSync(join(lake, 'followup_outcomes'))).toEqual(['dt=2026-11-19']);

    const before = glue.calls.length;
    const client = new GlueClient({ endpoint: glue.endpoint, region: TEST_REGION, credentials: { accessKeyId: 'test', secretAccessKey: 'test' } });
    await depsFor(undefined, client, join(dir, 'none')).outcomes.write(outcome('r-5', '2026-11-20T10:00:00Z'));
    expect(glue.calls.length).toBe(before);
    down.destroy();
    client.destroy();
  });
});
