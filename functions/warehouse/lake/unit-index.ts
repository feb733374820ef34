/**
 * The index of units: the manifests of one dataset's month in one object
 * (`_index/<dataset>/month=YYYY-MM.json`, lake/layout.ts), so `status`, `plan`, the report's
 * health and insights read one object a month where they read one manifest per unit. It is
 * derived, never the source of truth: the manifests are.
 *
 * A reader trusts an index as it stands, with no listing of the manifests, while no mark stands
 * in its month: every writer of a manifest (the export's commit, `forget`, retention) first puts
 * a mark naming the unit ({@link markUnit}: `_index/<dataset>/pending/…`), and a mark goes only
 * once an index written after the change was checked against a listing taken after that write
 * ({@link writeChecked}: the same units at the same times). A month with a mark, an index of a
 * writer before the marks (no `listed` times) or none is checked against one listing of its
 * manifests and rebuilt from them when it names other units or times; `compact` checks every
 * month so (a manifest changed by hand, not through the tool, is seen from then on). A writer cut
 * short leaves its marks: the next writer of that month removes those an hour old once its own
 * index holds (a mark is put just before its change, so an hour later the change is listed).
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
import { clearMarks, INDEX_WRITE, indexEntry, type IndexFolder, listWithTimes, markUnit, readIndexFolder, type UnitName, unmarkUnit } from './unit-marks.js';

/** A manifest as written (export/manifest.ts `Manifest`), unchecked. */
export type RawManifest = Readonly<Record<string, unknown>>;

