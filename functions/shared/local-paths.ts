/**
 * Checks of local paths the user typed, made before any work so that a mistake is one line
 * naming what was typed (exit 2), not an `EACCES … .tmp` after the work is done. Access bits
 * are not enough: root may "write" anywhere by them, and a pseudo-file system (/proc, /sys)
 * says yes to `access()` and no to a file. So a writable place is proved by creating, then
 * removing, a probe file in it.
 */
import { randomBytes } from 'node:crypto';
import { readdir, stat, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ConfigError } from './errors.js';

/** What an errno means to the user. */
function reasonOf(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EROFS':
      return 'a read-only file system';
    case 'ENOENT':
    case 'ENOTSUP':
    case 'EOPNOTSUPP':
    case 'EINVAL':
      return 'no file can be created there (a pseudo-file system such as /proc or /sys?)';
    default:
      return code ?? 'it cannot be written';
  }
}

/** The nearest folder on the way to `target` (itself included) that exists, and what it is. */
async function nearestExisting(target: string): Promise<{ readonly at: string; readonly isFolder: boolean }> {
  let at = target;
  for (;;) {
    const info = await stat(at).catch(() => undefined);
    if (info !== undefined) return { at, isFolder: info.isDirectory() };
    const parent = path.dirname(at);
    if (parent === at) return { at, isFolder: true };
    at = parent;
  }
}

/** Creates and removes a probe file in `folder`; the error of the creation, if any. */
async function probeCreate(folder: string): Promise<unknown> {
  const probe = path.join(folder, `.probe-${process.pid}-${randomBytes(4).toString('hex')}`);
  try {
    await writeFile(probe, '', { flag: 'wx' });
  } catch (error) {
    return error;
  }
  await unlink(probe).catch(() => undefined);
  return undefined;
}

/**
 * Checks that a file can be written at `file` (absolute): not a folder, no file on its way
 * where a folder should be, and the nearest existing folder takes a new file (the folders
 * missing below it are created by the writer; `createsFolders: false`: the folder must exist).
 * @param typed What the user gave, as `--flag value`, named in the message.
 * @throws ConfigError
 */
export async function checkWritableFile(file: string, typed: string, options: { readonly createsFolders?: boolean } = {}): Promise<void> {
  const info = await stat(file).catch(() => undefined);
  if (info?.isDirectory()) throw new ConfigError(`${typed} is a folder: name a file in it`);
  const { at, isFolder } = await nearestExisting(path.dirname(file));
  if (isFolder && options.createsFolders === false && at !== path.dirname(file)) {
    throw new ConfigError(`${typed} cannot be written: its folder ${path.dirname(file)} does not exist; create it or choose another place`);
  }
  if (!isFolder) throw new ConfigError(`${typed}: ${at} is a file, not a folder: choose another place`);
  const error = await probeCreate(at);
  if (error !== undefined) throw new ConfigError(`${typed} cannot be written: ${at}: ${reasonOf(error)}; choose another place`, { cause: error });
}

/**
 * Checks a local destination to read (`status`, `report`, `gaps`): an existing one must be a
 * folder that can be listed; one that does not exist yet (a first run) must be a place an export
 * could create — else every unit would be called `missing` where nothing can ever be.
 * @param typed What the user gave, as `--out value` or `EXPORT_DESTINATION=value`.
 * @throws ConfigError
 */
export async function checkReadableFolder(dir: string, typed: string): Promise<void> {
  const info = await stat(dir).catch(() => undefined);
  if (info !== undefined) {
    if (!info.isDirectory()) throw new ConfigError(`${typed} is a file, not a folder: name the folder the export wrote (or s3://bucket/prefix)`);
    try {
      await readdir(dir);
    } catch (error) {
      throw new ConfigError(`${typed} cannot be read (${reasonOf(error)}): check its permissions or choose the folder the export wrote`, { cause: error });
    }
    return;
  }
  const { at, isFolder } = await nearestExisting(path.dirname(dir));
  if (!isFolder) throw new ConfigError(`${typed}: ${at} is a file, not a folder: name the folder the export wrote (or s3://bucket/prefix)`);
  const error = await probeCreate(at);
  if (error !== undefined) {
    throw new ConfigError(`${typed} does not exist and no export could create it (${at}: ${reasonOf(error)}): name the folder the export wrote`, {
      cause: error,
    });
  }
}
