/**
 * Erasure (`mintlify-exporter forget --email ADDRESS | --emails-file FILE`, docs/privacy.md):
 * every row whose `hmac` column holds the HMAC of one of the addresses (in any written form:
 * `identityOf`, and the HMAC releases before it made) is removed from every table, day and
 * project of a destination (local or `s3://`), for every person at once, in one pass over the
 * lake.
 *
 * 0. It never silently misses (`inspectLake`, `checkLakeKey`): a destination that holds no
 *    export, or whose manifests record another key's id, stops it with a ConfigError (exit 2)
 *    before anything is written.
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
import { eachAtOnce } from '../shared/concurrency.js';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CATALOG, DATASET_NAMES, type DatasetName } from '../warehouse/catalog.js';
import type { Destination } from '../shared/storage/destination.js';
import { DestinationError } from '../shared/errors.js';
import { openDuckDb, type DuckDbSession, type Row } from '../warehouse/duckdb.js';
import { sqlString } from '../warehouse/sql.js';
import { hmacOf, legacyHmacOf } from '../shared/personal-data/index.js';
import { ConfigError } from '../shared/errors.js';
import { isProcessAlive } from '../shared/pacing/leases.js';
import type { PersonalDataPolicy } from '../warehouse/column-policy.js';
import type { TableDef } from '../warehouse/tables.js';
import { erasureKey, readErasureRecords, writeErasureRecord, type ErasureRecord } from './erasures.js';
import { checkManifest, removeManifest, writeManifest, type Manifest } from './manifest.js';
import { openTableWriter } from './parquet.js';
import { readJsonObject } from './staging.js';
import { MANIFESTS_PREFIX, manifestKey, parseManifestKey } from '../warehouse/keys.js';
import { dayKey, folderOf, parseTableFileKey, rootOf } from '../warehouse/lake/layout.js';

/** One file `forget` changed (or, dry, would change). */
export interface ForgottenFile {
  readonly key: string;
  readonly table: string;
  readonly day: string;
  readonly projectId: string;
  /** Rows removed from it. */
  readonly rows: number;
}

/** What the erasure of one person covers. */
export interface PersonForgotten {
  /** The HMAC of the person's address (`hmacOf`): what the record keeps. */
  readonly hmac: string;
  /** Rows of this person this run removed (or, dry, would remove), and the files holding them. */
  readonly rows: number;
  readonly files: number;
  /** The whole erasure as recorded: with an earlier run cut short, its files and rows too. Absent for a dry run. */
  readonly erasure?: { readonly files: number; readonly rows: number; readonly startedAt: string; readonly resumed: boolean };
  /** Where the erasure was recorded; absent for a dry run. */
  readonly record?: string;
}

export interface ForgetResult {
  /** The first person's HMAC (the only one for `--email`). */
  readonly hmac: string;
  readonly keyId: string;
  /** Every person asked for, in the order given (one entry per person, however many forms were given). */
  readonly people: readonly PersonForgotten[];
  /** The files this run changed (or, dry, would change), each once whoever it held. */
  readonly files: readonly ForgottenFile[];
  /** Rows this run removed (or, dry, would remove). */
  readonly rows: number;
  /** The first person's erasure as recorded (see `PersonForgotten`). */
  readonly erasure?: PersonForgotten['erasure'];
  /** Manifests whose counts were corrected or that were put back (a run cut short before). */
  readonly manifestsFixed: number;
  /** Where the first person's erasure was recorded; absent for a dry run. */
  readonly record?: string;
  readonly dryRun: boolean;
}

export interface ForgetRequest {
  readonly address: string;
  readonly dryRun: boolean;
}

export interface ForgetManyRequest {
  /** E-mail addresses, in any written form (`identityOf`); several forms of one person count once. */
  readonly addresses: readonly string[];
  readonly dryRun: boolean;
}

export interface ForgetDeps {
  readonly destination: Destination;
  readonly policy: PersonalDataPolicy;
  readonly key: string;
  readonly keyId: string;
  /** An organisation's lake: the deployment's key, which rows hashed before keys were per organisation used (`PersonalDataKey.deploymentKey`). */
  readonly deploymentKey?: { readonly key: string; readonly keyId: string };
  readonly now: () => number;
  /** Told after each file is handled (progress). */
  readonly onFile?: (file: ForgottenFile) => void;
  /** Where local copies of the files are read. @default the system's temp folder */
  readonly tempDir?: string;
  /** Deletes the people's rows from the Iceberg tables too (iceberg/sync.ts `deleteForgotten`); throws when it cannot. */
  readonly iceberg?: ((tables: ReturnType<typeof hashedTables>, hmacs: readonly string[]) => Promise<unknown>) | undefined;
}

