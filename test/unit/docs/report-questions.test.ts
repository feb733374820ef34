/**
 * The report and insights ask the warehouse only typed questions of queries/ (R3), read with
 * TypeScript's parser: no string or template under functions/report/ or functions/insights/
 * holds SQL, no session is asked raw text (`warehouse.ask(…)`), and every `ask` names a question
 * of `TYPED_QUESTIONS`, whose decoder turns its rows into fields (never `String(row.x)`).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const FOLDERS = ['functions/report', 'functions/insights'];

/** SQL as a literal spells it: a `SELECT` list read `FROM` something (keywords in capitals, as queries/ writes them). */
const SQL = /\bSELECT\b[\s\S]*\bFROM\b/;

function parse(name: string, text: string): ts.SourceFile {
  return ts.createSourceFile(name, text, ts.ScriptTarget.ES2022, true);
}

function filesOf(folder: string): { relative: string; file: ts.SourceFile }[] {
  const root = fileURLToPath(new URL(`../../../${folder}`, import.meta.url));
  return readdirSync(root, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts'))
    .map((name) => ({ relative: `${folder}/${name}`, file: parse(name, readFileSync(`${root}/${name}`, 'utf8')) }));
}

/** What a file asks of a session against the rule: SQL in a literal, a raw `.ask(…)`, an `ask` of anything but `TYPED_QUESTIONS.<name>`. */
function inlineQuestions(file: ts.SourceFile): string[] {
  const found: string[] = [];
  const line = (node: ts.Node) => file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1;
  const visit = (node: ts.Node): void => {
    const text = ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) ? node.text : undefined;
    const template = ts.isTemplateExpression(node) ? [node.head.text, ...node.templateSpans.map((span) => span.literal.text)].join(' ') : undefined;
    if (SQL.test(text ?? template ?? '')) found.push(`${line(node)}: SQL in a literal`);
    if (ts.isCallExpression(node)) {
      const callee = node.expression;
      if (ts.isPropertyAccessExpression(callee) && callee.name.text === 'ask') found.push(`${line(node)}: ${callee.getText(file)}(…) asks raw text`);
      if (ts.isIdentifier(callee) && callee.text === 'ask') {
        const question = node.arguments[1];
        const typed = question !== undefined && ts.isPropertyAccessExpression(question) && question.expression.getText(file) === 'TYPED_QUESTIONS';
        if (!typed) found.push(`${line(node)}: ask(…) of ${question?.getText(file) ?? 'nothing'}, not a TYPED_QUESTIONS question`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

describe('the questions the report and insights ask', () => {
  it('are typed questions of queries/: no SQL in a literal, no raw ask, every ask of TYPED_QUESTIONS', () => {
    const files = FOLDERS.flatMap(filesOf);
    expect(files.length).toBeGreaterThan(30);
    const found = files.flatMap(({ relative, file }) => inlineQuestions(file).map((where) => `${relative}:${where}`));
    expect(found).toEqual([]);
  });

  it('are asked (the rule holds something): the report asks its figures through TYPED_QUESTIONS', () => {
    const asks = FOLDERS.flatMap(filesOf).flatMap(({ file }) => {
      const names: string[] = [];
      const visit = (node: ts.Node): void => {
        if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'ask') names.push(node.arguments[1]?.getText(file) ?? '');
        ts.forEachChild(node, visit);
      };
      visit(file);
      return names;
    });
    expect(asks).toEqual(expect.arrayContaining(['TYPED_QUESTIONS.dailyTotals', 'TYPED_QUESTIONS.clickedSearches']));
  });

  it('would be found inline: the form R3 removed from report/figures.ts', () => {
    const before = parse(
      'figures.ts',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template, parsed, not run
      'const clicked = await warehouse.ask(`SELECT project_id, lower(search_query) AS term FROM ${warehouse.tables.searches} WHERE dt >= ${from}`);',
    );
    expect(inlineQuestions(before)).toEqual(['1: warehouse.ask(…) asks raw text', '1: SQL in a literal']);
    expect(inlineQuestions(parse('x.ts', "ask(warehouse, 'SELECT 1 FROM t', {});"))).toEqual([
      "1: ask(…) of 'SELECT 1 FROM t', not a TYPED_QUESTIONS question",
      '1: SQL in a literal',
    ]);
  });
});
