/**
 * Role: temp folders and what is in them. `makeTempDir` folders are removed by
 * `removeTempDirs` (call it in `afterEach` or `afterAll`); the listings are sorted relative
 * POSIX paths, so a test can compare a folder with the exact layout it expects.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { DATASET_NAMES } from '../../functions/warehouse/catalog.js';
import { STAGING_PREFIX } from '../../functions/warehouse/keys.js';
import { parsePendingKey } from '../../functions/warehouse/lake/layout.js';

// Made and removed by the dev tools' module, which `npm run docs` shares (a script imports no test helper).
export { makeTempDir, removeTempDirs } from '../../scripts/lib/temp-dirs.js';

/** Every file under `root` (hidden temp files included), as sorted relative POSIX paths. */
export async function listFiles(root: string): Promise<string[]> {
  let entries;
  try {
    entries = await readdir(root, { recursive: true, withFileTypes: true });
  } catch {
    return [];
  }
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(root, path.join(entry.parentPath, entry.name)).split(path.sep).join('/'))
    .sort();
}

/** Files under `root` whose bytes contain `needle` (e.g. the API key). */
export async function filesContaining(root: string, needle: string): Promise<string[]> {
  const hits: string[] = [];
  for (const file of await listFiles(root)) {
    const bytes = await readFile(path.join(root, file));
    if (bytes.includes(needle)) hits.push(file);
  }
  return hits;
}

/**
 * Files under `root` outside the staging area and the index of units' marks (a commit cut short
 * leaves its mark: functions/warehouse/lake/unit-marks.ts): what a warehouse query could see.
 */
export async function tableFiles(root: string): Promise<string[]> {
  return (await listFiles(root)).filter((file) => !file.startsWith(`${STAGING_PREFIX}/`) && !DATASET_NAMES.some((dataset) => parsePendingKey(dataset, file)));
}

/** Files of the staging area under `root` (pages, checkpoints, failure records). */
export async function stagingFiles(root: string): Promise<string[]> {
  return (await listFiles(root)).filter((file) => file.startsWith(`${STAGING_PREFIX}/`));
}
