/**
 * Schema drift: what an answer held that this version does not know — fields (kept whole in
 * each row's `unknown_fields`; inside a known field, such as a cited source's `score`, kept as
 * sent in that field's column and named by path, `sources[].score`), values of the enum columns
 * (kept as sent in their column) and top-level fields of the answer (named only: their values
 * are not kept, and the warning says so). Drift is never an error: the unit is written, the
 * drift is named in its manifest, in one warning per dataset of the run, in the run log, in
 * `status` and in the `SchemaDrift` metric (docs/operations.md, "SchemaDrift").
 *
 * Names are bounded: at most `MAX_FIELDS` per table (and top-level) in a manifest, each at most
 * `MAX_NAME_LENGTH` characters and made safe to show (`displayText`), with a count of the
 * names left out — an answer with 10,000 new fields must not make a manifest of 240 KB.
 * The lines that name drift to people are drift-text.ts's.
 */
import { displayText } from '../shared/display.js';
import { stringifyJson } from '../shared/lossless-json.js';
import type { TableDef } from '../warehouse/table-def.js';

/** Drift of one table of a unit. */
export interface TableDrift {
  /**
   * Names of the fields of its rows this version does not know (sorted, at most `MAX_FIELDS`);
   * nested ones by path (`sources[].score`).
   */
  readonly fields: readonly string[];
  /** How many more new field names there were than `fields` lists (absent: none). */
  readonly moreFields?: number;
  /** Per enum column, the values this version does not know (sorted, at most `MAX_VALUES`). */
  readonly values: Readonly<Record<string, readonly string[]>>;
}

/** The manifest's `drift`: absent when the unit had none. */
export interface Drift {
  readonly tables: Readonly<Record<string, TableDrift>>;
  /** Top-level fields of the answer this version does not know (names only, sorted, at most `MAX_FIELDS`). */
  readonly topLevelFields: readonly string[];
  /** How many more new top-level field names there were than `topLevelFields` lists (absent: none). */
  readonly moreTopLevelFields?: number;
}

/** New field names listed per table (and top-level) in a manifest; the rest are counted. */
export const MAX_FIELDS = 50;

/** A field name longer than this is cut (with `…`) where it is named; the row keeps it whole. */
export const MAX_NAME_LENGTH = 100;

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
  return fields === undefined ? null : stringifyJson(fields);
}

/**
 * What one page held that this version does not know, as its dataset's reader found it
 * (`datasets.ts`): the recorder adds it up over the unit's pages.
 */
export interface PageDrift {
  /** Names of the page's top-level fields this version does not know. */
  readonly topLevelFields: readonly string[];
  /** Names of the unknown fields of the rows kept (nested ones by path, `sources[].score`). */
  readonly rowFields: readonly string[];
  /** The unknown fields of the page's `totals` object (the summary row's `unknown_fields`); undefined without. */
  readonly totalsUnknown: Record<string, unknown> | undefined;
}

/** Collects the drift of one unit while its rows are written. */
export class DriftRecorder {
  private readonly tables = new Map<string, { fields: Set<string>; values: Map<string, Set<string>> }>();
  private readonly topLevel = new Set<string>();
  private readonly enums = new Map<TableDef, readonly { name: string; known: ReadonlySet<string> }[]>();

  /**
   * A row as written to `table`, the unknown fields of the API object it came from, and the
   * names of the unknown fields inside its known ones (`sources[].score`).
   */
  row(table: TableDef, row: Readonly<Record<string, unknown>>, unknown: Record<string, unknown> | undefined, nested: readonly string[] = []): void {
    if (unknown !== undefined) for (const name of Object.keys(unknown)) this.entry(table).fields.add(name);
    for (const name of nested) this.entry(table).fields.add(name);
    this.values(table, row);
  }

