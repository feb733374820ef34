/**
 * The Parquet writer, kept behind this one small module so that it can be benchmarked
 * against (and swapped for) other writers without touching the export.
 *
 * It uses parquetjs-lite, which converts values with `parseInt`: handed a string, a DATE
 * or TIMESTAMP column silently stores a wrong date and an INT64 column a truncated number.
 * So every row is checked against its `TableDef` and converted here (dates to `Date` at UTC
 * midnight, epoch ms to `Date`) before the library sees it.
 *
 * It also shreds rows faster than the library does, without changing a byte of the files.
 * The library's `shredRecord` (lib/shred.js, the Dremel algorithm for nested and repeated
 * fields) allocates, for every row and every column, an object of three arrays and a `Set`,
 * then copies them into the row buffer: about half of `npm start`'s CPU time went there. Our
 * tables are flat (no nested or repeated column), where shredding is one push per column. So
 * `installFlatShredder` puts a flat path at the library's own seam (its writer calls
 * `ParquetShredder.shredRecord` through the module object) for flat schemas only; any other
 * schema, a row that is not an object or a value that is an array goes to the original. The
 * flat path fills the same buffer the original would — the same levels, counts,
 * `distinct_values` (the raw values, in the same order: the page statistics come from them)
 * and the library's own `toPrimitive` values — and refuses a row the same way (the same
 * string thrown, the buffer untouched); test/unit/export/parquet-shred.test.ts compares the
 * two buffers and the written files' bytes on every table's schema.
 */
import parquet from 'parquetjs-lite';
import type { ParquetFieldDefinition, ParquetSchema, ParquetShredderModule, ParquetWriter, ShreddedColumn, ShreddedRows } from 'parquetjs-lite';
import parquetTypes from 'parquetjs-lite/lib/types.js';
import { Writable } from 'node:stream';
import type { PendingWrite } from '../shared/storage/destination.js';
import { ConfigError, DestinationError, ExporterError } from '../shared/errors.js';
import { InvalidRowError } from './errors.js';
import type { ColumnDef, ColumnType, ScalarColumnType, TableDef } from '../warehouse/table-def.js';
import { DAY_MS } from '../shared/time.js';

/** Rows per row group: large enough for readers, small enough to bound memory (~MBs). */
export const DEFAULT_ROW_GROUP_SIZE = 20_000;

const PARQUET_TYPES: Record<ScalarColumnType, ParquetFieldDefinition['type']> = {
  string: 'UTF8',
  date: 'DATE',
  int64: 'INT64',
  double: 'DOUBLE',
  timestamp_ms: 'TIMESTAMP_MILLIS',
  boolean: 'BOOLEAN',
};

/** The parquetjs-lite schema of `table`: one SNAPPY-compressed column per `ColumnDef`. */
export function parquetSchemaFor(table: TableDef): ParquetSchema {
  const fields: Record<string, ParquetFieldDefinition> = {};
  for (const column of table.columns) {
    if (column.type === 'record_list') {
      throw new ConfigError(`${table.name}.${column.name}: record_list columns are for JSON tables only`);
    }
    fields[column.name] = {
      type: PARQUET_TYPES[column.type],
      optional: column.optional === true,
      compression: 'SNAPPY',
    };
  }
  return new parquet.ParquetSchema(fields);
}

export interface TableWriterOptions {
  /** Rows per row group; memory use grows with it. Default 20 000. */
  readonly rowGroupSize?: number;
}

/** A Parquet file being written to a destination. Await each call before the next. */
export interface TableWriter {
  /** Checks and converts `row`, then buffers it; flushes a row group when one is full. */
  append(row: Record<string, unknown>): Promise<void>;
  /**
   * Writes the footer, ends the stream and commits the file. On failure nothing is committed.
   * `beforeCommit` runs once the new file is complete, just before it replaces the old one
   * (e.g. removing the manifest that describes the old one); its failure aborts the commit.
   */
  close(options?: { readonly beforeCommit?: () => Promise<void> }): Promise<{ rows: number; bytes: number }>;
  /** Discards the file (the key keeps its previous content). Safe to call more than once. */
  abort(reason?: unknown): Promise<void>;
}

/**
 * Opens a Parquet writer for `table` on `pending.stream`. Memory stays bounded by one row
 * group however many rows are appended: full row groups are written out (with stream
 * back-pressure) as soon as they fill.
 *
 * An `InvalidRowError` from `append` leaves the writer usable (the row was not buffered);
 * any other failure leaves it broken: call `abort()`.
 */
