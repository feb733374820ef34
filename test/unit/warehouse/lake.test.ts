/** Which bucket keys the report's S3 mirror writes, and where: never outside its folder. */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { mirrorPath, unsafeKeyProblem } from '../../../functions/warehouse/lake.js';

const root = path.resolve('mirror-root');

describe('unsafeKeyProblem', () => {
  it('accepts plain keys', () => {
    expect(unsafeKeyProblem('visitors_totals/dt=2026-11-17/proj_a.parquet')).toBeUndefined();
    expect(unsafeKeyProblem('_manifests/visitors/dt=2026-11-17/proj_a.json')).toBeUndefined();
    expect(unsafeKeyProblem('..hidden/...')).toBeUndefined();
  });

  it.each([
    ['visitors_totals/dt=2026-11-17/../../../PWNED.txt', '".." segment'],
    ['visitors_totals/dt=2026-11-17/./x.parquet', '"." segment'],
    ['visitors_totals/dt=2026-11-17//x.parquet', 'empty segment'],
    ['visitors_totals/dt=2026-11-17/', 'empty segment'],
    ['/etc/passwd', 'empty segment'],
    ['visitors_totals/dt=2026-11-17/..\\..\\x', 'backslash'],
    ['visitors_totals/dt=2026-11-17/a\0b', 'NUL'],
  ])('refuses %j', (key, problem) => {
    expect(unsafeKeyProblem(key)).toContain(problem);
  });
});

describe('mirrorPath', () => {
  it('puts a plain key under the root', () => {
    expect(mirrorPath(root, 'a/dt=2026-11-17/p.parquet')).toBe(path.join(root, 'a', 'dt=2026-11-17', 'p.parquet'));
  });

  it('throws rather than resolve outside the root, whatever the key', () => {
    for (const key of ['../x', 'a/../../x', '', 'a/..', '..']) expect(() => mirrorPath(root, key), key).toThrow(/refused to mirror/);
  });
});
