/**
 * The mirror's downloads: objects of the bucket read with the SDK's own `GetObjectCommand` (the
 * checksum S3 stored validated) and written under the mirror's folder, each key checked to stay
 * inside it; the queue of a lake's keys (`download`) and the roll-ups fetched before it reaches
 * them (`fetchEarly`). lake.ts decides which keys; this file only moves them.
 */
import { GetObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { eachAtOnce } from '../../shared/concurrency.js';
import { DestinationError } from '../../shared/errors.js';

/**
 * Saves one object of the bucket into `file`: the body streamed into `<file>.part`, renamed once it
 * has ended and its checksum held (a failed read leaves no file); `folder`, the file's folder being
 * made, is awaited only once the answer has come (the request is not held behind a `mkdir`). A
 * failure of the folder's is the file system's error naming the file (or its `.part`); any other
 * is the bucket's.
 */
export type SaveObject = (key: string, file: string, signal?: AbortSignal, folder?: Promise<unknown>) => Promise<void>;

/**
 * Saves `bucket`'s objects with `GetObjectCommand`, the checksum S3 stored validated by the SDK
 * (`ChecksumMode`: its stream fails at the end when the bytes differ). Streamed to the file, not
 * collected first: a year's roll-ups are ~200 MB, and collecting them (the SDK's
 * `transformToByteArray` copies every chunk into one array) took 1.2 s of the report's JavaScript
 * thread and most of its garbage collection (bench/README.md, 3 Dec).
 */
export function objectSaver(client: S3Client, bucket: string): SaveObject {
  return async (key, file, signal, folder) => {
    const answer = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key, ChecksumMode: 'ENABLED' }), signal ? { abortSignal: signal } : {});
    await folder;
    const part = `${file}.part`;
    try {
      const body = answer.Body;
      if (body === undefined) await writeFile(part, new Uint8Array());
      else if (body instanceof Readable) await pipeline(body, createWriteStream(part), signal ? { signal } : {});
      else await writeFile(part, await body.transformToByteArray());
      await rename(part, file);
    } catch (error) {
      await rm(part, { force: true });
      throw error;
    }
  };
}

/** A promise and the two functions that settle it (Node 20 has no `Promise.withResolvers`). */
function settler(): { promise: Promise<void>; resolve: () => void; reject: (error: unknown) => void } {
  let resolve: () => void = () => undefined;
  let reject: (error: unknown) => void = () => undefined;
  const promise = new Promise<void>((ok, fail) => {
    resolve = ok;
    reject = fail;
  });
  return { promise, resolve, reject };
}

/**
 * Downloads the keys of `groups`, in order, `concurrency` at once: `groups[i]` settles once its
 * keys are all written, `all` once every group has. The first failure (or `signal`) stops the
 * download (no new key taken, requests in flight aborted: shared/concurrency.ts) and is the one
 * every unsettled promise rejects with, once nothing is in flight: the caller may then remove
 * the folder with nothing still writing into it.
 */
export function download(
  save: SaveObject,
  bucket: string,
  prefix: string,
  groups: readonly { readonly keys: readonly string[] }[],
  root: string,
  concurrency: number,
  signal: AbortSignal | undefined,
  fetched: ReadonlyMap<string, Promise<void>> = new Map(),
): { readonly groups: readonly Promise<void>[]; readonly all: Promise<void> } {
  const keys = groups.flatMap((group, index) => group.keys.map((key) => ({ key, group: index })));
  const left = groups.map((group) => group.keys.length);
  const settlers = groups.map(() => settler());
  groups.forEach((_, index) => {
    if (left[index] === 0) settlers[index]?.resolve();
  });
  /** Folders made so far: one `mkdir` per folder, not per object (a day's folder holds a file per project). */
  const made = new Map<string, Promise<unknown>>();
  const folderOf = (file: string) => {
    const folder = path.dirname(file);
    let making = made.get(folder);
    if (making === undefined) {
      making = mkdir(folder, { recursive: true });
      made.set(folder, making);
    }
    return making;
  };
  const all = eachAtOnce(
    keys,
    concurrency,
    async ({ key, group }, failed) => {
      const early = fetched.get(key);
      if (early !== undefined) await early;
      else await fetchInto(save, bucket, prefix, key, root, failed, folderOf);
      left[group] = (left[group] as number) - 1;
      if (left[group] === 0) settlers[group]?.resolve();
    },
    signal ? { signal } : {},
  ).catch((error: unknown) => {
    for (const pending of settlers) pending.reject(error);
    throw error;
  });
  return { groups: settlers.map((pending) => pending.promise), all };
}

