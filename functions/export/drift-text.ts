/**
 * The lines that name schema drift (drift.ts) to people: field names, enum values and top-level
 * field names, never any other value (a query, a comment, an address stays in the table). Two
 * readers, two functions:
 * - `describeRunDrift`: a run's drift of one dataset, for the export's warning, run log and
 *   `status` — each name as `table.field`, what was kept and where, and where to read more;
 * - `describeUnitDrift`: one unit's drift as its manifest names it (manifest.ts reads it through
 *   `MANIFEST_DRIFT`), for the report's calendar cell, short (`feedback: new field sentiment;
 *   new value source = widget · answer: new field meta`).
 */
import { displayText } from '../shared/display.js';
import type { Drift } from './drift.js';

/** New field names a warning line lists per dataset; the manifest lists up to `MAX_FIELDS` (drift.ts). */
const MAX_WARNING_FIELDS = 10;

/** A run's drift of one dataset, for its warning: the dataset and the units that drifted. */
export interface RunDrift {
  readonly dataset: string;
  readonly units: number;
}

/** The warning that names a run's drift of one dataset: what changed, what was kept and where to read more. */
export function describeRunDrift(drift: Drift, { dataset, units }: RunDrift): string {
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

/** The report's calendar cell of one unit's drift; undefined when it names nothing (no drift, or an empty one). */
export function describeUnitDrift(drift: Drift | undefined): string | undefined {
  if (drift === undefined) return undefined;
  const parts: string[] = [];
  for (const [table, change] of Object.entries(drift.tables)) {
    const values = Object.entries(change.values).map(([field, list]) => `${field} = ${list.join(', ')}`);
    if (change.fields.length + values.length > 0)
      parts.push(`${table}: ${[...change.fields.map((f) => `new field ${f}`), ...values.map((v) => `new value ${v}`)].join('; ')}`);
  }
  if (drift.topLevelFields.length > 0) parts.push(`answer: new field ${drift.topLevelFields.join(', ')}`);
  return parts.length > 0 ? parts.join(' · ') : undefined;
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

/** A name by path inside a known field (`sources[].score`), not a field of the row itself. */
function isNestedName(name: string): boolean {
  return name.includes('[].') || name.includes('.');
}
