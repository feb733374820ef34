/**
 * Issue 57, one HMAC key per organisation: two organisations of one deployment (one
 * `PERSONAL_DATA_KEY`) whose readers leave the same addresses. Each organisation's lake holds
 * its people's addresses hashed with its own key (`organisationKey`), so the lakes cannot be
 * joined on a person; `forget --org` erases with that key — and, in a lake an organisation had
 * before keys were per organisation, with the deployment's key too; a person erased then stays
 * out when the day is exported again. Real CLI (in process) over the sandbox; DuckDB reads back.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hmacOf, keyIdOf, organisationKey } from '../../../functions/shared/personal-data/index.js';
import { startSandbox, type Sandbox } from '../../../sandbox/index.js';
import { CONTACTS } from '../../../sandbox/generators/text.js';
import { runCliAt } from '../../helpers/cli.js';
import { makeTempDir, removeTempDirs } from '../../helpers/files.js';
import { queryDuckDb } from '../../helpers/read-back.js';
import { TEST_PERSONAL_DATA_KEY } from '../../helpers/run-deps.js';

const API_KEY = 'mint_org_keys_0123456789abcdef';
const BETA_API_KEY = 'mint_org_keys_beta_0123456789ab';
const NOW = Date.UTC(2026, 1, 10);
/** Exported before keys were per organisation only. */
const OLD_DAY = '2026-02-02';
/** Exported before, then again with the organisation's key (`--force`). */
const AGAIN_DAY = '2026-02-03';
const PROJECTS = { acme: 'proj_acme', beta: 'proj_beta' } as const;
const ORGS = {
  organisations: [
    { id: 'acme', apiKeyEnv: 'ORG_MINTLIFY_KEY', projectIds: [PROJECTS.acme] },
    { id: 'beta', apiKeyEnv: 'BETA_MINTLIFY_KEY', projectIds: [PROJECTS.beta] },
  ],
};
const orgKey = (org: string) => organisationKey(TEST_PERSONAL_DATA_KEY, org);

let sandbox: Sandbox;
let out: string;
let orgsEnv: Record<string, string>;
/** The person erased before keys were per organisation, and the one `forget --org` erases. */
let before: string;
let later: string;

const cli = (args: readonly string[], env: Record<string, string> = {}) => runCliAt(sandbox, args, { now: NOW, env });
const lakeOf = (org: string) => path.join(out, 'orgs', org);

/** The contact values of an organisation's feedback on `day` (every day when absent), with their counts. */
async function contacts(org: string, day?: string): Promise<Map<string, number>> {
  const files = path.join(lakeOf(org), 'feedback', day === undefined ? '*' : `dt=${day}`, '*.parquet');
  const rows = await queryDuckDb(`SELECT contact, count(*) AS n FROM read_parquet('${files}') WHERE contact IS NOT NULL GROUP BY contact`);
  return new Map(rows.map((row) => [String(row['contact']), Number(row['n'])]));
}

/** The sandbox's contact whose HMAC under `key` is `hmac`. */
const contactOf = (key: string, hmac: string): string | undefined => CONTACTS.find((contact) => hmacOf(key, contact) === hmac);

beforeAll(async () => {
  sandbox = await startSandbox({
    apiKey: API_KEY,
    moreApiKeys: [BETA_API_KEY],
    projects: Object.values(PROJECTS).map((id) => ({ id, paths: 10, exact: true, rows: { feedback: 300 } })),
  });
  out = await makeTempDir('organisation-keys');
  const orgsFile = path.join(out, '..', `${path.basename(out)}-orgs.json`);
  await writeFile(orgsFile, JSON.stringify(ORGS));
  orgsEnv = { MINTLIFY_ORGS_FILE: orgsFile, ORG_MINTLIFY_KEY: API_KEY, BETA_MINTLIFY_KEY: BETA_API_KEY };

  // acme's lake as a release before this one wrote it: the deployment's key, no organisations file.
  for (const day of [OLD_DAY, AGAIN_DAY]) {
    const old = await cli(['export', '--date', day, '--project', PROJECTS.acme, '--dataset', 'feedback', '--out', lakeOf('acme')]);
    expect(old.code, old.stderr).toBe(0);
  }
  // A person erased then (under the deployment's key), and another still there.
  const hashed = [...(await contacts('acme', AGAIN_DAY)).keys()].map((hmac) => contactOf(TEST_PERSONAL_DATA_KEY, hmac));
  [before, later] = hashed.filter((contact): contact is string => contact !== undefined) as [string, string];
  const erased = await cli(['forget', '--email', before, '--out', lakeOf('acme')]);
  expect(erased.code, erased.stderr).toBe(0);

  // This release, with the organisations file: AGAIN_DAY exported again for both.
  const exported = await cli(['export', '--date', AGAIN_DAY, '--dataset', 'feedback', '--force', '--out', out], orgsEnv);
  expect(exported.code, exported.stderr).toBe(0);
}, 180_000);

