import { Writable } from 'node:stream';
import parquet from 'parquetjs-lite';
import type { ParquetSchema, ShreddedRows } from 'parquetjs-lite';
import { afterEach, describe, expect, it } from 'vitest';
import { flatShredderFor, installFlatShredder, LIBRARY_SHRED_RECORD, parquetSchemaFor } from '../../../functions/export/parquet.js';
import { TABLES } from '../../../functions/warehouse/tables.js';
import type { ColumnDef, TableDef } from '../../../functions/warehouse/table-def.js';

/** Every table written as Parquet (record_list columns are for JSON tables only). */
const PARQUET_TABLES = TABLES.filter((table) => table.columns.every((column) => column.type !== 'record_list'));

/** A deterministic generator, so a failure reproduces. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

const SHARED_DAY = new Date(Date.UTC(2026, 10, 20));
const TEXTS = ['', '/docs/quickstart', 'Ünïcödé — 日本語 ✓', 'a "quoted", comma', '/docs/quickstart'];

/** A value as the export hands it to the library (after `rowConverter`): Dates, safe integers, finite numbers. */
function sampleValue(column: ColumnDef, next: () => number, index: number): unknown {
  switch (column.type) {
    case 'string':
      return next() < 0.5 ? (TEXTS[index % TEXTS.length] as string) : `value ${Math.floor(next() * 50)}`;
    case 'date':
      // The export reuses one Date per day; a fresh Date of the same day is another distinct value.
      return next() < 0.7 ? SHARED_DAY : new Date(Date.UTC(2026, 10, 1 + Math.floor(next() * 28)));
    case 'int64':
      return [0, -1, 2 ** 53 - 1, -(2 ** 53 - 1), 42, Math.floor(next() * 1e12)][index % 6];
    case 'double':
      return [0, -0.5, 1e-9, 123.456, next() * 1e6][index % 5];
    case 'timestamp_ms':
      return new Date(1_780_000_000_000 + Math.floor(next() * 1e9));
    case 'boolean':
      return next() < 0.5;
    case 'record_list':
      throw new Error('not a Parquet column');
  }
}

/** Rows with every optional column sometimes absent, sometimes undefined, sometimes null. */
function rowsFor(table: TableDef, count: number): Record<string, unknown>[] {
  const next = random(table.name.length * 7919 + count);
  return Array.from({ length: count }, (_, index) => {
    const row: Record<string, unknown> = {};
    for (const column of table.columns) {
      if (column.optional) {
        const roll = next();
        if (roll < 0.15) continue;
        if (roll < 0.25) {
          row[column.name] = roll < 0.2 ? null : undefined;
          continue;
        }
      }
      row[column.name] = sampleValue(column, next, index);
    }
    return row;
  });
}

/** The buffer as plain data, each Set as its values in iteration order (the statistics depend on it). */
function plain(buffer: ShreddedRows): unknown {
  return JSON.parse(
    JSON.stringify(buffer, (_key, value: unknown) => {
      if (value instanceof Set) return { set: [...value].map((v) => (v instanceof Date ? { date: v.getTime() } : v)) };
      return value;
    }),
  );
}

function shredAll(rows: readonly Record<string, unknown>[], shred: (row: Record<string, unknown>, buffer: ShreddedRows) => void) {
  const buffer: ShreddedRows = {};
  for (const row of rows) shred(row, buffer);
  return buffer;
}

/** The file parquetjs-lite writes for `rows`, with small pages and row groups so that several of each are written. */
async function fileBytes(schema: ParquetSchema, rows: readonly Record<string, unknown>[]): Promise<Buffer> {
  const chunks: Buffer[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      chunks.push(Buffer.from(chunk));
      callback();
    },
  });
  const writer = await parquet.ParquetWriter.openStream(schema, sink, { useDataPageV2: false, rowGroupSize: 300, pageSize: 128 });
  for (const row of rows) await writer.appendRow(row);
  await writer.close();
  return Buffer.concat(chunks);
}

function thrown(action: () => void): unknown {
  try {
    action();
  } catch (error) {
    return error;
  }
  return 'nothing thrown';
}

afterEach(() => {
  parquet.ParquetShredder.shredRecord = LIBRARY_SHRED_RECORD;
});

