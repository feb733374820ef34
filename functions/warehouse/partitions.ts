/**
 * Each committed day registered in the Glue catalog: after a unit commits (its tables' files,
 * then its manifest), the partition `dt=<day>` of each of its tables is created with
 * `BatchCreatePartition`, its StorageDescriptor copied from the table's (location
 * `<table location>dt=<day>/`). Redshift Spectrum, Spark (EMR, Databricks on Glue) and Trino
 * read a table's partitions from the catalog, not its projection: registered, a new day is
 * there with no `ALTER TABLE … ADD PARTITION` or `MSCK REPAIR`. Athena keeps partition
 * projection (the tables' `projection.*` parameters), which ignores registered partitions.
 *
 * Idempotent: every project's unit of a day registers the same partition, and a partition that
 * already exists (`AlreadyExistsException` in the answer's per-entry Errors) is a success.
 *
 * A registration never fails a unit: the unit is committed already. One that fails is kept as
 * a small record in the shared state (`glue-partitions/<table>/<day>`), logged as a warning,
 * counted (`stats().failed`, the `GluePartitionsFailed` metric), and tried again by the next
 * run (`retryPending`) until it succeeds.
 *
 * The run tables (`export_runs`, `followup_outcomes`, `fix_effects`) register the day of each
 * record their run wrote (`wrote`), once per day and run, the same way (with the `org`
 * partition where the table has it).
 */
import { BatchCreatePartitionCommand, GetTableCommand, type GlueClient, type PartitionInput, type StorageDescriptor } from '@aws-sdk/client-glue';
import { describeError } from '../shared/errors.js';
import type { AppLogger } from '../shared/logger.js';
import type { SharedStore } from '../shared/storage/shared-store.js';
import { DATASET_TABLES, type DatasetName } from './catalog.js';
import { dayFolderName } from './lake/layout.js';

/** The shared-state prefix of registrations still to make. */
export const PENDING_PARTITIONS_PREFIX = 'glue-partitions/';

/** BatchCreatePartition takes at most this many partitions per call. */
export const MAX_PARTITIONS_PER_CALL = 100;

/** The Glue calls this module makes. */
export type GlueSend = Pick<GlueClient, 'send'>;

/** A registration still to make, as the shared state keeps it. */
export interface PendingPartition {
  readonly table: string;
  readonly day: string;
  /** The last failure, in words. */
  readonly error: string;
  /** When it first failed, and how many times (ms since the epoch). */
  readonly since: number;
  readonly attempts: number;
}

/** What a registration of days of one table came to. */
export interface TableRegistration {
  readonly table: string;
  /** Days now registered: created by this call, or there already. */
  readonly registered: readonly string[];
  /** Days that could not be registered, each with why. */
  readonly failed: readonly { readonly day: string; readonly error: string }[];
  /** Glue did not answer (a call threw, after the SDK's retries): why, in words. */
  readonly unreachable?: string;
}

/** The Glue table's location and partition keys, read once per table (GetTable). */
interface TableShape {
  readonly descriptor: StorageDescriptor;
  readonly keys: readonly string[];
  /** The table's `storage.location.template` (`…/orgs/${org}/visitors_pages/dt=${dt}/`), when it has one. */
  readonly template?: string | undefined;
}

/**
 * Registers `days` as partitions of `table` in `database`: one GetTable (its descriptor and
 * partition keys), then BatchCreatePartition in calls of up to 100 days. Never throws: a day it
 * could not register is in `failed` with the reason.
 */
