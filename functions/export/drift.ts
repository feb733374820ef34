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
 */
import { displayText } from '../shared/display.js';
import { stringifyJson } from '../shared/lossless-json.js';
import type { TableDef } from '../warehouse/tables.js';

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

/** New field names a warning line lists per dataset; the manifest lists up to `MAX_FIELDS`. */
const MAX_WARNING_FIELDS = 10;

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

/** A name or an enum value as a log line may show it: one short line, nothing that changes the display. */
function clipped(text: string): string {
  const clean = displayText(text);
  return clean.length > 40 ? `${clean.slice(0, 37)}...` : clean;
}

/** At most `MAX_WARNING_FIELDS` of `names`, then how many more (`more` of them not even in the manifest). */
function listed(names: readonly string[], more = 0): string {
  const shownNames = names.slice(0, MAX_WARNING_FIELDS).join(', ');
  const left = names.length - Math.min(names.length, MAX_WARNING_FIELDS) + more;
  return left > 0 ? `${shownNames} and ${left} more` : shownNames;
}

/** An enum value, quoted (it may hold spaces or commas). */
function shown(value: string): string {
  return JSON.stringify(clipped(value));
}

/** A run's drift of one dataset, for its warning: the dataset and the units that drifted. */
export interface RunDrift {
  readonly dataset: string;
  readonly units: number;
}

/**
 * One line naming drift: field names, enum values and top-level field names, never any other
 * value (a query, a comment, an address stays in the table). Two forms, for two readers:
 * - of a run (`{ dataset, units }`): the export's warning, run log and `status` — each name as
 *   `table.field`, what was kept and where, and where to read more;
 * - of one `'unit'`: the report's calendar cell, short (`feedback: new field sentiment; new
 *   value source = widget · answer: new field meta`), from a manifest's drift read defensively
 *   (the manifest check leaves `drift` loose; an older manifest has none): undefined for none.
 */
export function describeDrift(drift: Drift, of: RunDrift): string;
export function describeDrift(drift: unknown, of: 'unit'): string | undefined;
export function describeDrift(drift: unknown, of: RunDrift | 'unit'): string | undefined {
  return of === 'unit' ? describeUnitDrift(drift) : describeRunDrift(drift as Drift, of);
}

function describeRunDrift(drift: Drift, { dataset, units }: RunDrift): string {
  const entries = Object.entries(drift.tables);
  const fields = entries.flatMap(([table, entry]) => entry.fields.map((field) => `${table}.${clipped(field)}`));
  const moreFields = entries.reduce((sum, [, entry]) => sum + (entry.moreFields ?? 0), 0);
  const nested = entries.some(([, entry]) => entry.fields.some(isNestedName));
  const values = entries.flatMap(([table, entry]) => Object.entries(entry.values).map(([column, list]) => `${table}.${column} ${list.map(shown).join(', ')}`));
  const topLevel = drift.topLevelFields.length + (drift.moreTopLevelFields ?? 0);
  const parts = [
    ...(fields.length > 0
      ? [`new field(s) ${listed(fields, moreFields)} (kept in unknown_fields${nested ? '; nested ones as sent in their column' : ''})`]
      : []),
    ...(values.length > 0 ? [`new value(s) ${values.join('; ')} (kept as sent)`] : []),
    ...(topLevel > 0
      ? [`new top-level field(s) ${listed(drift.topLevelFields.map(clipped), drift.moreTopLevelFields)} (named in the manifest; their values were not kept)`]
      : []),
  ];
  const lost = topLevel > 0 ? 'nothing else was lost' : 'nothing was lost';
  return `the API's ${dataset} answers changed in ${units} unit(s): ${parts.join('; ')}; ${lost} (see SchemaDrift in docs/operations.md)`;
}

/** The drift a manifest names, read defensively: a part that is not what it should be is none. */
interface ManifestDrift {
  readonly tables?: Readonly<Record<string, { readonly fields?: readonly string[]; readonly values?: Readonly<Record<string, readonly string[]>> }>>;
  readonly topLevelFields?: readonly string[];
}

function describeUnitDrift(drift: unknown): string | undefined {
  if (drift === null || typeof drift !== 'object') return undefined;
  const { tables, topLevelFields } = drift as ManifestDrift;
  const parts: string[] = [];
  for (const [table, change] of Object.entries(tables ?? {})) {
    const fields = Array.isArray(change?.fields) ? change.fields.map(String) : [];
    const values = Object.entries(change?.values ?? {}).map(([field, list]) => `${field} = ${(Array.isArray(list) ? list : []).map(String).join(', ')}`);
    if (fields.length + values.length > 0)
      parts.push(`${table}: ${[...fields.map((f) => `new field ${f}`), ...values.map((v) => `new value ${v}`)].join('; ')}`);
  }
  const top = Array.isArray(topLevelFields) ? topLevelFields.map(String) : [];
  if (top.length > 0) parts.push(`answer: new field ${top.join(', ')}`);
  return parts.length > 0 ? parts.join(' · ') : undefined;
}

/** A name by path inside a known field (`sources[].score`), not a field of the row itself. */
function isNestedName(name: string): boolean {
  return name.includes('[].') || name.includes('.');
}
