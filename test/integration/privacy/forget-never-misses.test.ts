/**
 * Issue 42, `forget` that cannot silently miss: exit 2 before any change, creating nothing, on a
 * destination that holds no export (missing, empty) and with a key other than the lake's (both
 * ids named, no key generated); `--dry-run` leaves the tree byte-identical; `--emails-file`
 * (a file, or stdin) removes several people in one run; any written form of an address finds
 * the person's rows.
 */
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runExport } from '../../../functions/export/run.js';
import { hmacOf, keyIdOf } from '../../../functions/shared/personal-data/index.js';
import { createLocalDestination } from '../../../functions/shared/storage/destination-local.js';
import { startSandbox, type Sandbox } from '../../../sandbox/index.js';
import { runCliInProcess } from '../../helpers/cli.js';
import { makeTempDir, removeTempDirs } from '../../helpers/files.js';
import { queryDuckDb } from '../../helpers/read-back.js';
import { DATASET_CLIENT, exportDeps, TEST_PERSONAL_DATA_KEY, testSettings } from '../../helpers/run-deps.js';

const API_KEY = 'mint_forget_guard_0123456789abcdef';
const PROJECTS = ['proj_one'];
const DAYS = ['2026-02-09', '2026-02-10'];
const START = Date.parse('2026-02-11T04:00:00.000Z');
const OTHER_KEY = 'another-personal-data-key-9876543210';

let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await startSandbox({ apiKey: API_KEY, projects: PROJECTS.map((id) => ({ id, paths: 30, exact: true, rows: { feedback: 400 } })) });
}, 60_000);

afterAll(async () => {
  await sandbox?.close();
  await removeTempDirs();
});

/** A lake of feedback exported with the test key into a fresh folder. */
async function exportedLake(): Promise<string> {
  const dir = await makeTempDir('forget-guard');
  const deps = exportDeps({ sandbox, destination: createLocalDestination(dir), start: START, client: DATASET_CLIENT });
  const result = await runExport({ kind: 'days', days: DAYS, projects: PROJECTS, datasets: ['feedback'] }, testSettings({ datasets: ['feedback'] }), {}, deps);
  expect(result.units.every((unit) => unit.status === 'complete')).toBe(true);
  return dir;
}

/** Every file under `root` (hidden ones too) with a hash of its bytes, and every folder: the tree, byte for byte. */
async function tree(root: string): Promise<Record<string, string>> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true }).catch(() => []);
  const out: Record<string, string> = {};
  for (const entry of entries) {
    const file = path.join(entry.parentPath, entry.name);
    const key = path.relative(root, file);
    out[key] = entry.isFile()
      ? createHash('sha256')
          .update(await readFile(file))
          .digest('hex')
      : 'folder';
  }
  return out;
}

/** The contacts the sandbox served with feedback, most frequent first. */
function contacts(): string[] {
  const counts = new Map<string, number>();
  for (const day of DAYS)
    for (const projectId of PROJECTS)
      for (const row of sandbox.data.rows('feedback', projectId, day)) {
        const contact = 'contact' in row ? row.contact : null;
        if (typeof contact === 'string') counts.set(contact, (counts.get(contact) ?? 0) + 1);
      }
  return [...counts].sort((a, b) => b[1] - a[1]).map(([contact]) => contact);
}

async function rowsOf(root: string, contact: string): Promise<number> {
  const rows = await queryDuckDb(
    `SELECT count(*) FILTER (WHERE contact = '${hmacOf(TEST_PERSONAL_DATA_KEY, contact)}') AS n FROM read_parquet('${path.join(root, 'feedback', '**', '*.parquet')}')`,
  );
  return Number(rows[0]?.['n']);
}

const forget = (args: readonly string[], env: Record<string, string> = { PERSONAL_DATA_KEY: TEST_PERSONAL_DATA_KEY }, extra?: object) =>
  runCliInProcess(['forget', ...args], { env, now: () => START + 3_600_000, ...(extra ? { extra } : {}) });

