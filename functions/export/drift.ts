/**
 * Schema drift: what an answer held that this version does not know — fields (kept whole in
 * each row's `unknown_fields`), values of the enum columns (kept as sent in their column) and
 * top-level fields of the answer (named only). Drift is never an error: the unit is written,
 * the drift is named in its manifest, in one warning per dataset of the run, in the run log,
 * in `status` and in the `SchemaDrift` metric (docs/operations.md, "SchemaDrift").
 */
import { stripControlCharacters } from '../shared/errors.js';
import type { TableDef } from '../shared/tables.js';

/** Drift of one table of a unit. */
export interface TableDrift {
  /** Names of the fields of its rows this version does not know (sorted). */
  readonly fields: readonly string[];
  /** Per enum column, the values this version does not know (sorted, at most `MAX_VALUES`). */
  readonly values: Readonly<Record<string, readonly string[]>>;
}

/** The manifest's `drift`: absent when the unit had none. */
export interface Drift {
  readonly tables: Readonly<Record<string, TableDrift>>;
  /** Top-level fields of the answer this version does not know (names only, sorted). */
  readonly topLevelFields: readonly string[];
}

/**
 * New values kept per enum column: a column that turned into free text would otherwise fill
 * the manifest; the values themselves are all in the table.
 */
export const MAX_VALUES = 20;

/**
 * What an enum value looks like (`widget`, `tool_call`, `in-review`). A new value that does
 * not — free text, an address — is never copied into a manifest or a log line: it is listed as
 * `HIDDEN_VALUE` (the row keeps it as sent).
 */
const ENUM_VALUE = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$/;
export const HIDDEN_VALUE = '(not an identifier: see the table)';

/** The JSON of `unknown_fields`: null when the row had no unknown field. */
export function unknownFieldsColumn(fields: Record<string, unknown> | undefined): string | null {
  return fields === undefined ? null : JSON.stringify(fields);
}

/** Collects the drift of one unit while its rows are written. */
export class DriftRecorder {
  private readonly tables = new Map<string, { fields: Set<string>; values: Map<string, Set<string>> }>();
  private readonly topLevel = new Set<string>();
  private readonly enums = new Map<TableDef, readonly { name: string; known: ReadonlySet<string> }[]>();

  /** A row as written to `table`, and the unknown fields of the API object it came from. */
  row(table: TableDef, row: Readonly<Record<string, unknown>>, unknown: Record<string, unknown> | undefined): void {
    if (unknown !== undefined) for (const name of Object.keys(unknown)) this.entry(table).fields.add(name);
    for (const column of this.enumColumns(table)) {
      const value = row[column.name];
      if (typeof value !== 'string' || column.known.has(value)) continue;
      const values = this.entry(table).values;
      const seen = values.get(column.name) ?? new Set<string>();
      if (seen.size < MAX_VALUES) seen.add(ENUM_VALUE.test(value) ? value : HIDDEN_VALUE);
      values.set(column.name, seen);
    }
  }

  /** Top-level fields of one answer this version does not know. */
  topLevelFields(names: readonly string[]): void {
    for (const name of names) this.topLevel.add(name);
  }

  /** The unit's drift, or undefined when it had none. */
  result(): Drift | undefined {
    const tables: Record<string, TableDrift> = {};
    for (const [name, entry] of [...this.tables].sort(([a], [b]) => a.localeCompare(b))) {
      if (entry.fields.size === 0 && entry.values.size === 0) continue;
      const values: Record<string, readonly string[]> = {};
      for (const [column, seen] of [...entry.values].sort(([a], [b]) => a.localeCompare(b))) values[column] = [...seen].sort();
      tables[name] = { fields: [...entry.fields].sort(), values };
    }
    if (Object.keys(tables).length === 0 && this.topLevel.size === 0) return undefined;
    return { tables, topLevelFields: [...this.topLevel].sort() };
  }

  private entry(table: TableDef) {
    let entry = this.tables.get(table.name);
    if (!entry) {
      entry = { fields: new Set(), values: new Map() };
      this.tables.set(table.name, entry);
    }
    return entry;
  }

  private enumColumns(table: TableDef) {
    let columns = this.enums.get(table);
    if (!columns) {
      columns = table.columns.flatMap((column) => (column.knownValues ? [{ name: column.name, known: new Set(column.knownValues) }] : []));
      this.enums.set(table, columns);
    }
    return columns;
  }
}

/** The union of two drifts (the units of one dataset in a run). */
export function mergeDrift(a: Drift | undefined, b: Drift | undefined): Drift | undefined {
  if (!a || !b) return a ?? b;
  const tables: Record<string, TableDrift> = {};
  for (const name of [...new Set([...Object.keys(a.tables), ...Object.keys(b.tables)])].sort()) {
    const x = a.tables[name] ?? { fields: [], values: {} };
    const y = b.tables[name] ?? { fields: [], values: {} };
    const values: Record<string, readonly string[]> = {};
    for (const column of [...new Set([...Object.keys(x.values), ...Object.keys(y.values)])].sort()) {
      values[column] = union(x.values[column] ?? [], y.values[column] ?? []).slice(0, MAX_VALUES);
    }
    tables[name] = { fields: union(x.fields, y.fields), values };
  }
  return { tables, topLevelFields: union(a.topLevelFields, b.topLevelFields) };
}

function union(a: readonly string[], b: readonly string[]): string[] {
  return [...new Set([...a, ...b])].sort();
}

/** A name or an enum value as a log line may show it: one short line, no control character. */
function clipped(text: string): string {
  const clean = stripControlCharacters(text).replace(/\s+/g, ' ');
  return clean.length > 40 ? `${clean.slice(0, 37)}...` : clean;
}

/** An enum value, quoted (it may hold spaces or commas). */
function shown(value: string): string {
  return JSON.stringify(clipped(value));
}

/**
 * One line naming a dataset's drift: field names, enum values and top-level field names,
 * never any other value (a query, a comment, an address stays in the table).
 */
export function describeDrift(dataset: string, drift: Drift, units: number): string {
  const fields = Object.entries(drift.tables).flatMap(([table, entry]) => entry.fields.map((field) => `${table}.${clipped(field)}`));
  const values = Object.entries(drift.tables).flatMap(([table, entry]) =>
    Object.entries(entry.values).map(([column, list]) => `${table}.${column} ${list.map(shown).join(', ')}`),
  );
  const parts = [
    ...(fields.length > 0 ? [`new field(s) ${fields.join(', ')} (kept in unknown_fields)`] : []),
    ...(values.length > 0 ? [`new value(s) ${values.join('; ')} (kept as sent)`] : []),
    ...(drift.topLevelFields.length > 0 ? [`new top-level field(s) ${drift.topLevelFields.map(clipped).join(', ')} (named in the manifest)`] : []),
  ];
  return `the API's ${dataset} answers changed in ${units} unit(s): ${parts.join('; ')}; nothing was lost (see SchemaDrift in docs/operations.md)`;
}