/** One object of the bucket written into the mirror's folder `root` (`folderOf` makes its folder). */
async function fetchInto(
  save: SaveObject,
  bucket: string,
  prefix: string,
  key: string,
  root: string,
  signal: AbortSignal,
  folderOf: (file: string) => Promise<unknown> = (file) => mkdir(path.dirname(file), { recursive: true }),
): Promise<void> {
  const file = mirrorPath(root, key);
  const folder = folderOf(file);
  // Seen by `save` once the answer has come; a request that fails first leaves it unawaited.
  folder.catch(() => undefined);
  try {
    await save(`${prefix}${key}`, file, signal, folder);
  } catch (error) {
    // The folder's own failure (a full disk: the error names a path inside it) is said as the file system says it; anything else is the bucket's.
    const failedPath = typeof error === 'object' && error !== null ? (error as { path?: unknown }).path : undefined;
    if (typeof failedPath === 'string' && failedPath.startsWith(root)) throw error;
    throw new DestinationError(`cannot read s3://${bucket}/${prefix}${key}: ${describeS3(error)}; check s3:GetObject permission`, { cause: error });
  }
}

/** Objects fetched before the mirror's queue: each key's write, and `all` settling once none is still running (never rejecting). */
export interface EarlyFetch {
  readonly keys: ReadonlyMap<string, Promise<void>>;
  readonly all: Promise<void>;
}

/**
 * Fetches `keys` into the mirror's folder `root`, `concurrency` at once, before the queue of
 * {@link download} reaches them (it then awaits each key's promise here): the same rule as the
 * queue — after a failure, or once `signal` is aborted, no further key starts, and the keys not
 * fetched reject with that failure.
 */
export function fetchEarly(
  save: SaveObject,
  bucket: string,
  prefix: string,
  keys: readonly string[],
  root: string,
  concurrency: number,
  signal: AbortSignal,
): EarlyFetch {
  const settlers = new Map(keys.map((key) => [key, settler()]));
  for (const pending of settlers.values()) pending.promise.catch(() => undefined); // seen where the queue awaits it
  const all = eachAtOnce(
    keys,
    concurrency,
    async (key, failed) => {
      const pending = settlers.get(key);
      try {
        await fetchInto(save, bucket, prefix, key, root, failed);
        pending?.resolve();
      } catch (error) {
        pending?.reject(error);
        throw error;
      }
    },
    { signal },
  ).catch((error: unknown) => {
    // A key never started settles with the failure that stopped the others.
    for (const pending of settlers.values()) pending.reject(error);
  });
  return { keys: new Map([...settlers].map(([key, pending]) => [key, pending.promise])), all };
}

/**
 * Why `key` (relative to the destination's prefix) cannot be mirrored as a file path, or
 * undefined when it can: every `/`-separated segment must be a plain name — not empty, not
 * `.` or `..`, without a backslash (a separator on Windows) or a NUL.
 */
export function unsafeKeyProblem(key: string): string | undefined {
  for (const segment of key.split('/')) {
    if (segment === '') return 'it has an empty segment';
    if (segment === '.' || segment === '..') return `it has a "${segment}" segment`;
    if (segment.includes('\\')) return 'it holds a backslash';
    if (segment.includes('\0')) return 'it holds a NUL character';
  }
  return undefined;
}

/** The file of `key` under `root`; throws when it would not resolve strictly inside `root` (checked for every write). */
export function mirrorPath(root: string, key: string): string {
  const problem = unsafeKeyProblem(key);
  const file = path.resolve(root, ...key.split('/'));
  const relative = path.relative(root, file);
  if (problem !== undefined || relative === '' || relative === '..' || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative)) {
    throw new DestinationError(`refused to mirror the key "${key}" outside ${root}${problem === undefined ? '' : `: ${problem}`}`);
  }
  return file;
}

/** An S3 failure as one line: its name and message. */
export function describeS3(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
