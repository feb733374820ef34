/**
 * Step 3 of `forget` (index.ts): each file holding the people's rows is rewritten without them.
 * A unit's manifest and its file cannot change in one step, so a reader must never see the one
 * without the other: the manifest is kept aside (`_privacy/forgetting/`), removed just before the
 * new file replaces the old one (an atomic replace), then written again with the new counts — a
 * reader sees the old day or the new one, or for an instant no manifest, never one that is wrong.
 * A run cut short is finished by the next: a manifest kept aside is put back with its file's
 * counts, and a manifest whose counts do not match its file is corrected.
 */
import { rm } from 'node:fs/promises';
import { eachAtOnce } from '../../shared/concurrency.js';
import { DATASET_NAMES, type DatasetName } from '../../warehouse/catalog.js';
import type { Destination } from '../../shared/storage/destination.js';
import type { Row } from '../../warehouse/duckdb.js';
import { sqlString } from '../../warehouse/sql.js';
import type { TableDef } from '../../warehouse/table-def.js';
import { checkManifest, removeManifest, writeManifest, type Manifest } from '../manifest.js';
import { openTableWriter } from '../parquet.js';
import { readJsonObject } from '../staging.js';
import { MANIFESTS_PREFIX, manifestKey, parseManifestKey } from '../../warehouse/keys.js';
import { dayKey, folderOf, rootOf } from '../../warehouse/lake/layout.js';
import type { ScannedFile } from './scan.js';
import { matchedHmac, type Work } from './work.js';

/** Where a unit's manifest is kept while its file is replaced: `_privacy/forgetting/<dataset>/dt=<day>/<project>.json`. */
export const FORGETTING_PREFIX = rootOf('forgetting');

/** The key a unit's manifest is kept under while `forget` replaces its file. */
export function forgettingKey(unit: { readonly dataset: DatasetName; readonly day: string; readonly projectId: string }): string {
  return dayKey(folderOf('forgetting', unit.dataset), unit.day, `${unit.projectId}.json`);
}

/**
 * Files rewritten at once in a large erasure (`MANY_FILES` or more): their durable writes
 * overlap (DuckDB still runs one query at a time). A small one goes file by file, so a run cut
 * short leaves at most one unit without its manifest for a moment.
 */
const REWRITES_AT_ONCE = 4;
const MANY_FILES = 64;

/**
 * Rewrites every scanned file that holds the people's rows (telling `onFile` of each) and
 * corrects the manifests of the others whose counts do not match their file; returns how many
 * manifests it corrected.
 */
export async function rewriteFiles(scanned: readonly ScannedFile[], work: Work, onFile: ((file: ScannedFile) => void) | undefined): Promise<number> {
  const changing = scanned.filter((file) => file.matching > 0).length;
  let fixed = 0;
  await eachAtOnce(scanned, changing >= MANY_FILES ? REWRITES_AT_ONCE : 1, async (file) => {
    if (file.matching > 0) {
      await forgetInFile(file, work);
      onFile?.(file);
    } else if (await fixManifest(work.destination, file, file.total, file.bytes)) {
      fixed += 1;
    }
  });
  return fixed;
}

/**
 * Rewrites `file` without the people's rows, with its manifest: kept aside, removed just before
 * the new file replaces the old one, written again with the new counts, then the kept copy goes.
 */
async function forgetInFile(file: ScannedFile, work: Work): Promise<void> {
  const { destination, db } = work;
  const unit = { dataset: file.dataset, day: file.day, projectId: file.projectId };
  // Read again, as it is now: an export may have replaced it since the first pass.
  const copy = await work.fetch(file.key);
  if (copy === undefined) return;
  const kept = await db.query(`${selectAsWritten(file.table, copy.file)} WHERE ${matchedHmac(file.columns)} IS NULL ORDER BY file_row_number`);
  await rm(copy.file, { force: true });
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
export async function putBackKeptManifests(work: Work): Promise<number> {
  const { destination, db } = work;
  let putBack = 0;
  for (const key of ((await destination.list?.(FORGETTING_PREFIX)) ?? []).sort()) {
    const dataset = DATASET_NAMES.find((name) => key.startsWith(`${FORGETTING_PREFIX}${name}/`));
    const where = dataset && parseManifestKey(dataset, `${MANIFESTS_PREFIX}/${key.slice(FORGETTING_PREFIX.length)}`);
    if (!dataset || !where) continue;
    const unit = { dataset, ...where };
    if ((await readUnitManifest(destination, unit)) === undefined) {
      const value = await readJsonObject<unknown>(destination, key);
      const reading = value === undefined ? undefined : checkManifest(value, unit);
      if (reading && 'manifest' in reading) {
        let manifest: Manifest = reading.manifest;
        for (const [table, file] of Object.entries(manifest.files)) {
          const copy = await work.fetch(file);
          if (copy === undefined) continue;
          const counted = await db.query(`SELECT count(*) AS total FROM read_parquet(${sqlString(copy.file)})`);
          await rm(copy.file, { force: true });
          manifest = withCounts(manifest, table, Number(counted[0]?.['total'] ?? 0), copy.bytes);
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