  /** The values of `row`'s enum columns this version does not know. */
  private values(table: TableDef, row: Readonly<Record<string, unknown>>): void {
    for (const column of this.enumColumns(table)) {
      const value = row[column.name];
      if (typeof value !== 'string' || column.known.has(value)) continue;
      const values = this.entry(table).values;
      const seen = values.get(column.name) ?? new Set<string>();
      if (seen.size < MAX_VALUES) seen.add(ENUM_VALUE.test(value) ? value : HIDDEN_VALUE);
      values.set(column.name, seen);
    }
  }

  /** A page of `table`'s rows as written, with the drift its reader found in it. */
  page(table: TableDef, rows: readonly Readonly<Record<string, unknown>>[], drift: PageDrift): void {
    this.topLevelFields(drift.topLevelFields);
    if (drift.rowFields.length > 0) {
      const fields = this.entry(table).fields;
      for (const name of drift.rowFields) fields.add(name);
    }
    for (const row of rows) this.values(table, row);
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
      const fields = boundedNames(entry.fields);
      tables[name] = { fields: fields.names, ...(fields.more > 0 ? { moreFields: fields.more } : {}), values };
    }
    if (Object.keys(tables).length === 0 && this.topLevel.size === 0) return undefined;
    const top = boundedNames(this.topLevel);
    return { tables, topLevelFields: top.names, ...(top.more > 0 ? { moreTopLevelFields: top.more } : {}) };
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

/**
 * At most `MAX_FIELDS` names (sorted, each cut to `MAX_NAME_LENGTH` and made safe to show),
 * and how many distinct names were left out.
 */
function boundedNames(all: Iterable<string>): { names: string[]; more: number } {
  const shown = [...new Set([...all].map(nameAsShown))].sort();
  return { names: shown.slice(0, MAX_FIELDS), more: Math.max(0, shown.length - MAX_FIELDS) };
}

/** A field name as a manifest and a log line show it: no character that changes the display, cut when long. */
function nameAsShown(name: string): string {
  const safe = displayText(name);
  return safe.length > MAX_NAME_LENGTH ? `${safe.slice(0, MAX_NAME_LENGTH - 1)}…` : safe;
}

/**
 * The union of two lists of names, at most `MAX_FIELDS`: the count left out is at least the
 * larger of the two counts, plus what the union no longer holds.
 */
function mergedNames(a: readonly string[], aMore: number | undefined, b: readonly string[], bMore: number | undefined) {
  const all = union(a, b);
  return { names: all.slice(0, MAX_FIELDS), more: Math.max(aMore ?? 0, bMore ?? 0) + Math.max(0, all.length - MAX_FIELDS) };
}

/** The union of two drifts (the units of one dataset in a run). */
export function mergeDrift(a: Drift | undefined, b: Drift | undefined): Drift | undefined {
  if (!a || !b) return a ?? b;
  const tables: Record<string, TableDrift> = {};
  for (const name of [...new Set([...Object.keys(a.tables), ...Object.keys(b.tables)])].sort()) {
    const x: TableDrift = a.tables[name] ?? { fields: [], values: {} };
    const y: TableDrift = b.tables[name] ?? { fields: [], values: {} };
    const values: Record<string, readonly string[]> = {};
    for (const column of [...new Set([...Object.keys(x.values), ...Object.keys(y.values)])].sort()) {
      values[column] = union(x.values[column] ?? [], y.values[column] ?? []).slice(0, MAX_VALUES);
    }
    const fields = mergedNames(x.fields, x.moreFields, y.fields, y.moreFields);
    tables[name] = { fields: fields.names, ...(fields.more > 0 ? { moreFields: fields.more } : {}), values };
  }
  const top = mergedNames(a.topLevelFields, a.moreTopLevelFields, b.topLevelFields, b.moreTopLevelFields);
  return { tables, topLevelFields: top.names, ...(top.more > 0 ? { moreTopLevelFields: top.more } : {}) };
}

function union(a: readonly string[], b: readonly string[]): string[] {
  return [...new Set([...a, ...b])].sort();
}
