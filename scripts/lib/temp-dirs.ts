/**
 * Temp folders for the dev tools (`npm run docs`) and the tests: `makeTempDir` folders are
 * removed by `removeTempDirs` (a test calls it in `afterEach` or `afterAll`).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

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
