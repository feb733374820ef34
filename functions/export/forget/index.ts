/**
 * Erasure (`mintlify-exporter forget --email ADDRESS | --emails-file FILE`, docs/privacy.md):
 * every row whose `hmac` column holds the HMAC of one of the addresses (in any written form:
 * `identityOf`, and the HMAC releases before it made) is removed from every table, day and
 * project of a destination (local or `s3://`), for every person at once, in one pass over the
 * lake.
 *
 * 0. It never silently misses (inspect.ts): a destination that holds no
 *    export, or whose manifests record another key's id, stops it with a ConfigError (exit 2)
 *    before anything is written.
 * 1. The erasure is recorded first (record.ts, `_privacy/erasures/`, status `started`: the HMAC, never the
 *    address): from then on every export leaves that person's rows out, even if this run is cut
 *    short — the feedback refresh and `--force` included.
 * 2. Every file is read once (scan.ts) to find the person's rows; the record then says how many files
 *    and rows the erasure covers (`planned`).
 * 3. Each file holding such rows is rewritten without them (rewrite.ts). A unit's manifest and its file
 *    cannot change in one step, so a reader must never see the one without the other: the
 *    manifest is kept aside (`_privacy/forgetting/`), removed just before the new file replaces
 *    the old one (an atomic replace), then written again with the new counts — a reader sees
 *    the old day or the new one, or for an instant no manifest, never one that is wrong.
 * 4. The record is rewritten `done` (record.ts), with the files and rows of the whole erasure.
 *
 * A run cut short anywhere — even by SIGKILL — is finished by running it again: the erasure's
 * `started` record is taken up again (one record per erasure), a manifest kept aside is put
 * back with its file's counts, a file with no such row left is not rewritten, a manifest whose
 * counts do not match its file is corrected, and the local copies a killed run left in the temp
 * folder are removed.
 */
import type { Destination } from '../../shared/storage/destination.js';
import { ConfigError } from '../../shared/errors.js';
import type { PersonalDataPolicy } from '../../warehouse/column-policy.js';
import { rewritingDays } from '../../warehouse/lake/rollups.js';
import { erasureKey, erasureShares, type ErasureRecord, type ErasureShare } from '../erasures.js';
import { checkLakeKey, hashedTables, inspectLake, listable, type HashedTable } from './inspect.js';
import { finishErasure, planErasure, startErasure } from './record.js';
import { putBackKeptManifests, rewriteFiles } from './rewrite.js';
import { peopleOf, scanLake, type Person, type ScannedFile } from './scan.js';
import { openWork } from './work.js';

export { checkLakeKey, inspectLake, type LakeInspection } from './inspect.js';
export { FORGETTING_PREFIX, forgettingKey } from './rewrite.js';

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
  /** What share of each affected table's rows in each month the erasure removes (as recorded when it started). */
  readonly shares: readonly ErasureShare[];
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
  readonly iceberg?: ((tables: readonly HashedTable[], hmacs: readonly string[]) => Promise<unknown>) | undefined;
}

/** Forgets one person: `forgetPeople` with one address. */
export function forgetPerson(request: ForgetRequest, deps: ForgetDeps): Promise<ForgetResult> {
  return forgetPeople({ addresses: [request.address], dryRun: request.dryRun }, deps);
}

/**
 * Forgets every person of `request.addresses` in one pass over the lake: each file is read
 * once, and rewritten once without the rows of any of them — the four steps of the module's
 * header, each one call.
 */
export async function forgetPeople(request: ForgetManyRequest, deps: ForgetDeps): Promise<ForgetResult> {
  const destination = listable(deps.destination);
  if (request.addresses.length === 0) throw new ConfigError('forget was given no address: give --email ADDRESS or --emails-file FILE');
  // 0. It never silently misses.
  checkLakeKey(await inspectLake(destination, deps.policy), deps.keyId, destination.url, deps.deploymentKey?.keyId);
  const people = peopleOf(request.addresses, deps.deploymentKey === undefined ? [deps.key] : [deps.key, deps.deploymentKey.key]);
  const hmacs = [...people.byHmac.keys()];
  // 1. The erasure is recorded first.
  const started = request.dryRun ? undefined : await startErasure(destination, hmacs, deps.keyId, deps.now);
  const work = await openWork(destination, [...people.owner.keys()], deps.tempDir);
  try {
    let manifestsFixed = started === undefined ? 0 : await putBackKeptManifests(work);
    // 2. Every file is read once.
    const tables = hashedTables(deps.policy);
    const scanned = await scanLake(tables, people, { ...work, destination });
    const files = scanned.filter((file) => file.matching > 0).map(forgottenFile);
    const rows = files.reduce((sum, file) => sum + file.rows, 0);
    const shares = erasureShares(scanned.map((file) => ({ table: file.table.name, day: file.day, total: file.total, matching: file.matching })));
    if (started === undefined) {
      for (const file of files) deps.onFile?.(file);
      return resultOf({ keyId: deps.keyId, people: [...people.byHmac.values()].map(summaryOf), files, rows, shares, manifestsFixed, dryRun: true });
    }
    const planned = await planErasure(destination, started, { files: files.length, rows }, shares);
    // 3. Each file holding such rows is rewritten without them (and the Iceberg tables' rows deleted).
    // The months' roll-ups holding them removed first, built again from the new files (warehouse/lake/rollups.ts).
    const matching = scanned.filter((file) => file.matching > 0);
    manifestsFixed += await rewritingDays(destination, matching, () =>
      rewriteFiles(scanned, work, deps.onFile && ((file) => deps.onFile?.(forgottenFile(file)))),
    );
    await deps.iceberg?.(tables, [...people.owner.keys()]);
    // 4. The record is rewritten `done`.
    const done = await finishErasure(destination, planned, deps.now);
    const summaries = [...people.byHmac.values()].map((person) => recordedSummary(person, people.byHmac.size, done, started.planned !== undefined));
    return resultOf({ keyId: deps.keyId, people: summaries, files, rows, shares: planned.shares ?? shares, manifestsFixed, dryRun: false });
  } finally {
    await work.close();
  }
}

const forgottenFile = ({ key, table, day, projectId, matching }: ScannedFile): ForgottenFile => ({ key, table: table.name, day, projectId, rows: matching });

const summaryOf = (person: Person): PersonForgotten => ({ hmac: person.hmac, rows: person.rows, files: person.files });

/** A person's summary with the erasure as recorded: one person gets the whole erasure's counts (an earlier run's included); several, each one's own. */
function recordedSummary(person: Person, people: number, done: ErasureRecord, resumed: boolean): PersonForgotten {
  const counts = people === 1 ? { files: done.files ?? 0, rows: done.rows ?? 0 } : { files: person.files, rows: person.rows };
  return { ...summaryOf(person), erasure: { ...counts, startedAt: done.at, resumed }, record: erasureKey(done) };
}

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
