/**
 * What the Iceberg tables still owe, kept in the shared state until a statement succeeds — as
 * Glue registration keeps its partitions (functions/warehouse/partitions.ts): a day of a table whose
 * MERGE failed (`iceberg-merges/<table>/<day>`), and a retention cutoff whose DELETE failed
 * (`iceberg-expiry/<table>`). Each record is small: what, the last error, since when, how often.
 */
import type { SharedStore } from '../../shared/storage/shared-store.js';

/** The shared-state prefix of days still to merge. */
export const PENDING_MERGES_PREFIX = 'iceberg-merges/';
/** The shared-state prefix of retention deletes still to run. */
export const PENDING_EXPIRY_PREFIX = 'iceberg-expiry/';
/** The shared-state key of the last weekly OPTIMIZE and VACUUM. */
export const MAINTENANCE_KEY = 'iceberg-maintenance';

/** A day of a table still to merge, or a table's days before `cutoff` still to delete. */
export interface PendingStatement {
  readonly table: string;
  /** A MERGE: the day; a retention DELETE: the first day kept. */
  readonly day: string;
  /** The last failure, in words. */
  readonly error: string;
  /** When it first failed (ms since the epoch), and how many times. */
  readonly since: number;
  readonly attempts: number;
}

/** When the tables were last compacted and vacuumed. */
export interface MaintenanceRecord {
  /** ms since the epoch. */
  readonly at: number;
}

/** The shared state's view of what is pending, by kind. */
export interface PendingBook {
  /** Everything pending under `prefix`. */
  list(prefix: string): Promise<PendingStatement[]>;
  /** Remembers (or counts again) a failed statement. */
  remember(key: string, entry: Pick<PendingStatement, 'table' | 'day' | 'error'>, now: number): Promise<void>;
  /** Forgets a statement that succeeded. */
  settle(key: string): Promise<void>;
}

export function pendingMergeKey(table: string, day: string): string {
  return `${PENDING_MERGES_PREFIX}${table}/${day}`;
}

export function pendingExpiryKey(table: string): string {
  return `${PENDING_EXPIRY_PREFIX}${table}`;
}

export function pendingBook(store: SharedStore): PendingBook {
  return {
    list: async (prefix) => (await store.list<PendingStatement>(prefix)).map((item) => item.value),
    remember: (key, entry, now) =>
      store.update<PendingStatement, void>(key, (current) => ({
        value: { ...entry, since: current?.since ?? now, attempts: (current?.attempts ?? 0) + 1 },
        result: undefined,
      })),
    settle: (key) => store.update<PendingStatement, void>(key, () => ({ value: undefined, result: undefined })),
  };
}
