/**
 * A local directory as a `Destination` (the CLI's `./data`, tests). Writes go to a hidden
 * temp file beside the target (`.<name>.<random>.tmp`), are fsynced, then renamed over the
 * key: rename within one folder is atomic, so a reader sees the old file or the new one,
 * never half of one. Hidden names also keep leftovers of a crash out of `*.parquet` globs
 * (and Athena skips files starting with `.`).
 */
import { once } from 'node:events';
import { randomBytes } from 'node:crypto';
import { createWriteStream, renameSync, rmSync, writeFileSync, type WriteStream } from 'node:fs';
import { mkdir, readdir, readFile, rename, rmdir, stat, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { finished } from 'node:stream/promises';
import { inKeyRange, probeKey, SCRATCH_PREFIX, type Destination, type KeyRange, type PendingWrite, type WriteOptions } from './destination.js';
import { ConfigError, DestinationError } from '../errors.js';

/**
 * Refuses keys that could escape the destination or name nothing: empty, absolute,
 * backslashes, `.`/`..` or empty segments. Keys come from table prefixes and project ids
 * (configuration), hence `ConfigError`.
 */
export function checkKey(key: string): string {
  const bad =
    key.length === 0 ||
    key.startsWith('/') ||
    key.includes('\\') ||
    key.includes('\0') ||
    /^[A-Za-z]:/.test(key) ||
    key.split('/').some((segment) => segment === '' || segment === '.' || segment === '..');
  if (bad) {
    throw new ConfigError(`destination key "${key}" is not a relative path inside the destination: check the project id (no "/", "..", "\\" or empty parts)`);
  }
  return key;
}

/** A destination writing under `dir` (created as needed). `url` is its absolute path. */
export function createLocalDestination(dir: string): Destination {
  const root = path.resolve(dir);
  const fileOf = (key: string) => path.join(root, ...checkKey(key).split('/'));

  /** Makes the folder of `file` (only when a write found it missing: an existing folder costs no mkdir). */
  const makeFolderOf = async (file: string): Promise<void> => {
    try {
      await createFolder(path.dirname(file));
    } catch (error) {
      throw failure('create the folder of', file, error);
    }
  };

  /** Writes `temp` (with `write`), making its folder first only when it is missing: a write into an existing folder costs no mkdir. */
  const writeTemp = async (file: string, temp: string, write: () => unknown): Promise<void> => {
    try {
      await write();
    } catch (error) {
      if (codeOf(error) !== 'ENOENT') throw failure('create', temp, error);
      await makeFolderOf(file);
      try {
        await write();
      } catch (retryError) {
        throw failure('create', temp, retryError);
      }
    }
  };

  const openWrite = async (key: string, options: WriteOptions = {}): Promise<PendingWrite> => {
    const file = fileOf(key);
    const temp = tempOf(file);
    await makeFolderOf(file);
    // Table files only: a staging folder goes whole with its unit, and a readdir per staged
    // page would be work on the hot path for nothing.
    if (!key.startsWith(`${SCRATCH_PREFIX}/`)) await removeStaleTemps(file);
    // 'wx': never reuse (or follow a link at) an existing name. flush: fsync before close,
    // so the rename publishes bytes that are on disk.
    const stream = createWriteStream(temp, { flags: 'wx', flush: options.durable !== false });
    try {
      await once(stream, 'open');
    } catch (error) {
      throw failure('create', temp, error);
    }
    return pendingFileWrite(stream, temp, file, !key.startsWith(`${SCRATCH_PREFIX}/`));
  };

  /** Every key under a folder (inside `range` when given). */
  const listKeys = async (prefix: string, range?: KeyRange): Promise<string[]> => {
    const folder = path.join(root, ...checkKey(prefix.replace(/\/+$/, '')).split('/'));
    let entries;
    try {
      entries = await readdir(folder, { recursive: true, withFileTypes: true });
    } catch (error) {
      if (codeOf(error) === 'ENOENT' || codeOf(error) === 'ENOTDIR') return [];
      throw failure('list', folder, error);
    }
    // Hidden names are temp files of writes in progress (and crash leftovers), not keys.
    return entries
      .filter((entry) => entry.isFile() && !entry.name.startsWith('.'))
      .map((entry) => path.relative(root, path.join(entry.parentPath, entry.name)).split(path.sep).join('/'))
      .filter((key) => inKeyRange(key, range));
  };

  return {
    url: root,

    openWrite,

    async put(key, body, options = {}) {
      if (options.durable !== false) {
        const pending = await openWrite(key, options);
        pending.stream.end(body);
        await pending.commit();
        return;
      }
      // Staging (a page and its checkpoint per API request, on the path between two requests):
      // a temp file written in one synchronous call, then renamed — measured faster here than
      // the same calls through the thread pool (`npm start`: 41 s against 45 s) or a stream (56 s).
      // A write made while a request is on its way goes through the thread pool instead: a
      // synchronous one would hold the event loop, and the request, for the disk's time.
      const file = fileOf(key);
      const temp = tempOf(file);
      const fresh = { flag: 'wx' } as const;
      await writeTemp(file, temp, () => (options.overlapped ? writeFile(temp, body, fresh) : writeFileSync(temp, body, fresh)));
      try {
        if (options.overlapped) await rename(temp, file);
        else renameSync(temp, file);
      } catch (error) {
        rmSync(temp, { force: true });
        throw failure('write', file, error);
      }
    },

    async get(key) {
      const file = fileOf(key);
      try {
        const bytes = await readFile(file);
        return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      } catch (error) {
        if (codeOf(error) === 'ENOENT') return undefined;
        throw failure('read', file, error);
      }
    },

    async exists(key) {
      const file = fileOf(key);
      try {
        return (await stat(file)).isFile();
      } catch (error) {
        if (codeOf(error) === 'ENOENT' || codeOf(error) === 'ENOTDIR') return false;
        throw failure('check', file, error);
      }
    },

    async delete(key) {
      const file = fileOf(key);
      try {
        await unlink(file);
      } catch (error) {
        if (codeOf(error) === 'ENOENT') return;
        throw failure('delete', file, error);
      }
      // A unit's staging folder goes with its last file (S3 has no folders to leave behind),
      // and so do the day's, the dataset's and `_staging` itself once empty. rmdir removes
      // only an empty folder: another unit's folder keeps its parents; a run creating one just
      // then recreates what it misses (createFolder).
      if (key.startsWith(`${SCRATCH_PREFIX}/`)) {
        let folder = path.dirname(file);
        for (let level = 0; level < 4 && folder.startsWith(root) && folder !== root; level++, folder = path.dirname(folder)) {
          if (
            !(await rmdir(folder).then(
              () => true,
              () => false,
            ))
          )
            break;
        }
      }
    },

    async removeEmptyFolder(prefix) {
      const folder = path.join(root, ...checkKey(prefix.replace(/\/+$/, '')).split('/'));
      // rmdir removes only an empty folder: a write into it just then recreates what it misses.
      await rmdir(folder).catch(() => undefined);
    },

    list: listKeys,

    async listModified(prefix, range) {
      const keys = await listKeys(prefix, range);
      const times = await Promise.all(
        keys.map((key) =>
          stat(fileOf(key)).then(
            (info) => info.mtimeMs,
            () => undefined,
          ),
        ),
      );
      // A file removed between the listing and its stat is no longer a key.
      return keys.flatMap((key, i) => (times[i] === undefined ? [] : [{ key, modified: times[i] as number }]));
    },

    async probe() {
      const key = probeKey();
      const pending = await openWrite(key);
      pending.stream.end('probe');
      await pending.commit();
      const file = fileOf(key);
      try {
        await unlink(file);
      } catch (error) {
        throw failure('delete', file, error);
      }
    },
  };
}

/** The hidden temp file a write of `file` goes to before its rename: `.<name>.<12 hex>.tmp` beside it. */
function tempOf(file: string): string {
  return path.join(path.dirname(file), `.${path.basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
}

/** A temp file this old belongs to a writer that was killed: nobody will commit it. */
const STALE_TEMP_MS = 10 * 60_000;

/**
 * Removes the temp files a killed writer left beside `file` (`.<name>.<12 hex>.tmp`, older
 * than STALE_TEMP_MS). Only this key's: they are hidden from readers anyway, but they would
 * pile up forever. A young one may be a live writer's, so it stays.
 */
async function removeStaleTemps(file: string, olderThanMs = STALE_TEMP_MS): Promise<void> {
  const folder = path.dirname(file);
  const prefix = `.${path.basename(file)}.`;
  let names: string[];
  try {
    names = await readdir(folder);
  } catch {
    return;
  }
  const cutoff = Date.now() - olderThanMs;
  for (const name of names) {
    if (!name.startsWith(prefix) || !/^[0-9a-f]{12}\.tmp$/.test(name.slice(prefix.length))) continue;
    const temp = path.join(folder, name);
    const info = await stat(temp).catch(() => undefined);
    if (info && info.mtimeMs < cutoff) await unlink(temp).catch(() => undefined);
  }
}

/**
 * @param sweep after the commit, remove every other temp file of this key, whatever its age:
 * whoever commits a table file or manifest holds its unit's lease, so no other writer of it is
 * alive — a temp left by one killed minutes ago (too young for `openWrite`'s sweep) would
 * otherwise stay beside a finished unit forever.
 */
function pendingFileWrite(stream: WriteStream, temp: string, file: string, sweep: boolean): PendingWrite {
  // Errors surface through write callbacks and commit(); this only keeps an error emitted
  // while nobody writes from crashing the process.
  stream.on('error', () => undefined);
  let state: 'open' | 'committing' | 'committed' | 'aborted' = 'open';

  const discard = async () => {
    if (!stream.closed) {
      const closed = once(stream, 'close').catch(() => undefined);
      stream.destroy();
      await closed;
    }
    await unlink(temp).catch(() => undefined);
  };

  return {
    stream,

    async commit() {
      if (state !== 'open') throw new DestinationError(`cannot commit ${file}: the write is already ${state}`);
      state = 'committing';
      try {
        if (!stream.writableEnded) stream.end();
        // Resolves once the file is flushed (fsync) and closed.
        await finished(stream);
        await rename(temp, file);
        state = 'committed';
        if (sweep) await removeStaleTemps(file, 0);
        return { bytes: stream.bytesWritten };
      } catch (error) {
        state = 'aborted';
        await discard();
        throw failure('write', file, error);
      }
    },

    async abort() {
      if (state !== 'open') return;
      state = 'aborted';
      await discard();
    },
  };
}

/**
 * `mkdir -p` that reports the real cause and always ends. Node's recursive mkdir answers ENOENT
 * when a folder cannot be created for another reason it does not list (EROFS on a read-only
 * file system), and on a pseudo-file system such as /proc it never returns at all (it retries
 * the ENOENT forever at 100 % CPU). So folders are made one level at a time: the deepest first
 * (the common case: only the leaf is missing), then, on ENOENT, its parent first. `mode` is the
 * leaf's (the parents get the umask's default).
 */
export async function createFolder(dir: string, mode?: number): Promise<void> {
  const options = mode === undefined ? {} : { mode };
  try {
    await mkdir(dir, options);
    return;
  } catch (error) {
    if (codeOf(error) === 'EEXIST') return;
    if (codeOf(error) !== 'ENOENT' || path.dirname(dir) === dir) throw error;
  }
  await createFolder(path.dirname(dir));
  await mkdir(dir, options).catch((error: unknown) => {
    if (codeOf(error) !== 'EEXIST') throw error;
  });
}

function codeOf(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

function failure(action: string, file: string, error: unknown): DestinationError {
  const code = codeOf(error);
  const hint =
    code === 'EACCES' || code === 'EPERM'
      ? 'check the permissions of the directory'
      : code === 'EROFS'
        ? 'the file system is read-only: choose another directory with --out or EXPORT_DESTINATION'
        : code === 'ENOSPC' || code === 'EDQUOT'
          ? 'free some disk space'
          : code === 'ENOTDIR' || code === 'EISDIR' || code === 'EEXIST'
            ? 'a file and a folder have the same name there; move one away'
            : code === 'ENOENT'
              ? 'no folder can be created there (a pseudo-file system such as /proc?): choose a directory on a disk'
              : 'check that the directory is writable';
  return new DestinationError(`Could not ${action} ${file} (${code ?? 'error'}): ${hint}`, { cause: error });
}