/** Where a unit's manifest is kept while its file is replaced: `_privacy/forgetting/<dataset>/dt=<day>/<project>.json`. */
export const FORGETTING_PREFIX = rootOf('forgetting');

/** The key a unit's manifest is kept under while `forget` replaces its file. */
export function forgettingKey(unit: { readonly dataset: DatasetName; readonly day: string; readonly projectId: string }): string {
  return dayKey(folderOf('forgetting', unit.dataset), unit.day, `${unit.projectId}.json`);
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

/** What a destination's manifests say before an erasure: how many there are, and the key ids they record. */
export interface LakeInspection {
  readonly manifests: number;
  /** The ids of the keys the manifests of units with an `hmac` column were written with, sorted. */
  readonly keyIds: readonly string[];
}

/**
 * Reads what `forget` must know before it changes anything: the destination's manifests and
 * the key ids they record. Writes nothing.
 * @throws ConfigError when the destination holds no export (a mistyped `--out`, an empty folder).
 */
export async function inspectLake(destination: Destination, policy: PersonalDataPolicy): Promise<LakeInspection> {
  if (!destination.list) throw new DestinationError(`${destination.url} cannot list its files: forget needs a destination it can list`);
  const keys = (await destination.list(`${MANIFESTS_PREFIX}/`)).filter((key) => key.endsWith('.json'));
  if (keys.length === 0) {
    throw new ConfigError(
      `${destination.url} holds no export (no manifest under ${MANIFESTS_PREFIX}/): nothing was changed; check --out (or EXPORT_DESTINATION) names the folder or bucket the export wrote`,
    );
  }
  const hashed = new Set(hashedTables(policy).map((entry) => entry.dataset));
  const keyIds = new Set<string>();
  for (const key of keys.sort()) {
    const dataset = DATASET_NAMES.find((name) => key.startsWith(`${MANIFESTS_PREFIX}/${name}/`));
    if (dataset === undefined || !hashed.has(dataset)) continue;
    const value = await readJsonObject<{ privacy?: { keyId?: unknown } }>(destination, key);
    const keyId = value?.privacy?.keyId;
    if (typeof keyId === 'string') keyIds.add(keyId);
  }
  return { manifests: keys.length, keyIds: [...keyIds].sort() };
}

/**
 * Checks that the key `forget` hashes with is the one the lake was written with: with another
 * key no HMAC matches, and the erasure would find nobody while the rows stay.
 * @throws ConfigError naming both key ids (never a key).
 */
export function checkLakeKey(lake: LakeInspection, keyId: string, destination: string, deploymentKeyId?: string): void {
  if (lake.keyIds.length === 0 || lake.keyIds.includes(keyId) || (deploymentKeyId !== undefined && lake.keyIds.includes(deploymentKeyId))) return;
  throw new ConfigError(
    `the personal-data key's id is ${keyId}, but the manifests of ${destination} record key id ${lake.keyIds.join(', ')}: with this key no row can match, so nothing was changed; set PERSONAL_DATA_KEY (or PERSONAL_DATA_KEY_SECRET_ARN, or the state folder's personal-data.key) to the key the lake was written with`,
  );
}

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

/** A file of the destination copied into the work folder. */
interface LocalCopy {
  readonly file: string;
  readonly bytes: number;
}

/** Forgets one person: `forgetPeople` with one address. */
export function forgetPerson(request: ForgetRequest, deps: ForgetDeps): Promise<ForgetResult> {
  return forgetPeople({ addresses: [request.address], dryRun: request.dryRun }, deps);
}

/** One person of an erasure: its HMAC, and the rows and files the first pass found. */
interface Person {
  readonly hmac: string;
  rows: number;
  files: number;
}

/**
 * Files rewritten at once in a large erasure (`MANY_FILES` or more): their durable writes
 * overlap (DuckDB still runs one query at a time). A small one goes file by file, so a run cut
 * short leaves at most one unit without its manifest for a moment.
 */
const REWRITES_AT_ONCE = 4;
const MANY_FILES = 64;

/** The people of a record, as one comparable text. */
const peopleOf = (record: Pick<ErasureRecord, 'hmac' | 'hmacs'>) => [...(record.hmacs ?? [record.hmac])].sort().join(',');

/**
 * Forgets every person of `request.addresses` in one pass over the lake: each file is read
 * once, and rewritten once without the rows of any of them (see the module's header).
 */
export async function forgetPeople(request: ForgetManyRequest, deps: ForgetDeps): Promise<ForgetResult> {
  const { destination } = deps;
  if (!destination.list) throw new DestinationError(`${destination.url} cannot list its files: forget needs a destination it can list`);
  if (request.addresses.length === 0) throw new ConfigError('forget was given no address: give --email ADDRESS or --emails-file FILE');
  checkLakeKey(await inspectLake(destination, deps.policy), deps.keyId, destination.url, deps.deploymentKey?.keyId);

  // One entry per person; each HMAC its rows may hold (this release's and the one before) → the person.
  const people = new Map<string, Person>();
  const owner = new Map<string, Person>();
  for (const address of request.addresses) {
    const hmac = hmacOf(deps.key, address);
    let person = people.get(hmac);
    if (person === undefined) {
      person = { hmac, rows: 0, files: 0 };
      people.set(hmac, person);
    }
    owner.set(hmac, person);
    const keys = deps.deploymentKey === undefined ? [deps.key] : [deps.key, deps.deploymentKey.key];
    for (const earlier of keys.flatMap((key) => [hmacOf(key, address), legacyHmacOf(key, address)])) if (!owner.has(earlier)) owner.set(earlier, person);
  }
  const temp = deps.tempDir ?? tmpdir();
  await removeCopiesOfKilledRuns(temp);

  // One record for the erasure, whoever it names (the HMACs, never an address). The same
  // erasure with this key, cut short before, is taken up again: still one record.
  const hmacs = [...people.keys()];
  let record: ErasureRecord | undefined;
  if (!request.dryRun) {
    const wanted = [...hmacs].sort().join(',');
    record = (await readErasureRecords(destination))
      .filter((r) => r.keyId === deps.keyId && r.status === 'started' && peopleOf(r) === wanted)
      .sort((a, b) => a.at.localeCompare(b.at))
      .at(-1);
    if (record === undefined) {
      record = {
        version: 1,
        hmac: hmacs[0] as string,
        ...(hmacs.length > 1 ? { hmacs } : {}),
        keyId: deps.keyId,
        at: new Date(deps.now()).toISOString(),
        status: 'started',
      };
      await writeErasureRecord(destination, record);
    }
  }

  const work = await mkdtemp(path.join(temp, `${WORK_PREFIX}${process.pid}-`));
  const db = await openDuckDb({ tempDirectory: work });
  let copies = 0;
  /**
   * The file of `key`, copied into the work folder under a name of its own (DuckDB caches a
   * file's metadata by name: a name used again for another file of the same size and time reads
   * the first one's); its copy and size, or undefined when it is gone.
   */
  const fetch = async (key: string): Promise<LocalCopy | undefined> => {
    const bytes = await destination.get(key);
    if (bytes === undefined) return undefined;
    const file = path.join(work, `file-${++copies}.parquet`);
    await writeFile(file, bytes);
    return { file, bytes: bytes.byteLength };
  };
  try {
    // The HMACs to look for, as a table: one join per file, however many people.
    await db.run('CREATE TEMP TABLE forgotten (hmac VARCHAR PRIMARY KEY)');
    await insertHmacs(db, [...owner.keys()]);
    let manifestsFixed = request.dryRun ? 0 : await putBackKeptManifests(destination, db, fetch);

    const scanned: ScannedFile[] = [];
    for (const { table, dataset, columns } of hashedTables(deps.policy)) {
      const keys = (await destination.list(`${table.prefix}/`)).filter((key) => parseTableFileKey(key) !== undefined).sort();
      for (const key of keys) {
        const { day = '', projectId = '' } = parseTableFileKey(key) ?? {};
        const copy = await fetch(key);
        if (copy === undefined) continue;
        // Each row once, under the first of its columns that holds a forgotten HMAC.
        const counted = await db.query(`SELECT ${matchedHmac(columns)} AS hmac, count(*) AS n FROM read_parquet(${sqlString(copy.file)}) GROUP BY ALL`);
        let matching = 0;
        let total = 0;
        const byPerson = new Map<Person, number>();
        for (const row of counted) {
          const n = Number(row['n'] ?? 0);
          total += n;
          const person = typeof row['hmac'] === 'string' ? owner.get(row['hmac']) : undefined;
          if (person === undefined) continue;
          matching += n;
          byPerson.set(person, (byPerson.get(person) ?? 0) + n);
        }
        for (const [person, n] of byPerson) {
          person.rows += n;
          person.files += 1;
        }
        await rm(copy.file, { force: true });
        scanned.push({ key, table, dataset, columns, day, projectId, matching, total, bytes: copy.bytes });
      }
    }
    const found = scanned.filter((file) => file.matching > 0);
    const files = found.map(({ key, table, day, projectId, matching }): ForgottenFile => ({ key, table: table.name, day, projectId, rows: matching }));
    const rows = files.reduce((sum, file) => sum + file.rows, 0);
    if (request.dryRun || record === undefined) {
      for (const file of files) deps.onFile?.(file);
      return resultOf({ keyId: deps.keyId, people: [...people.values()].map(summaryOf), files, rows, manifestsFixed, dryRun: true });
    }

    // What the erasure covers, said before anything changes: a run that finishes it after a kill keeps it.
    const resumed = record.planned !== undefined;
    if (record.planned === undefined) {
      record = { ...record, planned: { files: files.length, rows } };
      await writeErasureRecord(destination, record);
    }
    const planned = record.planned as NonNullable<ErasureRecord['planned']>;

    await eachAtOnce(scanned, files.length >= MANY_FILES ? REWRITES_AT_ONCE : 1, async (file) => {
      if (file.matching > 0) {
        await forgetInFile(file, { destination, db, fetch });
        deps.onFile?.({ key: file.key, table: file.table.name, day: file.day, projectId: file.projectId, rows: file.matching });
      } else if (await fixManifest(destination, file, file.total, file.bytes)) {
        manifestsFixed += 1;
      }
    });
    await deps.iceberg?.(hashedTables(deps.policy), [...owner.keys()]);
    const done: ErasureRecord = { ...record, status: 'done', finishedAt: new Date(deps.now()).toISOString(), files: planned.files, rows: planned.rows };
    await writeErasureRecord(destination, done);
    const at = erasureKey(done);
    const summaries = [...people.values()].map(
      (person): PersonForgotten => ({
        ...summaryOf(person),
        // One person: the whole erasure's counts (an earlier run's included); several: each one's own.
        erasure:
          people.size === 1
            ? { files: planned.files, rows: planned.rows, startedAt: done.at, resumed }
            : { files: person.files, rows: person.rows, startedAt: done.at, resumed },
        record: at,
      }),
    );
    return resultOf({ keyId: deps.keyId, people: summaries, files, rows, manifestsFixed, dryRun: false });
  } finally {
    db.close();
    await rm(work, { recursive: true, force: true });
  }
}

const summaryOf = (person: Person): PersonForgotten => ({ hmac: person.hmac, rows: person.rows, files: person.files });

/** The result, with the first person's HMAC, erasure and record at the top (what `--email` shows). */
function resultOf(parts: Omit<ForgetResult, 'hmac' | 'erasure' | 'record'>): ForgetResult {
  const first = parts.people[0] as PersonForgotten;
  return {
    hmac: first.hmac,
    ...parts,
    ...(first.erasure ? { erasure: first.erasure } : {}),
    ...(first.record ? { record: first.record } : {}),
  };
}

/** Adds `hmacs` to the `forgotten` table, a thousand a statement. */
async function insertHmacs(db: DuckDbSession, hmacs: readonly string[]): Promise<void> {
  for (let i = 0; i < hmacs.length; i += 1000) {
    const values = hmacs.slice(i, i + 1000).map((hmac) => `(${sqlString(hmac)})`);
    await db.run(`INSERT OR IGNORE INTO forgotten VALUES ${values.join(', ')}`);
  }
}

/** The first of `columns` that holds a forgotten HMAC, or null. */
const matchedHmac = (columns: readonly string[]) =>
  `coalesce(${columns.map((column) => `CASE WHEN ${column} IN (SELECT hmac FROM forgotten) THEN ${column} END`).join(', ')})`;

interface FileAccess {
  readonly destination: Destination;
  readonly db: DuckDbSession;
  /** Copies a file of the destination into the work folder; undefined when it is gone. */
  readonly fetch: (key: string) => Promise<LocalCopy | undefined>;
}

/**
 * Rewrites `file` without the person's rows, with its manifest: kept aside, removed just before
 * the new file replaces the old one, written again with the new counts, then the kept copy goes.
 */
async function forgetInFile(file: ScannedFile, access: FileAccess): Promise<void> {
  const { destination, db } = access;
  const unit = { dataset: file.dataset, day: file.day, projectId: file.projectId };
  // Read again, as it is now: an export may have replaced it since the first pass.
  const copy = await access.fetch(file.key);
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
async function putBackKeptManifests(destination: Destination, db: DuckDbSession, fetch: (key: string) => Promise<LocalCopy | undefined>): Promise<number> {
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
          const copy = await fetch(file);
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
