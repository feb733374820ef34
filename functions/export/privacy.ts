/**
 * The personal-data policy applied on the export's write path (docs/privacy.md): a page is
 * governed in memory as soon as it is parsed — before it is staged, checkpointed, turned into
 * rows, sampled for drift or quoted anywhere — so nothing raw is ever written. Rows of a person
 * who was forgotten (`forget`) are left out of every file written after the erasure.
 */
import { createHash } from 'node:crypto';
import type { Destination } from '../shared/storage/destination.js';
import { hmacOf, maskDeep } from '../shared/personal-data/index.js';
import { governField, type PersonalDataPolicy } from '../warehouse/column-policy.js';
import type { ColumnPolicy, TableDef } from '../warehouse/table-def.js';
import type { PersonalDataKeySource } from '../shared/personal-data/index.js';
import { tablesOf, type CatalogEntry } from '../warehouse/catalog.js';
import { readErasureRecords } from './erasures.js';

/**
 * What a unit governs personal data with. The key is there only for a unit whose tables have
 * an `hmac` column under the policy: it is read — and, on a laptop, generated and said — when a
 * unit first needs it, never by a run or a command that hashes nothing (`unitPrivacy`).
 */
export interface Privacy {
  readonly policy: PersonalDataPolicy;
  /** The HMAC key (never written anywhere); absent for a unit without an `hmac` column. */
  readonly key?: string;
  /** Its id, recorded in manifests and erasures; absent with the key. */
  readonly keyId?: string;
  /**
   * For an organisation: the deployment's key, which its lake was hashed with before keys were
   * per organisation — a person erased under it stays out (`pageGovernor`).
   */
  readonly deploymentKey?: string;
  /** HMACs of forgotten people: a row holding one in an `hmac` column is not written. */
  readonly erased: ReadonlySet<string>;
}

/** What a run governs personal data with: the policy, the erasures, and where the key comes from (read on first need). */
export interface RunPrivacy {
  readonly policy: PersonalDataPolicy;
  readonly erased: ReadonlySet<string>;
  readonly keySource: PersonalDataKeySource;
}

/**
 * The privacy of a unit of `def`: with the key when one of its tables has an `hmac` column
 * (the key is read then — generated, on a laptop, the first time), without it otherwise.
 */
export async function unitPrivacy(run: RunPrivacy, def: CatalogEntry): Promise<Privacy> {
  const { policy, erased } = run;
  if (!tablesOf(def).some((table) => policy.hmacColumns(table).length > 0)) return { policy, erased };
  const { key, keyId, deploymentKey } = await run.keySource.get();
  return { policy, erased, key, keyId, ...(deploymentKey !== undefined ? { deploymentKey: deploymentKey.key } : {}) };
}

/** What a manifest records of the policy its files were written with: never the key. */
export interface ManifestPrivacy {
  /** The key the `hmac` columns were written with; absent for a unit without one. */
  readonly keyId?: string;
  /** `<table>.<column>` → policy, for the unit's columns whose policy is not `keep`. */
  readonly columns: Readonly<Record<string, ColumnPolicy>>;
}

/**
 * The policy of one table's personal fields, applied in place to a page its dataset's reader
 * has just parsed (the page is this process's own object): each personal field of each row,
 * the values of the fields this version does not know (masked), and the page's unknown
 * top-level fields (masked). Built once per page by the reader (`datasets.ts`), which hands
 * each row over once, with the unknown fields it already found.
 */
export interface PageGovernor {
  /** Governs one row of the page and, when they are masked, its unknown fields (`unknown` is updated with the row). */
  row(row: Record<string, unknown>, unknown: Record<string, unknown> | undefined): void;
  /** Masks the page's top-level fields this version does not know. */
  topLevel(page: Record<string, unknown>, names: readonly string[]): void;
}

/**
 * The governor of pages of `table`, whose personal columns come from the API fields
 * `personalFields` names (`column → field`).
 */
