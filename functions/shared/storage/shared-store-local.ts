/**
 * The shared store in a local directory, for the CLI: two runs on one machine (two terminals,
 * a cron job and a person) share the budget ledger and the leases through it.
 *
 * - One file per key, `<encoded key>.json`, holding `{ key, value }`: the key inside the file
 *   lets `list` work even when a long key had to be shortened into a hashed name.
 * - An update takes a per-key lock file opened with `wx` (exclusive create, atomic on local
 *   file systems), reads the document, applies the change, writes a temp file, fsyncs it and
 *   renames it over the document. Readers never lock: `rename` replaces the file atomically, so
 *   a reader sees the old document or the new one, never half of one.
 * - A lock older than `staleLockMs` belongs to a writer that crashed (an update holds it for
 *   milliseconds). It is broken by renaming it aside — only one waiter can win that rename —
 *   and a writer checks the lock still carries its token just before it commits, so a lock
 *   broken under a writer that was suspended for that long costs a retry, not a lost update.
 */
import { createHash, randomBytes } from 'node:crypto';
import { link, mkdir, open, readFile, readdir, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfigError } from '../errors.js';
import { isLocalProcessGone, newLeaseOwner } from '../pacing/leases.js';
import { checkStoreKey, type SharedStore } from './shared-store.js';
import { sleep as realSleep } from '../time.js';

interface LocalStoreOptions {
  /** A lock file older than this is a crashed writer's and is broken (ms). @default 30_000 */
  readonly staleLockMs?: number;
  /** Pause between attempts to take a busy lock. @default setTimeout */
  readonly sleep?: (ms: number) => Promise<void>;
}

/** Longest encoded key kept readable in a file name; longer ones are shortened with a hash. */
const MAX_READABLE_NAME = 160;

