/**
 * A module of functions/ exports what it declares; only a folder's face (its `index.ts`) passes
 * on what other modules declare. A re-export elsewhere (`export … from`, or `export { name }` of
 * an imported name) gives one thing two addresses, and readers import it from either. Read with
 * TypeScript's own parser.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const FUNCTIONS = fileURLToPath(new URL('../../../functions/', import.meta.url));

/**
 * Re-exports outside a face, as `file: names`, kept on purpose; the list only shrinks.
 * insights/lambda.ts is the insights bundle's entry: its re-exports are the handlers infra names.
 */
const KEPT = ['insights/lambda.ts: check, checkOrganisations, weeklyReport, weeklyReportOrganisations'];

/** The names a module passes on from other modules: `export … from`, `export *`, and `export { name }` of an imported name. */
function reExports(file: ts.SourceFile): string[] {
  const imported = new Set<string>();
  for (const statement of file.statements) {
    const bindings = ts.isImportDeclaration(statement) ? statement.importClause : undefined;
    if (bindings?.name) imported.add(bindings.name.text);
    const named = bindings?.namedBindings;
    if (named && ts.isNamedImports(named)) for (const element of named.elements) imported.add(element.name.text);
    if (named && ts.isNamespaceImport(named)) imported.add(named.name.text);
  }
  return file.statements.flatMap((statement) => {
    if (!ts.isExportDeclaration(statement)) return [];
    if (statement.exportClause === undefined) return [`* from ${(statement.moduleSpecifier as ts.StringLiteral).text}`];
    if (!ts.isNamedExports(statement.exportClause)) return [statement.exportClause.name.text];
    return statement.exportClause.elements
      .filter((element) => statement.moduleSpecifier !== undefined || imported.has((element.propertyName ?? element.name).getText(file)))
      .map((element) => element.name.text);
  });
}

const parse = (name: string, text: string) => ts.createSourceFile(name, text, ts.ScriptTarget.ES2022, true);

describe('re-exports', () => {
  it('finds every form of one, and not an export of what the module declares', () => {
    const text = [
      "import { a, b as c } from './x.js';",
      "import type { T } from './t.js';",
      'const own = 1;',
      "export { d } from './y.js';",
      "export type { E } from './e.js';",
      "export * from './z.js';",
      'export { c, own, T };',
    ].join('\n');

    expect(reExports(parse('m.ts', text))).toEqual(['d', 'E', '* from ./z.js', 'c', 'T']);
  });

  it('functions/ has none outside the faces (index.ts), but those KEPT names', () => {
    const found = readdirSync(FUNCTIONS, { recursive: true, encoding: 'utf8' })
      .filter((name) => name.endsWith('.ts') && !name.endsWith('.d.ts') && !/(^|\/)index\.ts$/.test(name))
      .map((name) => ({ name, names: reExports(parse(name, readFileSync(`${FUNCTIONS}${name}`, 'utf8'))) }))
      .filter(({ names }) => names.length > 0)
      .map(({ name, names }) => `${name}: ${names.sort().join(', ')}`)
      .sort();

    expect(found.filter((entry) => !KEPT.includes(entry))).toEqual([]);
    // A re-export removed leaves the list.
    expect(KEPT.filter((entry) => !found.includes(entry))).toEqual([]);
  });
});
