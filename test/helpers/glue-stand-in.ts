/**
 * Role: a stand-in for the Glue Data Catalog on loopback (neither fauxqs nor dynalite serves
 * Glue): the JSON 1.1 protocol over HTTP on 127.0.0.1 (json-stand-in.ts), as the real SDK client speaks it
 * (`X-Amz-Target: AWSGlue.GetTable`, `AWSGlue.BatchCreatePartition`), for the tables it is
 * given. BatchCreatePartition answers a partition that exists with a per-entry
 * `AlreadyExistsException`, as Glue does; `failNext` scripts failures. Every call is recorded.
 * It models no permission (see iam.ts for grants), no other action and no catalog id.
 */
import { ok, refused, startJsonStandIn, unknownOperation } from './json-stand-in.js';

/** A table as the stand-in holds it: its storage descriptor (Glue's JSON shape) and partition keys. */
export interface StandInTable {
  readonly storageDescriptor: Record<string, unknown> & { readonly Location: string };
  readonly partitionKeys: readonly string[];
  /** The table's parameters (`storage.location.template` of a table of many organisations). */
  readonly parameters?: Record<string, string>;
}

/** One call the stand-in answered. */
export interface GlueCall {
  readonly target: string;
  readonly database: string;
  readonly table: string;
  /** BatchCreatePartition: each partition's values, in order. */
  readonly partitions: readonly (readonly string[])[];
}

/** A partition it holds. */
export interface StandInPartition {
  readonly values: readonly string[];
  readonly storageDescriptor: Record<string, unknown>;
}

export interface GlueStandIn {
  readonly endpoint: string;
  readonly calls: GlueCall[];
  /** The partitions of `database.table`, keyed by their values joined with `/`. */
  partitions(database: string, table: string): Map<string, StandInPartition>;
  /**
   * The next `times` BatchCreatePartition calls fail: `'unavailable'` answers HTTP 500
   * (InternalServiceException) after the SDK's retries too; `'refused'` answers 200 with every
   * entry refused (`InternalServiceException` in Errors).
   */
  failNext(times: number, how: 'unavailable' | 'refused'): void;
  close(): Promise<void>;
}

/** Parquet tables as the stack's Glue tables are: Hive's Parquet formats and SerDe. */
export function parquetTable(location: string, partitionKeys: readonly string[] = ['dt']): StandInTable {
  return {
    partitionKeys,
    storageDescriptor: {
      Location: location,
      InputFormat: 'org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat',
      OutputFormat: 'org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat',
      SerdeInfo: { SerializationLibrary: 'org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe' },
      Columns: [{ Name: 'project_id', Type: 'string' }],
      Compressed: false,
      StoredAsSubDirectories: false,
    },
  };
}

/** Starts the stand-in with `tables` of `database` (by table name). */
export async function startGlueStandIn(database: string, tables: Record<string, StandInTable>): Promise<GlueStandIn> {
  const calls: GlueCall[] = [];
  const stored = new Map<string, Map<string, StandInPartition>>();
  const failures: ('unavailable' | 'refused')[] = [];
  const partitionsOf = (db: string, table: string) => {
    const key = `${db}.${table}`;
    const found = stored.get(key) ?? new Map<string, StandInPartition>();
    stored.set(key, found);
    return found;
  };

  const server = await startJsonStandIn<GlueBody>(({ target, body }) => {
    const notFound = (what: string) => refused('EntityNotFoundException', `${what} not found`);
    const tableName = body.Name ?? body.TableName ?? '';
    const db = body.DatabaseName ?? '';
    const inputs = body.PartitionInputList ?? [];
    calls.push({ target, database: db, table: tableName, partitions: inputs.map((p) => p.Values ?? []) });
    const table = db === database ? tables[tableName] : undefined;
    if (target === 'AWSGlue.GetTable') {
      if (!table) return notFound(`Table ${db}.${tableName}`);
      return ok({
        Table: {
          Name: tableName,
          DatabaseName: db,
          StorageDescriptor: table.storageDescriptor,
          PartitionKeys: table.partitionKeys.map((Name) => ({ Name, Type: 'string' })),
          TableType: 'EXTERNAL_TABLE',
          ...(table.parameters ? { Parameters: table.parameters } : {}),
        },
      });
    }
    if (target === 'AWSGlue.BatchCreatePartition') {
      if (!table) return notFound(`Table ${db}.${tableName}`);
      const failure = failures.shift();
      if (failure === 'unavailable') return refused('InternalServiceException', 'scripted failure', 500);
      const errors: unknown[] = [];
      const held = partitionsOf(db, tableName);
      for (const input of inputs) {
        const values = input.Values ?? [];
        const detail = (ErrorCode: string, ErrorMessage: string) => errors.push({ PartitionValues: values, ErrorDetail: { ErrorCode, ErrorMessage } });
        if (failure === 'refused') detail('InternalServiceException', 'scripted refusal');
        else if (values.length !== table.partitionKeys.length) detail('InvalidInputException', `expected ${table.partitionKeys.length} partition value(s)`);
        else if (held.has(values.join('/'))) detail('AlreadyExistsException', 'Partition already exists.');
        else held.set(values.join('/'), { values, storageDescriptor: input.StorageDescriptor ?? {} });
      }
      return ok(errors.length > 0 ? { Errors: errors } : {});
    }
    return unknownOperation(target);
  });
  return {
    ...server,
    calls,
    partitions: partitionsOf,
    failNext: (times, how) => failures.push(...Array.from({ length: times }, () => how)),
  };
}

/** The fields of a request the stand-in reads. */
interface GlueBody {
  readonly DatabaseName?: string;
  readonly Name?: string;
  readonly TableName?: string;
  readonly PartitionInputList?: { readonly Values?: string[]; readonly StorageDescriptor?: Record<string, unknown> }[];
}
