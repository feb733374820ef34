/**
 * The one listing of a lake's table files: the Parquet file of each project and day of a table
 * folder, as the lake laid out locally holds them (lake.ts mirrors an `s3://` one first). The
 * report's session, gaps and the verdicts' topic rates read their files through it, so how a
 * day's file is found (lake/layout.ts names it) is written once.
 */
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { PROJECT_ID_PATTERN } from '../../shared/validators.js';
import type { LakeFiles } from '../lake.js';
import { dayFolder, dayFolderName, dayKey } from './layout.js';

/** One project's file of one day. */
export interface TableFile {
  readonly day: string;
  readonly projectId: string;
  /** Relative to the lake's root: `<folder>/dt=<day>/<projectId>.parquet`. */
  readonly key: string;
}

/**
 * The files of table folder `folder` on `days` (in that order, each day's by name), of
 * `projects` only when given; a name that is not `<project id>.parquet` is not the export's and
 * is left out. Waits for the folder's mirror first.
 */
export async function tableFiles(
  lake: Pick<LakeFiles, 'root' | 'folderReady'>,
  folder: string,
  days: readonly string[],
  projects?: ReadonlySet<string>,
): Promise<TableFile[]> {
  await lake.folderReady(folder);
  const present = new Set(await list(path.join(lake.root, folder)));
  const perDay = await Promise.all(
    days
      .filter((day) => present.has(dayFolderName(day)))
      .map(async (day) =>
        (await list(path.join(lake.root, dayFolder(folder, day)))).sort().flatMap((name) => {
          const projectId = name.endsWith('.parquet') ? name.slice(0, -'.parquet'.length) : '';
          if (!PROJECT_ID_PATTERN.test(projectId) || (projects !== undefined && !projects.has(projectId))) return [];
          return [{ day, projectId, key: dayKey(folder, day, name) }];
        }),
      ),
  );
  return perDay.flat();
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
