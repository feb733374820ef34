/**
 * How a warehouse table is described (tables.ts holds the tables): its columns' logical types,
 * a column's privacy policy, the table's folder and format, and the typed table whose columns a
 * dataset's row type (`RowOf`) is derived from.
 */

/**
 * Logical column types, mapped to Parquet logical types and to Glue/Hive types:
 * `string` UTF8/string, `date` DATE/date, `int64` INT64/bigint, `double` DOUBLE/double
 * (finite values only), `timestamp_ms` TIMESTAMP_MILLIS/timestamp (UTC), `boolean`.
 */
export type ColumnType = 'string' | 'date' | 'int64' | 'double' | 'timestamp_ms' | 'boolean' | 'record_list';

/** Column types a Parquet file can hold (`record_list` is for JSON tables only). */
export type ScalarColumnType = Exclude<ColumnType, 'record_list'>;

export interface ColumnDef {
  readonly name: string;
  readonly type: ColumnType;
  /** Whether the value may be absent (null). */
  readonly optional?: boolean;
  readonly comment: string;
  /** `record_list` only: the fields of each record (a Glue `array<struct<…>>`). */
  readonly fields?: readonly { readonly name: string; readonly type: ScalarColumnType }[];
  /**
   * `string` columns the docs give as an enum: the values this version knows. The column is
   * open: another value is written as sent and reported as drift (the manifest's `drift`).
   */
  readonly knownValues?: readonly string[];
  /**
   * What is stored of the value (docs/privacy.md): `keep` as sent, `drop` (null), `hmac` (a
   * keyed hash of the NFKC-folded, trimmed, lower-cased value), `mask` (addresses, phone
   * numbers and secret-looking tokens replaced, the rest kept) or `path` (a page path or URL:
   * query string and fragment removed, a segment holding an address, phone number or secret
   * replaced by its mask). Absent: `keep`. Applied before anything is
   * written (staged pages included): `functions/shared/personal-data/`.
   */
  readonly policy?: ColumnPolicy;
  /**
   * The column holds what readers typed or left (personal data): its policy may be overridden
   * (PERSONAL_DATA_POLICY), and its table's days expire (PERSONAL_DATA_RETENTION_DAYS).
   * A column with a policy but not personal (`unknown_fields`) is masked as a safety net. A
   * page path or URL column has the policy `path` without being personal: its policy may be
   * overridden (`keep` stays available), and its table's days do not expire.
   */
  readonly personal?: true;
  /**
   * The Glue table declares the column only in a deployment of this table format (context
   * `tableFormat`); elsewhere the records leave it null, and readers that name their own
   * columns (DuckDB, the recipes of docs/warehouse.md) read it as null.
   */
  readonly tableFormat?: 'iceberg';
}

/** What is stored of a column's value: see `ColumnDef.policy`. */
export type ColumnPolicy = 'keep' | 'drop' | 'hmac' | 'mask' | 'path';

export interface TableDef {
  readonly name: string;
  /** Folder under the destination: `<dest>/<prefix>/dt=YYYY-MM-DD/…`. */
  readonly prefix: string;
  readonly format: 'parquet' | 'json';
  readonly columns: readonly ColumnDef[];
  /** Hive partition key, a `YYYY-MM-DD` string (projected as a date in Athena). */
  readonly partitionKey: 'dt';
  readonly comment: string;
  /**
   * Rows a Parquet row group holds (the writer buffers one group, shredded, before it writes it).
   * @default 20,000 (functions/export/parquet.ts DEFAULT_ROW_GROUP_SIZE)
   */
  readonly rowGroupSize?: number;
}

/** A type-only mark: the columns a typed table's type remembers (no value has this key). */
declare const COLUMNS: unique symbol;

/**
 * A table whose type keeps its columns (the dataset tables): what a dataset's `toRow` must write
 * is derived from it (`RowOf`), so a spec that misses a column, or writes one the table lacks,
 * does not compile (test/types/datasets.test-d.ts). The value is a plain `TableDef`.
 */
export type TypedTable<C extends ColumnDef = ColumnDef> = TableDef & { readonly [COLUMNS]?: C };

/** `def` as a `TypedTable` (the same object: the mark is in the type only). */
export function typedTable<const T extends TableDef>(def: T): TypedTable<T['columns'][number]> {
  return def;
}

/** What a column of each type takes from a dataset's `toRow` (the writer converts; parquet.ts). */
interface ColumnValues {
  readonly string: string;
  readonly int64: number | bigint;
  readonly double: number;
  readonly boolean: boolean;
  /** `YYYY-MM-DD`, or a UTC midnight. */
  readonly date: string | Date;
  /** Epoch ms, an ISO 8601 string or a `Date`. */
  readonly timestamp_ms: number | string | Date;
  readonly record_list: readonly object[];
}

/** A column's value: its type's, or null/absent when the column is optional. */
type ValueOf<C extends ColumnDef> = C extends { readonly optional: true } ? ColumnValues[C['type']] | null | undefined : ColumnValues[C['type']];

/**
 * The row a typed table's writer takes: a key per column with its type's value (an optional
 * column's may be null or left out), but `unknown_fields`, which the dataset reader adds. A table
 * not typed takes any keys.
 */
export type RowOf<T extends TableDef> =
  T extends TypedTable<infer C>
    ? ColumnDef extends C
      ? Record<string, unknown>
      : { [K in C as K extends { readonly optional: true } ? never : Exclude<K['name'], 'unknown_fields'>]: ValueOf<K> } & {
          [K in C as K extends { readonly optional: true } ? Exclude<K['name'], 'unknown_fields'> : never]?: ValueOf<K>;
        }
    : Record<string, unknown>;
