/**
 * Erasure (`mintlify-exporter forget --email ADDRESS`, docs/privacy.md): every row whose `hmac`
 * column holds the HMAC of the address is removed from every table, day and project of a
 * destination (local or `s3://`).
 *
 * 1. The erasure is recorded first (`_privacy/erasures/`, status `started`: the HMAC, never the
 *    address): from then on every export leaves that person's rows out, even if this run is cut
 *    short — the feedback refresh and `--force` included.
 * 2. Every file is read once to find the person's rows; the record then says how many files
 *    and rows the erasure covers (`planned`).
 * 3. Each file holding such rows is rewritten without them. A unit's manifest and its file
 *    cannot change in one step, so a reader must never see the one without the other: the
 *    manifest is kept aside (`_privacy/forgetting/`), removed just before the new file replaces
 *    the old one (an atomic replace), then written again with the new counts — a reader sees
 *    the old day or the new one, or for an instant no manifest, never one that is wrong.
 * 4. The record is rewritten `done`, with the files and rows of the whole erasure.
 *
 * A run cut short anywhere — even by SIGKILL — is finished by running it again: the erasure's
 * `started` record is taken up again (one record per erasure), a manifest kept aside is put
 * back with its file's counts, a file with no such row left is not rewritten, a manifest whose
 * counts do not match its file is corrected, and the local copies a killed run left in the temp
 * folder are removed.
 */
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CATALOG, DATASET_NAMES, type DatasetName } from '../warehouse/catalog.js';
import type { Destination } from '../shared/storage/destination.js';
import { DestinationError } from '../shared/errors.js';
import { openDuckDb, type DuckDbSession, type Row } from '../warehouse/duckdb.js';
import { sqlString } from '../warehouse/sql.js';
import { hmacOf } from '../shared/personal-data.js';
import { isProcessAlive } from '../shared/pacing/leases.js';
import type { PersonalDataPolicy } from '../warehouse/column-policy.js';
import type { TableDef } from '../warehouse/tables.js';
import { erasureKey, readErasureRecords, writeErasureRecord, type ErasureRecord } from './erasures.js';
import { checkManifest, removeManifest, writeManifest, type Manifest } from './manifest.js';
import { openTableWriter } from './parquet.js';
import { readJsonObject } from './staging.js';
import { manifestKey, parseManifestKey } from '../warehouse/keys.js';
import { PRIVACY_PREFIX } from './erasures.js';

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
  /** The files this run changed (or, dry, would change). */
  readonly files: readonly ForgottenFile[];
  /** Rows this run removed (or, dry, would remove). */
  readonly rows: number;
  /** The whole erasure as recorded: with an earlier run cut short, its files and rows too. Absent for a dry run. */
  readonly erasure?: { readonly files: number; readonly rows: number; readonly startedAt: string; readonly resumed: boolean };
  /** Manifests whose counts were corrected or that were put back (a run cut short before). */
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
  /** Where local copies of the files are read. @default the system's temp folder */
  readonly tempDir?: string;
}

/** Where a unit's manifest is kept while its file is replaced: `_privacy/forgetting/<dataset>/dt=<day>/<project>.json`. */
export const FORGETTING_PREFIX = `${PRIVACY_PREFIX}/forgetting/`;

