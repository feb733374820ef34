/**
 * The work folder of one `forget` run: a DuckDB session holding the HMACs to look for (the
 * `forgotten` table), and local copies of the destination's files, each under a name of its own.
 * Copies hold rows of the very people being forgotten: the folder goes when the run ends, and the
 * folders of killed runs go when the next run starts.
 */
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Destination } from '../../shared/storage/destination.js';
import { openDuckDb, type DuckDbSession } from '../../warehouse/duckdb.js';
import { sqlString } from '../../warehouse/sql.js';
import { isProcessAlive } from '../../shared/pacing/leases.js';

/** A file of the destination copied into the work folder. */
export interface LocalCopy {
  readonly file: string;
  readonly bytes: number;
}

/** The run's DuckDB session and its copies of the destination's files. */
export interface Work {
  readonly destination: Destination;
  readonly db: DuckDbSession;
  /** Copies a file of the destination into the work folder; undefined when it is gone. */
  readonly fetch: (key: string) => Promise<LocalCopy | undefined>;
  /** Closes the session and removes the folder. */
  readonly close: () => Promise<void>;
}

/** The name of the folders `forget` copies files into: `mintlify-forget-<pid>-…` in the temp folder. */
const WORK_PREFIX = 'mintlify-forget-';

/**
 * Opens the work folder under `tempDir` (the system's temp folder by default), after removing
 * the folders of killed runs, with `hmacs` in the `forgotten` table.
 */
export async function openWork(destination: Destination, hmacs: readonly string[], tempDir: string | undefined): Promise<Work> {
  const temp = tempDir ?? tmpdir();
  await removeCopiesOfKilledRuns(temp);
  const folder = await mkdtemp(path.join(temp, `${WORK_PREFIX}${process.pid}-`));
  const db = await openDuckDb({ tempDirectory: folder });
  let copies = 0;
  const work: Work = {
    destination,
    db,
    /**
     * DuckDB caches a file's metadata by name: a name used again for another file of the same
     * size and time reads the first one's, so every copy gets a name of its own.
     */
    fetch: async (key) => {
      const bytes = await destination.get(key);
      if (bytes === undefined) return undefined;
      const file = path.join(folder, `file-${++copies}.parquet`);
      await writeFile(file, bytes);
      return { file, bytes: bytes.byteLength };
    },
    close: async () => {
      db.close();
      await rm(folder, { recursive: true, force: true });
    },
  };
  try {
    // The HMACs to look for, as a table: one join per file, however many people.
    await db.run('CREATE TEMP TABLE forgotten (hmac VARCHAR PRIMARY KEY)');
    await insertHmacs(db, hmacs);
  } catch (error) {
    await work.close();
    throw error;
  }
  return work;
}

/** The first of `columns` that holds a forgotten HMAC, or null. */
export const matchedHmac = (columns: readonly string[]) =>
  `coalesce(${columns.map((column) => `CASE WHEN ${column} IN (SELECT hmac FROM forgotten) THEN ${column} END`).join(', ')})`;

/** Adds `hmacs` to the `forgotten` table, a thousand a statement. */
async function insertHmacs(db: DuckDbSession, hmacs: readonly string[]): Promise<void> {
  for (let i = 0; i < hmacs.length; i += 1000) {
    const values = hmacs.slice(i, i + 1000).map((hmac) => `(${sqlString(hmac)})`);
    await db.run(`INSERT OR IGNORE INTO forgotten VALUES ${values.join(', ')}`);
  }
}

/**
 * Removes the folders of `forget` runs that were killed (their process is gone): they hold a
 * copy of a table file — rows of the very person being forgotten. A live run's folder stays.
 */
async function removeCopiesOfKilledRuns(temp: string): Promise<void> {
  const names = await readdir(temp).catch(() => [] as string[]);
  for (const name of names) {
    const pid = Number(/^mintlify-forget-(\d+)-/.exec(name)?.[1] ?? Number.NaN);
    if (Number.isSafeInteger(pid) && pid !== process.pid && !isProcessAlive(pid)) await rm(path.join(temp, name), { recursive: true, force: true });
  }
}