export function createLocalStore(dir: string, options: LocalStoreOptions = {}): SharedStore {
  const staleLockMs = options.staleLockMs ?? 30_000;
  if (!Number.isFinite(staleLockMs) || staleLockMs <= 0) {
    throw new ConfigError(`staleLockMs must be a positive number of milliseconds, got ${staleLockMs}`);
  }
  const sleep = options.sleep ?? ((ms: number) => realSleep(ms));
  let ready: Promise<unknown> | undefined;
  // Private (0700/0600): the ledger and leases name this machine's runs and its hostname.
  const ensureDir = () => (ready ??= mkdir(dir, { recursive: true, mode: 0o700 }));
  const pathOf = (key: string) => join(dir, `${fileNameOf(key)}.json`);

  async function read<T>(file: string, key: string | undefined): Promise<{ readonly key: string; readonly value: T } | undefined> {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      if (isCode(error, 'ENOENT')) return undefined;
      throw error;
    }
    const parsed = parseDocument(text);
    if (!parsed || (key !== undefined && parsed.key !== key)) {
      throw new ConfigError(
        `${file} is not a state document of this exporter: delete it (the ledger or lease it held is rebuilt) or choose another EXPORT_STATE_DIR`,
      );
    }
    return parsed as { key: string; value: T };
  }

  /**
   * Takes the key's lock; resolves with the token written into it. The token names the holder
   * (`<hostname>:<pid>:<random>`), so a lock whose holder died on this machine (`kill -9`
   * between its write and its unlock) is broken at once instead of after `staleLockMs`.
   */
  async function lock(lockFile: string): Promise<string> {
    const token = newLeaseOwner();
    for (;;) {
      try {
        await writeFile(lockFile, token, { flag: 'wx', mode: 0o600 });
        return token;
      } catch (error) {
        if (!isCode(error, 'EEXIST')) throw error;
      }
      const age = await stat(lockFile).then(
        (s) => Date.now() - s.mtimeMs,
        () => undefined,
      );
      const holderGone = age !== undefined && isLocalProcessGone(await readFile(lockFile, 'utf8').catch(() => ''));
      if (age !== undefined && (age > staleLockMs || holderGone)) await breakLock(lockFile, holderGone);
      // Jitter keeps two processes from retrying in lockstep.
      else await sleep(2 + Math.random() * 8);
    }
  }

  async function breakLock(lockFile: string, holderGone = false): Promise<void> {
    const aside = `${lockFile}.${randomBytes(6).toString('hex')}.broken`;
    try {
      await rename(lockFile, aside);
    } catch (error) {
      if (isCode(error, 'ENOENT')) return; // another waiter broke it first
      throw error;
    }
    const age = await stat(aside).then(
      (s) => Date.now() - s.mtimeMs,
      () => Infinity,
    );
    // Between our stat and our rename another waiter may have broken the stale lock and taken
    // a fresh one, which we just moved: put it back unless someone has locked since.
    const stillDead = holderGone && isLocalProcessGone(await readFile(aside, 'utf8').catch(() => ''));
    if (age <= staleLockMs && !stillDead) await link(aside, lockFile).catch(() => undefined);
    await unlink(aside).catch(() => undefined);
  }

  const holds = (lockFile: string, token: string) =>
    readFile(lockFile, 'utf8').then(
      (text) => text === token,
      () => false,
    );

  async function unlock(lockFile: string, token: string): Promise<void> {
    if (await holds(lockFile, token)) await unlink(lockFile).catch(() => undefined);
  }

  async function writeTemp(file: string, text: string): Promise<string> {
    const temp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
    const handle = await open(temp, 'wx', 0o600);
    try {
      await handle.writeFile(text, 'utf8');
      // Durable before it becomes visible: after a crash the ledger is old or new, never empty.
      await handle.sync();
    } finally {
      await handle.close();
    }
    return temp;
  }

  return {
    description: dir,

    async get<T>(key: string) {
      checkStoreKey(key);
      // A read creates nothing: `plan` and `status` leave a new folder as they found it.
      return (await read<T>(pathOf(key), key))?.value;
    },

    async update<T, R>(key: string, change: (current: T | undefined) => { readonly value: T | undefined; readonly result: R }) {
      checkStoreKey(key);
      await ensureDir();
      const file = pathOf(key);
      const lockFile = `${file}.lock`;
      for (;;) {
        const token = await lock(lockFile);
        let temp: string | undefined;
        try {
          const current = await read<T>(file, key);
          const { value, result } = change(current?.value);
          if (value === undefined) {
            if (current === undefined) return result;
            if (!(await holds(lockFile, token))) continue; // our lock was broken: start over
            await unlink(file);
            return result;
          }
          const json = JSON.stringify(value);
          // Unchanged: no write (a refused budget request must not cost a file write).
          if (current !== undefined && JSON.stringify(current.value) === json) return result;
          temp = await writeTemp(file, JSON.stringify({ key, value }));
          if (!(await holds(lockFile, token))) continue;
          await rename(temp, file);
          temp = undefined;
          return result;
        } finally {
          if (temp !== undefined) await unlink(temp).catch(() => undefined);
          await unlock(lockFile, token);
        }
      }
    },

    async list<T>(prefix: string) {
      // A prefix is acceptable when some valid key starts with it.
      if (prefix !== '') checkStoreKey(`${prefix}x`);
      // The encoding maps each character on its own, so a key starts with `prefix` exactly when
      // its readable file name starts with the encoded prefix; hashed names must be opened.
      const encodedPrefix = encodeKey(prefix);
      const all = await readdir(dir).catch((error: unknown) => {
        if (isCode(error, 'ENOENT')) return [] as string[];
        throw error;
      });
      const names = all.filter((name) => name.endsWith('.json') && (name.startsWith(encodedPrefix) || name.includes(HASH_MARK)));
      const documents = await Promise.all(names.map((name) => read<T>(join(dir, name), undefined)));
      return documents.filter((doc): doc is { key: string; value: T } => doc?.key.startsWith(prefix) === true);
    },
  };
}

/** Never produced by `encodeKey` ('~' is not a key character): marks a shortened name. */
const HASH_MARK = '~';

/**
 * Lower-case letters, digits and `_ . -` stay; every other character becomes `%XX`. Upper
 * case is escaped too, so keys differing only in case stay two files on case-insensitive
 * file systems (macOS, Windows).
 */
function encodeKey(key: string): string {
  return key.replace(/[^a-z0-9_.-]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
}

/** A file name for `key` well under the usual 255-byte limit, with room for the suffixes. */
function fileNameOf(key: string): string {
  const encoded = encodeKey(key);
  if (encoded.length <= MAX_READABLE_NAME) return encoded;
  const hash = createHash('sha256').update(key).digest('hex').slice(0, 32);
  return `${encoded.slice(0, 80)}${HASH_MARK}${hash}`;
}

function parseDocument(text: string): { key: string; value: unknown } | undefined {
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed === 'object' && parsed !== null && typeof (parsed as { key?: unknown }).key === 'string' && 'value' in parsed) {
      return parsed as { key: string; value: unknown };
    }
  } catch {
    // falls through: not one of ours
  }
  return undefined;
}

function isCode(error: unknown, code: string): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === code;
}