/** What `_index/<dataset>/month=YYYY-MM.json` holds. */
export interface MonthIndex {
  readonly version: 1;
  readonly dataset: DatasetName;
  readonly month: string;
  readonly builtAt: string;
  /** The latest of {@link listed} (a reader before the marks compares it with its listing's latest time). */
  readonly manifestsModified?: number;
  /**
   * Each unit's manifest's time as listed before it was read (the store's clock), by
   * `<day>/<projectId>`: written by a writer that marks its changes and checks what it wrote,
   * so a reader may trust the index while no mark stands in its month.
   */
  readonly listed?: Readonly<Record<string, number>>;
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

/** Every day (`YYYY-MM-DD`) of `month`. */
export function daysOfMonth(month: string): string[] {
  return daysBetween(`${month}-01`, `${nextMonth(month)}-01`);
}

/** Counts of what reading indexes cost, for the tests and the benchmark. */
export interface IndexReads {
  /** Index objects read. */
  indexes: number;
  /** Indexes rebuilt (missing or naming other units or times than the manifests listed). */
  rebuilt: number;
  /** Manifests read to rebuild them. */
  manifests: number;
  /** Months checked against a listing of their manifests (a mark, no index, an index before the marks, `check`). */
  checked: number;
}

/** A month's manifests as listed: each unit's time (the store's clock; 0 when it tells none). */
type Listed = ReadonlyMap<string, number>;

const NOTHING_LISTED: Listed = new Map();

/**
 * The manifests' keys of `dataset`, by month: one listing, with their times when the destination
 * gives them; of the first to the last of `months` only (a listing of those months' days).
 */
async function listedByMonth(
  destination: Pick<Destination, 'list' | 'listModified'>,
  dataset: DatasetName,
  months: readonly string[],
): Promise<Map<string, Map<string, number>> | undefined> {
  const sorted = [...months].sort();
  const first = sorted[0];
  const last = sorted[sorted.length - 1];
  const folder = manifestsOf(dataset);
  const range = first === undefined || last === undefined ? undefined : monthsRange(folder, first, last);
  const listed = await listWithTimes(destination, folder, range);
  if (listed === undefined) return undefined;
  const byMonth = new Map<string, Map<string, number>>();
  for (const { key, modified } of listed) {
    const unit = parseManifestKey(dataset, key);
    if (unit === undefined) continue;
    const month = monthOfDay(unit.day);
    const entries = byMonth.get(month) ?? new Map<string, number>();
    entries.set(indexEntry(unit.day, unit.projectId), modified);
    byMonth.set(month, entries);
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

/** The index stored for `dataset`'s `month`; undefined when absent or not an index. */
async function readStoredIndex(destination: Pick<Destination, 'get'>, dataset: DatasetName, month: string): Promise<MonthIndex | undefined> {
  const value = await readJson(destination, unitIndexKey(dataset, month));
  return isIndex(value, dataset, month) ? value : undefined;
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
  /** Check every month against a listing of its manifests, marked or not (`compact`). @default false */
  readonly check?: boolean;
}

/**
 * The manifests of `dataset`'s `months`, from their indexes: an index trusted while no mark
 * stands in its month; else checked against a listing of the manifests and, when it names other
 * units or times, rebuilt from them (and written back with `keep`). A month without a manifest
 * listed is empty (none of its units is complete). Undefined when the destination cannot list
 * (the caller reads each manifest).
 */
export async function readUnitIndexes(
  destination: Pick<Destination, 'get' | 'put' | 'list' | 'listModified'> & Partial<Pick<Destination, 'delete'>>,
  dataset: DatasetName,
  months: readonly string[],
  options: ReadIndexOptions = {},
): Promise<Map<string, Map<string, RawManifest>> | undefined> {
  const { reads, rollups, check = false } = options;
  // Writes back only where it may remove its marks too.
  const writer =
    options.keep === true && destination.delete !== undefined
      ? (destination as Pick<Destination, 'get' | 'put' | 'delete' | 'list' | 'listModified'>)
      : undefined;
  const folder = await readIndexFolder(destination, dataset);
  if (folder === undefined) return undefined;
  const distinct = [...new Set(months)];
  // The months' indexes fetched at once (each a round trip to the store), then taken in order.
  const stored = new Map<string, MonthIndex>();
  await eachAtOnce(
    distinct.filter((month) => folder.indexes.has(month)),
    16,
    async (month) => {
      const index = await readStoredIndex(destination, dataset, month);
      if (index !== undefined) stored.set(month, index);
    },
  );
  const out = new Map<string, Map<string, RawManifest>>();
  const unsure: string[] = [];
  for (const month of distinct) {
    const index = stored.get(month);
    if (index !== undefined) {
      if (reads) reads.indexes += 1;
      if (isObject(index.rollups)) rollups?.set(month, index.rollups as Record<string, string>);
    }
    if (!check && index?.listed !== undefined && !folder.marks.has(month)) out.set(month, new Map(Object.entries(index.manifests)));
    else unsure.push(month);
  }
  if (unsure.length === 0) return out;
  // One listing per run of consecutive months: a year before the lake began (no index, no manifest) lists nothing of the year after.
  const runs = await Promise.all(consecutive(unsure).map((run) => listedByMonth(destination, dataset, run)));
  if (runs.some((run) => run === undefined)) return undefined;
  const listed = new Map(runs.flatMap((run) => [...(run ?? [])]));
  for (const month of unsure) {
    if (reads) reads.checked += 1;
    const present = listed.get(month) ?? NOTHING_LISTED;
    const index = stored.get(month);
    const marks = folder.marks.get(month) ?? [];
    if (index === undefined ? present.size === 0 : agrees(index, present)) {
      const manifests = new Map(Object.entries(index?.manifests ?? {}));
      // An index of a writer before the marks written again with its units' times: trusted from then on.
      const upgraded = writer && index !== undefined && index.listed === undefined;
      const held = upgraded
        ? await writeChecked(writer, dataset, month, { manifests, listed: present }, index.rollups, reads).catch(() => undefined)
        : undefined;
      if (writer && (!upgraded || held !== undefined)) await clearMarks(writer, marks, new Set());
      out.set(month, held?.manifests ?? manifests);
      continue;
    }
    // A unit listed at the time the index holds it is taken from the index; the others are read.
    const manifests = await manifestsAsListed(destination, dataset, present, index && writtenOf(index), new Set(), reads);
    if (reads) reads.rebuilt += 1;
    // Kept for the next reader when it may write; a reader that may not still has it here.
    const held = writer ? await writeChecked(writer, dataset, month, { manifests, listed: present }, index?.rollups, reads).catch(() => undefined) : undefined;
    if (writer && held !== undefined) await clearMarks(writer, marks, new Set());
    out.set(month, held?.manifests ?? manifests);
  }
  return out;
}

/** `months` sorted, in runs of consecutive months. */
function consecutive(months: readonly string[]): string[][] {
  const runs: string[][] = [];
  for (const month of [...new Set(months)].sort()) {
    const last = runs[runs.length - 1];
    if (last !== undefined && nextMonth(last[last.length - 1] as string) === month) last.push(month);
    else runs.push([month]);
  }
  return runs;
}

/** Whether `index` names the units `present` lists, at the same times (an index before the marks: none changed since its listing). */
function agrees(index: MonthIndex, present: Listed): boolean {
  if (index.listed !== undefined) return sameTimes(writtenOf(index), present);
  const entries = Object.keys(index.manifests);
  return entries.length === present.size && entries.every((entry) => present.has(entry)) && (index.manifestsModified ?? 0) >= Math.max(0, ...present.values());
}

/**
 * The manifests of the units `present` lists: each taken from `known` when it holds the unit at
 * the time listed and the unit is not one of `changed`, else read (a unit whose manifest cannot be
 * read is left out: the index then disagrees with the listing and its month stays checked).
 */
async function manifestsAsListed(
  destination: Pick<Destination, 'get'>,
  dataset: DatasetName,
  present: Listed,
  known: { readonly manifests: ReadonlyMap<string, RawManifest>; readonly listed: Listed } | undefined,
  changed: ReadonlySet<string>,
  reads: IndexReads | undefined,
): Promise<Map<string, RawManifest>> {
  const manifests = new Map<string, RawManifest>();
  const toRead: string[] = [];
  for (const [entry, at] of present) {
    const held = changed.has(entry) || known?.listed.get(entry) !== at ? undefined : known?.manifests.get(entry);
    if (held !== undefined) manifests.set(entry, held);
    else toRead.push(entry);
  }
  await eachAtOnce(toRead, 16, async (entry) => {
    const [day, projectId] = entry.split('/') as [string, string];
    const manifest = await readRawManifest(destination, dataset, day, projectId);
    if (reads) reads.manifests += 1;
    if (manifest !== undefined) manifests.set(entry, manifest);
  });
  // In the listing's order, as one read of every manifest gives them.
  return new Map([...present.keys()].flatMap((entry) => (manifests.has(entry) ? [[entry, manifests.get(entry) as RawManifest] as const] : [])));
}

/** An index as written and held: its manifests and each one's time as listed. */
interface Written {
  readonly manifests: Map<string, RawManifest>;
  readonly listed: Listed;
}

/** What a stored index holds, as {@link Written} (an index before the marks: no unit's time). */
function writtenOf(index: MonthIndex): Written {
  return { manifests: new Map(Object.entries(index.manifests)), listed: new Map(Object.entries(index.listed ?? {})) };
}

/**
 * Writes the index of `dataset`'s `month` and checks it: a listing of the month's manifests taken
 * after the write must name the units the index holds at the times it holds them, else a unit
 * changed meanwhile (another writer) and the index is built again from that listing, at most
 * three times. A mark of its own stands while it writes, so a writer cut short between the write
 * and the check leaves the month checked by readers. Returns what the index holds when it held;
 * undefined when it never did (the marks then stay).
 */
async function writeChecked(
  destination: Pick<Destination, 'get' | 'put' | 'delete' | 'list' | 'listModified'>,
  dataset: DatasetName,
  month: string,
  first: Written,
  rollups: Readonly<Record<string, string>> | undefined,
  reads?: IndexReads,
): Promise<Written | undefined> {
  const own = { dataset, day: `${month}-01`, projectId: INDEX_WRITE };
  await markUnit(destination, own);
  let written = first;
  for (let attempt = 0; attempt < 3; attempt += 1) {
    await writeUnitIndex(destination, dataset, month, written.manifests, written.listed, rollups);
    const after = (await listedByMonth(destination, dataset, [month]))?.get(month) ?? NOTHING_LISTED;
    if (sameTimes(written, after)) {
      await unmarkUnit(destination, own);
      return written;
    }
    written = { manifests: await manifestsAsListed(destination, dataset, after, written, new Set(), reads), listed: after };
  }
  return undefined;
}

/** Whether `written` holds exactly the units listed in `after`, each at its listed time. */
function sameTimes(written: Written, after: Listed): boolean {
  if (written.manifests.size !== after.size) return false;
  for (const [entry, at] of after) if (!written.manifests.has(entry) || written.listed.get(entry) !== at) return false;
  return true;
}

/** The index of `dataset`'s `month` as {@link writeUnitIndex} writes it (entries sorted: the same units give the same index but for `builtAt`). */
export function unitIndexOf(
  dataset: DatasetName,
  month: string,
  manifests: ReadonlyMap<string, RawManifest>,
  listed: Listed | number,
  rollups?: Readonly<Record<string, string>>,
): MonthIndex {
  const entries = [...manifests.entries()].sort(([a], [b]) => a.localeCompare(b));
  const times = Object.fromEntries(entries.map(([entry]) => [entry, typeof listed === 'number' ? listed : (listed.get(entry) ?? 0)]));
  return {
    version: 1,
    dataset,
    month,
    builtAt: new Date().toISOString(),
    manifestsModified: Math.max(0, ...Object.values(times)),
    listed: times,
    manifests: Object.fromEntries(entries),
    ...(rollups === undefined || Object.keys(rollups).length === 0 ? {} : { rollups: sortedRecord(rollups) }),
  };
}

/**
 * Writes the index of `dataset`'s `month` (entries sorted: the same units give the same bytes but
 * for `builtAt`), each unit at its time as `listed` (the store's clock). Unchecked: a writer uses
 * {@link writeChecked}; a copy of a lake (the benchmark's) writes what its bucket lists.
 */
export async function writeUnitIndex(
  destination: Pick<Destination, 'put'>,
  dataset: DatasetName,
  month: string,
  manifests: ReadonlyMap<string, RawManifest>,
  listed: Listed | number,
  rollups?: Readonly<Record<string, string>>,
): Promise<void> {
  const index = unitIndexOf(dataset, month, manifests, listed, rollups);
  await destination.put(unitIndexKey(dataset, month), JSON.stringify(index), { contentType: 'application/json' });
}

/**
 * Brings the indexes of the units `changed` up to date with their manifests as they are now (a
 * unit without one leaves its index), each checked ({@link writeChecked}), then removes the marks
 * it covers: what the export, `forget` and retention call once they wrote or removed manifests.
 * Returns each touched month's manifests (`<dataset>/<month>`).
 */
export async function updateUnitIndexes(
  destination: Pick<Destination, 'get' | 'put' | 'delete' | 'list' | 'listModified'>,
  changed: readonly UnitName[],
): Promise<Map<string, Map<string, RawManifest>>> {
  const byMonth = new Map<string, { dataset: DatasetName; month: string; entries: Set<string> }>();
  for (const unit of changed) {
    const month = monthOfDay(unit.day);
    const touched = byMonth.get(`${unit.dataset}/${month}`) ?? { dataset: unit.dataset, month, entries: new Set<string>() };
    touched.entries.add(indexEntry(unit.day, unit.projectId));
    byMonth.set(`${unit.dataset}/${month}`, touched);
  }
  const out = new Map<string, Map<string, RawManifest>>();
  const folders = new Map<DatasetName, IndexFolder | undefined>();
  for (const [name, { dataset, month, entries }] of [...byMonth].sort(([a], [b]) => a.localeCompare(b))) {
    if (!folders.has(dataset)) folders.set(dataset, await readIndexFolder(destination, dataset));
    const folder = folders.get(dataset);
    const listed = folder && (await listedByMonth(destination, dataset, [month]));
    if (folder === undefined || listed === undefined) continue;
    const present = listed.get(month) ?? NOTHING_LISTED;
    const stored = await readStoredIndex(destination, dataset, month);
    const manifests = await manifestsAsListed(destination, dataset, present, stored && writtenOf(stored), entries, undefined);
    const held = await writeChecked(destination, dataset, month, { manifests, listed: present }, stored?.rollups);
    if (held !== undefined) await clearMarks(destination, folder.marks.get(month) ?? [], entries);
    out.set(name, held?.manifests ?? manifests);
  }
  return out;
}

/**
 * Sets (or, for `undefined`, drops) the roll-ups' records of `changes` (`<table>/<projectId>` →
 * record) in the stored index of `dataset`'s `month`, the rest of it as stored, checked as any
 * write of an index is ({@link writeChecked}): what the export, `forget`, retention and `compact`
 * call once they built or removed the month's roll-ups. Nothing when the month has no index yet
 * (a reader then reads the records beside the roll-ups).
 */
export async function recordRollups(
  destination: Pick<Destination, 'get' | 'put' | 'delete' | 'list' | 'listModified'>,
  dataset: DatasetName,
  month: string,
  changes: ReadonlyMap<string, string | undefined>,
): Promise<void> {
  if (changes.size === 0) return;
  const stored = await readStoredIndex(destination, dataset, month);
  if (stored === undefined) return;
  const rollups: Record<string, string> = { ...(isObject(stored.rollups) ? (stored.rollups as Record<string, string>) : {}) };
  for (const [name, record] of changes) {
    if (record === undefined) delete rollups[name];
    else rollups[name] = record;
  }
  await writeChecked(destination, dataset, month, writtenOf(stored), rollups);
}

function sortedRecord(record: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => a.localeCompare(b)));
}

function isIndex(value: unknown, dataset: string, month: string): value is MonthIndex {
  return isObject(value) && value['version'] === 1 && value['dataset'] === dataset && value['month'] === month && isObject(value['manifests']);
}
