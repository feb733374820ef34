/**
 * A resumed unit trusts its checkpoint only as far as its staged pages prove it, and stamps
 * each row with the time of the run that fetched its page.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../../../sandbox/index.js';
import { queryDuckDb } from '../../../helpers/read-back.js';
import { listFiles, makeTempDir } from '../../../helpers/files.js';
import { runCliInProcess } from '../../../helpers/cli.js';
import { exportUnit } from '../../../../functions/export/unit.js';
import { createApiClient } from '../../../../functions/shared/api/index.js';
import { createBudgetGate, createBudgetLedger } from '../../../../functions/shared/pacing/budget.js';
import { parseBudget } from '../../../../functions/shared/pacing/budget-spec.js';
import { createLocalDestination } from '../../../../functions/shared/storage/destination-local.js';
import { createMemoryStore } from '../../../../functions/shared/storage/shared-store.js';
import { cliEnv } from '../../../helpers/env.js';
import { useSandbox } from '../../../helpers/emulators.js';
import { testPrivacy } from '../../../helpers/run-deps.js';

const PROJECT = 'proj_synth_600';
const DAY = '2026-10-08';
const T1 = Date.parse('2026-10-09T06:00:00.000Z');
const T2 = Date.parse('2026-10-09T09:00:00.000Z');
let sandbox: Sandbox;

useSandbox({}, (started) => (sandbox = started));
afterEach(() => sandbox.clearFaults());

async function setup(dataset: string) {
  const out = await makeTempDir('resume-checks');
  const env = await cliEnv(sandbox, { EXPORT_PAGE_LIMIT: '100' });
  const run = (at: number) =>
    runCliInProcess(['export', '--date', DAY, '--project', PROJECT, '--dataset', dataset, '--out', out], { env, now: () => at, sleep: async () => undefined });
  return { out, run, staging: path.join(out, '_staging', dataset, `dt=${DAY}`, PROJECT) };
}

describe('a checkpoint whose position does not follow from its staged pages', () => {
  it('is discarded: the unit starts again and loses no row', async () => {
    const { out, run, staging } = await setup('visitors');
    sandbox.addFault({ route: 'visitors', kind: 'server-error', offset: 300, times: Infinity });
    expect((await run(T1)).code).toBe(1);
    sandbox.clearFaults();
    const file = path.join(staging, 'checkpoint.json');
    const checkpoint = JSON.parse(await readFile(file, 'utf8')) as { state: { pages: number; offset: number } };
    expect(checkpoint.state).toMatchObject({ pages: 3, offset: 300 });
    await writeFile(file, JSON.stringify({ ...checkpoint, state: { ...checkpoint.state, offset: 500 } }));

    expect((await run(T2)).code).toBe(0);

    const manifest = JSON.parse(await readFile(path.join(out, '_manifests', 'visitors', `dt=${DAY}`, `${PROJECT}.json`), 'utf8')) as {
      rows: Record<string, number>;
    };
    expect(manifest.rows['visitors_pages']).toBe(600);
  });
});

describe('a resumed feedback unit', () => {
  it("stamps each row with the time of the run that fetched its page, not the resuming run's", async () => {
    const { out, run } = await setup('feedback');
    sandbox.addFault({ route: 'feedback', kind: 'server-error', hasCursor: true, times: Infinity });
    expect((await run(T1)).code).toBe(1);
    sandbox.clearFaults();

    expect((await run(T2)).code).toBe(0);

    const rows = await queryDuckDb(
      `SELECT epoch_ms(exported_at) AS at, count(*) AS n FROM read_parquet('${path.join(out, 'feedback', `dt=${DAY}`, `${PROJECT}.parquet`)}') GROUP BY 1 ORDER BY 1`,
    );
    expect(rows.map((r) => Number(r['at']))).toEqual([T1, T2]);
    expect(Number(rows[0]?.['n'])).toBe(100);
  });
});

describe('a complete unit whose staging cannot be removed', () => {
  it('is complete, and leaves no checkpoint to outlive it', async () => {
    const dir = await makeTempDir('staging-left');
    const local = createLocalDestination(dir);
    // Deleting a staged page fails (an S3 hiccup, a kill in the middle of the clear).
    const destination = {
      ...local,
      delete: async (key: string) => {
        if (/page-\d+\.json$/.test(key) && key.startsWith('_staging/')) throw new Error('injected delete failure');
        await local.delete(key);
      },
    };
    const gate = createBudgetGate(createBudgetLedger(createMemoryStore(), parseBudget('1000/1h')), { now: Date.now, sleep: async () => undefined });
    const api = createApiClient({ baseUrl: sandbox.url, apiKey: sandbox.apiKey, budget: gate });

    const outcome = await exportUnit(
      {
        unit: { dataset: 'visitors', projectId: PROJECT, day: DAY },
        exportedAt: Date.now(),
        policy: { maxPages: 100, checkpointMaxAgeMs: 86_400_000 },
        control: {},
        privacy: testPrivacy(),
      },
      { api, destination, now: Date.now },
    );

    expect(outcome.status).toBe('complete');
    const staged = (await listFiles(dir)).filter((file) => file.startsWith('_staging/'));
    expect(staged.length).toBeGreaterThan(0);
    expect(staged.filter((file) => file.endsWith('checkpoint.json'))).toEqual([]);
  });
});
