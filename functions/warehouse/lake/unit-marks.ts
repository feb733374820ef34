/**
 * The marks of the index of units (lake/unit-index.ts): a writer puts one naming a unit just
 * before it writes or removes the unit's manifest, and removes it once an index of the unit's
 * month holding the change was checked; while one stands, readers check that month's index
 * against its manifests. The keys are lake/layout.ts `unitPending`'s.
 */
import { randomUUID } from 'node:crypto';
import type { Destination } from '../../shared/storage/destination.js';
import { eachAtOnce } from '../../shared/concurrency.js';
import type { DatasetName } from '../catalog.js';
import { folderOf, monthName, monthOfName, parsePendingKey, pendingKey } from './layout.js';

/** `<day>/<projectId>`: a unit's name inside its month's index. */
export function indexEntry(day: string, projectId: string): string {
  return `${day}/${projectId}`;
}

/** A unit by name. */
export interface UnitName {
  readonly dataset: DatasetName;
  readonly day: string;
  readonly projectId: string;
}

/** This process's name on the marks it puts: a mark is removed by its writer, or by another an hour after it was put. */
const WRITER = randomUUID();

/** How old another writer's mark must be before a writer whose index holds removes it: its change was listed long before. */
const MARK_EXPIRY_MS = 60 * 60 * 1000;

/** The unit a write of the index alone (the roll-ups' records, a rebuild) marks: `<month>-01` of this project. */
export const INDEX_WRITE = '_index';

/**
 * Puts the mark of `unit`: called just before its manifest is written or removed (export/manifest.ts,
 * retention), so readers check its month against the manifests until an index holding the change is.
 */
export async function markUnit(destination: Pick<Destination, 'put'>, unit: UnitName): Promise<void> {
  await destination.put(pendingKey(unit.dataset, unit.day, unit.projectId, WRITER), '', { contentType: 'text/plain' });
}

/** Removes the mark this process put for `unit`. */
export async function unmarkUnit(destination: Pick<Destination, 'delete'>, unit: UnitName): Promise<void> {
  await destination.delete(pendingKey(unit.dataset, unit.day, unit.projectId, WRITER));
}

/** The keys under `prefix` with their times (0 when the destination tells none); undefined when it cannot list. */
export async function listWithTimes(
  destination: Pick<Destination, 'list' | 'listModified'>,
  prefix: string,
  range?: Parameters<NonNullable<Destination['list']>>[1],
): Promise<readonly { readonly key: string; readonly modified: number }[] | undefined> {
  if (destination.listModified) return destination.listModified(prefix, range);
  return destination.list ? (await destination.list(prefix, range)).map((key) => ({ key, modified: 0 })) : undefined;
}

/** A mark as listed. */
export interface Mark {
  readonly key: string;
  readonly modified: number;
  readonly entry: string;
  readonly writer: string;
}

/** What `_index/<dataset>/` holds: the months with an index, and the marks standing, by month. */
export interface IndexFolder {
  readonly indexes: ReadonlySet<string>;
  readonly marks: ReadonlyMap<string, readonly Mark[]>;
}

/** One listing of `_index/<dataset>/`; undefined when the destination cannot list. */
export async function readIndexFolder(destination: Pick<Destination, 'list' | 'listModified'>, dataset: DatasetName): Promise<IndexFolder | undefined> {
  const folder = `${folderOf('unitIndex', dataset)}/`;
  const listed = await listWithTimes(destination, folder);
  if (listed === undefined) return undefined;
  const indexes = new Set<string>();
  const marks = new Map<string, Mark[]>();
  for (const { key, modified } of listed) {
    const mark = parsePendingKey(dataset, key);
    if (mark !== undefined) {
      marks.set(mark.month, [...(marks.get(mark.month) ?? []), { key, modified, entry: indexEntry(mark.day, mark.projectId), writer: mark.writer }]);
      continue;
    }
    const name = key.slice(folder.length);
    const month = monthOfName(name);
    if (month !== undefined && name === `${monthName(month)}.json`) indexes.add(month);
  }
  return { indexes, marks };
}

/**
 * Removes, once an index of a month held, the marks of that month it covers: this writer's marks of the units
 * `changed`, and any mark put more than {@link MARK_EXPIRY_MS} ago (a writer cut short: its
 * change was listed before this writer's index was checked).
 */
export async function clearMarks(destination: Pick<Destination, 'delete'>, marks: readonly Mark[], changed: ReadonlySet<string>): Promise<void> {
  const expired = Date.now() - MARK_EXPIRY_MS;
  const covered = marks.filter((mark) => (mark.writer === WRITER && changed.has(mark.entry)) || (mark.modified > 0 && mark.modified < expired));
  await eachAtOnce(covered, 16, async (mark) => {
    await destination.delete(mark.key);
  });
}
