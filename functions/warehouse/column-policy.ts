/**
 * The personal-data policy of each column (docs/privacy.md): declared with the column in
 * `tables.ts` (`policy`, `personal`), resolved here with the overrides (PERSONAL_DATA_POLICY,
 * context `personalDataPolicy`). The transformations themselves (keyed hash, masking) are in
 * `shared/personal-data/`.
 */
import { CATALOG } from './catalog.js';
import { ConfigError } from '../shared/errors.js';
import { createHash } from 'node:crypto';
import { hmacOf, maskDeep, maskPath } from '../shared/personal-data/index.js';
import { TABLES } from './tables.js';
import type { ColumnDef, ColumnPolicy, TableDef } from './table-def.js';

export const COLUMN_POLICIES: readonly ColumnPolicy[] = ['keep', 'drop', 'hmac', 'mask', 'path'];

// --- the policy --------------------------------------------------------------------------------

/** Overrides by `<table>.<column>`. */
export type PolicyOverrides = Readonly<Record<string, ColumnPolicy>>;

/** Whether a column's policy may be overridden: a personal column, or a page path or URL (`path`). */
const isGoverned = (column: ColumnDef) => column.personal === true || column.policy === 'path';

/** Every column whose policy may be overridden: `<table>.<column>` → its definition. */
function personalColumns(): Map<string, { table: TableDef; column: ColumnDef }> {
  const columns = new Map<string, { table: TableDef; column: ColumnDef }>();
  for (const table of TABLES) for (const column of table.columns) if (isGoverned(column)) columns.set(`${table.name}.${column.name}`, { table, column });
  return columns;
}

/** `<dataset>.<column>` → `<table>.<column>` of the dataset's main table (`assistant.response`). */
function canonicalName(name: string): string {
  const dot = name.indexOf('.');
  const entry = CATALOG.find((candidate) => candidate.name === name.slice(0, dot));
  return entry === undefined ? name : `${entry.table.name}${name.slice(dot)}`;
}

/**
 * Parses `feedback.contact=drop,assistant.response=keep` (a table or dataset name, a personal
 * column, a policy). Throws a ConfigError naming `source` and the fix.
 */
export function parsePolicyOverrides(raw: string, source: string): PolicyOverrides {
  const known = personalColumns();
  const names = [...known.keys()].join(', ');
  const overrides: Record<string, ColumnPolicy> = {};
  for (const item of raw.split(',').map((part) => part.trim())) {
    if (item === '') continue;
    const match = /^([A-Za-z0-9_]+\.[A-Za-z0-9_]+)=([a-z]+)$/.exec(item);
    const shown = item.slice(0, 60);
    if (!match) throw new ConfigError(`${source} entry "${shown}" is not <table>.<column>=<policy>: e.g. feedback.contact=drop`);
    const name = canonicalName(match[1] as string);
    const policy = match[2] as string;
    const found = known.get(name);
    if (!found) throw new ConfigError(`${source}: ${match[1]} is not a personal or path column: use one of ${names}`);
    if (!(COLUMN_POLICIES as readonly string[]).includes(policy)) {
      throw new ConfigError(`${source} entry "${shown}": the policy must be one of ${COLUMN_POLICIES.join(', ')}`);
    }
    // A path hashed or dropped says nothing any more (and is never null): clean it, keep it, or mask it.
    if (found.column.personal !== true && (policy === 'hmac' || policy === 'drop')) {
      throw new ConfigError(`${source}: ${match[1]} is a page path, not a personal column: use path, keep or mask`);
    }
    if (policy === 'drop' && found.column.optional !== true) {
      throw new ConfigError(`${source}: ${match[1]} is never null, so it cannot be drop: use hmac, mask or keep`);
    }
    overrides[name] = policy as ColumnPolicy;
  }
  return Object.freeze(overrides);
}

