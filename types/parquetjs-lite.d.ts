/**
 * The part of parquetjs-lite 0.8.7 this project uses (the package ships no types). It is
 * CommonJS: import it as `import parquet from 'parquetjs-lite'` (esModuleInterop), which
 * works under tsx, vitest and esbuild bundles alike.
 *
 * Beware (see functions/export/parquet.ts): the writer converts values with
 * `parseInt` and friends, so a string in a DATE/TIMESTAMP/INT64 column is stored as a wrong
 * number instead of being refused (DOUBLE uses `parseFloat`: `'1.5abc'` becomes 1.5, and
 * Infinity passes). Callers must pass `Date` objects, safe integers and finite numbers.
 */
declare module 'parquetjs-lite' {
  type ParquetLogicalType =
    | 'BOOLEAN'
    | 'INT32'
    | 'INT64'
    | 'INT96'
    | 'FLOAT'
    | 'DOUBLE'
    | 'BYTE_ARRAY'
    | 'FIXED_LEN_BYTE_ARRAY'
    | 'UTF8'
    | 'ENUM'
    | 'DATE'
    | 'TIME_MILLIS'
    | 'TIME_MICROS'
    | 'TIMESTAMP_MILLIS'
    | 'TIMESTAMP_MICROS'
    | 'UINT_8'
    | 'UINT_16'
    | 'UINT_32'
    | 'UINT_64'
    | 'INT_8'
    | 'INT_16'
    | 'INT_32'
    | 'INT_64'
    | 'JSON'
    | 'BSON'
    | 'INTERVAL';

  interface ParquetFieldDefinition {
    type: ParquetLogicalType;
    optional?: boolean;
    repeated?: boolean;
    encoding?: 'PLAIN' | 'RLE';
    compression?: 'UNCOMPRESSED' | 'GZIP' | 'SNAPPY' | 'LZO' | 'BROTLI' | 'LZ4';
    statistics?: boolean;
    typeLength?: number;
  }

  type ParquetSchemaDefinition = Record<string, ParquetFieldDefinition>;

  interface ParquetField {
    readonly name: string;
    /** The column's path from the root; a flat column's is `[name]`. */
    readonly path: readonly string[];
    readonly isNested?: boolean;
    /** Dremel levels of a value present in this column (0/1 for flat columns). */
    readonly rLevelMax: number;
    readonly dLevelMax: number;
    readonly primitiveType: string;
    readonly originalType?: string;
    readonly repetitionType: 'REQUIRED' | 'OPTIONAL' | 'REPEATED';
    readonly compression: string;
  }

  class ParquetSchema {
    constructor(schema: ParquetSchemaDefinition);
    readonly schema: ParquetSchemaDefinition;
    readonly fieldList: readonly ParquetField[];
    findField(path: string | string[]): ParquetField;
  }

  interface ParquetWriterOptions {
    /** Rows buffered (and written together) per row group. Default 4096. */
    rowGroupSize?: number;
    /** Rows per data page. Default 8192. */
    pageSize?: number;
    /** Default true; false writes data page v1, which every reader understands. */
    useDataPageV2?: boolean;
  }

  class ParquetWriter {
    /** Writes the magic header at once; flushes a row group every `rowGroupSize` rows. */
    static openStream(schema: ParquetSchema, stream: import('node:stream').Writable, options?: ParquetWriterOptions): Promise<ParquetWriter>;
    /** Throws strings (not Errors) on bad values, e.g. `missing required field: x`. */
    appendRow(row: Record<string, unknown>): Promise<void>;
    /** Writes the last row group and the footer, then ends the stream. Call once. */
    close(): Promise<void>;
    setMetadata(key: string, value: string): void;
  }

  /** One column's values of the rows buffered since the last data page (lib/shred.js). */
  interface ShreddedColumn {
    dlevels: number[];
    rlevels: number[];
    values: unknown[];
    distinct_values: Set<unknown>;
    count: number;
  }

  /** The writer's row buffer (`{}` until the first row is shredded into it). */
  interface ShreddedRows {
    rowCount?: number;
    pageRowCount?: number;
    columnData?: Record<string, ShreddedColumn>;
    pages?: Record<string, unknown[]>;
  }

  /**
   * lib/shred.js's module object: `ParquetWriter.appendRow` calls `shredRecord` through it
   * (lib/writer.js), so replacing the property replaces the writer's shredding.
   */
  interface ParquetShredderModule {
    shredRecord(schema: ParquetSchema, record: unknown, buffer: ShreddedRows): void;
  }

  const parquet: {
    ParquetSchema: typeof ParquetSchema;
    ParquetWriter: typeof ParquetWriter;
    ParquetShredder: ParquetShredderModule;
  };
  export default parquet;
  export type {
    ParquetSchema,
    ParquetWriter,
    ParquetSchemaDefinition,
    ParquetFieldDefinition,
    ParquetWriterOptions,
    ParquetField,
    ParquetShredderModule,
    ShreddedColumn,
    ShreddedRows,
  };
}

/** The value conversions parquetjs-lite's writer applies (`toPrimitive` per logical type). */
declare module 'parquetjs-lite/lib/types.js' {
  const types: {
    PARQUET_LOGICAL_TYPES: Record<string, { toPrimitive(value: unknown): unknown }>;
    toPrimitive(type: string, value: unknown): unknown;
  };
  export default types;
}
