/**
 * The index of units: the manifests of one dataset's month in one object
 * (`_index/<dataset>/month=YYYY-MM.json`, lake/layout.ts), so `status`, `plan`, the report's
 * health and insights read one object a month where they read one manifest per unit. It is
 * derived, never the source of truth: the manifests are. Read, it is checked against one
 * listing of the dataset's manifests and rebuilt from them when it is missing or names other
 * units; the export (after a run's commits), `forget` and retention write it in the same step
 * as the manifests they change (lake/rollups.ts `refreshLake`).
 *
 * The manifests are kept as written (plain JSON): the export checks each one it uses
 * (export/manifest.ts `checkManifest`), as it does one read alone.
 */
import { daysBetween } from '../../shared/dates.js';
import type { Destination } from '../../shared/storage/destination.js';
import { eachAtOnce } from '../../shared/concurrency.js';
import type { DatasetName } from '../catalog.js';
import { manifestKey, manifestsOf, parseManifestKey } from '../keys.js';
import { monthOfDay, monthsRange, nextMonth, unitIndexKey } from './layout.js';

/** A manifest as written (export/manifest.ts `Manifest`), unchecked. */
export type RawManifest = Readonly<Record<string, unknown>>;

/** What `_index/<dataset>/month=YYYY-MM.json` holds. */
export interface MonthIndex {
  readonly version: 1;
  readonly dataset: DatasetName;
  readonly month: string;
  readonly builtAt: string;
  /** The latest change among the month's manifests as listed before it was built (the store's clock): a later one makes it stale. */
  readonly manifestsModified?: number;
  /** Each unit's manifest, by `<day>/<projectId>`. */
  readonly manifests: Readonly<Record<string, RawManifest>>;
  /**
   * The records of the month's roll-ups (lake/rollups.ts `rollupFingerprint`: the day files each
   * was built from), by `<table>/<projectId>`: a reader checks a roll-up against the manifests
   * above without reading the record beside it. Kept when the index is rebuilt: a record is
   * only ever compared with the manifests of today.
   */
  readonly rollups?: Readonly<Record<string, string>>;
}

/** The roll-ups' records an index holds, by month (`MonthIndex.rollups`). */
export type IndexedRollups = Map<string, Readonly<Record<string, string>>>;

/** `<day>/<projectId>`: a unit's name inside its month's index. */
export function indexEntry(day: string, projectId: string): string {
  return `${day}/${projectId}`;
}

/** Every day (`YYYY-MM-DD`) of `month`. */
export function daysOfMonth(month: string): string[] {
  return daysBetween(`${month}-01`, `${nextMonth(month)}-01`);
}

/** Counts of what reading indexes cost, for the tests and the benchmark. */
export interface IndexReads {
  /** Index objects read. */
  indexes: number;
  /** Indexes rebuilt (missing or naming other units than the manifests listed). */
  rebuilt: number;
  /** Manifests read to rebuild them. */
  manifests: number;
}

/** A month's manifests as listed: their entries, and the latest change among them (the store's clock; 0 when it tells none). */
interface Listed {
  readonly entries: Set<string>;
  modified: number;
}

/**
 * The manifests' keys of `dataset`, by month: one listing, with their times when the destination
 * gives them; of the first to the last of `months` only (a listing of those months' days).
 */
async function listedByMonth(
  destination: Pick<Destination, 'list' | 'listModified'>,
  dataset: DatasetName,
  months: readonly string[],
): Promise<Map<string, Listed> | undefined> {
  const sorted = [...months].sort();
  const first = sorted[0];
  const last = sorted[sorted.length - 1];
  const folder = manifestsOf(dataset);
  const range = first === undefined || last === undefined ? undefined : monthsRange(folder, first, last);
  const listed = destination.listModified
    ? await destination.listModified(folder, range)
    : destination.list
      ? (await destination.list(folder, range)).map((key) => ({ key, modified: 0 }))
      : undefined;
  if (listed === undefined) return undefined;
  const byMonth = new Map<string, Listed>();
  for (const { key, modified } of listed) {
    const unit = parseManifestKey(dataset, key);
    if (unit === undefined) continue;
    const month = monthOfDay(unit.day);
    const entry = byMonth.get(month) ?? { entries: new Set<string>(), modified: 0 };
    entry.entries.add(indexEntry(unit.day, unit.projectId));
    entry.modified = Math.max(entry.modified, modified);
    byMonth.set(month, entry);
  }
  return byMonth;
}

