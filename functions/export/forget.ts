/**
 * Erasure (`mintlify-exporter forget --email ADDRESS`, docs/privacy.md): every row whose `hmac`
 * column holds the HMAC of the address is removed from every table, day and project of a
 * destination (local or `s3://`).
 *
 * 1. The erasure is recorded first (`_privacy/erasures/`, status `started`: the HMAC, never the
 *    address): from then on every export leaves that person's rows out, even if this run is cut
 *    short — the feedback refresh and `--force` included.
 * 2. Each file holding such rows is rewritten without them (an atomic replace: a reader sees
 *    the old file or the new one), then its manifest gets the new row count and size.
 * 3. The record is rewritten `done`, with the files and rows changed.
 *
 * A run cut short anywhere is finished by running it again: a file with no such row left is
 * not rewritten, and a manifest whose counts do not match its file is corrected.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CATALOG, type DatasetName } from '../warehouse/catalog.js';
import type { Destination } from '../shared/storage/destination.js';
import { DestinationError } from '../shared/errors.js';
import { openDuckDb, type Row } from '../warehouse/duckdb.js';
import { sqlString } from '../warehouse/sql.js';
import { hmacOf } from '../shared/personal-data.js';
import type { PersonalDataPolicy } from '../warehouse/column-policy.js';
import type { TableDef } from '../warehouse/tables.js';
import { erasureKey, writeErasureRecord, type ErasureRecord } from './erasures.js';
import { checkManifest, writeManifest, type Manifest } from './manifest.js';
import { openTableWriter } from './parquet.js';
import { readJsonObject } from './staging.js';
import { manifestKey } from '../warehouse/keys.js';

/** One file `forget` changed (or, dry, would change). */
export interface ForgottenFile {
  readonly key: string;
  readonly table: string;
  readonly day: string;
  readonly projectId: string;
  /** Rows removed from it. */
  readonly rows: number;
}

export interface ForgetResult {
  readonly hmac: string;
  readonly keyId: string;
  readonly files: readonly ForgottenFile[];
  readonly rows: number;
  /** Manifests whose counts were corrected (a run cut short before). */
  readonly manifestsFixed: number;
  /** Where the erasure was recorded; absent for a dry run. */
  readonly record?: string;
  readonly dryRun: boolean;
}

export interface ForgetRequest {
  readonly address: string;
  readonly dryRun: boolean;
}

export interface ForgetDeps {
  readonly destination: Destination;
  readonly policy: PersonalDataPolicy;
  readonly key: string;
  readonly keyId: string;
  readonly now: () => number;
  /** Told after each file is handled (progress). */
  readonly onFile?: (file: ForgottenFile) => void;
}

/** The tables with an `hmac` column under `policy`, each with the dataset that writes it. */
function hashedTables(policy: PersonalDataPolicy): { table: TableDef; dataset: DatasetName; columns: readonly string[] }[] {
  return CATALOG.flatMap((entry) =>
    [entry.table, ...('summaryTable' in entry ? [entry.summaryTable] : [])].flatMap((table) => {
      const columns = policy.hmacColumns(table);
      return columns.length > 0 ? [{ table, dataset: entry.name as DatasetName, columns }] : [];
    }),
  );
}

const FILE_KEY = /^[^/]+\/dt=(\d{4}-\d{2}-\d{2})\/([^/]+)\.parquet$/;

