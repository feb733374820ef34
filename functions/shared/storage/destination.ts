/**
 * Where exported files go: a local directory or `s3://bucket/prefix`. Keys are relative
 * POSIX paths such as `visitors_pages/dt=2026-01-31/proj_1.parquet`.
 *
 * Every write is atomic: a reader sees the previous object or the whole new one, never a
 * half-written file (local: temp file + rename; S3: PutObject / completed multipart upload).
 */
import type { Writable } from 'node:stream';

/** A write in progress. Write bytes to `stream`, end it, then `commit()`; or `abort()`. */
export interface PendingWrite {
  readonly stream: Writable;
  /** Waits for the bytes to be durable and makes the object visible under its key. */
  commit(): Promise<{ bytes: number }>;
  /** Discards what was written; the key keeps its previous content (or stays absent). */
  abort(reason?: unknown): Promise<void>;
}

/**
 * The prefix of scratch keys: files that live only until their unit is committed (the export's
 * staging, `warehouse/keys.ts` `STAGING_PREFIX`). A destination may treat them as such — the
 * local one sweeps no stale temp files beside them and removes their empty folders with their
 * last file — so the floor names the convention and the warehouse builds its keys on it.
 */
export const SCRATCH_PREFIX = '_staging';

export interface WriteOptions {
  readonly contentType?: string;
  /**
   * Whether the write must survive a power loss once it returns (local: fsync before the
   * rename). Default true. Staging files say false: they only need to survive the process —
   * a machine crash that loses one makes its unit start again, never a wrong table — and an
   * fsync per page would put disk latency between every two API requests.
   */
  readonly durable?: boolean;
  /**
   * The write is made while other work goes on (a checkpoint, while the next request is on its
   * way): a local destination makes it through the thread pool rather than in one synchronous
   * call, which would hold the event loop — and that request — for the disk's time. Other
   * destinations write asynchronously anyway. Default false.
   */
  readonly overlapped?: boolean;
}

/**
 * A stretch of a listing in the store's order of keys (byte order, S3's): the keys after
 * `after` and before `before` (both relative keys, neither itself included); either may be left
 * out. What a folder of `dt=` days asks to list a few months of it (warehouse/lake/layout.ts).
 */
export interface KeyRange {
  readonly after?: string;
  readonly before?: string;
}

/** Whether `key` lies inside `range` (none: every key does). */
export function inKeyRange(key: string, range: KeyRange | undefined): boolean {
  return (range?.after === undefined || key > range.after) && (range?.before === undefined || key < range.before);
}

export interface Destination {
  /** Where it writes, for humans: an absolute directory or `s3://bucket/prefix`. */
  readonly url: string;
  /** Starts a streamed, atomic write of `key`. */
  openWrite(key: string, options?: WriteOptions): Promise<PendingWrite>;
  /** Writes a small object (JSON, text) atomically in one call. */
  put(key: string, body: string | Uint8Array, options?: WriteOptions): Promise<void>;
  /** The object's content, or undefined when it does not exist. */
  get(key: string): Promise<Uint8Array | undefined>;
  exists(key: string): Promise<boolean>;
  /** Removes the object; no error when it is already absent. */
  delete(key: string): Promise<void>;
  /**
   * Every key under `prefix` (a folder, ending in `/`), in no particular order; none when the
   * folder does not exist. With `range`, only the keys inside it (S3 starts the listing after
   * its first bound and stops past its last). Optional: a destination without it gives `plan`
   * fewer facts (the planner then looks only near the days asked for).
   */
  list?(prefix: string, range?: KeyRange): Promise<string[]>;
  /**
   * {@link list} with each key's last change (epoch ms, the store's own clock: S3's
   * LastModified, a file's mtime). Optional: the index of units (warehouse/lake/unit-index.ts)
   * then notices a manifest rewritten under the same key.
   */
  listModified?(prefix: string, range?: KeyRange): Promise<{ readonly key: string; readonly modified: number }[]>;
  /**
   * The JSON value at `key` when this destination holds it parsed in memory (a mirror of an
   * `s3://` lake: warehouse/lake/mirror.ts), the same value `get` would give parsed, not to be
   * changed by the caller; undefined otherwise (read it with `get`). Optional: only a speed-up.
   */
  getParsed?(key: string): Promise<unknown>;
  /**
   * Removes the folder `prefix` when it is empty (a local destination; S3 has no folders to
   * leave behind). Optional; retention calls it for the day folders it emptied.
   */
  removeEmptyFolder?(prefix: string): Promise<void>;
  /**
   * Proves the destination can be written, read and deleted (a small object under
   * `_staging/`), so a bad destination — no bucket, no credentials, no permission, not a
   * directory, read-only — fails in one line before any API request spends the budget.
   * Throws DestinationError saying what to check.
   */
  probe(): Promise<void>;
}

/** The key `probe()` writes and deletes, unique per call. */
export function probeKey(): string {
  return `_staging/.probe-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
}