afterAll(async () => {
  await sandbox?.close();
  await removeTempDirs();
});

describe('one HMAC key per organisation', () => {
  it("hashes each organisation's contacts with its own key: one person has another value in each lake", async () => {
    const acme = await contacts('acme', AGAIN_DAY);
    const beta = await contacts('beta', AGAIN_DAY);
    expect(acme.size).toBeGreaterThan(1);
    expect(beta.size).toBeGreaterThan(1);

    for (const hmac of acme.keys()) expect(contactOf(orgKey('acme'), hmac), hmac).toBeDefined();
    for (const hmac of beta.keys()) expect(contactOf(orgKey('beta'), hmac), hmac).toBeDefined();
    expect([...acme.keys()].filter((hmac) => beta.has(hmac))).toEqual([]);
    // The same addresses are in both lakes, each under its organisation's key.
    const people = (org: string, values: Map<string, number>) => new Set([...values.keys()].map((hmac) => contactOf(orgKey(org), hmac)));
    expect([...people('acme', acme)].filter((person) => people('beta', beta).has(person)).length).toBeGreaterThan(0);
  });

  it("records each organisation's key id in its manifests, neither the deployment key's", async () => {
    const keyId = async (org: keyof typeof PROJECTS) => {
      const manifest = await readFile(path.join(lakeOf(org), '_manifests', 'feedback', `dt=${AGAIN_DAY}`, `${PROJECTS[org]}.json`), 'utf8');
      return (JSON.parse(manifest) as { privacy: { keyId: string } }).privacy.keyId;
    };
    expect(await keyId('acme')).toBe(keyIdOf(orgKey('acme')));
    expect(await keyId('beta')).toBe(keyIdOf(orgKey('beta')));
    expect(keyIdOf(orgKey('acme'))).not.toBe(keyIdOf(TEST_PERSONAL_DATA_KEY));
  });

  it('keeps a person erased under the deployment key out when the day is exported again with the organisation key', async () => {
    const acme = await contacts('acme', AGAIN_DAY);
    expect(acme.has(hmacOf(orgKey('acme'), before))).toBe(false);
    expect(acme.has(hmacOf(TEST_PERSONAL_DATA_KEY, before))).toBe(false);
    expect(acme.has(hmacOf(orgKey('acme'), later))).toBe(true);
  });

  it("forget --org erases one organisation's rows under its key and the deployment key's, and leaves the other organisation's", async () => {
    const inOld = (await contacts('acme', OLD_DAY)).get(hmacOf(TEST_PERSONAL_DATA_KEY, later)) ?? 0;
    const inAgain = (await contacts('acme', AGAIN_DAY)).get(hmacOf(orgKey('acme'), later)) ?? 0;
    const inBeta = (await contacts('beta')).get(hmacOf(orgKey('beta'), later)) ?? 0;
    expect(inOld + inAgain).toBeGreaterThan(0);

    const forget = await cli(['forget', '--org', 'acme', '--email', later, '--out', out], orgsEnv);

    expect(forget.code, forget.stderr).toBe(0);
    expect(forget.stdout).toContain(`forgot ${inOld + inAgain} row(s)`);
    expect((await contacts('acme', OLD_DAY)).has(hmacOf(TEST_PERSONAL_DATA_KEY, later))).toBe(false);
    expect((await contacts('acme', AGAIN_DAY)).has(hmacOf(orgKey('acme'), later))).toBe(false);
    expect((await contacts('beta')).get(hmacOf(orgKey('beta'), later)) ?? 0).toBe(inBeta);
  });
});