export async function openTableWriter(table: TableDef, pending: PendingWrite, options: TableWriterOptions = {}): Promise<TableWriter> {
  const rowGroupSize = options.rowGroupSize ?? table.rowGroupSize ?? DEFAULT_ROW_GROUP_SIZE;
  if (!Number.isSafeInteger(rowGroupSize) || rowGroupSize < 1) {
    throw new ConfigError(`rowGroupSize must be a positive integer, got ${rowGroupSize}`);
  }
  installFlatShredder();
  const guard = guardStream(pending.stream);
  let writer: ParquetWriter;
  try {
    writer = await parquet.ParquetWriter.openStream(parquetSchemaFor(table), guard.sink, {
      useDataPageV2: false,
      rowGroupSize,
    });
  } catch (error) {
    guard.fail(error);
    await pending.abort(error).catch(() => undefined);
    throw wrapWriterError(table, 'open', error);
  }

  const convert = rowConverter(table);
  let state: 'open' | 'busy' | 'broken' | 'closed' | 'aborted' = 'open';
  let rows = 0;

  return {
    async append(row) {
      if (state === 'open' && guard.failure()) state = 'broken';
      if (state !== 'open') throw misuse(table, state, 'append', guard.failure());
      const record = convert(row, rows);
      state = 'busy';
      try {
        await writer.appendRow(record);
      } catch (error) {
        state = 'broken';
        throw wrapWriterError(table, 'append', error);
      }
      const failure = guard.failure();
      if (failure) {
        state = 'broken';
        throw wrapWriterError(table, 'append', failure);
      }
      rows += 1;
      state = 'open';
    },

    async close(options = {}) {
      if (state !== 'open') throw misuse(table, state, 'close', guard.failure());
      state = 'closed';
      try {
        await writer.close();
        const failure = guard.failure();
        if (failure) throw failure;
        await options.beforeCommit?.();
        const { bytes } = await pending.commit();
        return { rows, bytes };
      } catch (error) {
        guard.fail(error);
        await pending.abort(error).catch(() => undefined);
        throw wrapWriterError(table, 'close', error);
      }
    },

    async abort(reason) {
      if (state === 'aborted' || state === 'closed') return;
      state = 'aborted';
      guard.fail(new Error('the write was aborted'));
      await pending.abort(reason);
    },
  };
}

/** The library's own `shredRecord`, which handles every schema. */
export const LIBRARY_SHRED_RECORD: ParquetShredderModule['shredRecord'] = parquet.ParquetShredder.shredRecord;

/**
 * Shreds `record` into `buffer` if it can (a flat schema's row: an object, no array value);
 * returns false, with `buffer` untouched, when the library's `shredRecord` must do it.
 */
export type FlatShredder = (record: unknown, buffer: ShreddedRows) => boolean;

const flatShredders = new WeakMap<ParquetSchema, FlatShredder | null>();

/**
 * Makes parquetjs-lite's writers shred rows of flat schemas with `flatShredderFor` (see the
 * header). Process-wide and idempotent; every other schema keeps the library's shredding.
 */
export function installFlatShredder(): void {
  const shredder = parquet.ParquetShredder;
  if (shredder.shredRecord !== LIBRARY_SHRED_RECORD) return;
  shredder.shredRecord = (schema, record, buffer) => {
    let flat = flatShredders.get(schema);
    if (flat === undefined) {
      flat = flatShredderFor(schema) ?? null;
      flatShredders.set(schema, flat);
    }
    if (flat === null || !flat(record, buffer)) LIBRARY_SHRED_RECORD(schema, record, buffer);
  };
}

/**
 * The flat shredding of `schema`'s rows, or undefined when a column is nested or repeated.
 * What lib/shred.js does for such a row, without its per-row objects: a present value adds
 * the raw value to `distinct_values`, its `toPrimitive` to `values`, levels 0 and the
 * column's `dLevelMax`; an absent one (undefined or null) levels 0 and 0; both count 1. A
 * missing required value throws the library's string before anything is buffered.
 */
