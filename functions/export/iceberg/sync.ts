/**
 * The Iceberg tables kept in step with the lake, one run at a time (context `tableFormat=iceberg`,
 * docs/warehouse.md "Iceberg tables"):
 *
 * - after a run's units commit, per table one MERGE of the days committed — and of the days
 *   earlier runs failed to merge — in statements of at most 100 days (statements.ts);
 * - retention's DELETE of the personal tables' days before the cutoff, in the run's retention step;
 * - `forget`'s DELETE of the forgotten people's rows, in the erasure (`deleteForgotten`);
 * - once every 7 days, on a scheduled run, OPTIMIZE … REWRITE DATA USING BIN_PACK and VACUUM.
 *
 * A statement never fails a run: the units are committed already. One that fails is kept in the
 * shared state (pending.ts), warned, counted (the `IcebergStatementsFailed` metric) and run again
 * by the next run. Once Athena does not answer at all, the run stops calling it. Each statement's
 * query id, rows and bytes scanned are logged and returned in the run's result.
 */
import { describeError, ExporterError } from '../../shared/errors.js';
import type { AppLogger } from '../../shared/logger.js';
import type { SharedStore } from '../../shared/storage/shared-store.js';
import type { Sleep } from '../../shared/time.js';
import { DATASET_TABLES, type DatasetName } from '../../warehouse/catalog.js';
import { PERSONAL_TABLES } from '../../warehouse/column-policy.js';
import type { TableDef } from '../../warehouse/table-def.js';
import { runStatement, type AthenaSend, type StatementOutcome } from './athena.js';
import { ICEBERG_SOURCE_TABLES } from './layout.js';
import {
  MAINTENANCE_KEY,
  PENDING_EXPIRY_PREFIX,
  PENDING_MERGES_PREFIX,
  pendingBook,
  pendingExpiryKey,
  pendingMergeKey,
  type MaintenanceRecord,
} from './pending.js';
import { dayBatches, expireStatement, forgetStatement, mergeStatement, optimizeStatement, vacuumStatement, type StatementTarget } from './statements.js';

/** `forget` could not delete the rows from an Iceberg table: the erasure is not done; running it again finishes it. */
export class IcebergStatementError extends ExporterError {}

/** How often the tables are compacted and vacuumed. */
export const MAINTENANCE_EVERY_MS = 7 * 24 * 3_600_000;

/** One statement a run ran: the run's log and result carry each. */
export interface IcebergStatementLog {
  readonly kind: 'merge' | 'expire' | 'forget' | 'optimize' | 'vacuum';
  /** The Hive table whose Iceberg table it changed. */
  readonly table: string;
  /** A MERGE: its days (first and last) and how many. */
  readonly days?: { readonly first: string; readonly last: string; readonly count: number };
  readonly queryId?: string;
  readonly state: StatementOutcome['state'];
  readonly rows?: number;
  readonly bytesScanned: number;
  readonly error?: string;
}

/** What a run did to the Iceberg tables. */
export interface IcebergSummary {
  readonly statements: readonly IcebergStatementLog[];
  /** Statements that failed (kept for the next run, but OPTIMIZE and VACUUM: next week). */
  readonly failed: number;
}

/** What a run calls. None of its methods throws. */
export interface IcebergSync {
  /** A unit committed: its tables' day is merged at the end of the run. */
  committed(unit: { readonly dataset: DatasetName; readonly day: string }): void;
  /** The run's MERGEs (its committed days and the pending ones), then the weekly upkeep when `maintenance` and due. */
  flush(options: { readonly maintenance: boolean }): Promise<IcebergSummary>;
  /** Retention deleted the personal tables' days before `cutoff` (`expired`: the days it deleted something of). */
  expire(cutoff: string, expired: readonly string[]): Promise<void>;
  /** This run's statements so far. */
  summary(): IcebergSummary;
}

export interface IcebergDeps {
  readonly athena: AthenaSend;
  /** The export's Athena workgroup (`EXPORT_ATHENA_WORKGROUP`). */
  readonly workgroup: string;
  /** The Glue database of the Iceberg and Hive tables (`EXPORT_ICEBERG_DATABASE`). */
  readonly database: string;
  /** The organisation this run exports (many organisations); its rows only. */
  readonly org?: string;
  /** Where failed statements wait for the next run. */
  readonly store: SharedStore;
  readonly now: () => number;
  readonly sleep: Sleep;
  readonly logger?: AppLogger;
  /** How long one statement is waited for. @default 5 minutes (athena.ts) */
  readonly waitMs?: number;
}

const TABLES_BY_NAME = new Map(ICEBERG_SOURCE_TABLES.map((table) => [table.name, table]));
/** The Iceberg tables retention reaches: those with personal columns. */
const EXPIRING_TABLES = ICEBERG_SOURCE_TABLES.filter((table) => PERSONAL_TABLES.includes(table));

/** The statement target of `deps`. */
function targetOf(deps: Pick<IcebergDeps, 'database' | 'org'>): Extract<StatementTarget, { engine: 'athena' }> {
  return { engine: 'athena', database: deps.database, ...(deps.org !== undefined ? { org: deps.org } : {}) };
}