export async function forgetPerson(request: ForgetRequest, deps: ForgetDeps): Promise<ForgetResult> {
  const { destination } = deps;
  const hmac = hmacOf(deps.key, request.address);
  const at = new Date(deps.now()).toISOString();
  const started: ErasureRecord = { version: 1, hmac, keyId: deps.keyId, at, status: 'started' };
  if (!request.dryRun) await writeErasureRecord(destination, started);
  if (!destination.list) throw new DestinationError(`${destination.url} cannot list its files: forget needs a destination it can list`);

  const files: ForgottenFile[] = [];
  let manifestsFixed = 0;
  const work = await mkdtemp(path.join(tmpdir(), 'mintlify-forget-'));
  const db = await openDuckDb({ tempDirectory: work });
  try {
    for (const { table, dataset, columns } of hashedTables(deps.policy)) {
      const keys = (await destination.list(`${table.prefix}/`)).filter((key) => FILE_KEY.test(key)).sort();
      for (const key of keys) {
        const [, day, projectId] = FILE_KEY.exec(key) as unknown as [string, string, string];
        const bytes = await destination.get(key);
        if (bytes === undefined) continue;
        const local = path.join(work, 'file.parquet');
        await writeFile(local, bytes);
        const matches = `(${columns.map((column) => `coalesce(${column}, '') = ${sqlString(hmac)}`).join(' OR ')})`;
        const counted = await db.query(`SELECT count(*) FILTER (WHERE ${matches}) AS matching, count(*) AS total FROM read_parquet(${sqlString(local)})`);
        const matching = Number(counted[0]?.['matching'] ?? 0);
        let rows = Number(counted[0]?.['total'] ?? 0);
        let size = bytes.byteLength;
        if (matching > 0) {
          const file: ForgottenFile = { key, table: table.name, day, projectId, rows: matching };
          files.push(file);
          if (!request.dryRun) {
            const kept = await db.query(`${selectAsWritten(table, local)} WHERE NOT ${matches} ORDER BY file_row_number`);
            size = await rewrite(destination, table, key, kept);
            rows -= matching;
          }
          deps.onFile?.(file);
        }
        if (!request.dryRun && (await fixManifest(destination, { dataset, projectId, day }, table, rows, size))) manifestsFixed += 1;
      }
    }
  } finally {
    db.close();
    await rm(work, { recursive: true, force: true });
  }
  const removed = files.reduce((sum, file) => sum + file.rows, 0);
  if (request.dryRun) return { hmac, keyId: deps.keyId, files, rows: removed, manifestsFixed, dryRun: true };
  const done: ErasureRecord = { ...started, status: 'done', finishedAt: new Date(deps.now()).toISOString(), files: files.length, rows: removed };
  await writeErasureRecord(destination, done);
  return { hmac, keyId: deps.keyId, files, rows: removed, manifestsFixed, record: erasureKey(done), dryRun: false };
}

/** A SELECT of `table`'s columns in the form the Parquet writer takes (dates as text, timestamps as epoch ms). */
function selectAsWritten(table: TableDef, file: string): string {
  const columns = table.columns.map((column) => {
    if (column.type === 'date') return `strftime(${column.name}, '%Y-%m-%d') AS ${column.name}`;
    if (column.type === 'timestamp_ms') return `epoch_ms(${column.name}) AS ${column.name}`;
    return column.name;
  });
  return `SELECT ${columns.join(', ')} FROM read_parquet(${sqlString(file)}, file_row_number = true)`;
}

/** Writes `rows` as the new content of `key` (atomic replace); returns its size in bytes. */
async function rewrite(destination: Destination, table: TableDef, key: string, rows: readonly Row[]): Promise<number> {
  const writer = await openTableWriter(table, await destination.openWrite(key));
  try {
    for (const row of rows) await writer.append(row);
  } catch (error) {
    await writer.abort(error).catch(() => undefined);
    throw error;
  }
  return (await writer.close()).bytes;
}

/** Sets the manifest's rows and bytes of `table` to the file's; whether it had to change. */
async function fixManifest(
  destination: Destination,
  unit: { readonly dataset: DatasetName; readonly projectId: string; readonly day: string },
  table: TableDef,
  rows: number,
  bytes: number,
): Promise<boolean> {
  const value = await readJsonObject<unknown>(destination, manifestKey(unit.dataset, unit.day, unit.projectId));
  if (value === undefined) return false;
  const reading = checkManifest(value, unit);
  if (!('manifest' in reading)) return false;
  const manifest: Manifest = reading.manifest;
  if (manifest.rows[table.name] === rows) return false;
  await writeManifest(destination, { ...manifest, rows: { ...manifest.rows, [table.name]: rows }, bytes: { ...manifest.bytes, [table.name]: bytes } });
  return true;
}
