/**
 * The one listing of a lake's table files: the Parquet file of each project and day of a table
 * folder, as the lake laid out locally holds them (lake.ts mirrors an `s3://` one first). The
 * report's session, gaps and the verdicts' topic rates read their files through it, so how a
 * day's file is found (lake/layout.ts names it) is written once. Roll-ups first: a month of
 * the days asked for whose roll-up's record matches today's manifests (lake/rollups.ts) is
 * read from that one file, each of its days asked named by it ({@link fileKeys}: each file
 * once) — a month the window covers in part too: its readers keep the rows of their first to
 * last day by `dt`, the roll-up's own column, as they do of day files.
 */
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { PROJECT_ID_PATTERN } from '../../shared/validators.js';
import type { LakeFiles } from '../lake.js';
import { openTarget } from '../../shared/storage/destinations.js';
import { dayFolder, dayFolderName, dayKey, monthOfDay, rollupFolder, rollupKey } from './layout.js';
import { datasetOfTable, rollupDays } from './rollups.js';
import { daysOfMonth, type IndexedRollups, readUnitIndexes } from './unit-index.js';

/** One project's file of one day. */
export interface TableFile {
  readonly day: string;
  readonly projectId: string;
  /** Relative to the lake's root: `<folder>/dt=<day>/<projectId>.parquet`, or the roll-up holding the day. */
  readonly key: string;
}

/** The files to read, each once (a roll-up names each of its days). */
export function fileKeys(files: readonly Pick<TableFile, 'key'>[]): string[] {
  return [...new Set(files.map((file) => file.key))];
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
    [...ids].flatMap(([projectId, held]) => held.filter((day) => asked.has(day)).map((day) => ({ day, projectId, key: rollupKey(folder, month, projectId) }))),
  );
  ROLLUP_READS.rollups += [...rolled.values()].reduce((sum, ids) => sum + ids.size, 0);
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
 * The projects of each whole month of `days` whose roll-up of `folder` may be read: its record
 * matches the manifests of today, as the month's index of units (rebuilt from them when stale)
 * says. None for a folder no dataset writes, or with `MINTLIFY_ROLLUPS=off`.
 */
async function validRollups(
  root: string,
  folder: string,
  days: readonly string[],
  projects?: ReadonlySet<string>,
): Promise<Map<string, Map<string, readonly string[]>>> {
  const rolled = new Map<string, Map<string, readonly string[]>>();
  const owner = datasetOfTable(folder);
  if (!rollupsOn() || owner === undefined) return rolled;
  const months = [...new Set(days.map(monthOfDay))].filter((month) => coveredMonth(month, days));
  const withRollups = (
    await Promise.all(months.map(async (month) => ({ month, names: await list(path.join(root, ...rollupFolder(folder, month).split('/'))) })))
  ).filter(({ names }) => names.some((name) => name.endsWith('.json')));
  if (withRollups.length === 0) return rolled;
  const lake = openTarget({ kind: 'local', dir: root });
  // A lake read-only to this reader keeps its stale index: the one rebuilt is used, not written.
  const readOnly = {
    get: lake.get.bind(lake),
    list: (prefix: string) => lake.list?.(prefix) ?? Promise.resolve([]),
    ...(lake.listModified ? { listModified: lake.listModified.bind(lake) } : {}),
    put: (key: string, body: string | Uint8Array) => lake.put(key, body).catch(() => undefined),
  };
  const records: IndexedRollups = new Map();
  const indexes = await readUnitIndexes(
    readOnly,
    owner.dataset,
    withRollups.map(({ month }) => month),
    undefined,
    records,
  );
  if (indexes === undefined) return rolled;
  for (const { month, names } of withRollups) {
    const manifests = indexes.get(month);
    if (manifests === undefined) continue;
    for (const name of names) {
      const projectId = name.endsWith('.json') ? name.slice(0, -'.json'.length) : '';
      if (!PROJECT_ID_PATTERN.test(projectId) || (projects !== undefined && !projects.has(projectId))) continue;
      if (!names.includes(`${projectId}.parquet`)) continue;
      const held = await rollupDays(lake, owner.table, month, projectId, manifests, records.get(month));
      if (held === undefined) continue;
      rolled.set(month, (rolled.get(month) ?? new Map<string, readonly string[]>()).set(projectId, held));
    }
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