export function flatShredderFor(schema: ParquetSchema): FlatShredder | undefined {
  const fields = schema.fieldList;
  if (fields.length === 0) return undefined;
  for (const field of fields) {
    if (field.isNested || field.repetitionType === 'REPEATED' || field.path.length !== 1 || field.rLevelMax !== 0) return undefined;
    const type = field.originalType ?? field.primitiveType;
    if (!Object.hasOwn(parquetTypes.PARQUET_LOGICAL_TYPES, type)) return undefined;
  }
  const columns = fields.map((field) => ({
    name: field.name,
    key: String(field.path),
    required: field.repetitionType === 'REQUIRED',
    dLevel: field.dLevelMax,
    toPrimitive: (parquetTypes.PARQUET_LOGICAL_TYPES[field.originalType ?? field.primitiveType] as { toPrimitive(value: unknown): unknown }).toPrimitive,
  }));
  const count = columns.length;
  /** Pass one's results, reused row after row (shredding is synchronous). */
  const raw: unknown[] = new Array(count);
  const primitive: unknown[] = new Array(count);

  return (record, buffer) => {
    if (record === null || typeof record !== 'object') return false;
    const row = record as Record<string, unknown>;
    // Pass one: read, check and convert every value, so that a throw leaves the buffer as it was.
    for (let i = 0; i < count; i++) {
      const column = columns[i] as (typeof columns)[number];
      const value = row[column.name];
      if (value === undefined || value === null) {
        if (column.required) throw `missing required field: ${column.name}`;
        raw[i] = undefined;
        continue;
      }
      if ((value as { constructor?: unknown }).constructor === Array) return false;
      raw[i] = value;
      primitive[i] = column.toPrimitive(value);
    }
    // Pass two: append to the buffer, initialised as the library does on the first row.
    if (buffer.columnData === undefined || buffer.rowCount === undefined) initialiseBuffer(buffer, columns);
    buffer.rowCount = (buffer.rowCount as number) + 1;
    buffer.pageRowCount = (buffer.pageRowCount as number) + 1;
    const data = buffer.columnData as Record<string, ShreddedColumn>;
    for (let i = 0; i < count; i++) {
      const column = columns[i] as (typeof columns)[number];
      const target = data[column.key] as ShreddedColumn;
      const value = raw[i];
      target.rlevels.push(0);
      if (value === undefined) {
        target.dlevels.push(0);
      } else {
        target.dlevels.push(column.dLevel);
        if (primitive[i] !== undefined) target.values.push(primitive[i]);
        target.distinct_values.add(value);
        primitive[i] = undefined;
      }
      target.count += 1;
      raw[i] = undefined;
    }
    return true;
  };
}

function initialiseBuffer(buffer: ShreddedRows, columns: readonly { readonly key: string }[]): void {
  buffer.rowCount = 0;
  buffer.pageRowCount = 0;
  buffer.columnData = {};
  buffer.pages = {};
  for (const { key } of columns) {
    buffer.columnData[key] = { dlevels: [], rlevels: [], values: [], distinct_values: new Set(), count: 0 };
    buffer.pages[key] = [];
  }
}

interface StreamGuard {
  /** What parquetjs-lite writes to. */
  readonly sink: Writable;
  /** The first failure of the destination stream, if any. */
  failure(): Error | undefined;
  /** Records a failure: pending and later writes complete at once and are dropped. */
  fail(error: unknown): void;
}

/**
 * Stands between parquetjs-lite and the destination stream, for two library habits. It
 * leaves some write promises unawaited (the header, page indexes), so a failed write there
 * would be an unhandled rejection, which ends a Node process. And a destroyed stream may
 * never call a pending write back (a Transform does not), which would hang `append`
 * forever. So the sink never fails a write: it records the first failure, completes the
 * pending and all later writes at once, and the writer checks `failure()` after each call.
 * Back-pressure is kept: a write completes when the destination stream takes it.
 */
function guardStream(target: Writable): StreamGuard {
  let failure: Error | undefined;
  let release: (() => void) | undefined;
  const fail = (error: unknown) => {
    failure ??= error instanceof Error ? error : new Error(String(error));
    const pendingWrite = release;
    release = undefined;
    pendingWrite?.();
  };
  target.on('error', fail);
  target.on('close', () => {
    if (!target.writableFinished) fail(new Error('the destination stream closed before the file was complete'));
  });

  /** Runs `start`, completing `callback` once, when `start`'s own callback or a failure comes. */
  const forward = (callback: () => void, start: (done: (error?: Error | null) => void) => void) => {
    if (failure) return callback();
    let called = false;
    const done = () => {
      if (called) return;
      called = true;
      release = undefined;
      callback();
    };
    release = done;
    start((error) => {
      if (error) fail(error);
      done();
    });
  };

  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      forward(callback, (done) => target.write(chunk, done));
    },
    final(callback) {
      forward(callback, (done) => target.end(done));
    },
  });
  return { sink, failure: () => failure, fail };
}

function misuse(table: TableDef, state: string, call: string, failure: Error | undefined): Error {
  if (failure && state === 'broken') return wrapWriterError(table, call, failure);
  const why =
    state === 'busy'
      ? 'the previous append has not finished: await each append'
      : state === 'broken'
        ? 'an earlier write failed: abort() it'
        : `the writer is ${state}`;
  return new InvalidRowError(`${table.name}: cannot ${call}: ${why}`);
}

/** parquetjs-lite throws strings; stream failures arrive as Errors. Keep both as `cause`. */
function wrapWriterError(table: TableDef, step: string, error: unknown): Error {
  if (error instanceof ExporterError) return error;
  const detail = error instanceof Error ? error.message : String(error);
  return new DestinationError(`Writing ${table.name} Parquet failed at ${step}: ${detail}`, { cause: error });
}

type Converter = (value: unknown, column: ColumnDef, at: string) => unknown;

