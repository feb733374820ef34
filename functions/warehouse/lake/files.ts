/**
 * The one listing of a lake's table files: the Parquet file of each project and day of a table
 * folder, as the lake laid out locally holds them (lake.ts mirrors an `s3://` one first). The
 * report's session, gaps and the verdicts' topic rates read their files through it, so how a
 * day's file is found (lake/layout.ts names it) is written once. Roll-ups first: the days of a
 * project of a month whose roll-up's record of that project matches today's manifests
 * (lake/rollups.ts) are read from that one file, each day asked named by it ({@link fileKeys}:
 * each file once; {@link rollupScopes}: the projects a reader keeps of each roll-up, for it
 * holds every project of the destination) — a month the window covers in part too: its readers
 * keep the rows of their first to last day by `dt`, the roll-up's own column, as they do of day files.
 */
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { PROJECT_ID_PATTERN } from '../../shared/validators.js';
import type { LakeFiles } from '../lake.js';
import { openTarget } from '../../shared/storage/destinations.js';
import { dayFolder, dayFolderName, dayKey, folderOf, monthName, monthOfDay, rollupKey } from './layout.js';
import { datasetOfTable, rollupProjects } from './rollups.js';
import { daysOfMonth, type IndexedRollups, readUnitIndexes } from './unit-index.js';

/** One project's file of one day. */
export interface TableFile {
  readonly day: string;
  readonly projectId: string;
  /** Relative to the lake's root: `<folder>/dt=<day>/<projectId>.parquet`, or the roll-up holding the day. */
  readonly key: string;
  /** The day is read from the month's roll-up (`key`), which holds other projects and days too. */
  readonly rollup?: true;
}

/** The files to read, each once (a roll-up names each of its days). */
export function fileKeys(files: readonly Pick<TableFile, 'key'>[]): string[] {
  return [...new Set(files.map((file) => file.key))];
}

/**
 * The projects a reader keeps of each roll-up among `files`, by key (duckdb.ts `parquetFiles`):
 * a roll-up holds every project of the destination, and the rows of a project whose days are
 * read from their own files (its part of the record stale, or not asked) are left out of it.
 */
export function rollupScopes(files: readonly TableFile[]): Map<string, string[]> {
  const scopes = new Map<string, Set<string>>();
  for (const file of files) if (file.rollup) scopes.set(file.key, (scopes.get(file.key) ?? new Set()).add(file.projectId));
  return new Map([...scopes].map(([key, projects]) => [key, [...projects].sort()]));
}

/** Roll-ups and day files the lake's listings handed to readers (the tests and the benchmark count them). */
export const ROLLUP_READS = { rollups: 0, days: 0 };

/** Whether roll-ups are read at all (`MINTLIFY_ROLLUPS=off`: the days only, to compare). */
function rollupsOn(): boolean {
  return process.env['MINTLIFY_ROLLUPS'] !== 'off';
}

/**
 * The files of table folder `folder` on `days` (in that order, each day's by name), of
 * `projects` only when given; a name that is not `<project id>.parquet` is not the export's and
 * is left out. Waits for the folder's mirror first.
 */
