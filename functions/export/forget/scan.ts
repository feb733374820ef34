/**
 * Step 2 of `forget` (index.ts): every table file with an `hmac` column is read once, and each
 * row counted under the person whose HMAC it holds (the first of its hashed columns that holds
 * one). What it finds is what the erasure's record says it covers before anything changes.
 */
import { rm } from 'node:fs/promises';
import type { DatasetName } from '../../warehouse/catalog.js';
import { hmacOf, legacyHmacOf } from '../../shared/personal-data/index.js';
import type { TableDef } from '../../warehouse/table-def.js';
import { sqlString } from '../../warehouse/sql.js';
import { parseTableFileKey } from '../../warehouse/lake/layout.js';
import type { HashedTable } from './inspect.js';
import { matchedHmac, type Work } from './work.js';

/** One person of an erasure: its HMAC, and the rows and files the first pass found. */
export interface Person {
  readonly hmac: string;
  rows: number;
  files: number;
}

/** The people of an erasure, and every HMAC their rows may hold → its person. */
export interface People {
  /** One entry per person (several forms of one address count once), by this key's HMAC, in the order given. */
  readonly byHmac: ReadonlyMap<string, Person>;
  /** This release's and the one before's HMACs, with this key and the deployment's → the person. */
  readonly owner: ReadonlyMap<string, Person>;
}

/** The people of `addresses`: one per person, each with every HMAC their rows may hold under `keys` (the first is the lake's own). */
export function peopleOf(addresses: readonly string[], keys: readonly [string, ...string[]]): People {
  const byHmac = new Map<string, Person>();
  const owner = new Map<string, Person>();
  for (const address of addresses) {
    const hmac = hmacOf(keys[0], address);
    let person = byHmac.get(hmac);
    if (person === undefined) {
      person = { hmac, rows: 0, files: 0 };
      byHmac.set(hmac, person);
    }
    owner.set(hmac, person);
    for (const earlier of keys.flatMap((key) => [hmacOf(key, address), legacyHmacOf(key, address)])) if (!owner.has(earlier)) owner.set(earlier, person);
  }
  return { byHmac, owner };
}

/** One table file as the first pass found it. */
export interface ScannedFile {
  readonly key: string;
  readonly table: TableDef;
  readonly dataset: DatasetName;
  readonly columns: readonly string[];
  readonly day: string;
  readonly projectId: string;
  /** The people's rows in it. */
  readonly matching: number;
  /** All its rows, and its size. */
  readonly total: number;
  readonly bytes: number;
}

/** Reads every file of `tables` once: its rows, and the people's rows (added to each person's counts). */
export async function scanLake(
  tables: readonly HashedTable[],
  people: People,
  work: Work & { destination: { list: (prefix: string) => Promise<string[]> } },
): Promise<ScannedFile[]> {
  const scanned: ScannedFile[] = [];
  for (const { table, dataset, columns } of tables) {
    const keys = (await work.destination.list(`${table.prefix}/`)).filter((key) => parseTableFileKey(key) !== undefined).sort();
    for (const key of keys) {
      const { day = '', projectId = '' } = parseTableFileKey(key) ?? {};
      const copy = await work.fetch(key);
      if (copy === undefined) continue;
      // Each row once, under the first of its columns that holds a forgotten HMAC.
      const counted = await work.db.query(`SELECT ${matchedHmac(columns)} AS hmac, count(*) AS n FROM read_parquet(${sqlString(copy.file)}) GROUP BY ALL`);
      let matching = 0;
      let total = 0;
      const byPerson = new Map<Person, number>();
      for (const row of counted) {
        const n = Number(row['n'] ?? 0);
        total += n;
        const person = typeof row['hmac'] === 'string' ? people.owner.get(row['hmac']) : undefined;
        if (person === undefined) continue;
        matching += n;
        byPerson.set(person, (byPerson.get(person) ?? 0) + n);
      }
      for (const [person, n] of byPerson) {
        person.rows += n;
        person.files += 1;
      }
      await rm(copy.file, { force: true });
      scanned.push({ key, table, dataset, columns, day, projectId, matching, total, bytes: copy.bytes });
    }
  }
  return scanned;
}
