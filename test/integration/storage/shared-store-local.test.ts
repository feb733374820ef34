import { spawn } from 'node:child_process';
import { readdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { LEDGER_KEY, type LedgerDoc } from '../../../functions/shared/pacing/budget.js';
import { ConfigError } from '../../../functions/shared/errors.js';
import { createLocalStore } from '../../../functions/shared/storage/shared-store-local.js';
import { describeSharedStoreContract } from '../../helpers/shared-store-cases.js';
import { maxInAnyWindow } from '../../helpers/request-log.js';
import { makeTempDir, removeTempDirs } from '../../helpers/files.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const CHILD = fileURLToPath(new URL('../../helpers/shared-store-child.ts', import.meta.url));

const freshDir = () => makeTempDir('shared-store');
afterAll(removeTempDirs);

interface Child {
  readonly ready: Promise<void>;
  go(): void;
  readonly output: Promise<unknown>;
}

/** Starts the helper process; it does its work once `go` is called. */
function startChild(args: readonly string[]): Child {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, ...args], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  let markReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
    if (stdout.startsWith('ready\n')) markReady();
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const output = new Promise<unknown>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      markReady();
      const last = stdout.trim().split('\n').at(-1) ?? '';
      if (code === 0 && last.startsWith('{')) resolve(JSON.parse(last));
      else reject(new Error(`child ${args.join(' ')} exited ${code}: ${stderr.slice(-2_000)}`));
    });
  });
  return { ready, go: () => child.stdin.end('go\n'), output };
}

/** Starts the children, waits until all are up, then lets them all go at once. */
async function runTogether(...argLists: ReadonlyArray<readonly string[]>): Promise<unknown[]> {
  const children = argLists.map(startChild);
  await Promise.all(children.map((child) => child.ready));
  for (const child of children) child.go();
  return Promise.all(children.map((child) => child.output));
}

describe('local shared store across processes', () => {
  it('never lets two processes sharing one ledger start more than B requests in any window, and loses no start', async () => {
    const dir = await freshDir();
    const outputs = (await runTogether(['ledger', dir, '20/2s', '30'], ['ledger', dir, '20/2s', '30'])) as Array<{ starts: number[] }>;
    const all = outputs.flatMap((output) => output.starts);
    expect(outputs.map((output) => output.starts.length)).toEqual([30, 30]);
    expect(maxInAnyWindow(all, 2_000)).toBe(20);
    // The ledger keeps a day of starts: it must hold every start of both processes — a lost
    // update would be missing from it.
    const ledger = await createLocalStore(dir).get<LedgerDoc>(LEDGER_KEY);
    expect(ledger?.starts).toEqual([...all].sort((a, b) => a - b));
  });

  it('loses no update when two processes increment one document at once', async () => {
    const dir = await freshDir();
    await runTogether(['counter', dir, '150'], ['counter', dir, '150']);
    expect(await createLocalStore(dir).get('counter')).toEqual({ n: 300 });
  });

  it('gives each of many contended leases to exactly one of two processes', async () => {
    const dir = await freshDir();
    const keys = Array.from({ length: 20 }, (_, i) => `visitors/2025-01-${String(i + 1).padStart(2, '0')}/proj`);
    const outputs = (await runTogether(['leases', dir, ...keys], ['leases', dir, ...keys])) as Array<{ won: string[] }>;
    const won = outputs.flatMap((output) => output.won);
    expect([...won].sort()).toEqual([...keys].sort());
  });
});

