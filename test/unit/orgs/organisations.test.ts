/**
 * The organisations file (MINTLIFY_ORGS_FILE): what it accepts, and the one line for each mistake,
 * none of which prints a key. Also the budget's share under ANALYTICS_RESERVE and the store
 * scoped to one organisation.
 */
import { chmod, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { orgDestination, readOrganisationsFile, selectOrganisations } from '../../../functions/organisations/organisations.js';
import { parseBudget } from '../../../functions/shared/pacing/budget-spec.js';
import { createBudgetLedger, shareOf } from '../../../functions/shared/pacing/budget.js';
import { createMemoryStore } from '../../../functions/shared/storage/shared-store.js';
import { orgScope, scopedStore } from '../../../functions/shared/storage/scoped-store.js';
import { makeTempDir, removeTempDirs } from '../../helpers/files.js';
import { configErrorOf } from '../../helpers/errors.js';
import { openSharedStore } from '../../../functions/export/deps.js';
import { loadConfig } from '../../../functions/settings/config.js';

const KEY = 'mint_test_0123456789';
afterAll(removeTempDirs);

async function fileOf(content: unknown, mode = 0o600): Promise<string> {
  const file = path.join(await makeTempDir('orgs-file'), 'orgs.json');
  await writeFile(file, typeof content === 'string' ? content : JSON.stringify(content));
  await chmod(file, mode);
  return file;
}

const entry = (over: object = {}) => ({ id: 'acme', apiKeyEnv: 'ACME_KEY', projectIds: ['proj_a'], ...over });

describe('readOrganisationsFile', () => {
  it('resolves each key from its environment variable', async () => {
    const file = await fileOf({ organisations: [entry(), entry({ id: 'b-2', apiKeyEnv: 'B_KEY', projectIds: ['proj_b', 'proj_b'] })] });
    const orgs = readOrganisationsFile(file, { ACME_KEY: KEY, B_KEY: `${KEY}b` });
    expect(orgs).toEqual([
      { id: 'acme', apiKey: KEY, projectIds: ['proj_a'] },
      { id: 'b-2', apiKey: `${KEY}b`, projectIds: ['proj_b'] },
    ]);
  });

  it.each([
    ['an id with capitals', { organisations: [entry({ id: 'Acme' })] }, /organisations\[0\]\.id: an id is 1–40 lowercase letters, digits or -/],
    ['an id of 41 characters', { organisations: [entry({ id: 'a'.repeat(41) })] }, /an id is 1–40/],
    ['no projects', { organisations: [entry({ projectIds: [] })] }, /projectIds names at least one project/],
    ['both key fields', { organisations: [entry({ apiKey: KEY })] }, /give each organisation apiKeyEnv \(or apiKey\), not both/],
    ['an unknown field', { organisations: [entry({ region: 'eu' })] }, /an organisation has only id, apiKeyEnv or apiKey, and projectIds/],
    ['an empty list', { organisations: [] }, /lists at least one organisation/],
    ['not JSON', '{organisations:', /is not JSON/],
  ])('refuses %s with one line', async (_, content, message) => {
    const file = await fileOf(content);
    const error = configErrorOf(() => readOrganisationsFile(file, { ACME_KEY: KEY }));
    expect(error.message).toMatch(message);
    expect(error.message).not.toContain('\n');
  });

  it('refuses a device, a folder and a file over 1 MB with one line, reading no more than the cap', async () => {
    expect(configErrorOf(() => readOrganisationsFile('/dev/zero', {})).message).toMatch(/^MINTLIFY_ORGS_FILE \/dev\/zero is not a regular file: /);
    const folder = await makeTempDir('orgs-folder');
    expect(configErrorOf(() => readOrganisationsFile(folder, {})).message).toMatch(/is not a regular file/);
    const big = await fileOf(`{"organisations":[${' '.repeat(1024 * 1024)}]}`);
    const error = configErrorOf(() => readOrganisationsFile(big, {}));
    expect(error.message).toMatch(/is larger than 1 MB/);
    expect(error.message).not.toContain('\n');
  });

  it('refuses an id listed twice, and two organisations with one key (one budget)', async () => {
    const twice = await fileOf({ organisations: [entry(), entry()] });
    expect(() => readOrganisationsFile(twice, { ACME_KEY: KEY })).toThrow(/organisation "acme" is listed twice/);
    const shared = await fileOf({ organisations: [entry(), entry({ id: 'other', apiKeyEnv: 'OTHER' })] });
    const error = configErrorOf(() => readOrganisationsFile(shared, { ACME_KEY: KEY, OTHER: KEY }));
    expect(error.message).toMatch(/organisations "acme" and "other" use the same key/);
    expect(error.message).not.toContain(KEY);
  });

  it('names the variable of a missing key and a malformed one, never the value', async () => {
    const file = await fileOf({ organisations: [entry()] });
    expect(() => readOrganisationsFile(file, {})).toThrow(/^ACME_KEY is not set: export the admin key \(mint_…\) of organisation "acme"/);
    const error = configErrorOf(() => readOrganisationsFile(file, { ACME_KEY: 'sk_secret_value' }));
    expect(error.message).toMatch(/^ACME_KEY must be an admin API key starting with mint_/);
    expect(error.message).not.toContain('sk_secret_value');
  });

  it.each([0o640, 0o604, 0o620])('refuses an inline key in a file of mode %o, without printing it', async (mode) => {
    const file = await fileOf({ organisations: [{ id: 'acme', apiKey: KEY, projectIds: ['proj_a'] }] }, mode);
    const error = configErrorOf(() => readOrganisationsFile(file, {}));
    expect(error.message).toMatch(/holds an inline apiKey \(organisation "acme"\) but others can read it/);
    expect(error.message).not.toContain(KEY);
  });

  it('takes an inline key from a file only its owner can read', async () => {
    const file = await fileOf({ organisations: [{ id: 'acme', apiKey: KEY, projectIds: ['proj_a'] }] }, 0o600);
    expect(readOrganisationsFile(file, {})[0]?.apiKey).toBe(KEY);
  });

  it('says the file cannot be read', () => {
    expect(() => readOrganisationsFile('/nonexistent/orgs.json', {})).toThrow(/MINTLIFY_ORGS_FILE \/nonexistent\/orgs.json cannot be read \(ENOENT\)/);
  });
});

describe('selectOrganisations', () => {
  const all = [
    { id: 'a', apiKey: KEY, projectIds: ['p'] },
    { id: 'b', apiKey: `${KEY}b`, projectIds: ['q'] },
  ];
  it('takes every one without --org, and those named (once each) with it', () => {
    expect(selectOrganisations(all, []).map((o) => o.id)).toEqual(['a', 'b']);
    expect(selectOrganisations(all, ['b', 'b']).map((o) => o.id)).toEqual(['b']);
  });
  it('names an unknown id', () => {
    expect(() => selectOrganisations(all, ['a', 'zz'])).toThrow('--org "zz" is not an organisation of MINTLIFY_ORGS_FILE: use one of a, b');
  });
});

describe('orgDestination', () => {
  it('puts an organisation under orgs/<id> of a folder or a bucket prefix', () => {
    expect(orgDestination('./data/', 'acme')).toBe('./data/orgs/acme');
    expect(orgDestination('s3://bucket/mintlify', 'acme')).toBe('s3://bucket/mintlify/orgs/acme');
  });
});

describe('shareOf (ANALYTICS_RESERVE)', () => {
  it('takes the reserve, scaled to the window and rounded up, off each window', () => {
    expect(shareOf(parseBudget('90/1h'), 0)).toEqual(parseBudget('90/1h'));
    expect(shareOf(parseBudget('90/1h'), 20)).toEqual({ requests: 70, windowMs: 3_600_000, text: '70/1h' });
    expect(shareOf(parseBudget('30/30m'), 15)).toEqual({ requests: 22, windowMs: 1_800_000, text: '22/30m' });
    expect(shareOf(parseBudget('6/2s'), 1800).requests).toBe(5);
  });
  it('refuses a reserve that leaves nothing', () => {
    expect(() => shareOf(parseBudget('90/1h'), 90)).toThrow(/ANALYTICS_RESERVE 90 an hour leaves nothing of ANALYTICS_BUDGET 90\/1h/);
  });
});

describe('scopedStore', () => {
  it("keeps each organisation's ledger apart in one store", async () => {
    const store = createMemoryStore();
    const spec = parseBudget('2/1h');
    const now = () => 1_000;
    const a = createBudgetLedger(scopedStore(store, orgScope('a')), spec, { now });
    const b = createBudgetLedger(scopedStore(store, orgScope('b')), spec, { now });
    expect((await a.tryStart()).waitMs).toBe(0);
    expect((await a.tryStart()).waitMs).toBe(0);
    expect((await a.tryStart()).waitMs).toBeGreaterThan(0);
    expect((await b.tryStart()).waitMs).toBe(0);
    expect((await store.list('')).map((d) => d.key).sort()).toEqual(['orgs/a/budget/ledger', 'orgs/b/budget/ledger']);
    expect((await scopedStore(store, orgScope('a')).list('budget/')).map((d) => d.key)).toEqual(['budget/ledger']);
  });
});

describe('openSharedStore with EXPORT_ORG', () => {
  it("keeps an organisation's state under orgs/<id>/ of the shared state folder, and nothing changes without it", async () => {
    const dir = await makeTempDir('orgs-state');
    const acme = openSharedStore(loadConfig({ EXPORT_STATE_DIR: dir, EXPORT_ORG: 'acme' }));
    const single = openSharedStore(loadConfig({ EXPORT_STATE_DIR: dir }));
    await acme.update('budget/ledger', () => ({ value: { n: 1 }, result: undefined }));
    await single.update('budget/ledger', () => ({ value: { n: 2 }, result: undefined }));
    expect(await acme.get('budget/ledger')).toEqual({ n: 1 });
    expect(await single.get('budget/ledger')).toEqual({ n: 2 });
    expect((await single.list('orgs/')).map((d) => d.key)).toEqual(['orgs/acme/budget/ledger']);
  });
});
