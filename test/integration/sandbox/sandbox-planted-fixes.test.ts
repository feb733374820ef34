/**
 * Issue 56 item 7: the embedded sandbox plants past completed jobs with a known effect, so that
 * `effects` on a fresh lake shows real verdicts on the first day. The lake `npm start` leaves (two
 * weeks of every dataset of the sandbox's own projects, exported from the embedded sandbox with no
 * key: test/helpers/sandbox-lake.ts, built once per content of the tree), then `effects --json` in
 * process: the planted fall (60 % of the page's thumbs down turned up from the day after its job)
 * is `fixed`; the planted job that changed nothing is not.
 */
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { gapIdOf } from '../../../functions/gaps/gaps.js';
import { addDays } from '../../../functions/shared/dates.js';
import { PLANTED_DAYS_AGO, PLANTED_FALL, startSandbox } from '../../../sandbox/index.js';
import { sampleRun } from '../../../scripts/sample-run.js';
import { runCliInProcess } from '../../helpers/cli.js';
import { noAwsSetup } from '../../helpers/env.js';
import { makeTempDir, removeTempDirs } from '../../helpers/files.js';
import { buildSandboxLake, SANDBOX_NOW, SANDBOX_TO } from '../../helpers/sandbox-lake.js';

const TODAY = SANDBOX_TO;
const NOW = SANDBOX_NOW;
const PROJECT = 'proj_large';

afterAll(async () => {
  await removeTempDirs();
});

interface Entry {
  readonly gapId: string;
  readonly jobId: string | null;
  readonly verdict: string | null;
  readonly reason: string;
  readonly completedDay: string;
  readonly mergedDay: string | null;
}

describe('the past fixes the embedded sandbox plants', () => {
  it('a fresh two-week lake has verdicts: the planted fall is fixed, the planted no-effect job is not', async () => {
    const folder = await makeTempDir('sandbox-planted');
    const out = await buildSandboxLake();
    const env = { ...noAwsSetup(folder), EXPORT_STATE_DIR: path.join(folder, 'state'), PERSONAL_DATA_KEY: 'k'.repeat(64) };
    const run = (argv: readonly string[]) => runCliInProcess(argv, { env, now: () => NOW, sleep: async () => undefined });

    // What the export of that lake (`npm start`) said.
    expect((await sampleRun()).start).toContain('The embedded sandbox planted 2 past fix(es)');
    const effects = await run(['effects', '--out', out, '--json']);

    expect(effects.code, effects.stderr).toBe(0);
    const entries = (JSON.parse(effects.stdout) as { effects: Entry[] }).effects;
    // The pages are the sandbox's own: the two its feedback points at most, as a sandbox planting them as of the same day says.
    const sandbox = await startSandbox({ fixesAsOf: TODAY });
    const planted = sandbox.plantedFixes;
    // Its agent API serves the jobs: completed, with their pull requests.
    const job = sandbox.getJobState(PROJECT, 'job_fixed_page');
    await sandbox.close();
    expect([job?.status, job?.prLink, job?.createdAt.slice(0, 10)]).toEqual(['completed', planted[0]?.prLink, addDays(TODAY, -PLANTED_DAYS_AGO)]);
    expect(planted.map((f) => [f.projectId, f.jobId, f.fall])).toEqual([
      [PROJECT, 'job_fixed_page', PLANTED_FALL],
      [PROJECT, 'job_no_effect_page', 0],
    ]);
    const day = addDays(TODAY, -PLANTED_DAYS_AGO);
    const byJob = new Map(entries.map((e) => [e.jobId, e]));
    const fixed = byJob.get('job_fixed_page');
    const none = byJob.get('job_no_effect_page');
    expect(fixed?.completedDay).toBe(day);
    expect(fixed?.mergedDay).toBe(day);
    expect(fixed?.verdict, fixed?.reason).toBe('fixed');
    expect(none?.verdict, none?.reason).not.toBe('fixed');
    expect(none?.verdict).not.toBeNull();
    expect(entries.map((e) => e.gapId).sort()).toEqual(planted.map((f) => gapIdOf('thumbs_down_page', PROJECT, f.path)).sort());

    // A second export (the next day's) writes no second record of the same jobs.
    const again = await run(['export', '--date', addDays(TODAY, -1), '--project', PROJECT, '--dataset', 'feedback', '--out', out, '--force']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).not.toContain('planted');
  }, 300_000);
});
