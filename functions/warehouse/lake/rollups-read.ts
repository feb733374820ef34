/**
 * Which roll-ups a mirror of an `s3://` lake reads (warehouse/lake.ts): of each table of the
 * scope, every month its days touch (whole, or in part at the window's edges) that has a
 * roll-up, and the projects whose part of its record matches the bucket's manifests, as the
 * index of units of that month says (lake/unit-index.ts: trusted while no mark stands in its
 * month, else checked against a listing of its manifests). The mirror then fetches those roll-ups and not
 * those projects' days; the one listing (lake/files.ts) hands them to the readers. And what
 * `status` says of them ({@link rolledUpMonths}).
 */
import { addDays } from '../../shared/dates.js';
import type { Destination } from '../../shared/storage/destination.js';
import { DATASET_TABLES, type DatasetName } from '../catalog.js';
import { folderOf, monthName, monthOfDay, nextMonth, rollupKey } from './layout.js';
import { datasetOfTable, rollupProjects } from './rollups.js';
import { daysOfMonth, type IndexedRollups, readUnitIndexes, type RawManifest } from './unit-index.js';

/**
 * The indexes of units one mirror has read, by dataset and month (their manifests and their
 * roll-ups' records): the manifests of the period and the roll-ups' checks read each once.
 */
export type IndexMemo = Map<string, { readonly manifests: Map<string, RawManifest>; readonly rollups: Readonly<Record<string, string>> | undefined }>;

/** The indexes of `dataset`'s `months`, each read once a memo; undefined when the lake cannot list. */
async function indexesOf(
  lake: Pick<Destination, 'get' | 'put' | 'list' | 'listModified'>,
  dataset: DatasetName,
  months: readonly string[],
  memo: IndexMemo,
): Promise<{ manifests: Map<string, Map<string, RawManifest>>; rollups: IndexedRollups } | undefined> {
  const missing = months.filter((month) => !memo.has(`${dataset}/${month}`));
  if (missing.length > 0) {
    const rollups: IndexedRollups = new Map();
    const read = await readUnitIndexes(lake, dataset, missing, { rollups });
    if (read === undefined) return undefined;
    for (const [month, manifests] of read) memo.set(`${dataset}/${month}`, { manifests, rollups: rollups.get(month) });
  }
  const manifests = new Map<string, Map<string, RawManifest>>();
  const rollups: IndexedRollups = new Map();
  for (const month of months) {
    const known = memo.get(`${dataset}/${month}`);
    if (known === undefined) continue;
    manifests.set(month, known.manifests);
    if (known.rollups !== undefined) rollups.set(month, known.rollups);
  }
  return { manifests, rollups };
}

/** Roll-ups to read: table folder → month → project → the days it holds (the month's from its first exported day). */
export type RolledUp = ReadonlyMap<string, ReadonlyMap<string, ReadonlyMap<string, readonly string[]>>>;

/** Every month `[from, to)` touches. */
export function monthsTouched(days: { readonly from: string; readonly to: string }): string[] {
  const months: string[] = [];
  for (let month = monthOfDay(days.from); month <= monthOfDay(days.to); month = nextMonth(month)) {
    const all = daysOfMonth(month);
    if ((all[all.length - 1] as string) >= days.from && (all[0] as string) < days.to) months.push(month);
  }
  return months;
}

/** `[from, to)` cut at the months' ends, each part with its month. */
export function monthStretches(days: { readonly from: string; readonly to: string }): { from: string; to: string; month: string }[] {
  return monthsTouched(days).map((month) => {
    const all = daysOfMonth(month);
    const next = addDays(all[all.length - 1] as string, 1);
    // ISO days compare as strings: the later first day, the earlier end.
    return { from: [all[0] as string, days.from].sort()[1] as string, to: [next, days.to].sort()[0] as string, month };
  });
}

/**
 * The blocks of `months` (consecutive, in order) that key prefixes hold exactly
 * (layout.ts `monthsBlockPrefix`), the fewest: a whole year, January to September, October to
 * December, else one month.
 */
function monthBlocks(months: readonly string[]): { readonly block: string; readonly count: number }[] {
  const out: { block: string; count: number }[] = [];
  for (let i = 0; i < months.length; ) {
    const month = months[i] as string;
    const year = month.slice(0, 4);
    /** Whether months[i…] run on through `year`'s month `last` (they are consecutive). */
    const through = (last: number) => months[i + last - Number(month.slice(5, 7))] === `${year}-${String(last).padStart(2, '0')}`;
    const block =
      month.endsWith('-01') && through(12)
        ? { block: `${year}-`, count: 12 }
        : month.endsWith('-01') && through(9)
          ? { block: `${year}-0`, count: 9 }
          : month.endsWith('-10') && through(12)
            ? { block: `${year}-1`, count: 3 }
            : { block: month, count: 1 };
    out.push(block);
    i += block.count;
  }
  return out;
}

