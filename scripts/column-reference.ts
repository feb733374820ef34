/**
 * The column reference of docs/warehouse.md, generated from the one table definition
 * (`functions/warehouse/tables.ts`) that the Parquet writer and the Glue tables are generated
 * from too, so the docs, the files and Athena cannot disagree. `npm run docs` writes it
 * between the markers; a test fails when the file holds another text. Types are DuckDB's, from
 * the one type map (functions/warehouse/duckdb.ts) the report and `gaps` read with.
 */
import { DATASET_TABLES } from '../functions/warehouse/catalog.js';
import { duckDbType } from '../functions/warehouse/duckdb.js';
import { TABLES } from '../functions/warehouse/tables.js';
import type { TableDef } from '../functions/warehouse/table-def.js';
import { dayFolder } from '../functions/warehouse/lake/layout.js';
import { policyLabel, resolvePolicy } from '../functions/warehouse/column-policy.js';

/** The policies the reference shows: the defaults (PERSONAL_DATA_POLICY may override the personal columns', docs/privacy.md). */
const DEFAULT_POLICY = resolvePolicy({});

export const BEGIN_MARKER = '<!-- column-reference:begin (generated from functions/warehouse/tables.ts by `npm run docs`; do not edit) -->';
export const END_MARKER = '<!-- column-reference:end -->';

/** A table cell: no line breaks, no pipe that would end the cell. */
function cell(text: string): string {
  return text.replace(/\s+/g, ' ').replace(/\|/g, '\\|');
}

function tableSection(table: TableDef, datasets: readonly string[]): string {
  const origin = datasets.length > 0 ? `dataset ${datasets.map((name) => `\`${name}\``).join(', ')}` : 'not an analytics dataset';
  const lines = [
    `### \`${table.name}\``,
    '',
    `${cell(table.comment)} (${table.format === 'parquet' ? 'Parquet' : 'JSON, one object per line'}; ${origin}; \`${dayFolder(table.prefix, 'YYYY-MM-DD')}/\`)`,
    '',
    '| column | type | null | policy | meaning |',
    '|---|---|---|---|---|',
    ...table.columns.map((column) => {
      const known = column.knownValues ? ` Known values: ${column.knownValues.map((value) => `\`${value}\``).join(', ')}; others are kept as sent.` : '';
      const glue = column.tableFormat ? ` The Glue table declares it with \`tableFormat=${column.tableFormat}\` only.` : '';
      return `| \`${column.name}\` | ${duckDbType(column)} | ${column.optional ? 'yes' : ''} | ${policyLabel(table, column, DEFAULT_POLICY)} | ${cell(column.comment)}.${known}${glue} |`;
    }),
  ];
  return lines.join('\n');
}

/** The generated reference: one section per table of `TABLES`, in its order. */
export function columnReference(): string {
  const datasetsOf = (table: TableDef) =>
    Object.entries(DATASET_TABLES)
      .filter(([, tables]) => tables.includes(table))
      .map(([name]) => name);
  return TABLES.map((table) => tableSection(table, datasetsOf(table))).join('\n\n');
}

/** `doc` with the text between the markers replaced by the current reference; throws without both markers. */
export function withColumnReference(doc: string): string {
  const begin = doc.indexOf(BEGIN_MARKER);
  const end = doc.indexOf(END_MARKER);
  if (begin < 0 || end < begin) throw new Error(`the document has no ${BEGIN_MARKER} … ${END_MARKER} block`);
  return `${doc.slice(0, begin + BEGIN_MARKER.length)}\n\n${columnReference()}\n\n${doc.slice(end)}`;
}
