/**
 * The bucket has one owner (functions/warehouse/lake/layout.ts): no other file of the code that
 * ships, benchmarks or writes the docs spells a day folder (`dt=`) in a string, a template or a
 * regular expression (comments may); the keys it makes are byte for byte the keys the export has
 * always written; docs/design.md's bucket map is the one generated from `LAYOUT`.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { BUCKET_MAP_MARKERS, withBucketMap } from '../../../scripts/bucket-map.js';
import { expiredKey } from '../../../functions/export/retention.js';
import { forgettingKey } from '../../../functions/export/forget/index.js';
import { erasureKey } from '../../../functions/export/erasures.js';
import { manifestKey, parseManifestKey, stagingPrefix } from '../../../functions/warehouse/keys.js';
import {
  dayFolderName,
  dayKey,
  dayOfFolderName,
  monthDaysPrefix,
  monthsRange,
  folderOf,
  LAYOUT,
  parseDayKey,
  parseTableFileKey,
  parseUnitKey,
  rootOf,
} from '../../../functions/warehouse/lake/layout.js';
import { anomaliesKey } from '../../../functions/warehouse/records.js';
import { EXPORT_RUNS, FIX_EFFECTS, FOLLOWUP_OUTCOMES, partitionKey, VISITORS_PAGES } from '../../../functions/warehouse/tables.js';
import { LATEST_KEY, weeklyKey } from '../../../functions/insights/weekly/keys.js';
import { exportFolders, ORGS_FOLDER } from '../../../infra/constructs/warehouse.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const OWNER = 'functions/warehouse/lake/layout.ts';

function tsFiles(place: string): string[] {
  const full = join(ROOT, place);
  if (statSync(full).isFile()) return place.endsWith('.ts') ? [place] : [];
  return readdirSync(full).flatMap((name) => (name === 'node_modules' ? [] : tsFiles(join(place, name))));
}

/** Every string, template part and regular expression of a file that holds `dt=`, as `file:line: text`. */
function dayFolderSpellings(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(join(ROOT, file), 'utf8'), ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (
      (ts.isStringLiteral(node) ||
        ts.isNoSubstitutionTemplateLiteral(node) ||
        ts.isTemplateHead(node) ||
        ts.isTemplateMiddle(node) ||
        ts.isTemplateTail(node) ||
        ts.isRegularExpressionLiteral(node)) &&
      node.getText(source).includes('dt=')
    ) {
      found.push(`${file}:${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1}: ${node.getText(source)}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('the bucket layout', () => {
  it('is the only code that spells a day folder (dt=)', () => {
    const files = ['functions', 'infra', 'bench', 'scripts', 'sandbox', 'queries'].flatMap(tsFiles).map((file) => relative(ROOT, join(ROOT, file)));
    expect(files.length).toBeGreaterThan(200);
    expect(files).toContain(OWNER);
    expect(dayFolderSpellings(OWNER).length).toBeGreaterThan(0);

    expect(files.filter((file) => file !== OWNER).flatMap(dayFolderSpellings)).toEqual([]);
  });

  it('makes the keys the export has always written, byte for byte', () => {
    const unit = { dataset: 'feedback', day: '2026-01-31', projectId: 'proj_1' } as const;

    expect(partitionKey(VISITORS_PAGES, '2026-01-31', 'proj_1.parquet')).toBe('visitors_pages/dt=2026-01-31/proj_1.parquet');
    expect(manifestKey('visitors', '2026-01-31', 'proj_1')).toBe('_manifests/visitors/dt=2026-01-31/proj_1.json');
    expect(stagingPrefix('assistant', '2026-01-31', 'proj_1')).toBe('_staging/assistant/dt=2026-01-31/proj_1/');
    expect(expiredKey(unit)).toBe('_privacy/expired/feedback/dt=2026-01-31/proj_1.json');
    expect(forgettingKey(unit)).toBe('_privacy/forgetting/feedback/dt=2026-01-31/proj_1.json');
    expect(anomaliesKey('2026-01-31', 'proj_1')).toBe('_insights/anomalies/dt=2026-01-31/proj_1.json');
    expect(partitionKey(EXPORT_RUNS, '2026-01-31', 'r.json')).toBe('export_runs/dt=2026-01-31/r.json');
    expect(partitionKey(FOLLOWUP_OUTCOMES, '2026-01-31', 'q.json')).toBe('followup_outcomes/dt=2026-01-31/q.json');
    expect(partitionKey(FIX_EFFECTS, '2026-01-31', 'proj_1.json')).toBe('fix_effects/dt=2026-01-31/proj_1.json');
    expect(erasureKey({ hmac: 'ab'.repeat(32), at: '2026-01-31T10:00:00.000Z' })).toMatch(/^_privacy\/erasures\//);
    expect([LATEST_KEY, weeklyKey('2026-W05')]).toEqual(['reports/latest.html', 'reports/weekly/2026-W05.html']);
  });

  it('reads back the day, folder and project of the keys it writes, and nothing else', () => {
    const key = dayKey(folderOf('manifest', 'visitors'), '2026-01-31', 'proj_1.json');

    expect(parseDayKey(key)).toEqual({ folder: '_manifests/visitors', day: '2026-01-31', name: 'proj_1.json' });
    expect(parseManifestKey('visitors', key)).toEqual({ day: '2026-01-31', projectId: 'proj_1' });
    expect(parseManifestKey('views', key)).toBeUndefined();
    expect(parseUnitKey('_staging/assistant/dt=2026-01-31/proj_1/checkpoint.json')).toEqual({
      folder: '_staging/assistant',
      day: '2026-01-31',
      projectId: 'proj_1',
    });
    expect(parseUnitKey('feedback/dt=2026-01-31/proj_1.parquet')?.projectId).toBe('proj_1');
    expect(parseUnitKey('feedback/dt=2026-01-31/proj_1.tmp')).toBeUndefined();
    expect(parseTableFileKey('feedback/dt=2026-01-31/proj_1.parquet')).toEqual({ folder: 'feedback', day: '2026-01-31', projectId: 'proj_1' });
    expect(parseTableFileKey('_manifests/feedback/dt=2026-01-31/proj_1.parquet')).toBeUndefined();
    expect(parseDayKey('feedback/dt=2026-1-31/proj_1.parquet')).toBeUndefined();
    expect(dayOfFolderName(dayFolderName('2026-01-31'))).toBe('2026-01-31');
    expect(dayOfFolderName('2026-01-31')).toBeUndefined();
    expect(() => folderOf('manifest')).toThrow(/needs a part/);
    expect(() => folderOf('manifest', 'a/b')).toThrow(/needs a part/);
  });

  it('bounds a listing of some months of a daily folder: their days inside, the days around them outside', () => {
    const range = monthsRange('_manifests/visitors/', '2026-07', '2026-09');
    const inside = (key: string) => key > (range.after ?? '') && key < (range.before ?? '');

    expect(['2026-07-01', '2026-08-15', '2026-09-30'].map((day) => inside(dayKey('_manifests/visitors', day, 'p.json')))).toEqual([true, true, true]);
    expect(['2026-06-30', '2026-10-01'].map((day) => inside(dayKey('_manifests/visitors', day, 'p.json')))).toEqual([false, false]);
    expect(inside(dayKey('_manifests/visitorsx', '2026-08-01', 'p.json'))).toBe(false);
    expect(monthsRange('feedback', '2026-12', '2026-12').before).toBe(`feedback/${dayFolderName('2027-01')}`);
    expect(() => monthsRange('feedback', '2026-7', '2026-09')).toThrow(/not a month/);
    expect(dayKey('feedback', '2026-08-15', 'p.parquet').startsWith(monthDaysPrefix('feedback/', '2026-08'))).toBe(true);
    expect(dayKey('feedback', '2026-09-01', 'p.parquet').startsWith(monthDaysPrefix('feedback', '2026-08'))).toBe(false);
  });

  it('gives infra the prefixes it grants', () => {
    expect(exportFolders()).toEqual(expect.arrayContaining([rootOf('manifest'), rootOf('staging'), rootOf('unitIndex'), rootOf('rollups'), 'visitors_pages/']));
    expect(ORGS_FOLDER).toBe(rootOf('organisation'));
    expect(Object.keys(LAYOUT)).toEqual(expect.arrayContaining(['erasures', 'expired', 'forgetting', 'anomalies', 'reports']));
  });
});

describe('the bucket map of docs/design.md', () => {
  it('is the one generated from LAYOUT (run `npm run docs` after changing it)', () => {
    const doc = readFileSync(join(ROOT, 'docs/design.md'), 'utf8');

    expect(doc.includes(BUCKET_MAP_MARKERS.begin) && doc.includes(BUCKET_MAP_MARKERS.end), 'docs/design.md keeps its markers').toBe(true);
    expect(withBucketMap(doc) === doc, 'docs/design.md is stale: run `npm run docs`').toBe(true);
    for (const place of Object.values(LAYOUT)) expect(doc).toContain(`<dest>/${place.folder}/`);
  });
});