/** The key a unit's manifest is kept under while `forget` replaces its file. */
export function forgettingKey(unit: { readonly dataset: DatasetName; readonly day: string; readonly projectId: string }): string {
  return `${FORGETTING_PREFIX}${manifestKey(unit.dataset, unit.day, unit.projectId).slice('_manifests/'.length)}`;
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

/** One table file as the first pass found it. */
interface ScannedFile {
  readonly key: string;
  readonly table: TableDef;
  readonly dataset: DatasetName;
  readonly columns: readonly string[];
  readonly day: string;
  readonly projectId: string;
  /** The person's rows in it. */
  readonly matching: number;
  /** All its rows, and its size. */
  readonly total: number;
  readonly bytes: number;
}

/** The condition "one of `columns` holds `hmac`". */
const matchesOf = (columns: readonly string[], hmac: string) => `(${columns.map((column) => `coalesce(${column}, '') = ${sqlString(hmac)}`).join(' OR ')})`;

export async function forgetPerson(request: ForgetRequest, deps: ForgetDeps): Promise<ForgetResult> {
  const { destination } = deps;
  if (!destination.list) throw new DestinationError(`${destination.url} cannot list its files: forget needs a destination it can list`);
  const hmac = hmacOf(deps.key, request.address);
  const temp = deps.tempDir ?? tmpdir();
  await removeCopiesOfKilledRuns(temp);

  // An erasure of this person with this key that was cut short is taken up again: one record.
  let record: ErasureRecord | undefined;
  if (!request.dryRun) {
    const unfinished = (await readErasureRecords(destination)).filter((r) => r.hmac === hmac && r.keyId === deps.keyId && r.status === 'started');
    record = unfinished.sort((a, b) => a.at.localeCompare(b.at)).at(-1);
    if (record === undefined) {
      record = { version: 1, hmac, keyId: deps.keyId, at: new Date(deps.now()).toISOString(), status: 'started' };
      await writeErasureRecord(destination, record);
    }
  }

  const work = await mkdtemp(path.join(temp, `${WORK_PREFIX}${process.pid}-`));
  const db = await openDuckDb({ tempDirectory: work });
  const local = path.join(work, 'file.parquet');
  /** The file of `key`, copied to `local`; its size, or undefined when it is gone. */
  const fetch = async (key: string): Promise<number | undefined> => {
    const bytes = await destination.get(key);
    if (bytes === undefined) return undefined;
    await writeFile(local, bytes);
    return bytes.byteLength;
  };
  try {
    let manifestsFixed = request.dryRun ? 0 : await putBackKeptManifests(destination, db, fetch, local);

    const scanned: ScannedFile[] = [];
    for (const { table, dataset, columns } of hashedTables(deps.policy)) {
      const keys = (await destination.list(`${table.prefix}/`)).filter((key) => FILE_KEY.test(key)).sort();
      for (const key of keys) {
        const [, day = '', projectId = ''] = FILE_KEY.exec(key) ?? [];
        const bytes = await fetch(key);
        if (bytes === undefined) continue;
        const counted = await db.query(
          `SELECT count(*) FILTER (WHERE ${matchesOf(columns, hmac)}) AS matching, count(*) AS total FROM read_parquet(${sqlString(local)})`,
        );
        const matching = Number(counted[0]?.['matching'] ?? 0);
        scanned.push({ key, table, dataset, columns, day, projectId, matching, total: Number(counted[0]?.['total'] ?? 0), bytes });
      }
    }
    const found = scanned.filter((file) => file.matching > 0);
    const files = found.map(({ key, table, day, projectId, matching }): ForgottenFile => ({ key, table: table.name, day, projectId, rows: matching }));
    const rows = files.reduce((sum, file) => sum + file.rows, 0);
    if (request.dryRun || record === undefined) {
      for (const file of files) deps.onFile?.(file);
      return { hmac, keyId: deps.keyId, files, rows, manifestsFixed, dryRun: true };
    }

    // What the erasure covers, said before anything changes: a run that finishes it after a kill keeps it.
    const resumed = record.planned !== undefined;
    if (record.planned === undefined) {
      record = { ...record, planned: { files: files.length, rows } };
      await writeErasureRecord(destination, record);
    }
    const planned = record.planned as NonNullable<ErasureRecord['planned']>;

    for (const file of scanned) {
      if (file.matching > 0) {
        await forgetInFile(file, hmac, { destination, db, fetch, local });
        deps.onFile?.({ key: file.key, table: file.table.name, day: file.day, projectId: file.projectId, rows: file.matching });
      } else if (await fixManifest(destination, file, file.total, file.bytes)) {
        manifestsFixed += 1;
      }
    }
    const done: ErasureRecord = { ...record, status: 'done', finishedAt: new Date(deps.now()).toISOString(), files: planned.files, rows: planned.rows };
    await writeErasureRecord(destination, done);
    return {
      hmac,
      keyId: deps.keyId,
      files,
      rows,
      erasure: { files: planned.files, rows: planned.rows, startedAt: record.at, resumed },
      manifestsFixed,
      record: erasureKey(done),
      dryRun: false,
    };
  } finally {
    db.close();
    await rm(work, { recursive: true, force: true });
  }
}

interface FileAccess {
  readonly destination: Destination;
  readonly db: DuckDbSession;
  /** Copies a file of the destination to `local`; its size, or undefined when it is gone. */
  readonly fetch: (key: string) => Promise<number | undefined>;
  readonly local: string;
}

/**
 * Rewrites `file` without the person's rows, with its manifest: kept aside, removed just before
 * the new file replaces the old one, written again with the new counts, then the kept copy goes.
 */
async function forgetInFile(file: ScannedFile, hmac: string, access: FileAccess): Promise<void> {
  const { destination, db, local } = access;
  const unit = { dataset: file.dataset, day: file.day, projectId: file.projectId };
  // Read again: the first pass's copy was overwritten by the next file's.
  if ((await access.fetch(file.key)) === undefined) return;
  const kept = await db.query(`${selectAsWritten(file.table, local)} WHERE NOT ${matchesOf(file.columns, hmac)} ORDER BY file_row_number`);
  const manifest = await readUnitManifest(destination, unit);
  if (manifest) await destination.put(forgettingKey(unit), `${JSON.stringify(manifest, null, 2)}\n`, { contentType: 'application/json' });
  const written = await rewrite(destination, file.table, file.key, kept, manifest ? () => removeManifest(destination, { ...unit }) : undefined);
  if (manifest) {
    await writeManifest(destination, withCounts(manifest, file.table.name, written.rows, written.bytes));
    await destination.delete(forgettingKey(unit));
  }
}

/**
 * The manifests a killed run kept aside (`_privacy/forgetting/`): when the unit has no
 * manifest, it is put back with the counts of its files as they are now (replaced or not);
 * then the kept copy goes. Returns how many were put back.
 */
async function putBackKeptManifests(
  destination: Destination,
  db: DuckDbSession,
  fetch: (key: string) => Promise<number | undefined>,
  local: string,
): Promise<number> {
  let putBack = 0;
  for (const key of ((await destination.list?.(FORGETTING_PREFIX)) ?? []).sort()) {
    const dataset = DATASET_NAMES.find((name) => key.startsWith(`${FORGETTING_PREFIX}${name}/`));
    const where = dataset && parseManifestKey(dataset, `_manifests/${key.slice(FORGETTING_PREFIX.length)}`);
    if (!dataset || !where) continue;
    const unit = { dataset, ...where };
    if ((await readUnitManifest(destination, unit)) === undefined) {
      const value = await readJsonObject<unknown>(destination, key);
      const reading = value === undefined ? undefined : checkManifest(value, unit);
      if (reading && 'manifest' in reading) {
        let manifest: Manifest = reading.manifest;
        for (const [table, file] of Object.entries(manifest.files)) {
          const bytes = await fetch(file);
          if (bytes === undefined) continue;
          const counted = await db.query(`SELECT count(*) AS total FROM read_parquet(${sqlString(local)})`);
          manifest = withCounts(manifest, table, Number(counted[0]?.['total'] ?? 0), bytes);
        }
        await writeManifest(destination, manifest);
        putBack += 1;
      }
    }
    await destination.delete(key);
  }
  return putBack;
}

/** The unit's manifest when it has a valid one. */
async function readUnitManifest(
  destination: Pick<Destination, 'get'>,
  unit: { readonly dataset: DatasetName; readonly day: string; readonly projectId: string },
): Promise<Manifest | undefined> {
  const value = await readJsonObject<unknown>(destination, manifestKey(unit.dataset, unit.day, unit.projectId));
  if (value === undefined) return undefined;
  const reading = checkManifest(value, unit);
  return 'manifest' in reading ? reading.manifest : undefined;
}

/** `manifest` with the rows and bytes of `table` set. */
function withCounts(manifest: Manifest, table: string, rows: number, bytes: number): Manifest {
  return { ...manifest, rows: { ...manifest.rows, [table]: rows }, bytes: { ...manifest.bytes, [table]: bytes } };
}

/** The name of the folders `forget` copies files into: `mintlify-forget-<pid>-…` in the temp folder. */
const WORK_PREFIX = 'mintlify-forget-';

/**
 * Removes the folders of `forget` runs that were killed (their process is gone): they hold a
 * copy of a table file — rows of the very person being forgotten. A live run's folder stays.
 */
async function removeCopiesOfKilledRuns(temp: string): Promise<void> {
  const names = await readdir(temp).catch(() => [] as string[]);
  for (const name of names) {
    const pid = Number(/^mintlify-forget-(\d+)-/.exec(name)?.[1] ?? Number.NaN);
    if (Number.isSafeInteger(pid) && pid !== process.pid && !isProcessAlive(pid)) await rm(path.join(temp, name), { recursive: true, force: true });
  }
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

/** Writes `rows` as the new content of `key` (atomic replace; `beforeCommit` just before it); its rows and size. */
async function rewrite(
  destination: Destination,
  table: TableDef,
  key: string,
  rows: readonly Row[],
  beforeCommit: (() => Promise<void>) | undefined,
): Promise<{ rows: number; bytes: number }> {
  const writer = await openTableWriter(table, await destination.openWrite(key));
  try {
    for (const row of rows) await writer.append(row);
  } catch (error) {
    await writer.abort(error).catch(() => undefined);
    throw error;
  }
  return writer.close(beforeCommit ? { beforeCommit } : {});
}

/** Sets the manifest's rows and bytes of the file's table to the file's; whether it had to change. */
async function fixManifest(destination: Destination, file: ScannedFile, rows: number, bytes: number): Promise<boolean> {
  const manifest = await readUnitManifest(destination, { dataset: file.dataset, day: file.day, projectId: file.projectId });
  if (manifest === undefined || manifest.rows[file.table.name] === rows) return false;
  await writeManifest(destination, withCounts(manifest, file.table.name, rows, bytes));
  return true;
}
