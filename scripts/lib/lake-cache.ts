/**
 * Lakes built once and shared, by the tests and by `npm run docs` (scripts/sample-run.ts). A lake the real CLI exports takes seconds to build; the test
 * files that read the same lake share one build. It is built into the system's temp folder under
 * a name keyed by the content it is built from (functions/, sandbox/, queries/, test/helpers/,
 * package-lock.json), so a change to any of them builds it again and an unchanged tree reuses it,
 * in this run and the next. Two workers asking at once: the first takes a lock (a folder made
 * with `mkdir`, which is atomic, holding its process id) and builds into a folder of its own, then
 * renames it into place; the other waits for the finished folder. A lock whose process is gone (a
 * worker or warm-up stopped mid-build) is taken over at once. Every test file gets its own copy
 * (`makeTempDir`), so no test can change what another reads.
 */
import { createHash } from 'node:crypto';
import { cp, mkdir, readdir, readFile, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isProcessAlive } from '../../functions/shared/pacing/leases.js';
import { makeTempDir } from './temp-dirs.js';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
/** What a lake is built from: a change in any of these builds it again. */
const INPUTS = ['functions', 'sandbox', 'queries', 'test/helpers', 'package-lock.json'];
/** Where lakes are kept between runs. */
export const LAKE_CACHE = path.join(tmpdir(), 'mintlify-exporter-lakes');
/** A lock older than this was left by a build that died: taken over. */
const STALE_LOCK_MS = 10 * 60_000;
/** Lakes of other content not used for this long are removed when a new one is built. */
const OLD_LAKE_MS = 24 * 60 * 60_000;
const READY = 'ready.json';

let inputsKey: Promise<string> | undefined;

/** sha256 of every input file's path and bytes, in path order. */
async function hashInputs(): Promise<string> {
  const hash = createHash('sha256');
  const files: string[] = [];
  for (const input of INPUTS) {
    const full = path.join(REPO, input);
    if ((await stat(full)).isFile()) {
      files.push(input);
      continue;
    }
    for (const entry of await readdir(full, { recursive: true, withFileTypes: true })) {
      if (entry.isFile()) files.push(path.relative(REPO, path.join(entry.parentPath, entry.name)).split(path.sep).join('/'));
    }
  }
  for (const file of files.sort()) {
    hash.update(`${file}\u0000`);
    hash.update(await readFile(path.join(REPO, file)));
    hash.update('\u0000');
  }
  return hash.digest('hex').slice(0, 16);
}

/**
 * A copy of the lake `name`, built by `build` into an empty folder unless a lake of the same name
 * and inputs was built before. `build` resolves with what a test needs to know of the lake (JSON:
 * kept beside it); the copy is a fresh `makeTempDir` folder, removed by `removeTempDirs`.
 */
export async function cachedLake<Meta>(name: string, build: (root: string) => Promise<Meta>): Promise<{ readonly root: string; readonly meta: Meta }> {
  const built = await builtFolder(name);
  const { meta } = (await readReady<Meta>(built)) ?? (await buildOnce(name, built, build));
  // Its age is the time since it was last used: another tree's run removes only lakes nobody used for a day.
  const now = new Date();
  await utimes(built, now, now);
  const root = await makeTempDir(name);
  await cp(path.join(built, 'lake'), root, { recursive: true });
  return { root, meta };
}

/** Where the lake `name` of this tree's inputs is kept (its lock: the same path with `.lock`). */
export async function builtFolder(name: string): Promise<string> {
  inputsKey ??= hashInputs();
  return path.join(LAKE_CACHE, `${name}-${await inputsKey}`);
}

/** What `build` resolved with, once the lake is in place; undefined before. */
async function readReady<Meta>(built: string): Promise<{ readonly meta: Meta } | undefined> {
  try {
    return JSON.parse(await readFile(path.join(built, READY), 'utf8')) as { meta: Meta };
  } catch {
    return undefined;
  }
}

async function buildOnce<Meta>(name: string, built: string, build: (root: string) => Promise<Meta>): Promise<{ readonly meta: Meta }> {
  await mkdir(LAKE_CACHE, { recursive: true });
  const lock = `${built}.lock`;
  for (;;) {
    const ready = await readReady<Meta>(built);
    if (ready !== undefined) return ready;
    if (await takeLock(lock, built)) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  try {
    // Another worker may have finished between our last look and taking the lock.
    const ready = await readReady<Meta>(built);
    if (ready !== undefined) return ready;
    await removeOldLakes(name, built);
    const building = `${built}.building-${process.pid}`;
    await rm(building, { recursive: true, force: true });
    await mkdir(path.join(building, 'lake'), { recursive: true });
    const meta = await build(path.join(building, 'lake'));
    await writeFile(path.join(building, READY), JSON.stringify({ meta: meta ?? null }));
    await rm(built, { recursive: true, force: true });
    await rename(building, built);
    return { meta };
  } finally {
    await rm(lock, { recursive: true, force: true });
  }
}

/** The file of a lock folder that names the process holding it. */
const OWNER = 'pid';

/**
 * Makes the lock folder (with this process's id in it); false when another process holds a lock
 * that is alive. A lock is dead when its process is gone — its half-made build goes with it — or,
 * without an id (the holder died between the two calls), when it is older than STALE_LOCK_MS.
 */
async function takeLock(lock: string, built: string): Promise<boolean> {
  try {
    await mkdir(lock);
    await writeFile(path.join(lock, OWNER), String(process.pid));
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const owner = Number(await readFile(path.join(lock, OWNER), 'utf8').catch(() => ''));
  const since = await stat(lock).then(
    (s) => Date.now() - s.mtimeMs,
    () => 0,
  );
  const gone = Number.isInteger(owner) && owner > 0 && !isProcessAlive(owner);
  if (gone || since > STALE_LOCK_MS) {
    if (gone) await rm(`${built}.building-${owner}`, { recursive: true, force: true });
    await rm(lock, { recursive: true, force: true });
  }
  return false;
}

/** Lakes of this name built from other inputs and not used for a day, and builds left by a dead worker: no tree of today reads them. */
async function removeOldLakes(name: string, keep: string): Promise<void> {
  for (const entry of await readdir(LAKE_CACHE)) {
    const full = path.join(LAKE_CACHE, entry);
    if (full === keep || !entry.startsWith(`${name}-`) || entry.endsWith('.lock')) continue;
    const age = await stat(full).then(
      (s) => Date.now() - s.mtimeMs,
      () => 0,
    );
    if (age > OLD_LAKE_MS) await rm(full, { recursive: true, force: true });
  }
}