export async function registerDays(
  glue: GlueSend,
  database: string,
  table: string,
  days: readonly string[],
  shapes: Map<string, TableShape> = new Map(),
  org?: string,
): Promise<TableRegistration> {
  if (days.length === 0) return { table, registered: [], failed: [] };
  let shape: TableShape;
  try {
    shape = shapes.get(table) ?? (await readShape(glue, database, table));
    shapes.set(table, shape);
  } catch (error) {
    const reason = `could not read the Glue table ${database}.${table}: ${describeError(error)}`;
    return { table, registered: [], failed: days.map((day) => ({ day, error: reason })), unreachable: reason };
  }
  const registered: string[] = [];
  const failed: { day: string; error: string }[] = [];
  let unreachable: string | undefined;
  for (let start = 0; start < days.length; start += MAX_PARTITIONS_PER_CALL) {
    const chunk = days.slice(start, start + MAX_PARTITIONS_PER_CALL);
    const inputs: PartitionInput[] = [];
    const asked: string[] = [];
    for (const day of chunk) {
      const input = partitionInput(shape, day, org);
      if ('error' in input) failed.push({ day, error: `${database}.${table}: ${input.error}` });
      else {
        inputs.push(input);
        asked.push(day);
      }
    }
    if (inputs.length === 0) continue;
    try {
      const answer = await glue.send(new BatchCreatePartitionCommand({ DatabaseName: database, TableName: table, PartitionInputList: inputs }));
      const refused = new Map<string, string>();
      for (const entry of answer.Errors ?? []) {
        const code = entry.ErrorDetail?.ErrorCode ?? 'UnknownError';
        // Another unit of the day (another project) or an earlier run registered it: done.
        if (code === 'AlreadyExistsException') continue;
        const day = dayOf(shape, entry.PartitionValues ?? []);
        refused.set(day, `${code}: ${entry.ErrorDetail?.ErrorMessage ?? 'no message'}`);
      }
      for (const day of asked) {
        const why = refused.get(day);
        if (why === undefined) registered.push(day);
        else failed.push({ day, error: `Glue refused partition ${dayFolderName(day)} of ${database}.${table} (${why})` });
      }
    } catch (error) {
      const reason = `BatchCreatePartition on ${database}.${table} failed: ${describeError(error)}`;
      unreachable = reason;
      for (const day of asked) failed.push({ day, error: reason });
    }
  }
  return { table, registered, failed, ...(unreachable !== undefined ? { unreachable } : {}) };
}

async function readShape(glue: GlueSend, database: string, table: string): Promise<TableShape> {
  const answer = await glue.send(new GetTableCommand({ DatabaseName: database, Name: table }));
  const descriptor = answer.Table?.StorageDescriptor;
  if (descriptor?.Location === undefined) throw new Error('the table has no storage location');
  return {
    descriptor,
    keys: (answer.Table?.PartitionKeys ?? []).map((key) => key.Name ?? ''),
    template: answer.Table?.Parameters?.['storage.location.template'],
  };
}

/**
 * The partition of `day` (and organisation `org`, for a table of many organisations): the table's
 * descriptor with the partition's folder as its location. A key the location names as a
 * placeholder in the table's `storage.location.template` (`orgs/${org}/visitors_pages/dt=${dt}/`)
 * is put in its place; the others are Hive folders under the table's location.
 */