export function createIcebergSync(deps: IcebergDeps): IcebergSync {
  const { store, now, logger } = deps;
  const book = pendingBook(store);
  const target = targetOf(deps);
  const committed = new Map<string, Set<string>>();
  const statements: IcebergStatementLog[] = [];
  let failed = 0;
  /** Why Athena is not called again in this run. */
  let down: string | undefined;

  const run = async (kind: IcebergStatementLog['kind'], table: TableDef, sql: string, days?: readonly string[]): Promise<IcebergStatementLog> => {
    const outcome: StatementOutcome =
      down !== undefined
        ? { state: 'FAILED', bytesScanned: 0, error: `not tried: Athena did not answer earlier in this run (${down})` }
        : await runStatement({ ...deps, now }, sql);
    if (outcome.queryId === undefined && down === undefined) down = outcome.error;
    const span = days && days.length > 0 ? { days: { first: days[0] as string, last: days[days.length - 1] as string, count: days.length } } : {};
    const log: IcebergStatementLog = { kind, table: table.name, ...span, ...outcome };
    statements.push(log);
    if (outcome.state === 'SUCCEEDED') {
      logger?.info(`iceberg ${kind}`, { ...log });
    } else {
      failed += 1;
      logger?.warn(`iceberg ${kind} failed: the next run tries again`, { ...log });
    }
    return log;
  };
  const keep = async (key: string, table: string, day: string, error: string) => {
    try {
      await book.remember(key, { table, day, error }, now());
    } catch (cause) {
      logger?.error('could not record the Iceberg statement to run again', { key, error: describeError(cause) });
    }
  };
  const settle = (key: string) => book.settle(key).catch(() => undefined);
  const listed = async (prefix: string) => {
    try {
      return await book.list(prefix);
    } catch (error) {
      logger?.warn('could not read the Iceberg statements left to run: the next run tries again', { error: describeError(error) });
      return [];
    }
  };

  const merge = async (): Promise<void> => {
    const days = new Map<string, Set<string>>([...committed].map(([table, set]) => [table, new Set(set)]));
    const pending = new Set<string>();
    for (const entry of await listed(PENDING_MERGES_PREFIX)) {
      if (!TABLES_BY_NAME.has(entry.table)) continue;
      days.set(entry.table, (days.get(entry.table) ?? new Set()).add(entry.day));
      pending.add(pendingMergeKey(entry.table, entry.day));
    }
    for (const table of ICEBERG_SOURCE_TABLES) {
      for (const batch of dayBatches(days.get(table.name) ?? [])) {
        const log = await run('merge', table, mergeStatement(table, batch, target), batch);
        for (const day of batch) {
          const key = pendingMergeKey(table.name, day);
          if (log.state === 'SUCCEEDED') {
            if (pending.has(key)) await settle(key);
          } else await keep(key, table.name, day, log.error ?? 'failed');
        }
      }
    }
  };

  const maintain = async (): Promise<void> => {
    const last = await store.get<MaintenanceRecord>(MAINTENANCE_KEY).catch(() => undefined);
    if (last !== undefined && now() - last.at < MAINTENANCE_EVERY_MS) return;
    await store.update<MaintenanceRecord, void>(MAINTENANCE_KEY, () => ({ value: { at: now() }, result: undefined })).catch(() => undefined);
    for (const table of ICEBERG_SOURCE_TABLES) {
      await run('optimize', table, optimizeStatement(table, target));
      await run('vacuum', table, vacuumStatement(table, target));
    }
  };

  return {
    committed(unit) {
      for (const table of DATASET_TABLES[unit.dataset]) committed.set(table.name, (committed.get(table.name) ?? new Set()).add(unit.day));
    },
    async flush(options) {
      await merge();
      if (options.maintenance && down === undefined) await maintain();
      return { statements: [...statements], failed };
    },
    async expire(cutoff, expired) {
      const pending = new Set((await listed(PENDING_EXPIRY_PREFIX)).map((entry) => entry.table));
      for (const table of EXPIRING_TABLES) {
        if (expired.length === 0 && !pending.has(table.name)) continue;
        const log = await run('expire', table, expireStatement(table, cutoff, target));
        if (log.state === 'SUCCEEDED') {
          if (pending.has(table.name)) await settle(pendingExpiryKey(table.name));
        } else await keep(pendingExpiryKey(table.name), table.name, cutoff, log.error ?? 'failed');
      }
    },
    summary: () => ({ statements: [...statements], failed }),
  };
}

/**
 * `forget`'s step on the Iceberg tables: per table with an `hmac` column, one DELETE of the rows
 * holding one of `hmacs`. Throws when one fails, so the erasure stays `started` and running
 * `forget` again finishes it (the DELETE is idempotent).
 */
export async function deleteForgotten(
  deps: Omit<IcebergDeps, 'store'>,
  tables: readonly { readonly table: TableDef; readonly columns: readonly string[] }[],
  hmacs: readonly string[],
): Promise<IcebergStatementLog[]> {
  const target = targetOf(deps);
  const logs: IcebergStatementLog[] = [];
  if (hmacs.length === 0) return logs;
  for (const { table, columns } of tables) {
    if (!TABLES_BY_NAME.has(table.name) || columns.length === 0) continue;
    const outcome = await runStatement(deps, forgetStatement(table, columns, hmacs, target));
    const log: IcebergStatementLog = { kind: 'forget', table: table.name, ...outcome };
    logs.push(log);
    if (outcome.state !== 'SUCCEEDED') {
      throw new IcebergStatementError(`the Iceberg table of ${table.name} still holds the rows: ${outcome.error ?? 'failed'} (run forget again)`);
    }
    deps.logger?.info('iceberg forget', { ...log });
  }
  return logs;
}