/**
 * How a table folder's `stretches` (its months to list: {@link monthStretches}, those a roll-up
 * holds whole left out) are listed: each month on its own (their listings sent at once), but a
 * run of consecutive months in which the folder's dataset has no manifest (`empty`: before the
 * lake began) by the fewest key prefixes that hold exactly its months (`block`), so that a
 * listing never runs on into a month outside the run. A report of a year over a lake a year old
 * listed thirteen such months a table, one request each (bench/README.md, 3 Dec). A file there
 * without a manifest is still listed, and read, as before.
 */
export function listingStretches<S extends { readonly from: string; readonly to: string; readonly month: string }>(
  stretches: readonly S[],
  empty: (month: string) => boolean,
): (S | { readonly from: string; readonly to: string; readonly block: string })[] {
  const out: (S | { from: string; to: string; block: string })[] = [];
  let run: S[] = [];
  const flush = () => {
    let at = 0;
    for (const { block, count } of monthBlocks(run.map((stretch) => stretch.month))) {
      const part = run.slice(at, at + count);
      at += count;
      out.push(count === 1 ? (part[0] as S) : { from: (part[0] as S).from, to: (part[part.length - 1] as S).to, block });
    }
    run = [];
  };
  for (const stretch of stretches) {
    const last = run[run.length - 1];
    if (!empty(stretch.month) || (last !== undefined && last.to !== stretch.from)) flush();
    if (empty(stretch.month)) run.push(stretch);
    else out.push(stretch);
  }
  flush();
  return out;
}

/**
 * The manifests of `[from, to)` of every dataset, from the indexes of their months (one object
 * a dataset and month, a marked month checked against its manifests): what a mirror writes in
 * place of one GET per manifest. Undefined when the lake cannot list.
 */
export async function indexedManifests(
  lake: Pick<Destination, 'get' | 'put' | 'list' | 'listModified'>,
  datasets: readonly DatasetName[],
  days: { readonly from: string; readonly to: string },
  memo: IndexMemo = new Map(),
): Promise<{ dataset: DatasetName; day: string; projectId: string; manifest: RawManifest }[] | undefined> {
  if (lake.list === undefined) return undefined;
  const out: { dataset: DatasetName; day: string; projectId: string; manifest: RawManifest }[] = [];
  // Every dataset's listing and indexes at once (round trips to the store), then taken in order.
  const read = await Promise.all(datasets.map((dataset) => indexesOf(lake, dataset, monthsTouched(days), memo)));
  for (const [i, dataset] of datasets.entries()) {
    const indexes = read[i];
    if (indexes === undefined) return undefined;
    for (const manifests of indexes.manifests.values()) {
      for (const [entry, manifest] of manifests) {
        const [day, projectId] = entry.split('/') as [string, string];
        if (day >= days.from && day < days.to) out.push({ dataset, day, projectId, manifest });
      }
    }
  }
  return out;
}

/**
 * The valid roll-ups of `tables` over their days, read from `lake` (the bucket itself); none when roll-ups are off
 * (`MINTLIFY_ROLLUPS=off`). `listed` gets every key of the roll-ups' folders listed (their sums among them: lake/rollup-sums.ts).
 */
