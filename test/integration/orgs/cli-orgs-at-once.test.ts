/**
 * Organisations at once on the command line (issue 53): the real CLI spawned over an organisations
 * file of two, each with its own key and ledger. With a budget of 8 requests per 10 s per key, a
 * backlog of 12 (acme) and one of 6 (beta): beta completes while acme still waits for its own
 * budget. With 6 an hour and a reserve of 2, each key sends its share (1–4) in the hour, and a
 * stop (SIGINT) ends both cleanly. Also: an organisations file that is a device is refused at once,
 * and without MINTLIFY_API_URL the embedded sandbox serves both organisations, each its projects
 * (those, the lake the first test starts from and the status after a stop run in process).
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../../sandbox/index.js';
import { runCliInProcess, spawnCli, waitUntil } from '../../helpers/cli.js';
import { hostEnv, noAwsSetup } from '../../helpers/env.js';
import { listFiles, makeTempDir, removeTempDirs } from '../../helpers/files.js';
import { analyticsRequests } from '../../helpers/request-log.js';
import { TEST_PERSONAL_DATA_KEY } from '../../helpers/run-deps.js';

const KEYS = { acme: 'mint_acme_0123456789abcdef', beta: 'mint_beta_0123456789abcdef' } as const;
/** One request a day each (visitors of a 10-row project): the backlog is the number of days. */
const PROJECTS = { acme: 'proj_synth_10', beta: 'proj_synth_20' } as const;
const ORGS = {
  organisations: [
    { id: 'acme', apiKeyEnv: 'ACME_MINTLIFY_KEY', projectIds: [PROJECTS.acme] },
    { id: 'beta', apiKeyEnv: 'BETA_MINTLIFY_KEY', projectIds: [PROJECTS.beta] },
  ],
};

let sandbox: Sandbox;
let folder: string;
let env: Record<string, string>;

beforeAll(async () => {
  sandbox = await startSandbox({ apiKey: KEYS.acme, moreApiKeys: [KEYS.beta] });
  folder = await makeTempDir('orgs-at-once');
  const orgsFile = path.join(folder, 'orgs.json');
  await writeFile(orgsFile, JSON.stringify(ORGS));
  env = {
    ...hostEnv(),
    ...noAwsSetup(folder),
    MINTLIFY_API_URL: sandbox.url,
    MINTLIFY_ORGS_FILE: orgsFile,
    ACME_MINTLIFY_KEY: KEYS.acme,
    BETA_MINTLIFY_KEY: KEYS.beta,
    PERSONAL_DATA_KEY: TEST_PERSONAL_DATA_KEY,
    API_TIMEOUT_MS: '5000',
  };
});

afterAll(async () => {
  await sandbox?.close();
  await removeTempDirs();
});

/** `days` days from 2026-10-01: `--from` and `--to`. */
function daysFlags(days: number): string[] {
  const to = new Date(Date.UTC(2026, 9, 1 + days)).toISOString().slice(0, 10);
  return ['--from', '2026-10-01', '--to', to];
}

const startsOf = (org: keyof typeof KEYS) =>
  analyticsRequests(sandbox.requests)
    .filter((entry) => entry.projectId === PROJECTS[org])
    .map((entry) => entry.startedAt);

describe('two organisations with backlogs of 12 and 6 at 8 requests per 10 s per key', () => {
  it('the second completes while the first still waits for its own budget', async () => {
    const out = path.join(folder, 'lake-6');
    // Backlogs of 12 and 6: of the 12 days, beta's first 6 are already in its lake.
    // (In process: the lake it leaves is what counts; the runs after it are the real CLI.)
    const pre = await runCliInProcess(['export', ...daysFlags(6), '--dataset', 'visitors', '--org', 'beta', '--out', out], {
      env: { ...env, ANALYTICS_BUDGET: '1000/1h', EXPORT_STATE_DIR: path.join(folder, 'state-pre') },
      now: Date.now,
    });
    expect(pre.code, pre.stderr).toBe(0);
    sandbox.clearRequests();
    const cli = spawnCli(['export', ...daysFlags(12), '--dataset', 'visitors', '--out', out], {
      ...env,
      ANALYTICS_BUDGET: '8/10s',
      EXPORT_STATE_DIR: path.join(folder, 'state-6'),
    });
    // An organisation's output is printed when its run has ended.
    await waitUntil(() => cli.stdout().includes('Organisation beta'), "beta's run has ended", 30_000);
    const betaDoneAt = Date.now();
    const { code } = await cli.exited;
    expect(code, cli.stderr()).toBe(0);
    expect(startsOf('beta')).toHaveLength(6);
    expect(startsOf('acme')).toHaveLength(12);
    // beta was through while acme still waited for its second window (its own ledger: 8 per 10 s).
    const acme = startsOf('acme');
    expect(betaDoneAt).toBeLessThan(acme[8] as number);
    expect((acme[8] as number) - (acme[0] as number)).toBeGreaterThanOrEqual(9_000);
    expect(cli.stderr()).toMatch(/export per organisation:\n {2}acme {2}done\n {2}beta {2}done\n/);
  }, 60_000);
});

