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

/** A destination whose files vanish; `written` holds the bytes committed per key. */
export function nullDestination(): Destination & { readonly written: Map<string, number> } {
  const written = new Map<string, number>();
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
          return result;
        },
      };
    },
    async put(key, body) {
      written.set(key, typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength);
    },
    async get() {
      return undefined;
    },
    async exists(key) {
      return written.has(key);
    },
    async delete(key) {
      written.delete(key);
    },
    // The export lists the erasure records (`_privacy/erasures/`) at the start of every run:
    // nothing was ever kept here, so nobody was forgotten.
    async list() {
      return [];
    },
    async probe() {
      // Nothing can fail: there is nothing behind it.
    },
  };
}
