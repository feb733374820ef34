/**
 * Step 0 of `forget` (index.ts): it never silently misses. The destination's manifests are read
 * before anything is written: a destination that holds no export, or whose manifests record
 * another key's id, stops the erasure with a ConfigError (exit 2).
 */
import { CATALOG, DATASET_NAMES, type DatasetName } from '../../warehouse/catalog.js';
import type { Destination } from '../../shared/storage/destination.js';
import { ConfigError, DestinationError } from '../../shared/errors.js';
import type { PersonalDataPolicy } from '../../warehouse/column-policy.js';
import type { TableDef } from '../../warehouse/table-def.js';
import { readJsonObject } from '../staging.js';
import { MANIFESTS_PREFIX } from '../../warehouse/keys.js';

/** A table with an `hmac` column, the dataset that writes it, and its hashed columns. */
export interface HashedTable {
  readonly table: TableDef;
  readonly dataset: DatasetName;
  readonly columns: readonly string[];
}

/** The tables with an `hmac` column under `policy`, each with the dataset that writes it. */
export function hashedTables(policy: PersonalDataPolicy): HashedTable[] {
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

/** The destination, when it can list its files (forget must). */
export function listable(destination: Destination): Destination & Required<Pick<Destination, 'list'>> {
  if (!destination.list) throw new DestinationError(`${destination.url} cannot list its files: forget needs a destination it can list`);
  return destination as Destination & Required<Pick<Destination, 'list'>>;
}

/**
 * Reads what `forget` must know before it changes anything: the destination's manifests and
 * the key ids they record. Writes nothing.
 * @throws ConfigError when the destination holds no export (a mistyped `--out`, an empty folder).
 */
export async function inspectLake(destination: Destination, policy: PersonalDataPolicy): Promise<LakeInspection> {
  const keys = (await listable(destination).list(`${MANIFESTS_PREFIX}/`)).filter((key) => key.endsWith('.json'));
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