describe('a budget of 6 an hour with a reserve of 2', () => {
  it('each key sends between 1 and 4 in the hour, and a stop ends both cleanly', async () => {
    sandbox.clearRequests();
    const cli = spawnCli(['export', ...daysFlags(8), '--dataset', 'visitors', '--out', path.join(folder, 'lake-hour')], {
      ...env,
      ANALYTICS_BUDGET: '6/1h',
      ANALYTICS_RESERVE: '2',
      EXPORT_STATE_DIR: path.join(folder, 'state-hour'),
    });
    // Both wait for their own hour once their share is spent: neither waits for the other.
    await waitUntil(() => startsOf('acme').length === 4 && startsOf('beta').length === 4, 'each key has sent its share of 4', 30_000);
    await waitUntil(() => (cli.stderr().match(/waiting .* for the request budget/g) ?? []).length >= 2, 'both wait for budget', 10_000);
    cli.child.kill('SIGINT');
    const { code } = await cli.exited;
    expect(code, cli.stderr()).toBe(130);
    for (const org of ['acme', 'beta'] as const) {
      expect(startsOf(org).length).toBeGreaterThanOrEqual(1);
      expect(startsOf(org).length).toBeLessThanOrEqual(4);
    }
    expect(cli.stderr()).toMatch(/ {2}acme {2}stopped\n {2}beta {2}stopped\n/);
    expect(cli.stderr().trim().split('\n').at(-1)).toBe('stopped: export did not finish for organisation(s) acme, beta');

    // status --org names the run that does what is left (its --org, the root destination) and its wait.
    const out = path.join(folder, 'lake-hour');
    const status = await runCliInProcess(['status', '--org', 'acme', ...daysFlags(8), '--dataset', 'visitors', '--out', out, '--json'], {
      env: { ...env, ANALYTICS_BUDGET: '6/1h', ANALYTICS_RESERVE: '2', EXPORT_STATE_DIR: path.join(folder, 'state-hour') },
      now: Date.now,
    });
    expect(status.code, status.stderr).toBe(0);
    const [acme] = (JSON.parse(status.stdout) as { organisations: { result: { next: { command: string; waitMs: number } } }[] }).organisations;
    expect(acme?.result.next.command).toBe(
      `mintlify-exporter export --org acme --from 2026-10-${String(1 + startsOf('acme').length).padStart(2, '0')} --to 2026-10-09 --out ${out}`,
    );
    // Its share of 4 is spent: the next request waits for the hour's first start to leave the window.
    expect(acme?.result.next.waitMs).toBeGreaterThan(55 * 60_000);
  }, 90_000);
});

describe('the organisations file', () => {
  it('a device is refused at once with one line, exit 2', async () => {
    const started = Date.now();
    const run = await runCliInProcess(['status', '--out', path.join(folder, 'lake-zero')], {
      env: { ...env, MINTLIFY_ORGS_FILE: '/dev/zero' },
      now: Date.now,
    });
    // Reading /dev/zero never ends: any bound tells a refusal from a read (10 s holds under load).
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe('error: MINTLIFY_ORGS_FILE /dev/zero is not a regular file: point MINTLIFY_ORGS_FILE at the organisations file (JSON)\n');
  });

  it('without MINTLIFY_API_URL, the embedded sandbox serves every organisation with its key and its own projects', async () => {
    const own = path.join(folder, 'own.json');
    await writeFile(
      own,
      JSON.stringify({
        organisations: [
          { id: 'acme', apiKeyEnv: 'ACME_MINTLIFY_KEY', projectIds: ['proj_acme_docs'] },
          { id: 'beta', apiKeyEnv: 'BETA_MINTLIFY_KEY', projectIds: ['proj_beta_help', 'proj_beta_api'] },
        ],
      }),
    );
    const { MINTLIFY_API_URL: _url, ...laptop } = env;
    const out = path.join(folder, 'lake-laptop');
    const run = await runCliInProcess(['export', '--date', '2026-10-01', '--dataset', 'visitors', '--out', out], {
      env: { ...laptop, MINTLIFY_ORGS_FILE: own, EXPORT_STATE_DIR: path.join(folder, 'state-laptop') },
      now: Date.now,
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/MINTLIFY_ORGS_FILE without MINTLIFY_API_URL: the embedded sandbox at http:\/\/127\.0\.0\.1:\d+ serves every organisation/);
    const files = await listFiles(out);
    expect(files.filter((file) => file.includes('_manifests/visitors/')).sort()).toEqual([
      'orgs/acme/_manifests/visitors/dt=2026-10-01/proj_acme_docs.json',
      'orgs/beta/_manifests/visitors/dt=2026-10-01/proj_beta_api.json',
      'orgs/beta/_manifests/visitors/dt=2026-10-01/proj_beta_help.json',
    ]);
  }, 60_000);
});