function partitionInput(shape: TableShape, day: string, org?: string): PartitionInput | { readonly error: string } {
  const known: Record<string, string> = { dt: day, ...(org !== undefined ? { org } : {}) };
  const values: string[] = [];
  for (const key of shape.keys) {
    const value = known[key];
    if (value === undefined)
      return { error: `the table is partitioned by ${shape.keys.join(', ')}; a unit names ${Object.keys(known).join(' and ')}, not ${key}` };
    values.push(value);
  }
  if (values.length === 0) return { error: 'the table has no partition keys' };
  // The folder projection reads is the folder registered: the table's template with the values in place.
  let base = (shape.template ?? (shape.descriptor.Location as string)).replace(/\/*$/, '/');
  const folders: string[] = [];
  shape.keys.forEach((key, i) => {
    const placeholder = `\${${key}}`;
    if (base.includes(placeholder)) base = base.replaceAll(placeholder, values[i] as string);
    else folders.push(`${key}=${values[i]}/`);
  });
  return { Values: values, StorageDescriptor: { ...shape.descriptor, Location: `${base}${folders.join('')}` } };
}

/** The `dt` of a partition's values (as the table orders its keys). */
function dayOf(shape: TableShape, values: readonly string[]): string {
  return values[Math.max(0, shape.keys.indexOf('dt'))] ?? '';
}

/** Counts of one registrar's work (a run's). */
export interface PartitionStats {
  /** Partitions registered (or found there already). */
  readonly registered: number;
  /** Registrations that failed and are kept for the next run. */
  readonly failed: number;
}

/** What a run calls: after each committed unit, and once at its start for the earlier failures. */
export interface PartitionRegistrar {
  /** Registers the day of a committed unit in each of its dataset's tables. Never throws. */
  committed(unit: { readonly dataset: DatasetName; readonly day: string }): Promise<void>;
  /**
   * Registers `day` of a run table (`export_runs`, `followup_outcomes`, `fix_effects`: a table
   * whose records the run itself writes) once the run wrote a record of that day. Never throws.
   */
  wrote(table: string, day: string): Promise<void>;
  /** Tries again the registrations earlier runs could not make. Never throws. */
  retryPending(): Promise<void>;
  stats(): PartitionStats;
}

export interface PartitionRegistrarDeps {
  readonly glue: GlueSend;
  /** The stack's Glue database (`EXPORT_GLUE_DATABASE`). */
  readonly database: string;
  /** Where failed registrations wait for the next run. @default none: a failure is logged and counted only (the next record of the day registers it again) */
  readonly store?: SharedStore | undefined;
  readonly now: () => number;
  readonly logger?: Pick<AppLogger, 'warn' | 'error'> | undefined;
  /** The organisation whose lake the run writes (a deployment for many: its tables' `org` partition). */
  readonly org?: string | undefined;
}

/**
 * A registrar for one run. Once Glue does not answer (a call failed after the SDK's retries),
 * the run stops calling it: the registrations after that wait for the next run, so an outage of
 * Glue costs a run one call's retries, not one per unit.
 */
export function createPartitionRegistrar(deps: PartitionRegistrarDeps): PartitionRegistrar {
  const { glue, database, store, now, logger, org } = deps;
  const shapes = new Map<string, TableShape>();
  let registered = 0;
  let failed = 0;
  /** Why Glue is not called again in this run. */
  let down: string | undefined;
  /** Keys of the pending records this registrar read or wrote: only those can need deleting. */
  const pendingSeen = new Set<string>();

  const register = async (table: string, days: readonly string[]): Promise<void> => {
    if (down !== undefined) {
      const error = `not tried: Glue did not answer earlier in this run (${down})`;
      return settle({ table, registered: [], failed: days.map((day) => ({ day, error })) });
    }
    const result = await registerDays(glue, database, table, days, shapes, org);
    if (result.unreachable !== undefined) down = result.unreachable;
    return settle(result);
  };
  const settle = async (result: TableRegistration): Promise<void> => {
    registered += result.registered.length;
    for (const day of result.registered) await forget(result.table, day);
    for (const { day, error } of result.failed) {
      failed += 1;
      logger?.warn('could not register the Glue partition: the next run tries again', { table: `${database}.${result.table}`, day, error });
      await remember(result.table, day, error);
    }
  };
  /** Days of run tables registered by this registrar: one call per day and table. */
  const done = new Set<string>();
  const remember = async (table: string, day: string, error: string): Promise<void> => {
    if (store === undefined) return;
    pendingSeen.add(pendingKey(table, day));
    try {
      await store.update<PendingPartition, void>(pendingKey(table, day), (current) => ({
        value: { table, day, error, since: current?.since ?? now(), attempts: (current?.attempts ?? 0) + 1 },
        result: undefined,
      }));
    } catch (cause) {
      logger?.error('could not record the Glue partition to register: run `mintlify-exporter register-partitions` for that day', {
        table: `${database}.${table}`,
        day,
        error: describeError(cause),
      });
    }
  };
  const forget = async (table: string, day: string): Promise<void> => {
    if (store === undefined || !pendingSeen.has(pendingKey(table, day))) return;
    // A record left behind only costs the next run one call, which finds the partition there.
    await store.update<PendingPartition, void>(pendingKey(table, day), () => ({ value: undefined, result: undefined })).catch(() => undefined);
  };

  return {
    async committed(unit) {
      for (const def of DATASET_TABLES[unit.dataset]) await register(def.name, [unit.day]);
    },
    async wrote(table, day) {
      const key = pendingKey(table, day);
      if (done.has(key)) return;
      done.add(key);
      await register(table, [day]);
    },
    async retryPending() {
      if (store === undefined) return;
      let pending: PendingPartition[];
      try {
        pending = (await store.list<PendingPartition>(PENDING_PARTITIONS_PREFIX)).map((item) => item.value);
      } catch (error) {
        logger?.warn('could not read the Glue partitions left to register: the next run tries again', { error: describeError(error) });
        return;
      }
      const byTable = new Map<string, string[]>();
      for (const entry of pending) {
        pendingSeen.add(pendingKey(entry.table, entry.day));
        byTable.set(entry.table, [...(byTable.get(entry.table) ?? []), entry.day]);
      }
      for (const [table, days] of byTable) await register(table, days.sort());
    },
    stats: () => ({ registered, failed }),
  };
}

function pendingKey(table: string, day: string): string {
  return `${PENDING_PARTITIONS_PREFIX}${table}/${day}`;
}