/**
 * Builds the per-row check-and-convert function once per table, so the hot path is a loop
 * over precomputed column converters.
 */
function rowConverter(table: TableDef): (row: Record<string, unknown>, index: number) => Record<string, unknown> {
  const converters: Record<ColumnType, Converter> = { ...CONVERTERS, date: dayConverter() };
  const columns = table.columns.map((column) => ({ column, convert: converters[column.type] }));
  const known = new Set(table.columns.map((column) => column.name));
  return (row, index) => {
    if (row === null || typeof row !== 'object') {
      throw new InvalidRowError(`${table.name} row ${index}: expected an object, got ${describe(row)}`);
    }
    const record: Record<string, unknown> = {};
    let seen = 0;
    for (const { column, convert } of columns) {
      const value = row[column.name];
      if (value === undefined || value === null) {
        if (Object.hasOwn(row, column.name)) seen += 1;
        if (column.optional) continue;
        throw new InvalidRowError(`${table.name} row ${index}: required column "${column.name}" is missing`);
      }
      seen += 1;
      record[column.name] = convert(value, column, `${table.name} row ${index}`);
    }
    if (seen !== Object.keys(row).length) {
      const unknown = Object.keys(row).filter((key) => !known.has(key));
      throw new InvalidRowError(
        `${table.name} row ${index}: unknown column(s) ${unknown.map((key) => `"${key}"`).join(', ')}; ` + `the table has ${[...known].join(', ')}`,
      );
    }
    return record;
  };
}

const DAY_PATTERN = /^(\d{4})-(\d{2})-(\d{2})$/;

/**
 * Converts `YYYY-MM-DD` to a `Date` at UTC midnight (the library divides its epoch ms by a
 * day). Remembers the last day converted: every row of a file usually carries the same one.
 */
function dayConverter(): Converter {
  let last: { text: string; date: Date } | undefined;
  return (value, column, at) => {
    if (typeof value === 'string') {
      if (last?.text === value) return last.date;
      const match = DAY_PATTERN.exec(value);
      if (match) {
        const date = new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])));
        if (date.toISOString().slice(0, 10) === value) {
          last = { text: value, date };
          return date;
        }
      }
      throw new InvalidRowError(`${at}: column "${column.name}" (date) got "${clip(value)}": use an existing day as YYYY-MM-DD`);
    }
    if (value instanceof Date && value.getTime() % DAY_MS === 0) return value;
    throw new InvalidRowError(`${at}: column "${column.name}" (date) got ${describe(value)}: use a YYYY-MM-DD string (or a Date at UTC midnight)`);
  };
}

function toTimestamp(value: unknown, column: ColumnDef, at: string): Date {
  if (value instanceof Date && !Number.isNaN(value.getTime())) return value;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return new Date(value);
  throw new InvalidRowError(`${at}: column "${column.name}" (timestamp_ms) got ${describe(value)}: use a Date or integer epoch milliseconds`);
}

function toInt64(value: unknown, column: ColumnDef, at: string): number {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return value;
  throw new InvalidRowError(`${at}: column "${column.name}" (int64) got ${describe(value)}: use an integer number (a safe integer, |n| < 2^53)`);
}

/** NaN and ±Infinity are refused: Athena and most readers treat them unlike any number the API meant. */
function toDouble(value: unknown, column: ColumnDef, at: string): number {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  throw new InvalidRowError(`${at}: column "${column.name}" (double) got ${describe(value)}: use a finite number`);
}

function toUtf8(value: unknown, column: ColumnDef, at: string): string {
  if (typeof value === 'string') return value;
  throw new InvalidRowError(`${at}: column "${column.name}" (string) got ${describe(value)}: use a string`);
}

function toBoolean(value: unknown, column: ColumnDef, at: string): boolean {
  if (typeof value === 'boolean') return value;
  throw new InvalidRowError(`${at}: column "${column.name}" (boolean) got ${describe(value)}: use true or false`);
}

/** `date` is replaced per writer by `dayConverter()`, which keeps a small cache. */
const CONVERTERS: Record<ColumnType, Converter> = {
  record_list: (_value, column, at) => {
    throw new InvalidRowError(`${at}: column "${column.name}" is a record_list, which only JSON tables hold`);
  },
  string: toUtf8,
  date: dayConverter(),
  int64: toInt64,
  double: toDouble,
  timestamp_ms: toTimestamp,
  boolean: toBoolean,
};

function describe(value: unknown): string {
  if (typeof value === 'string') return `string "${clip(value)}"`;
  if (value instanceof Date) return `Date ${Number.isNaN(value.getTime()) ? 'Invalid Date' : value.toISOString()}`;
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean') {
    return `${typeof value} ${String(value)}`;
  }
  return value === null ? 'null' : typeof value;
}

/** Values are data (paths, ids), never secrets; still keep messages one short line. */
function clip(text: string): string {
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