describe('forget refuses what would make it miss, before any change', () => {
  it('exits 2 on a destination that does not exist, and creates nothing — no folder, no key', async () => {
    const parent = await makeTempDir('forget-missing');
    const missing = path.join(parent, 'dtaa');

    const cli = await forget(['--email', 'ana@example.com', '--out', missing], {});

    expect(cli.code).toBe(2);
    expect(cli.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^error: .*dtaa holds no export \(no manifest under _manifests\/\): nothing was changed; check --out/),
    ]);
    expect(await readdir(parent)).toEqual([]);
  });

  it('exits 2 on an empty folder, even for a dry run, and leaves it empty', async () => {
    const empty = await makeTempDir('forget-empty');

    for (const dry of [[], ['--dry-run']]) {
      const cli = await forget(['--email', 'ana@example.com', '--out', empty, ...dry], {});
      expect(cli.code).toBe(2);
      expect(cli.stderr).toMatch(/holds no export/);
    }
    expect(await readdir(empty)).toEqual([]);
  });

  it('exits 2 with a key other than the lake’s, naming both key ids, and changes nothing', async () => {
    const lake = await exportedLake();
    const before = await tree(lake);

    const cli = await forget(['--email', contacts()[0] as string, '--out', lake], { PERSONAL_DATA_KEY: OTHER_KEY });

    expect(cli.code).toBe(2);
    const line = cli.stderr.trim();
    expect(line.split('\n')).toHaveLength(1);
    expect(line).toContain(keyIdOf(OTHER_KEY));
    expect(line).toContain(keyIdOf(TEST_PERSONAL_DATA_KEY));
    expect(line).not.toContain(OTHER_KEY);
    expect(await tree(lake)).toEqual(before);
  }, 60_000);

  it('exits 2 without any key (a lake copied without its state folder), names the lake’s key id and generates none', async () => {
    const lake = await exportedLake();
    const before = await tree(lake);

    const cli = await forget(['--email', contacts()[0] as string, '--out', lake], {});

    expect(cli.code).toBe(2);
    expect(cli.stderr).toMatch(/no personal-data key: .*personal-data\.key does not exist/);
    expect(cli.stderr).toContain(keyIdOf(TEST_PERSONAL_DATA_KEY));
    expect(await tree(lake)).toEqual(before);
    await expect(stat(path.join(lake, '.state', 'personal-data.key'))).rejects.toThrow();
  }, 60_000);
});

describe('forget --dry-run and --emails-file', () => {
  let lake: string;
  beforeAll(async () => {
    lake = await exportedLake();
  }, 60_000);

  it('a dry run leaves the file tree byte-identical', async () => {
    const before = await tree(lake);
    const [first, second] = contacts();

    const cli = await forget(['--email', first as string, '--out', lake, '--dry-run']);
    const many = path.join(await makeTempDir('forget-list'), 'people.txt');
    await writeFile(many, `${first}\n${second}\n`);
    const cliMany = await forget(['--emails-file', many, '--out', lake, '--dry-run']);

    expect(cli.code).toBe(0);
    expect(cliMany.code).toBe(0);
    expect(cliMany.stdout).toMatch(/^dry run: \d+ row\(s\) of 2 of 2 people in \d+ file\(s\) of .*; nothing was changed$/m);
    expect(await tree(lake)).toEqual(before);
  });

  it('--emails-file removes two people in one run, in any written form, and records the erasure once with both HMACs', async () => {
    const [first, second] = contacts() as [string, string];
    const [firstBefore, secondBefore] = [await rowsOf(lake, first), await rowsOf(lake, second)];
    expect(firstBefore).toBeGreaterThan(0);
    expect(secondBefore).toBeGreaterThan(0);
    const fullWidth = second
      .toUpperCase()
      .replace('@', '＠')
      .replace(/\.(?=[^.]*$)/, '。');
    const file = path.join(await makeTempDir('forget-list'), 'people.txt');
    await writeFile(file, `# people who asked\n${first}\n\n ${fullWidth} \n${first.toUpperCase()}\n`);

    const cli = await forget(['--emails-file', file, '--out', lake, '--json']);

    expect(cli.code).toBe(0);
    const result = JSON.parse(cli.stdout);
    expect(result.people).toHaveLength(2);
    expect(result.rows).toBe(firstBefore + secondBefore);
    expect(await rowsOf(lake, first)).toBe(0);
    expect(await rowsOf(lake, second)).toBe(0);
    const records = (await readdir(path.join(lake, '_privacy', 'erasures'))).filter((name) => name.endsWith('.json'));
    expect(records).toHaveLength(1);
    const text = await readFile(path.join(lake, '_privacy', 'erasures', records[0] as string), 'utf8');
    expect(JSON.parse(text)).toMatchObject({
      status: 'done',
      hmacs: [hmacOf(TEST_PERSONAL_DATA_KEY, first), hmacOf(TEST_PERSONAL_DATA_KEY, second)],
      rows: firstBefore + secondBefore,
    });
    expect(text).not.toMatch(/@|＠/);
  }, 60_000);

  it('--emails-file - reads the addresses from stdin', async () => {
    const third = contacts()[2] as string;
    expect(await rowsOf(lake, third)).toBeGreaterThan(0);

    const cli = await forget(['--emails-file', '-', '--out', lake], undefined, { stdin: Readable.from([`${third}\n`]) });

    expect(cli.code).toBe(0);
    expect(await rowsOf(lake, third)).toBe(0);
  }, 60_000);

  it('refuses a file with a line that is no address, naming the line and not the text, changing nothing', async () => {
    const before = await tree(lake);
    const dir = await makeTempDir('forget-list');
    await mkdir(dir, { recursive: true });
    const file = path.join(dir, 'people.txt');
    await writeFile(file, 'ana@example.com\nsecret-person@\n');

    const cli = await forget(['--emails-file', file, '--out', lake]);

    expect(cli.code).toBe(2);
    expect(cli.stderr.trim()).toMatch(/^error: --emails-file .*people\.txt: line 2 is not an e-mail address/);
    expect(cli.stderr).not.toContain('secret-person');
    expect(await tree(lake)).toEqual(before);
  });
});
