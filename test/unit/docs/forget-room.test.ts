/**
 * `forget` has a room of its own (functions/export/forget/): `forgetPeople` reads as the four
 * steps of the module's header, each one call into a file of the folder, read with TypeScript's
 * own parser.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const folder = fileURLToPath(new URL('../../../functions/export/forget/', import.meta.url));
const index = ts.createSourceFile('index.ts', readFileSync(`${folder}index.ts`, 'utf8'), ts.ScriptTarget.ES2022, true);

/** The `forgetPeople` function of index.ts. */
function forgetPeople(): ts.FunctionDeclaration {
  const found = index.statements.find(
    (statement): statement is ts.FunctionDeclaration => ts.isFunctionDeclaration(statement) && statement.name?.text === 'forgetPeople',
  );
  if (found?.body === undefined) throw new Error('functions/export/forget/index.ts declares no forgetPeople');
  return found;
}

/** The names every call in `node` calls (`a.b()` as `b`). */
function calledNames(node: ts.Node): Set<string> {
  const names = new Set<string>();
  const visit = (child: ts.Node): void => {
    if (ts.isCallExpression(child)) {
      const callee = child.expression;
      names.add(ts.isPropertyAccessExpression(callee) ? callee.name.text : callee.getText(index));
    }
    ts.forEachChild(child, visit);
  };
  visit(node);
  return names;
}

describe('forget, its own room', () => {
  it('is a folder with a file per step', () => {
    expect(readdirSync(folder).sort()).toEqual(['index.ts', 'inspect.ts', 'record.ts', 'rewrite.ts', 'scan.ts', 'work.ts']);
  });

  it('forgetPeople calls each step once, by name, in the header’s order', () => {
    const body = forgetPeople().body as ts.Block;
    const text = body.getText(index);
    const steps = ['inspectLake', 'startErasure', 'scanLake', 'rewriteFiles', 'finishErasure'];
    for (const step of steps) expect(calledNames(body)).toContain(step);
    const at = steps.map((step) => text.indexOf(`${step}(`));
    expect(at).toEqual([...at].sort((a, b) => a - b));
    for (const step of ['0.', '1.', '2.', '3.', '4.']) expect(text).toContain(`// ${step}`);
  });

  it('forgetPeople is short enough to read at a glance: one loop at most (a dry run tells its files), at most 40 lines', () => {
    const fn = forgetPeople();
    const lines = fn.getText(index).split('\n').length;
    let loops = 0;
    const visit = (node: ts.Node): void => {
      if (ts.isForStatement(node) || ts.isForOfStatement(node) || ts.isWhileStatement(node)) loops += 1;
      ts.forEachChild(node, visit);
    };
    visit(fn.body as ts.Block);
    expect(lines).toBeLessThanOrEqual(40);
    expect(loops).toBeLessThanOrEqual(1);
  });
});
