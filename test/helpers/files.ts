/**
 * Role: temp folders and what is in them. `makeTempDir` folders are removed by
 * `removeTempDirs` (call it in `afterEach` or `afterAll`); the listings are sorted relative
 * POSIX paths, so a test can compare a folder with the exact layout it expects.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { STAGING_PREFIX } from '../../functions/warehouse/keys.js';

/** Temp folders made by `makeTempDir`, removed by `removeTempDirs`. */
const tempDirs: string[] = [];

/** A fresh empty folder under the system's temp folder, named `mintlify-<label>-…`. */
export async function makeTempDir(label = 'export'): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), `mintlify-${label}-`));
  tempDirs.push(dir);
  return dir;
}

/** Removes every folder `makeTempDir` made so far. */
export async function removeTempDirs(): Promise<void> {
  await Promise.all(tempDirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
}

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

/** Files under `root` outside the staging area: what a warehouse query could see. */
export async function tableFiles(root: string): Promise<string[]> {
  return (await listFiles(root)).filter((file) => !file.startsWith(`${STAGING_PREFIX}/`));
}

/** Files of the staging area under `root` (pages, checkpoints, failure records). */
export async function stagingFiles(root: string): Promise<string[]> {
  return (await listFiles(root)).filter((file) => file.startsWith(`${STAGING_PREFIX}/`));
}
