/**
 * SQL text for the warehouse's two engines (DuckDB and Athena), without loading either: the
 * questions (queries/questions.ts) are read by the infra's synth, which must not load DuckDB.
 */

/** A SQL string literal: `it's` → `'it''s'`. */
export function sqlString(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}