/**
 * The JSON value stored at `key`; undefined when absent or unreadable. A destination holding it
 * parsed (a mirror's memory: lake/mirror.ts) answers it without a serialisation and a parse;
 * the caller does not change it.
 */
export async function readJson(destination: Pick<Destination, 'get'> & Partial<Pick<Destination, 'getParsed'>>, key: string): Promise<unknown> {
  const held = await destination.getParsed?.(key);
  if (held !== undefined) return held;
  const bytes = await destination.get(key);
  if (bytes === undefined) return undefined;
  try {
    return JSON.parse(Buffer.from(bytes).toString('utf8'));
  } catch {
    return undefined;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The manifest of a unit as written; undefined when absent or not a JSON object (a half-written file). */
export async function readRawManifest(
  destination: Pick<Destination, 'get'>,
  dataset: DatasetName,
  day: string,
  projectId: string,
): Promise<RawManifest | undefined> {
  const value = await readJson(destination, manifestKey(dataset, day, projectId));
  return isObject(value) ? value : undefined;
}

/** How {@link readUnitIndexes} reads. */
export interface ReadIndexOptions {
  /** Counts what the read cost. */
  readonly reads?: IndexReads;
  /** Given the roll-ups' records each index holds, by month. */
  readonly rollups?: IndexedRollups;
  /**
   * Write an index rebuilt from the manifests back: only the export's own steps and `compact`.
   * A reader never does (the deployed read side's roles write nothing into the lake; the export
   * keeps the indexes current). @default false
   */
  readonly keep?: boolean;
}

/**
 * The manifests of `dataset`'s `months`, from their indexes: an index missing, unreadable or
 * naming other units than the listing of the manifests is rebuilt from them (and written back
 * with `keep`). A month without a manifest listed is not read (none of its units is complete).
 * Undefined when the destination cannot list (the caller reads each manifest).
 */
export async function readUnitIndexes(
  destination: Pick<Destination, 'get' | 'put' | 'list' | 'listModified'>,
  dataset: DatasetName,
  months: readonly string[],
  options: ReadIndexOptions = {},
): Promise<Map<string, Map<string, RawManifest>> | undefined> {
  const { reads, rollups, keep = false } = options;
  const listed = await listedByMonth(destination, dataset, months);
  if (listed === undefined) return undefined;
  const out = new Map<string, Map<string, RawManifest>>();
  const distinct = [...new Set(months)];
  // The months' indexes fetched at once (each a round trip to the store), then taken in order.
  const stored = new Map<string, unknown>();
  await eachAtOnce(
    distinct.filter((month) => (listed.get(month)?.entries.size ?? 0) > 0),
    16,
    async (month) => {
      stored.set(month, await readJson(destination, unitIndexKey(dataset, month)));
    },
  );
  for (const month of distinct) {
    const present = listed.get(month)?.entries ?? new Set<string>();
    const modified = listed.get(month)?.modified ?? 0;
    if (present.size === 0) {
      out.set(month, new Map());
      continue;
    }
    const index = stored.get(month);
    if (reads) reads.indexes += 1;
    const records = isIndex(index, dataset, month) && isObject(index.rollups) ? (index.rollups as Record<string, string>) : undefined;
    if (records !== undefined) rollups?.set(month, records);
    // Fresh: the same units, and no manifest changed since the listing it was built after.
    if (isIndex(index, dataset, month) && sameSet(Object.keys(index.manifests), present) && (index.manifestsModified ?? 0) >= modified) {
      out.set(month, new Map(Object.entries(index.manifests)));
      continue;
    }
    const manifests = new Map<string, RawManifest>();
    await eachAtOnce([...present], 16, async (entry) => {
      const [day, projectId] = entry.split('/') as [string, string];
      const manifest = await readRawManifest(destination, dataset, day, projectId);
      if (reads) reads.manifests += 1;
      if (manifest !== undefined) manifests.set(entry, manifest);
    });
    if (reads) reads.rebuilt += 1;
    // Kept for the next reader when it may write; a reader that may not still has it here.
    if (keep) await writeUnitIndex(destination, dataset, month, manifests, modified, records).catch(() => undefined);
    out.set(month, manifests);
  }
  return out;
}

/** The index of `dataset`'s `month` as {@link writeUnitIndex} writes it (entries sorted: the same units give the same index but for `builtAt`). */
export function unitIndexOf(
  dataset: DatasetName,
  month: string,
  manifests: ReadonlyMap<string, RawManifest>,
  manifestsModified: number,
  rollups?: Readonly<Record<string, string>>,
): MonthIndex {
  return {
    version: 1,
    dataset,
    month,
    builtAt: new Date().toISOString(),
    manifestsModified,
    manifests: Object.fromEntries([...manifests.entries()].sort(([a], [b]) => a.localeCompare(b))),
    ...(rollups === undefined || Object.keys(rollups).length === 0 ? {} : { rollups: sortedRecord(rollups) }),
  };
}

/** Writes the index of `dataset`'s `month` (entries sorted: the same units give the same bytes but for `builtAt`). */
export async function writeUnitIndex(
  destination: Pick<Destination, 'put'>,
  dataset: DatasetName,
  month: string,
  manifests: ReadonlyMap<string, RawManifest>,
  manifestsModified: number,
  rollups?: Readonly<Record<string, string>>,
): Promise<void> {
  const index = unitIndexOf(dataset, month, manifests, manifestsModified, rollups);
  await destination.put(unitIndexKey(dataset, month), JSON.stringify(index), { contentType: 'application/json' });
}

/**
 * Brings the indexes of the units `changed` up to date with their manifests as they are now (a
 * unit without one leaves its index): what the export, `forget` and retention call once they
 * wrote or removed manifests. Returns each touched month's manifests.
 */
export async function updateUnitIndexes(
  destination: Pick<Destination, 'get' | 'put' | 'list' | 'listModified'>,
  changed: readonly { readonly dataset: DatasetName; readonly day: string; readonly projectId: string }[],
): Promise<Map<string, Map<string, RawManifest>>> {
  const byDataset = new Map<DatasetName, Set<string>>();
  for (const unit of changed) byDataset.set(unit.dataset, (byDataset.get(unit.dataset) ?? new Set()).add(monthOfDay(unit.day)));
  const out = new Map<string, Map<string, RawManifest>>();
  for (const [dataset, months] of byDataset) {
    const rollups: IndexedRollups = new Map();
    const indexes = await readUnitIndexes(destination, dataset, [...months], { rollups, keep: true });
    if (indexes === undefined) continue;
    // The listing after this step's manifests: what the indexes written now were built after.
    const listed = await listedByMonth(destination, dataset, [...months]);
    for (const [month, manifests] of indexes) {
      const units = changed.filter((unit) => unit.dataset === dataset && monthOfDay(unit.day) === month);
      for (const unit of units) {
        const manifest = await readRawManifest(destination, dataset, unit.day, unit.projectId);
        if (manifest === undefined) manifests.delete(indexEntry(unit.day, unit.projectId));
        else manifests.set(indexEntry(unit.day, unit.projectId), manifest);
      }
      await writeUnitIndex(destination, dataset, month, manifests, listed?.get(month)?.modified ?? 0, rollups.get(month));
      out.set(`${dataset}/${month}`, manifests);
    }
  }
  return out;
}

/**
 * Sets (or, for `undefined`, drops) the roll-ups' records of `changes` (`<table>/<projectId>` →
 * record) in the stored index of `dataset`'s `month`, the rest of it as stored: what the export,
 * `forget`, retention and `compact` call once they built or removed the month's roll-ups.
 * Nothing when the month has no index yet (a reader then reads the records beside the roll-ups).
 */
export async function recordRollups(
  destination: Pick<Destination, 'get' | 'put'>,
  dataset: DatasetName,
  month: string,
  changes: ReadonlyMap<string, string | undefined>,
): Promise<void> {
  if (changes.size === 0) return;
  const stored = await readJson(destination, unitIndexKey(dataset, month));
  if (!isIndex(stored, dataset, month)) return;
  const rollups: Record<string, string> = { ...(isObject(stored.rollups) ? (stored.rollups as Record<string, string>) : {}) };
  for (const [name, record] of changes) {
    if (record === undefined) delete rollups[name];
    else rollups[name] = record;
  }
  const { rollups: _old, ...rest } = stored;
  const index: MonthIndex = { ...rest, ...(Object.keys(rollups).length === 0 ? {} : { rollups: sortedRecord(rollups) }) };
  await destination.put(unitIndexKey(dataset, month), JSON.stringify(index), { contentType: 'application/json' });
}

function sortedRecord(record: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => a.localeCompare(b)));
}

function isIndex(value: unknown, dataset: string, month: string): value is MonthIndex {
  return isObject(value) && value['version'] === 1 && value['dataset'] === dataset && value['month'] === month && isObject(value['manifests']);
}

function sameSet(a: readonly string[], b: ReadonlySet<string>): boolean {
  return a.length === b.size && a.every((entry) => b.has(entry));
}
