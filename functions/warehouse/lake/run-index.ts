/**
 * The run log's index: the records of one month's export runs (`export_runs/dt=…/<runId>.json`,
 * one small object a run) in one object, `_index/_runs/month=YYYY-MM.json` (lake/layout.ts), each
 * with the time the store gave the record when it was folded in. Derived, never the source of
 * truth: a reader lists the run log as before (a listing, not a read of each object) and takes
 * from the index only the records whose listed time is the one it holds; any other record — a
 * run ended since, or a record written again — is read from its own object. `compact` builds it
 * for every month, the export folds its run's record in as it writes it.
 */
import type { Destination } from '../../shared/storage/destination.js';
import { eachAtOnce } from '../../shared/concurrency.js';
import { dayFolder, LAYOUT, monthOfDay, monthOfName, parseDayKey, rootOf, runIndexKey } from './layout.js';
import { daysOfMonth, readJson } from './unit-index.js';

/** What `_index/_runs/month=YYYY-MM.json` holds. */
export interface RunIndex {
  readonly version: 1;
  readonly month: string;
  readonly builtAt: string;
  /** Each record by its key (relative to the destination): the store's time of it when folded in, and its text. */
  readonly runs: Readonly<Record<string, { readonly modified: number; readonly body: string }>>;
}

/** A run-log object as a listing gives it. */
export interface ListedRun {
  readonly key: string;
  readonly modified: number;
}

/** The month of a run record's key; undefined for a key of no day. */
function monthOfRun(key: string): string | undefined {
  const day = parseDayKey(key)?.day;
  return day === undefined ? undefined : monthOfDay(day);
}

function isRunIndex(value: unknown, month: string): value is RunIndex {
  const v = value as Partial<RunIndex> | undefined;
  return typeof v === 'object' && v !== null && v.version === 1 && v.month === month && typeof v.runs === 'object' && v.runs !== null;
}

/**
 * The records of `listed` (run-log keys with their listed times) that the months' indexes hold
 * as listed, by key: the rest are read one by one. One listing of the indexes, one read of each
 * index of a month `listed` touches.
 */
export async function runsFromIndexes(destination: Pick<Destination, 'get' | 'list'>, listed: readonly ListedRun[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  if (destination.list === undefined || listed.length === 0) return out;
  const indexed = new Set((await destination.list(rootOf('runIndex'))).flatMap((key) => monthOfName(key.slice(key.lastIndexOf('/') + 1)) ?? []));
  const months = [...new Set(listed.flatMap(({ key }) => monthOfRun(key) ?? []))].filter((month) => indexed.has(month));
  const indexes = new Map<string, RunIndex>();
  await eachAtOnce(months, 8, async (month) => {
    const index = await readJson(destination, runIndexKey(month));
    if (isRunIndex(index, month)) indexes.set(month, index);
  });
  for (const { key, modified } of listed) {
    const run = indexes.get(monthOfRun(key) ?? '')?.runs[key];
    if (run !== undefined && run.modified === modified) out.set(key, run.body);
  }
  return out;
}

/**
 * Brings the run log's index of each month up to date with the listing — of every month with a
 * record (within `[from, to)` when given), of `months`, or of `days` only (the export folds in
 * its run's record: the index's records of the month's other days kept as they are). A record
 * the index holds as listed is kept, any other read, a record gone dropped; an index is written
 * only when it changed. Returns how many were written.
 */
export async function refreshRunIndexes(
  destination: Pick<Destination, 'get' | 'put' | 'list' | 'listModified'>,
  options: { readonly months?: readonly string[]; readonly days?: readonly string[]; readonly from?: string; readonly to?: string } = {},
): Promise<number> {
  if (destination.listModified === undefined) return 0;
  // Every record, or the day folders asked (a prefix is a folder to a local lake).
  const days = options.days ?? options.months?.flatMap(daysOfMonth);
  const prefixes = days === undefined ? [`${LAYOUT.runs.folder}/`] : days.map((day) => `${dayFolder(LAYOUT.runs.folder, day)}/`);
  const byMonth = new Map<string, ListedRun[]>((days ?? []).map((day) => [monthOfDay(day), []]));
  const lists = await Promise.all(prefixes.map((prefix) => destination.listModified?.(prefix) ?? []));
  for (const run of lists.flat()) {
    const month = monthOfRun(run.key);
    if (month === undefined || !run.key.endsWith('.json')) continue;
    if ((options.from !== undefined && month < monthOfDay(options.from)) || (options.to !== undefined && `${month}-01` >= options.to)) continue;
    byMonth.set(month, [...(byMonth.get(month) ?? []), run]);
  }
  const listedDays = days === undefined ? undefined : new Set(days);
  let written = 0;
  for (const [month, runs] of byMonth) {
    const stored = await readJson(destination, runIndexKey(month));
    const before = isRunIndex(stored, month) ? stored.runs : {};
    const after: Record<string, { modified: number; body: string }> = {};
    // The records of days not listed now stay as the index holds them.
    if (listedDays !== undefined) for (const [key, run] of Object.entries(before)) if (!listedDays.has(parseDayKey(key)?.day ?? '')) after[key] = run;
    await eachAtOnce(runs, 16, async ({ key, modified }) => {
      const kept = before[key];
      if (kept !== undefined && kept.modified === modified) {
        after[key] = kept;
        return;
      }
      const body = await destination.get(key);
      if (body !== undefined) after[key] = { modified, body: Buffer.from(body).toString('utf8') };
    });
    const same = Object.keys(after).length === Object.keys(before).length && Object.entries(after).every(([key, run]) => before[key] === run);
    if (same) continue;
    const sorted = Object.fromEntries(Object.entries(after).sort(([a], [b]) => (a < b ? -1 : 1)));
    const index: RunIndex = { version: 1, month, builtAt: new Date().toISOString(), runs: sorted };
    await destination.put(runIndexKey(month), JSON.stringify(index), { contentType: 'application/json' });
    written += 1;
  }
  return written;
}