describe('the flat shredder', () => {
  it('exists for every Parquet table of the warehouse', () => {
    expect(PARQUET_TABLES.length).toBeGreaterThan(8);
    for (const table of PARQUET_TABLES) expect(flatShredderFor(parquetSchemaFor(table)), table.name).toBeTypeOf('function');
  });

  it.each(PARQUET_TABLES.map((table) => [table.name, table] as const))(
    'fills the same buffer as the library for %s (values, levels, counts, distinct values in order)',
    (_name, table) => {
      const schema = parquetSchemaFor(table);
      const rows = rowsFor(table, 500);
      const flat = flatShredderFor(schema);
      const expected = shredAll(rows, (row, buffer) => LIBRARY_SHRED_RECORD(schema, row, buffer));
      const actual = shredAll(rows, (row, buffer) => expect(flat?.(row, buffer)).toBe(true));
      expect(plain(actual)).toEqual(plain(expected));
      expect(actual.rowCount).toBe(500);
    },
  );

  it.each(PARQUET_TABLES.map((table) => [table.name, table] as const))('writes the same file bytes as the library for %s', async (_name, table) => {
    const rows = rowsFor(table, 1_000);
    const library = await fileBytes(parquetSchemaFor(table), rows);
    installFlatShredder();
    expect(parquet.ParquetShredder.shredRecord).not.toBe(LIBRARY_SHRED_RECORD);
    const flat = await fileBytes(parquetSchemaFor(table), rows);
    expect(flat.equals(library)).toBe(true);
    expect(flat.length).toBeGreaterThan(1_000);
  });

  it('refuses a row missing a required value with the library words, leaving the buffer as it was', () => {
    const table = PARQUET_TABLES.find((t) => t.columns.some((c) => !c.optional) && t.columns.some((c) => c.optional)) as TableDef;
    const schema = parquetSchemaFor(table);
    const [good, bad] = rowsFor(table, 2) as [Record<string, unknown>, Record<string, unknown>];
    const required = table.columns.filter((c) => !c.optional).at(-1) as ColumnDef;
    delete bad[required.name];
    const library: ShreddedRows = {};
    const flatBuffer: ShreddedRows = {};
    const flat = flatShredderFor(schema);
    LIBRARY_SHRED_RECORD(schema, good, library);
    flat?.(good, flatBuffer);
    const libraryError = thrown(() => LIBRARY_SHRED_RECORD(schema, bad, library));
    expect(libraryError).toBe(`missing required field: ${required.name}`);
    expect(thrown(() => flat?.(bad, flatBuffer))).toBe(libraryError);
    expect(plain(flatBuffer)).toEqual(plain(library));
    expect(flatBuffer.rowCount).toBe(1);
  });

  it('refuses a value the library cannot convert with its words, before buffering anything', () => {
    const schema = new parquet.ParquetSchema({ n: { type: 'INT64' }, d: { type: 'DOUBLE', optional: true } });
    const flat = flatShredderFor(schema);
    const buffer: ShreddedRows = {};
    expect(thrown(() => flat?.({ n: 1, d: 'not a number' }, buffer))).toBe(thrown(() => LIBRARY_SHRED_RECORD(schema, { n: 1, d: 'not a number' }, {})));
    expect(buffer).toEqual({});
  });

  it('leaves arrays, non-objects and nested or repeated schemas to the library', () => {
    const schema = new parquet.ParquetSchema({ a: { type: 'UTF8', optional: true } });
    const buffer: ShreddedRows = {};
    expect(flatShredderFor(schema)?.({ a: ['x'] }, buffer)).toBe(false);
    expect(flatShredderFor(schema)?.(null, buffer)).toBe(false);
    expect(buffer).toEqual({});
    expect(flatShredderFor(new parquet.ParquetSchema({ tags: { type: 'UTF8', repeated: true } }))).toBeUndefined();
    const nested = { inner: { fields: { x: { type: 'INT64' } } } } as unknown as ConstructorParameters<typeof parquet.ParquetSchema>[0];
    expect(flatShredderFor(new parquet.ParquetSchema(nested))).toBeUndefined();
  });

  it('shreds a one-element array like the library does once installed (through the fallback)', () => {
    installFlatShredder();
    const schema = new parquet.ParquetSchema({ a: { type: 'UTF8', optional: true } });
    const viaSeam: ShreddedRows = {};
    const library: ShreddedRows = {};
    parquet.ParquetShredder.shredRecord(schema, { a: ['x'] }, viaSeam);
    LIBRARY_SHRED_RECORD(schema, { a: ['x'] }, library);
    expect(plain(viaSeam)).toEqual(plain(library));
  });
});
