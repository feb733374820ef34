/**
 * A `Destination` that keeps nothing but byte counts: it isolates paging and encoding from
 * disk and network when a benchmark measures requests or encoder speed.
 */
import { Writable } from 'node:stream';
import type { Destination, PendingWrite } from '../../functions/shared/storage/destination.js';

/** A PendingWrite whose stream drops every chunk and counts its bytes. */
export function nullPendingWrite(): PendingWrite & { readonly bytes: () => number } {
  let bytes = 0;
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      bytes += chunk.length;
      callback();
    },
  });
  return {
    stream,
    bytes: () => bytes,
    async commit() {
      if (!stream.writableFinished) await new Promise<void>((resolve, reject) => stream.once('finish', resolve).once('error', reject));
      return { bytes };
    },
    async abort() {
      stream.destroy();
    },
  };
}

/**
 * A destination whose files vanish; `written` holds the bytes committed per key. With `keepPuts`,
 * what is `put` (manifests, checkpoints, run records: what an export reads back) is kept and read
 * back, while the streamed Parquet still vanishes — a run of many organisations resumes and
 * plans from it as from a real lake.
 */
export function nullDestination(options: { readonly keepPuts?: boolean } = {}): Destination & { readonly written: Map<string, number> } {
  const written = new Map<string, number>();
  const kept = new Map<string, Uint8Array>();
  return {
    url: 'null://',
    written,
    async openWrite(key) {
      const pending = nullPendingWrite();
      return {
        stream: pending.stream,
        abort: pending.abort,
        async commit() {
          const result = await pending.commit();
          written.set(key, result.bytes);
          if (options.keepPuts) kept.set(key, new Uint8Array());
          return result;
        },
      };
    },
    async put(key, body) {
      written.set(key, typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength);
      if (options.keepPuts) kept.set(key, typeof body === 'string' ? Buffer.from(body) : body);
    },
    async get(key) {
      return kept.get(key);
    },
    async exists(key) {
      return written.has(key);
    },
    async delete(key) {
      written.delete(key);
      kept.delete(key);
    },
    // The export lists the erasure records (`_privacy/erasures/`) at the start of every run:
    // without `keepPuts` nothing was ever kept here, so nobody was forgotten.
    async list(prefix) {
      return [...kept.keys()].filter((key) => key.startsWith(prefix));
    },
    async probe() {
      // Nothing can fail: there is nothing behind it.
    },
  };
}
