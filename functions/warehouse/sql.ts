/**
 * SQL text for the warehouse's two engines (DuckDB and Athena), without loading either: the
 * questions (queries/questions.ts) are read by the infra's synth, and the roll-ups' writers
 * (lake/rollups.ts, lake/rollup-sums.ts) are in bundles without DuckDB, which must not load it.
 */

/** A SQL string literal: `it's` → `'it''s'`. */
export function sqlString(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

/** A file name is read as a glob by DuckDB when it holds one of these. */
const GLOB_CHARACTERS = /[*?[\]{}]/;

/**
 * `['a', 'b']`: file names as a DuckDB list literal.
 * @throws Error for a name DuckDB would expand as a glob (a caller's bug: names are built from validated parts).
 */
export function fileList(files: readonly string[]): string {
  for (const file of files) {
    if (GLOB_CHARACTERS.test(file)) throw new Error(`refused to read "${file}": DuckDB would expand it as a glob`);
  }
  return `[${files.map(sqlString).join(', ')}]`;
}