export async function mirroredRollups(
  lake: Pick<Destination, 'get' | 'put' | 'list' | 'listModified'>,
  tables: readonly { readonly prefix: string; readonly days: { readonly from: string; readonly to: string } }[],
  memo: IndexMemo = new Map(),
  listed: Set<string> = new Set(),
): Promise<RolledUp> {
  const out = new Map<string, Map<string, ReadonlyMap<string, readonly string[]>>>();
  if (process.env['MINTLIFY_ROLLUPS'] === 'off' || lake.list === undefined) return out;
  /** The months of one table whose roll-up holds some project's days, with those. */
  const checkTable = async ({ prefix, days }: (typeof tables)[number]): Promise<[string, ReadonlyMap<string, readonly string[]>][]> => {
    const found: [string, ReadonlyMap<string, readonly string[]>][] = [];
    const owner = datasetOfTable(prefix);
    // Every month the days touch: a month at the window's edge is read from its roll-up too (the readers keep their days by `dt`).
    const months = monthsTouched(days);
    if (owner === undefined || months.length === 0) return found;
    // What roll-ups there are: one listing a table (a month's file and its record).
    const keys = (await lake.list?.(`${folderOf('rollups', prefix)}/`)) ?? [];
    for (const key of keys) listed.add(key);
    const names = new Set(keys.map((key) => key.slice(key.lastIndexOf('/') + 1)));
    const candidates = months.filter((month) => names.has(`${monthName(month)}.parquet`) && names.has(`${monthName(month)}.json`));
    if (candidates.length === 0) return found;
    const index = await indexesOf(lake, owner.dataset, candidates, memo);
    for (const month of candidates) {
      const manifests = index?.manifests.get(month);
      if (manifests === undefined) continue;
      // The records in the month's index first (no read); the one beside the roll-up only when one differs.
      const held = await rollupProjects(lake, owner.table, month, manifests, index?.rollups.get(month));
      if (held.size > 0) found.push([month, held]);
    }
    return found;
  };
  // The datasets at once (round trips to the store); a dataset's tables one after another (an
  // index a dataset and month is read once, the memo holding it for the next table).
  const byDataset = new Map<string, number[]>();
  for (const [i, { prefix }] of tables.entries()) {
    const dataset = datasetOfTable(prefix)?.dataset ?? prefix;
    byDataset.set(dataset, [...(byDataset.get(dataset) ?? []), i]);
  }
  const checked: [string, ReadonlyMap<string, readonly string[]>][][] = [];
  await Promise.all(
    [...byDataset.values()].map(async (indices) => {
      for (const i of indices) checked[i] = await checkTable(tables[i] as (typeof tables)[number]);
    }),
  );
  for (const [i, { prefix }] of tables.entries()) {
    const found = checked[i] ?? [];
    if (found.length > 0) out.set(prefix, new Map(found));
  }
  return out;
}

/**
 * The months of table folder `prefix` whose day files a mirror need not list: its roll-up is
 * read for every unit with a manifest there among `days` (the month's index of units, as
 * `memo` holds it), so none of the month's day files would be read. A month whose index was not
 * read, or with a unit its roll-up does not hold (a project not settled), is listed.
 */
export function monthsRolledWhole(prefix: string, days: { readonly from: string; readonly to: string }, rolledUp: RolledUp, memo: IndexMemo): Set<string> {
  const whole = new Set<string>();
  const owner = datasetOfTable(prefix);
  if (owner === undefined) return whole;
  for (const [month, held] of rolledUp.get(prefix) ?? []) {
    const manifests = memo.get(`${owner.dataset}/${month}`)?.manifests;
    if (manifests === undefined) continue;
    const every = [...manifests.keys()].every((entry) => {
      const [day, projectId] = entry.split('/') as [string, string];
      return day < days.from || day >= days.to || held.get(projectId)?.includes(day) === true;
    });
    if (every) whole.add(month);
  }
  return whole;
}

/** How far one month is rolled up: tables with a roll-up, of the dataset tables asked. */
export interface MonthRolledUp {
  readonly month: string;
  readonly rolled: number;
  readonly of: number;
}

/**
 * The months of `days` and how many of their roll-ups (one a dataset table) have a record:
 * what `status` says. Only the records' presence is asked, not whether they still match.
 */
export async function rolledUpMonths(
  destination: Pick<Destination, 'exists'>,
  days: readonly string[],
  datasets: readonly DatasetName[],
): Promise<MonthRolledUp[]> {
  const months = [...new Set(days.map(monthOfDay))];
  const out: MonthRolledUp[] = [];
  for (const month of months.sort()) {
    const keys = datasets.flatMap((dataset) => DATASET_TABLES[dataset].map((table) => rollupKey(table.prefix, month, 'json')));
    const present = await Promise.all(keys.map((key) => destination.exists(key)));
    out.push({ month, rolled: present.filter(Boolean).length, of: keys.length });
  }
  return out;
}

/** `status`'s line: `roll-ups (tables): 2026-03 all 10, 2026-04 none (…)`; undefined when no month has one. */
export function describeRolledUp(months: readonly MonthRolledUp[]): string | undefined {
  if (months.every(({ rolled }) => rolled === 0)) return undefined;
  const parts = months.map(({ month, rolled, of }) => (rolled === of ? `${month} all ${of}` : rolled === 0 ? `${month} none` : `${month} ${rolled} of ${of}`));
  const hint = months.some(({ rolled, of }) => rolled < of) ? ' (once settled; `compact` for an older lake)' : '';
  return `roll-ups (tables): ${parts.join(', ')}${hint}`;
}