/** The resolved policy of every column. */
export interface PersonalDataPolicy {
  /** The policy of `table`'s `column` (`keep` for a column without one). */
  of(table: string, column: string): ColumnPolicy;
  /** Every column whose policy is not `keep`, `<table>.<column>` → policy, sorted (what manifests record). */
  readonly governed: Readonly<Record<string, ColumnPolicy>>;
  /** The columns of `table` whose policy is `hmac` (where an erasure looks). */
  hmacColumns(table: TableDef): readonly string[];
}

/** The defaults of `tables.ts` with `overrides` applied. */
export function resolvePolicy(overrides: PolicyOverrides): PersonalDataPolicy {
  const byName = new Map<string, ColumnPolicy>();
  for (const table of TABLES) {
    for (const column of table.columns) {
      const name = `${table.name}.${column.name}`;
      byName.set(name, overrides[name] ?? column.policy ?? 'keep');
    }
  }
  const governed = Object.fromEntries([...byName].filter(([, policy]) => policy !== 'keep').sort(([a], [b]) => a.localeCompare(b)));
  return {
    of: (table, column) => byName.get(`${table}.${column}`) ?? 'keep',
    governed,
    hmacColumns: (table) => table.columns.filter((column) => byName.get(`${table.name}.${column.name}`) === 'hmac').map((column) => column.name),
  };
}

/** The tables that hold a personal column: their days expire (PERSONAL_DATA_RETENTION_DAYS). */
export const PERSONAL_TABLES: readonly TableDef[] = TABLES.filter((table) => table.columns.some((column) => column.personal));

/** What a column's value becomes under `policy`: null stays null, a string is kept, dropped, hashed, masked or cleaned as a path. */
function applyPolicy(policy: ColumnPolicy, value: unknown, key: string): unknown {
  if (value === null || value === undefined || policy === 'keep') return value;
  if (policy === 'drop') return null;
  if (policy === 'hmac') return typeof value === 'string' ? hmacOf(key, value) : value;
  if (policy === 'path') return typeof value === 'string' ? maskPath(value) : maskDeep(value);
  return maskDeep(value);
}

/**
 * Where a row governed in memory keeps a fingerprint of a path the `path` policy changed
 * (never written: a symbol is not serialised): two paths the cleaning made alike
 * (`/signup?email=a@x.io`, `/signup?email=b@x.io`) stay two keys for the paging's
 * duplicate check (`rowKeyOf`).
 */
const SENT_AS = Symbol('path as sent, fingerprinted');

/** Applies `policy` to `row[field]` in place; a path it changed leaves its fingerprint (`rowKeyOf`). */
export function governField(row: Record<string, unknown>, field: string, policy: ColumnPolicy, key: string): void {
  const value = row[field];
  const governed = applyPolicy(policy, value, key);
  if (policy === 'path' && typeof value === 'string' && governed !== value) {
    const marked = row as Record<symbol, Record<string, string> | undefined>;
    marked[SENT_AS] = { ...marked[SENT_AS], [field]: `sent as #${createHash('sha256').update(value).digest('hex').slice(0, 16)}` };
  }
  row[field] = governed;
}

/** A row's key in `field`: the value as sent (its fingerprint) when the `path` policy changed it, else the value. */
export function rowKeyOf(row: object, field: string): string {
  const sentAs = (row as Record<symbol, Record<string, string> | undefined>)[SENT_AS]?.[field];
  return sentAs ?? String((row as Record<string, unknown>)[field]);
}

/**
 * A column's comment as the Glue table and the column reference give it: its meaning, then its
 * policy (`[hmac, personal data]`, `[keep]`), so a reader of the catalog knows what is stored.
 */
export function commentWithPolicy(table: TableDef, column: ColumnDef, policy: PersonalDataPolicy): string {
  return `${column.comment} [${policyLabel(table, column, policy)}]`;
}

/** `hmac, personal data`, `mask`, `keep`: a column's policy, and whether it holds personal data. */
export function policyLabel(table: TableDef, column: ColumnDef, policy: PersonalDataPolicy): string {
  return `${policy.of(table.name, column.name)}${column.personal ? ', personal data' : ''}`;
}
