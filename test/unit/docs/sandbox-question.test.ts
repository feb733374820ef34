/**
 * "Does this run go to the embedded sandbox?" is asked of one predicate
 * (functions/cli/api-target.ts `runsAgainstSandbox`, from the configuration and the projects):
 * no other file of the CLI tests a project with `sandboxServes` or spells the question again.
 * Read with TypeScript's own parser.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const FUNCTIONS = fileURLToPath(new URL('../../../functions/', import.meta.url));

/** The files of functions/ that name `identifier` outside their imports. */
function namedIn(identifier: string): string[] {
  return readdirSync(FUNCTIONS, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts') && !name.endsWith('.d.ts'))
    .filter((name) => {
      const file = ts.createSourceFile(name, readFileSync(`${FUNCTIONS}${name}`, 'utf8'), ts.ScriptTarget.ES2022, true);
      let found = false;
      const visit = (node: ts.Node): void => {
        if (ts.isImportDeclaration(node)) return;
        if (ts.isIdentifier(node) && node.text === identifier) found = true;
        ts.forEachChild(node, visit);
      };
      visit(file);
      return found;
    })
    .sort();
}

describe('runs against the sandbox', () => {
  it('is one predicate: only cli/api-target.ts asks sandboxServes, and the CLI commands ask runsAgainstSandbox', () => {
    expect(namedIn('sandboxServes')).toEqual(['cli/api-target.ts']);
    expect(namedIn('runsUnpaced')).toEqual([]);
    expect(namedIn('runsAgainstSandbox')).toEqual(['cli/api-target.ts', 'cli/export.ts', 'cli/plan.ts', 'cli/report.ts', 'cli/status.ts']);
  });
});
