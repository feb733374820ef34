/**
 * One table of figures (R13), read with TypeScript's parser: the modules that name a figure on
 * the page, in the digest or in a message select its label from functions/warehouse/figure-names.ts
 * (`FIGURE_TABLE`) and spell none of the table's labels themselves; and functions/ declares one
 * `median`, shared/median.ts's.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { FIGURE_TABLE } from '../../../functions/warehouse/figure-names.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** Where figures are named: the report's sections, insights (the digest, the anomalies' messages), the CLI's anomaly lines, the anomaly marks. */
const NAMERS = ['functions/report/sections', 'functions/insights', 'functions/cli/laptop-anomalies.ts', 'functions/warehouse/records.ts'];

function filesOf(place: string): string[] {
  if (place.endsWith('.ts')) return [place];
  return readdirSync(`${ROOT}${place}`, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts'))
    .map((name) => `${place}/${name}`);
}

function parse(relative: string): ts.SourceFile {
  return ts.createSourceFile(relative, readFileSync(`${ROOT}${relative}`, 'utf8'), ts.ScriptTarget.ES2022, true);
}

/** Each string literal of `file` that is one of `labels`, with its line. */
function labelsSpelt(file: ts.SourceFile, labels: ReadonlySet<string>): string[] {
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) && labels.has(node.text)) {
      found.push(`${file.fileName}:${file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1}: '${node.text}'`);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

/** The functions `file` declares under `name` (a function, or a const holding one). */
function declared(file: ts.SourceFile, name: string): number {
  let count = 0;
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionDeclaration(node) && node.name?.text === name) count += 1;
    if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.name.text === name && node.initializer !== undefined) {
      if (ts.isArrowFunction(node.initializer) || ts.isFunctionExpression(node.initializer)) count += 1;
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return count;
}

describe('the table of figures', () => {
  it('is where every figure is named: the modules that name one spell none of its labels', () => {
    // A label that is also a figure's or a dataset's name (`searches`) is a key where it is spelt: not counted.
    const keys = new Set<string>(FIGURE_TABLE.flatMap((row) => [row.name, row.dataset]));
    const labels = new Set(
      FIGURE_TABLE.flatMap((row) => [row.label, row.sentenceLabel, ...('term' in row ? [row.term] : [])]).filter((label) => !keys.has(label)),
    );
    const files = NAMERS.flatMap(filesOf);
    expect(files.length).toBeGreaterThan(20);

    expect(files.flatMap((relative) => labelsSpelt(parse(relative), labels))).toEqual([]);
  });

  it('has one row per figure, each with every attribute', () => {
    expect(new Set(FIGURE_TABLE.map((row) => row.name)).size).toBe(FIGURE_TABLE.length);
    for (const row of FIGURE_TABLE) {
      // The page titles a figure with a capital; a sentence names it in lower case, an acronym kept.
      expect(row.label, row.name).toMatch(/^[A-Z]/);
      expect(row.sentenceLabel, row.name).toMatch(/^([a-z]|AI )/);
      expect(['count', 'share'], row.name).toContain(row.kind);
    }
  });

  it('would find a label spelt beside it', () => {
    const file = ts.createSourceFile('x.ts', "const cards = [{ key: 'human', title: 'Human visitors' }];", ts.ScriptTarget.ES2022, true);
    expect(labelsSpelt(file, new Set(['Human visitors']))).toEqual(["x.ts:1: 'Human visitors'"]);
  });
});

describe('the median', () => {
  it('is declared once under functions/, in shared/median.ts', () => {
    const where = filesOf('functions').flatMap((relative) => (declared(parse(relative), 'median') > 0 ? [relative] : []));
    expect(where).toEqual(['functions/shared/median.ts']);
  });
});
