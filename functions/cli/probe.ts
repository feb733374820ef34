/**
 * The CLI's check of its configuration before any API request: the destination (written,
 * read and deleted, or for `plan`/`status` only read) and the local state folder of the budget
 * ledger and leases. A mistake — a file where a folder should be, a read-only or pseudo file
 * system, a bucket that does not exist, no AWS region or credentials — is one `ConfigError`
 * naming the variable or flag to fix (exit 2), never a unit failed "to retry", and never a
 * hang: the whole check has a time limit.
 */
import { randomBytes } from 'node:crypto';
import { readdir, stat, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Destination } from '../shared/storage/destination.js';
import { probeKey } from '../shared/storage/destination.js';
import { createFolder } from '../shared/storage/destination-local.js';
import { ConfigError, DestinationError } from '../shared/errors.js';

/** How long the whole check may take: an S3 round trip, a credential lookup, a slow disk. */
export const PROBE_TIMEOUT_MS = 20_000;

/** The local folder of the ledger and leases, and what to name in a message about it. */
export interface StateFolder {
  readonly dir: string;
  /** `EXPORT_STATE_DIR`, or a description of the default folder. */
  readonly source: string;
}

export interface ProbeInput {
  readonly destination: Destination;
  /** `--out` or `EXPORT_DESTINATION`. */
  readonly source: string;
  /** Absent when the state lives elsewhere (a table, or memory for the embedded sandbox). */
  readonly state?: StateFolder;
  /** `write`: the export will write; `read`: plan/status, which create nothing. */
  readonly mode: 'write' | 'read';
  /** @default PROBE_TIMEOUT_MS */
  readonly timeoutMs?: number;
}

/** Checks destination and state folder; throws `ConfigError` naming what to fix. */
export async function probeSetup(input: ProbeInput): Promise<void> {
  const timeoutMs = input.timeoutMs ?? PROBE_TIMEOUT_MS;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new ConfigError(
            `${input.source} ${input.destination.url} did not answer within ${timeoutMs / 1000} s: choose a directory on a disk (not a pseudo-file system such as /proc) or check the S3 endpoint, region and network`,
          ),
        ),
      timeoutMs,
    );
    timer.unref?.();
  });
  try {
    await Promise.race([checks(input), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

async function checks(input: ProbeInput): Promise<void> {
  try {
    if (input.mode === 'write') await input.destination.probe();
    else await readable(input.destination);
  } catch (error) {
    if (error instanceof DestinationError) throw new ConfigError(`${input.source}: ${error.message}`, { cause: error });
    throw error;
  }
  if (input.state) await (input.mode === 'write' ? writableFolder(input.state) : readableFolder(input.state));
}

/** A read of a key that does not exist: proves the destination can be read without creating anything. */
async function readable(destination: Destination): Promise<void> {
  await destination.get(`${probeKey()}.absent`);
}

async function writableFolder(state: StateFolder): Promise<void> {
  // Unique within the process too: organisations run at once probe the same folder in the same millisecond.
  const file = path.join(state.dir, `.probe-${process.pid}-${Date.now().toString(36)}-${randomBytes(4).toString('hex')}`);
  try {
    // Private like everything the shared store writes there (budget ledger, leases).
    await createFolder(state.dir, 0o700);
    await writeFile(file, 'probe', { flag: 'wx' });
    await unlink(file);
  } catch (error) {
    throw stateError(state, error);
  }
}

async function readableFolder(state: StateFolder): Promise<void> {
  try {
    const info = await stat(state.dir);
    if (!info.isDirectory()) throw Object.assign(new Error('not a directory'), { code: 'ENOTDIR' });
    await readdir(state.dir);
  } catch (error) {
    if (codeOf(error) === 'ENOENT') return;
    throw stateError(state, error);
  }
}

function stateError(state: StateFolder, error: unknown): ConfigError {
  const code = codeOf(error) ?? 'error';
  const hint =
    code === 'ENOTDIR' || code === 'EEXIST' || code === 'EISDIR'
      ? 'a file is where the folder should be'
      : code === 'EACCES' || code === 'EPERM'
        ? 'no permission to write there'
        : code === 'EROFS'
          ? 'the file system is read-only'
          : code === 'ENOENT'
            ? 'no folder can be created there'
            : 'it cannot be written';
  return new ConfigError(`${state.source} ${state.dir} cannot hold the budget ledger and leases (${code}: ${hint}): choose a writable folder`, {
    cause: error,
  });
}

function codeOf(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}
