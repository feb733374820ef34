/**
 * A destination is parsed once, where it enters — a CLI command, a Lambda handler's wiring, the
 * organisations' dispatch — and handed below as a `LakeTarget` (warehouse/lake/target.ts): no
 * other module parses or opens a destination string, and the readers' requests and the lake's
 * openers take the target, not a string. An organisation's lake is `target.organisation(id)`.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path, { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { VerdictsRequest } from '../../../functions/gaps/verdict-rows.js';
import type { GapsRequest } from '../../../functions/gaps/find.js';
import type { ReportRequest } from '../../../functions/report/report.js';
import type { openLake, openRecords } from '../../../functions/warehouse/lake.js';
import { parseLakeTarget, type LakeTarget } from '../../../functions/warehouse/lake/target.js';
import type { WeeklySettings } from '../../../functions/insights/weekly/run.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
/** What turns a destination string into a place. */
const PARSERS = new Set(['parseDestinationTarget', 'parseS3Target', 'openDestination', 'parseLakeTarget', 'orgDestination', 'openExportDestination']);
/** The doors (and the parsers' own modules): the only files that may call them. */
const DOORS = [
  /^functions\/cli(\.ts$|\/)/,
  /^functions\/.*handlers?\.ts$/,
  /^functions\/(export|follow-up)\/deps\.ts$/,
  /^functions\/organisations\//,
  /^functions\/insights\/(weekly\/)?organisations\.ts$/,
  /^functions\/settings\/table\.ts$/,
  /^functions\/report\/targets\.ts$/,
  /^functions\/shared\/storage\/destinations?(-target)?\.ts$/,
  /^functions\/warehouse\/lake\/target\.ts$/,
];

function tsFiles(place: string): string[] {
  const full = join(ROOT, place);
  if (statSync(full).isFile()) return place.endsWith('.ts') ? [place] : [];
  return readdirSync(full).flatMap((name) => tsFiles(join(place, name)));
}

/** Every call of a parser in `file`, as `file:line: name`. */
function parserCalls(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(join(ROOT, file), 'utf8'), ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node)) {
      const callee = node.expression;
      const name = ts.isIdentifier(callee) ? callee.text : ts.isPropertyAccessExpression(callee) ? callee.name.text : '';
      if (PARSERS.has(name)) found.push(`${file}:${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1}: ${name}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('a destination below the doors', () => {
  it('is never parsed or opened from a string there', () => {
    const files = tsFiles('functions').map((file) => relative(ROOT, join(ROOT, file)));
    const below = files.filter((file) => !DOORS.some((door) => door.test(file)));
    expect(below.length).toBeGreaterThan(150);
    expect(below).toContain('functions/report/report.ts');

    expect(below.flatMap(parserCalls)).toEqual([]);
  });

  it('is a LakeTarget in every reader request and lake opener', () => {
    expectTypeOf<ReportRequest['target']>().toEqualTypeOf<LakeTarget>();
    expectTypeOf<GapsRequest['target']>().toEqualTypeOf<LakeTarget>();
    expectTypeOf<VerdictsRequest['target']>().toEqualTypeOf<LakeTarget>();
    expectTypeOf<WeeklySettings['target']>().toEqualTypeOf<LakeTarget>();
    expectTypeOf<Parameters<typeof openLake>[0]>().toEqualTypeOf<LakeTarget>();
    expectTypeOf<Parameters<typeof openRecords>[0]>().toEqualTypeOf<LakeTarget>();
    expectTypeOf<ReportRequest>().not.toHaveProperty('destination');
    expectTypeOf<GapsRequest>().not.toHaveProperty('destination');
    expectTypeOf<VerdictsRequest>().not.toHaveProperty('destination');
    expectTypeOf<WeeklySettings>().not.toHaveProperty('destination');
  });
});

describe('a LakeTarget', () => {
  it('names an organisation by scoping, with no string parsed again', () => {
    const bucket = parseLakeTarget('s3://bucket/mintlify/', 'EXPORT_DESTINATION');
    const folder = parseLakeTarget('./data', '--out', '/home/me');

    expect(bucket.organisation('acme').place).toEqual({ kind: 's3', bucket: 'bucket', prefix: 'mintlify/orgs/acme/' });
    expect(bucket.organisation('acme').url).toBe('s3://bucket/mintlify/orgs/acme');
    expect(parseLakeTarget('s3://bucket', '--out').organisation('acme').place).toEqual({ kind: 's3', bucket: 'bucket', prefix: 'orgs/acme/' });
    expect(folder.place).toEqual({ kind: 'local', dir: path.resolve('/home/me', 'data') });
    expect(folder.organisation('acme').place).toEqual({ kind: 'local', dir: path.join('/home/me', 'data', 'orgs', 'acme') });
    expect(folder.organisation('acme').url).toBe('./data/orgs/acme');
  });

  it('refuses an organisation id that is not one folder, and a mistyped destination, with a line naming it', () => {
    const bucket = parseLakeTarget('s3://bucket/mintlify', 'EXPORT_DESTINATION');

    expect(() => bucket.organisation('a/b')).toThrow(/organisation id "a\/b" cannot name a folder of s3:\/\/bucket\/mintlify/);
    expect(() => bucket.organisation('..')).toThrow(/cannot name a folder/);
    expect(() => parseLakeTarget('s3:/bucket', '--out')).toThrow(/^--out "s3:\/bucket" is not an S3 URL/);
  });
});