export async function tableFiles(
  lake: Pick<LakeFiles, 'root' | 'folderReady' | 'rolledUp'>,
  folder: string,
  days: readonly string[],
  projects?: ReadonlySet<string>,
): Promise<TableFile[]> {
  await lake.folderReady(folder);
  const mirrored = lake.rolledUp?.get(folder);
  const rolled =
    lake.rolledUp === undefined
      ? await validRollups(lake.root, folder, days, projects)
      : new Map(
          [...(mirrored ?? [])]
            .filter(([month]) => coveredMonth(month, days))
            .map(([month, ids]) => [month, new Map([...ids].filter(([id]) => projects?.has(id) ?? true))]),
        );
  const present = new Set(await list(path.join(lake.root, folder)));
  const perDay = await Promise.all(
    days
      .filter((day) => present.has(dayFolderName(day)))
      .map(async (day) =>
        (await list(path.join(lake.root, dayFolder(folder, day)))).sort().flatMap((name) => {
          const projectId = name.endsWith('.parquet') ? name.slice(0, -'.parquet'.length) : '';
          if (!PROJECT_ID_PATTERN.test(projectId) || (projects !== undefined && !projects.has(projectId))) return [];
          // A day its project's roll-up holds is read there; any other (before the month's first exported day) from its file.
          if (rolled.get(monthOfDay(day))?.get(projectId)?.includes(day)) return [];
          return [{ day, projectId, key: dayKey(folder, day, name) }];
        }),
      ),
  );
  const asked = new Set(days);
  const fromRollups = [...rolled].flatMap(([month, ids]) =>
    [...ids].flatMap(([projectId, held]) =>
      held.filter((day) => asked.has(day)).map((day) => ({ day, projectId, key: rollupKey(folder, month), rollup: true as const })),
    ),
  );
  ROLLUP_READS.rollups += fileKeys(fromRollups).length;
  ROLLUP_READS.days += perDay.flat().length;
  if (fromRollups.length === 0) return perDay.flat();
  const order = (file: TableFile) => `${file.day}/${file.projectId}`;
  return [...perDay.flat(), ...fromRollups].sort((a, b) => (order(a) < order(b) ? -1 : order(a) > order(b) ? 1 : 0));
}

/**
 * Whether `month`'s roll-up may stand for its days among `days`: every day of the month between
 * the first and the last day asked is asked. A reader keeps the rows of its first to its last
 * day (`dt`), so a window that starts or ends inside the month reads the roll-up's rows of
 * those days only, as reading the days gives; a gap inside the window is never filled by it.
 */
export function coveredMonth(month: string, days: readonly string[]): boolean {
  const first = days[0];
  const last = days[days.length - 1];
  if (first === undefined || last === undefined) return false;
  const asked = new Set(days);
  const inWindow = daysOfMonth(month).filter((day) => day >= first && day <= last);
  return inWindow.length > 0 && inWindow.every((day) => asked.has(day));
}

/**
 * The projects of each whole month of `days` whose part of the roll-up of `folder` may be read:
 * its record matches the manifests of today, as the month's index of units (checked against
 * them while a mark stands, not written) says. None for a folder no dataset writes, or with `MINTLIFY_ROLLUPS=off`.
 */
async function validRollups(
  root: string,
  folder: string,
  days: readonly string[],
  projects?: ReadonlySet<string>,
): Promise<Map<string, ReadonlyMap<string, readonly string[]>>> {
  const rolled = new Map<string, ReadonlyMap<string, readonly string[]>>();
  const owner = datasetOfTable(folder);
  if (!rollupsOn() || owner === undefined) return rolled;
  const names = new Set(await list(path.join(root, ...folderOf('rollups', folder).split('/'))));
  const months = [...new Set(days.map(monthOfDay))].filter(
    (month) => coveredMonth(month, days) && names.has(`${monthName(month)}.parquet`) && names.has(`${monthName(month)}.json`),
  );
  if (months.length === 0) return rolled;
  const lake = openTarget({ kind: 'local', dir: root });
  const records: IndexedRollups = new Map();
  const indexes = await readUnitIndexes(lake, owner.dataset, months, { rollups: records });
  if (indexes === undefined) return rolled;
  for (const month of months) {
    const manifests = indexes.get(month);
    if (manifests === undefined) continue;
    const held = await rollupProjects(lake, owner.table, month, manifests, records.get(month), projects);
    if (held.size > 0) rolled.set(month, held);
  }
  return rolled;
}

/** Names in a folder; none when it does not exist. */
export async function list(folder: string): Promise<string[]> {
  try {
    return await readdir(folder);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return [];
    throw error;
  }
}
