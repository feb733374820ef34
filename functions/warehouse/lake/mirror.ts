/**
 * The folder an `s3://` lake is mirrored into (warehouse/lake.ts) as the destination its readers
 * read the units' states through (`Lake.mirror`): the period's manifests held in memory, and
 * every key the folder holds named to it, so that any other key is answered absent without a
 * file opened.
 *
 * - The manifests, read from the indexes of units of their months, are listed and got from
 *   memory instead of written one file each: a year of twenty projects was 51,100 files written,
 *   then listed and `stat`ed again by the reader of their states.
 * - The indexes of units of their months (lake/unit-index.ts), which the readers of the units'
 *   states read, are held the same way, parsed (`getParsed`): a year of twenty projects was
 *   84 indexes, ~50 MB of JSON, written into the folder and parsed again by the one reader.
 * - A unit of a period with no manifest is read as its manifest, checkpoint and failure record
 *   (export/units.ts): a year before the lake began is 51,100 such units, 153,300 files that are
 *   not there; the mirror knows which keys it holds (it listed them) and opens none of those.
 */
import type { Destination, KeyRange } from '../../shared/storage/destination.js';
import { inKeyRange } from '../../shared/storage/destination.js';
import { openTarget } from '../../shared/storage/destinations.js';
import type { MonthIndex, RawManifest } from './unit-index.js';

/** A mirror's folder as a destination; `hold` names the keys written into the folder by other means than this destination (the mirror's downloads). */
export interface MirrorDestination extends Destination {
  /** Names keys the folder holds (or will once mirrored): only these, the manifests and what is `put` here are read from the folder. */
  hold(keys: Iterable<string>): void;
}

/**
 * The folder `root` as a destination holding `manifests` and the indexes of units `indexes`
 * (each by key) in memory, each listed as changed at `listedAt` (the indexes say the same time:
 * fresh).
 */
export function mirrorDestination(
  root: string,
  manifests: ReadonlyMap<string, RawManifest>,
  listedAt: number,
  indexes: ReadonlyMap<string, MonthIndex> = new Map(),
): MirrorDestination {
  const local = openTarget({ kind: 'local', dir: root });
  const held = new Set<string>();
  const parsed = new Map<string, RawManifest | MonthIndex>([...manifests, ...indexes]);
  /** The keys held in memory in the store's order, to list a folder of them by a binary search. */
  const sorted = [...parsed.keys()].sort();
  const manifestsUnder = (prefix: string, range: KeyRange | undefined): string[] => {
    let low = 0;
    let high = sorted.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((sorted[middle] as string) < prefix) low = middle + 1;
      else high = middle;
    }
    const out: string[] = [];
    for (let i = low; i < sorted.length && (sorted[i] as string).startsWith(prefix); i += 1) {
      const key = sorted[i] as string;
      if (inKeyRange(key, range)) out.push(key);
    }
    return out;
  };
  const inMemory = (key: string) => parsed.get(key);
  /** A key written or deleted through this destination is the folder's from then on, not memory's. */
  const dropFromMemory = (key: string) => {
    if (parsed.delete(key)) sorted.splice(sorted.indexOf(key), 1);
  };
  return {
    url: local.url,
    hold(keys) {
      for (const key of keys) held.add(key);
    },
    // A mirror is scratch, removed when the lake closes: nothing it writes waits for the disk (no fsync).
    async openWrite(key, options) {
      dropFromMemory(key);
      held.add(key);
      return local.openWrite(key, { ...options, durable: false });
    },
    async put(key, body, options) {
      dropFromMemory(key);
      held.add(key);
      await local.put(key, body, { ...options, durable: false });
    },
    async get(key) {
      const value = inMemory(key);
      if (value !== undefined) return new TextEncoder().encode(JSON.stringify(value));
      return held.has(key) ? local.get(key) : undefined;
    },
    async getParsed(key) {
      return inMemory(key);
    },
    async exists(key) {
      if (inMemory(key) !== undefined) return true;
      return held.has(key) ? local.exists(key) : false;
    },
    async delete(key) {
      dropFromMemory(key);
      held.delete(key);
      await local.delete(key);
    },
    async list(prefix, range) {
      return [...manifestsUnder(prefix, range), ...((await local.list?.(prefix, range)) ?? [])];
    },
    async listModified(prefix, range) {
      const files = (await local.listModified?.(prefix, range)) ?? [];
      return [...manifestsUnder(prefix, range).map((key) => ({ key, modified: listedAt })), ...files];
    },
    probe: () => local.probe(),
  };
}
