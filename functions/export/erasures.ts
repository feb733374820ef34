/**
 * The record of each erasure (`forget`), `<dest>/_privacy/erasures/<time>-<hmac prefix>.json`:
 * the person's HMAC (every person's, for an erasure of several), the key id, when, and what was
 * changed — never an address. It is
 * written before any file is touched (`started`), so every export from then on leaves that
 * person's rows out even if the erasure is cut short, and again when it is done — with what
 * share of each affected table's rows in each month it removed (`shares`): the report's health
 * names the erasures that changed its months' figures.
 */
import * as v from 'valibot';
import type { Destination } from '../shared/storage/destination.js';
import { DestinationError } from '../shared/errors.js';
import { readJsonObject } from './staging.js';
import { rootOf } from '../warehouse/lake/layout.js';

/** Folder of the erasure records beside the tables (never under a table's prefix; lake/layout.ts). */
export const ERASURES_PREFIX = rootOf('erasures');
/** The records of units whose personal data expired (retention.ts): `_privacy/expired/<dataset>/dt=<day>/<project>.json`. */
export const EXPIRED_PREFIX = rootOf('expired');

export interface ErasureRecord {
  readonly version: 1;
  /** The HMAC of the forgotten address (lowercase hex); the first one's for an erasure of several people. */
  readonly hmac: string;
  /** An erasure of several people (`forget --emails-file`): every one's HMAC, `hmac` first. */
  readonly hmacs?: readonly string[];
  /** The key the HMAC was made with. */
  readonly keyId: string;
  /** When the erasure started (ISO). */
  readonly at: string;
  readonly status: 'started' | 'done';
  /** When it was done (ISO). */
  readonly finishedAt?: string;
  /** What the erasure found to remove when it started, before it changed anything. */
  readonly planned?: { readonly files: number; readonly rows: number };
  /** Files rewritten, and rows removed from them, over every run that worked on the erasure. */
  readonly files?: number;
  readonly rows?: number;
  /**
   * What share of each affected table's rows in each month the erasure removed (`erasureShares`),
   * written with `planned`: past figures of those months changed by that much at most.
   */
  readonly shares?: readonly ErasureShare[];
}

/** Of one table's rows in one month (every project's files of its days), those an erasure removed. */
export interface ErasureShare {
  readonly table: string;
  /** `YYYY-MM`. */
  readonly month: string;
  readonly removed: number;
  /** Every row of the table in that month before the erasure. */
  readonly rows: number;
}

/**
 * The shares of each table and month holding a removed row, from every file the erasure read
 * (its rows before, and the people's): sorted by table, then month.
 */
export function erasureShares(
  files: readonly { readonly table: string; readonly day: string; readonly total: number; readonly matching: number }[],
): ErasureShare[] {
  const byPeriod = new Map<string, { table: string; month: string; removed: number; rows: number }>();
  for (const file of files) {
    const month = file.day.slice(0, 7);
    const key = `${file.table}\u0000${month}`;
    const share = byPeriod.get(key) ?? { table: file.table, month, removed: 0, rows: 0 };
    share.removed += file.matching;
    share.rows += file.total;
    byPeriod.set(key, share);
  }
  return [...byPeriod.values()]
    .filter((share) => share.removed > 0)
    .sort((a, b) => (a.table < b.table ? -1 : a.table > b.table ? 1 : a.month < b.month ? -1 : a.month > b.month ? 1 : 0));
}

/** A share in words: `feedback 2026-11: 3 of 77 row(s) (3.9 %)`. */
export function describeShare(share: ErasureShare): string {
  const percent = share.rows === 0 ? 0 : (100 * share.removed) / share.rows;
  return `${share.table} ${share.month}: ${share.removed} of ${share.rows} row(s) (${percent < 0.1 ? '<0.1' : percent.toFixed(1)} %)`;
}

const ErasureSchema = v.looseObject({
  version: v.literal(1),
  hmac: v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/)),
  keyId: v.string(),
  at: v.string(),
  status: v.picklist(['started', 'done']),
  hmacs: v.optional(v.array(v.pipe(v.string(), v.regex(/^[0-9a-f]{64}$/)))),
});

/** The key of an erasure's record. */
export function erasureKey(record: Pick<ErasureRecord, 'at' | 'hmac'>): string {
  return `${ERASURES_PREFIX}${record.at.replace(/[-:.]/g, '')}-${record.hmac.slice(0, 16)}.json`;
}

export function writeErasureRecord(destination: Pick<Destination, 'put'>, record: ErasureRecord): Promise<void> {
  return destination.put(erasureKey(record), `${JSON.stringify(record, null, 2)}\n`, { contentType: 'application/json' });
}

/**
 * Every erasure recorded under `destination`. A destination that cannot list cannot say whom
 * it forgot: that is an error, never "nobody".
 */
export async function readErasureRecords(destination: Destination): Promise<ErasureRecord[]> {
  if (!destination.list) throw new DestinationError(`${destination.url} cannot list ${ERASURES_PREFIX}: erasures cannot be honoured there`);
  const keys = (await destination.list(ERASURES_PREFIX)).filter((key) => key.endsWith('.json')).sort();
  const records: ErasureRecord[] = [];
  for (const key of keys) {
    const value = await readJsonObject<unknown>(destination, key);
    const parsed = v.safeParse(ErasureSchema, value);
    // Skipping it would bring a forgotten person's rows back: the run stops and says which file.
    if (!parsed.success) throw new DestinationError(`erasure record ${key} is unreadable or incomplete: restore it (or run forget again for that person)`);
    records.push(parsed.output as ErasureRecord);
  }
  return records;
}
