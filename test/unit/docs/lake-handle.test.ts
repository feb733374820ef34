/**
 * The readers of the warehouse — the report, gaps, insights (the hourly check and the weekly
 * report) and the session they load (warehouse/session.ts) — are handed one lake handle
 * (warehouse/lake.ts `LakeFiles`), never a root string: no parameter is a root folder's name,
 * and no call hands a lake's folder on as a string.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const READERS = ['functions/report', 'functions/gaps', 'functions/insights', 'functions/warehouse/session.ts'];

function filesOf(place: string): string[] {
  const full = join(ROOT, place);
  if (statSync(full).isFile()) return [full];
  return readdirSync(full).flatMap((name) => (name.endsWith('.ts') || statSync(join(full, name)).isDirectory() ? filesOf(join(place, name)) : []));
}

/**
 * `root: string` as a parameter (a property of an interface is `readonly root: string`), or a
 * lake's folder handed on as an argument (a path made from it, `path.join(lake.root, …)`, is the
 * reader's own use of the files).
 */
const ROOT_STRING = /(?<!readonly )\broot\??\s*:\s*string\b|(?<!path\.(?:join|resolve))\(\s*lake\.root\s*[,)]|,\s*lake\.root\s*[,)]/;

describe('the readers of the warehouse', () => {
  it('take the lake handle, never a root string', () => {
    const files = READERS.flatMap(filesOf);
    expect(files.length).toBeGreaterThan(20);
    const found = files.flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .flatMap((line, i) =>
          line.trimStart().startsWith('*') || line.trimStart().startsWith('//') || !ROOT_STRING.test(line)
            ? []
            : [`${relative(ROOT, file)}:${i + 1}: ${line.trim()}`],
        ),
    );
    expect(found).toEqual([]);
  });
});