export function pageGovernor(table: TableDef, personalFields: Readonly<Record<string, string>>, privacy: Privacy): PageGovernor {
  const { policy, key, deploymentKey, erased } = privacy;
  const fields = Object.entries(personalFields).flatMap(([column, field]) => {
    const columnPolicy = policy.of(table.name, column);
    return columnPolicy === 'keep' ? [] : [{ field, policy: columnPolicy }];
  });
  const maskUnknown = policy.of(table.name, 'unknown_fields') === 'mask';
  return {
    row(row, unknown) {
      for (const { field, policy: columnPolicy } of fields) {
        if (!(field in row)) continue;
        // Erased before keys were per organisation: the row keeps that HMAC, so isErased leaves it out (staged too).
        const earlier = erasedEarlier(row[field], columnPolicy, deploymentKey, erased);
        if (earlier !== undefined) row[field] = earlier;
        else governField(row, field, columnPolicy, keyFor(columnPolicy, key));
      }
      if (!maskUnknown || unknown === undefined) return;
      for (const name of Object.keys(unknown)) {
        const masked = maskDeep(row[name]);
        row[name] = masked;
        unknown[name] = masked;
      }
    },
    topLevel(page, names) {
      for (const name of names) page[name] = maskDeep(page[name]);
    },
  };
}

/** The HMAC under the deployment's key of a value of an `hmac` column, when a person was erased under it; else undefined. */
function erasedEarlier(value: unknown, policy: ColumnPolicy, deploymentKey: string | undefined, erased: ReadonlySet<string>): string | undefined {
  if (policy !== 'hmac' || deploymentKey === undefined || erased.size === 0 || typeof value !== 'string') return undefined;
  const hmac = hmacOf(deploymentKey, value);
  return erased.has(hmac) ? hmac : undefined;
}

/** The key for `policy`: an `hmac` column without one is a wiring mistake (unitPrivacy gives it to every unit that has one). */
function keyFor(policy: ColumnPolicy, key: string | undefined): string {
  if (policy === 'hmac' && key === undefined)
    throw new Error("an hmac column was governed without the personal-data key: resolve the unit's privacy with unitPrivacy");
  return key ?? '';
}

/** Whether `row` of `table` belongs to a forgotten person (one of its `hmac` columns holds an erased HMAC). */
export function isErased(table: TableDef, row: Readonly<Record<string, unknown>>, privacy: Pick<Privacy, 'policy' | 'erased'>): boolean {
  if (privacy.erased.size === 0) return false;
  return privacy.policy.hmacColumns(table).some((column) => {
    const value = row[column];
    return typeof value === 'string' && privacy.erased.has(value);
  });
}

/** The policy of `tables` as a manifest records it. */
export function manifestPrivacy(tables: readonly TableDef[], privacy: Pick<Privacy, 'policy' | 'keyId'>): ManifestPrivacy {
  const columns: Record<string, ColumnPolicy> = {};
  for (const table of tables) {
    for (const column of table.columns) {
      const policy = privacy.policy.of(table.name, column.name);
      if (policy !== 'keep') columns[`${table.name}.${column.name}`] = policy;
    }
  }
  return { ...(privacy.keyId !== undefined ? { keyId: privacy.keyId } : {}), columns };
}

/**
 * A short fingerprint of the policy and key a page was governed with: a checkpoint records it,
 * and staged pages governed otherwise are not mixed with new ones (the unit starts again).
 */
export function privacyFingerprint(privacy: Pick<Privacy, 'policy' | 'keyId'>): string {
  return createHash('sha256')
    .update(JSON.stringify([privacy.keyId ?? '', privacy.policy.governed]))
    .digest('hex')
    .slice(0, 16);
}

/**
 * A run's privacy set-up: the policy, the erasures `destination` recorded, and where the key
 * comes from — read only when a unit needs it (`unitPrivacy`).
 */
export async function prepareRunPrivacy(destination: Destination, policy: PersonalDataPolicy, keySource: PersonalDataKeySource): Promise<RunPrivacy> {
  const erased = await readErasedHmacs(destination);
  return { policy, erased, keySource };
}

/** The HMACs every erasure of `destination` recorded (`_privacy/erasures/`). */
export async function readErasedHmacs(destination: Destination): Promise<Set<string>> {
  const records = await readErasureRecords(destination);
  return new Set(records.flatMap((record) => record.hmacs ?? [record.hmac]));
}
