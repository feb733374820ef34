/**
 * Many organisations on the command line (issue 46): an organisations file of three — two with
 * keys the sandbox accepts, one whose key it refuses as revoked — and the real CLI spawned over
 * it. Each healthy organisation is exported into `<out>/orgs/<id>/` with its own key only, under
 * its own budget share (ANALYTICS_BUDGET less ANALYTICS_RESERVE) in every window; the revoked
 * one is named and costs the others nothing; `status --org` shows one organisation; an inline
 * key in a file others can read is refused without being printed. The export is the spawned
 * CLI; the commands after it run in process (`main`, the same environment).
 */
import { existsSync } from 'node:fs';
import { chmod, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../../sandbox/index.js';
import { runCliInProcess, runSpawnedCli } from '../../helpers/cli.js';
import { hostEnv, noAwsSetup } from '../../helpers/env.js';
import { listFiles, makeTempDir, removeTempDirs } from '../../helpers/files.js';
import { analyticsRequests, maxInAnyWindow } from '../../helpers/request-log.js';
import { TEST_PERSONAL_DATA_KEY } from '../../helpers/run-deps.js';

const DAY = '2026-10-08';
const KEYS = { acme: 'mint_acme_0123456789abcdef', beta: 'mint_beta_0123456789abcdef', gone: 'mint_gone_0123456789abcdef' } as const;
const PROJECTS = { acme: ['proj_synth_1500', 'proj_synth_300'], beta: ['proj_synth_600'], gone: ['proj_synth_100'] } as const;
/** 6 requests per 2 s, less a reserve of 1800 an hour (1 per 2 s): a share of 5 per 2 s for each organisation. */
const BUDGET = { ANALYTICS_BUDGET: '6/2s', ANALYTICS_RESERVE: '1800' };
const SHARE = 5;
const WINDOW_MS = 2_000;

/** The starts of each budget ledger under `stateDir` (a JSON document with `starts`, or its `value`), by file. */
async function ledgerStarts(stateDir: string): Promise<Map<string, number[]>> {
  const ledgers = new Map<string, number[]>();
  for (const file of await listFiles(stateDir)) {
    if (!/ledger[^/]*\.json$/.test(file)) continue;
    const doc = JSON.parse(await readFile(path.join(stateDir, file), 'utf8')) as { starts?: number[]; value?: { starts?: number[] } };
    const starts = doc.value?.starts ?? doc.starts;
    if (starts !== undefined) ledgers.set(file, starts);
  }
  return ledgers;
}

let sandbox: Sandbox;
let folder: string;
let out: string;
let orgsFile: string;
let env: Record<string, string>;
let exported: Awaited<ReturnType<typeof runSpawnedCli>>;

const ORGS = {
  organisations: [
    { id: 'acme', apiKeyEnv: 'ACME_MINTLIFY_KEY', projectIds: PROJECTS.acme },
    { id: 'beta', apiKeyEnv: 'BETA_MINTLIFY_KEY', projectIds: PROJECTS.beta },
    { id: 'gone', apiKeyEnv: 'GONE_MINTLIFY_KEY', projectIds: PROJECTS.gone },
  ],
};

beforeAll(async () => {
  // The sandbox accepts acme's key (index 0) and beta's (index 1); gone's key was revoked.
  sandbox = await startSandbox({ apiKey: KEYS.acme, moreApiKeys: [KEYS.beta] });
  folder = await makeTempDir('orgs');
  out = path.join(folder, 'lake');
  orgsFile = path.join(folder, 'orgs.json');
  await writeFile(orgsFile, JSON.stringify(ORGS));
  env = {
    ...hostEnv(),
    ...noAwsSetup(folder),
    MINTLIFY_API_URL: sandbox.url,
    MINTLIFY_ORGS_FILE: orgsFile,
    ACME_MINTLIFY_KEY: KEYS.acme,
    BETA_MINTLIFY_KEY: KEYS.beta,
    GONE_MINTLIFY_KEY: KEYS.gone,
    EXPORT_STATE_DIR: path.join(folder, 'state'),
    PERSONAL_DATA_KEY: TEST_PERSONAL_DATA_KEY,
    API_TIMEOUT_MS: '5000',
    ...BUDGET,
  };
  exported = await runSpawnedCli(['export', '--date', DAY, '--dataset', 'visitors', '--dataset', 'searches', '--out', out], env);
}, 120_000);

afterAll(async () => {
  await sandbox?.close();
  await removeTempDirs();
});

describe('export with an organisations file of three, one key revoked', () => {
  it('exits 1 naming the revoked organisation, and never prints a key', () => {
    expect(exported.code, exported.stderr).toBe(1);
    const last = exported.stderr.trim().split('\n').at(-1) ?? '';
    expect(last).toMatch(/did not complete for 1 of 3 organisation\(s\): gone/);
    expect(last).not.toMatch(/acme|beta/);
    for (const key of Object.values(KEYS)) expect(`${exported.stdout}${exported.stderr}`).not.toContain(key);
  });

  it('writes every unit of the two healthy organisations under orgs/<id>/, and nothing at the top or for the revoked one', async () => {
    const files = await listFiles(out);
    for (const org of ['acme', 'beta'] as const) {
      for (const project of PROJECTS[org]) {
        for (const dataset of ['visitors', 'searches']) {
          expect(files).toContain(`orgs/${org}/_manifests/${dataset}/dt=${DAY}/${project}.json`);
        }
        expect(files).toContain(`orgs/${org}/visitors_pages/dt=${DAY}/${project}.parquet`);
      }
    }
    expect(files.filter((file) => !file.startsWith('orgs/'))).toEqual([]);
    expect(files.filter((file) => file.startsWith('orgs/gone/') && file.endsWith('.parquet'))).toEqual([]);
  });

  it("sends each organisation's requests with its own key only, and the revoked key once", () => {
    const requests = analyticsRequests(sandbox.requests);
    const of = (org: keyof typeof PROJECTS) => requests.filter((entry) => (PROJECTS[org] as readonly string[]).includes(entry.projectId ?? ''));
    expect(of('acme').length).toBeGreaterThan(SHARE);
    expect(new Set(of('acme').map((entry) => entry.keyIndex))).toEqual(new Set([0]));
    expect(new Set(of('beta').map((entry) => entry.keyIndex))).toEqual(new Set([1]));
    // The revoked key: its first request answers 401 and stops that organisation's run.
    expect(of('gone').map((entry) => entry.status)).toEqual([401]);
  });

  it('keeps each key within its share (the budget less the reserve) in every window', async () => {
    // The starts each organisation's ledger let out (its departures: the sandbox's arrival times
    // bunch when a loaded machine delays some, so they are not what is counted), and one start
    // for each request the sandbox saw with that organisation's key.
    const requests = analyticsRequests(sandbox.requests);
    const ledgers = await ledgerStarts(path.join(folder, 'state'));
    expect(ledgers.size).toBeGreaterThanOrEqual(2);
    for (const [file, starts] of ledgers) expect(maxInAnyWindow(starts, WINDOW_MS), file).toBeLessThanOrEqual(SHARE);
    const paced = [...ledgers.values()].map((starts) => starts.length).sort((a, b) => a - b);
    const sent = [0, 1].map((index) => requests.filter((entry) => entry.keyIndex === index).length);
    for (const count of sent) expect(paced).toContain(count);
  });
});

describe('status --org', () => {
  it('lists only that organisation, from its own lake', async () => {
    const run = await runCliInProcess(['status', '--org', 'beta', '--date', DAY, '--dataset', 'visitors', '--out', out, '--json'], { env, now: Date.now });
    expect(run.code, run.stderr).toBe(0);
    const json = JSON.parse(run.stdout) as {
      organisations: { id: string; exitCode: number; result: { destination: string; units: { projectId: string; state: string }[] } }[];
    };
    expect(json.organisations.map((org) => org.id)).toEqual(['beta']);
    const [beta] = json.organisations;
    expect(beta?.result.destination).toContain(path.join('orgs', 'beta'));
    expect(beta?.result.units.map((unit) => [unit.projectId, unit.state])).toEqual([['proj_synth_600', 'complete']]);
  });

  it('exits 2 naming an id the file does not have', async () => {
    const run = await runCliInProcess(['status', '--org', 'acme', '--org', 'nope', '--out', out], { env, now: Date.now });
    expect(run.code).toBe(2);
    expect(run.stderr.trim()).toMatch(/^error: --org "nope" is not an organisation of MINTLIFY_ORGS_FILE: use one of acme, beta, gone$/);
  });
});

describe('an inline key', () => {
  const inline = (mode: number) => async () => {
    const file = path.join(folder, `inline-${mode.toString(8)}.json`);
    await writeFile(file, JSON.stringify({ organisations: [{ id: 'acme', apiKey: KEYS.acme, projectIds: PROJECTS.acme }] }));
    await chmod(file, mode);
    sandbox.clearRequests();
    return runCliInProcess(['plan', '--date', DAY, '--out', path.join(folder, `lake-${mode.toString(8)}`)], {
      env: { ...env, MINTLIFY_ORGS_FILE: file },
      now: Date.now,
    });
  };

  it('in a group-readable file is refused with one line that does not print it', async () => {
    const run = await inline(0o640)();
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toMatch(/holds an inline apiKey \(organisation "acme"\) but others can read it \(mode 640\): chmod 600 it/);
    expect(run.stderr).not.toContain(KEYS.acme);
    expect(sandbox.requests).toEqual([]);
  });

  it('in a file only its owner can read is used', async () => {
    const run = await inline(0o600)();
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('Organisation acme');
    expect(existsSync(path.join(folder, 'lake-600', 'orgs'))).toBe(false); // plan writes nothing
  });
});