describe('local shared store files', () => {
  /** The lock file path of `key`, found from the document's file name. */
  async function lockOf(dir: string, key: string): Promise<string> {
    await createLocalStore(dir).update(key, () => ({ value: 0, result: undefined }));
    const [name] = (await readdir(dir)).filter((file) => file.endsWith('.json'));
    return join(dir, `${name}.lock`);
  }

  it('waits for a lock another writer holds', async () => {
    const dir = await freshDir();
    const lock = await lockOf(dir, 'budget/ledger');
    await writeFile(lock, 'someone-else', { flag: 'wx' });
    let sleeps = 0;
    const store = createLocalStore(dir, {
      sleep: async () => {
        if (++sleeps === 3) await rm(lock); // the other writer finishes
      },
    });
    await store.update('budget/ledger', () => ({ value: 1, result: undefined }));
    expect(sleeps).toBe(3);
    expect(await store.get('budget/ledger')).toBe(1);
  });

  it('breaks a lock left by a crashed writer once it is older than staleLockMs', async () => {
    const dir = await freshDir();
    const lock = await lockOf(dir, 'budget/ledger');
    await writeFile(lock, 'crashed', { flag: 'wx' });
    const old = new Date(Date.now() - 60_000);
    await utimes(lock, old, old);
    const store = createLocalStore(dir, { staleLockMs: 30_000, sleep: () => Promise.reject(new Error('should not wait')) });
    await store.update('budget/ledger', () => ({ value: 2, result: undefined }));
    expect(await store.get('budget/ledger')).toBe(2);
  });

  it('breaks at once a fresh lock whose holder on this machine is gone (kill -9 inside an update)', async () => {
    const dir = await freshDir();
    const lock = await lockOf(dir, 'budget/ledger');
    const child = spawn(process.execPath, ['-e', '']);
    const pid = child.pid;
    await new Promise((resolve) => child.on('exit', resolve));
    await writeFile(lock, `${hostname()}:${pid}:0badc0de`, { flag: 'wx' });
    const store = createLocalStore(dir, { staleLockMs: 30_000, sleep: () => Promise.reject(new Error('should not wait')) });
    await store.update('budget/ledger', () => ({ value: 3, result: undefined }));
    expect(await store.get('budget/ledger')).toBe(3);
  });

  it('waits for a fresh lock whose holder is alive', async () => {
    const dir = await freshDir();
    const lock = await lockOf(dir, 'budget/ledger');
    await writeFile(lock, `${hostname()}:${process.ppid}:0badc0de`, { flag: 'wx' });
    let sleeps = 0;
    const store = createLocalStore(dir, {
      staleLockMs: 30_000,
      sleep: async () => {
        if (++sleeps === 2) await rm(lock);
      },
    });
    await store.update('budget/ledger', () => ({ value: 4, result: undefined }));
    expect(sleeps).toBe(2);
  });

  it('leaves only document files behind: no temp, lock or broken-lock files', async () => {
    const dir = await freshDir();
    const store = createLocalStore(dir);
    await Promise.all(
      Array.from({ length: 10 }, (_, i) => store.update(`k/${i % 3}`, (n: number | undefined) => ({ value: (n ?? 0) + 1, result: undefined }))),
    );
    await store.update('k/0', () => ({ value: undefined, result: undefined }));
    expect((await readdir(dir)).sort()).toEqual(['k%2F1.json', 'k%2F2.json']);
  });

  it('does not rewrite a document whose value did not change', async () => {
    const dir = await freshDir();
    const store = createLocalStore(dir);
    await store.update('doc', () => ({ value: { a: 1 }, result: undefined }));
    const file = join(dir, 'doc.json');
    const before = await stat(file);
    await store.update('doc', (current) => ({ value: current, result: undefined }));
    expect((await stat(file)).ino).toBe(before.ino);
  });

  it('keeps the key inside the file, as JSON', async () => {
    const dir = await freshDir();
    await createLocalStore(dir).update('lease/Unit', () => ({ value: { owner: 'a' }, result: undefined }));
    expect(JSON.parse(await readFile(join(dir, 'lease%2F%55nit.json'), 'utf8'))).toEqual({ key: 'lease/Unit', value: { owner: 'a' } });
  });

  it('refuses a file that is not one of its documents, naming it', async () => {
    const dir = await freshDir();
    await writeFile(join(dir, 'doc.json'), 'not json');
    const store = createLocalStore(dir);
    await expect(store.get('doc')).rejects.toBeInstanceOf(ConfigError);
    await expect(store.get('doc')).rejects.toThrow(/doc\.json is not a state document/);
  });
});

describeSharedStoreContract('local directory', async () => createLocalStore(await freshDir()));
