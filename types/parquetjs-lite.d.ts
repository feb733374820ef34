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

  const parquet: {
    ParquetSchema: typeof ParquetSchema;
    ParquetWriter: typeof ParquetWriter;
  };
  export default parquet;
  export type { ParquetSchema, ParquetWriter, ParquetSchemaDefinition, ParquetFieldDefinition, ParquetWriterOptions };
}
