import { describe, expect, it } from 'vitest';
import { PathSet } from '../../../functions/export/path-set.js';

describe('PathSet', () => {
  it('accepts a path once and refuses it the second time', () => {
    const set = new PathSet();
    expect(set.add('/docs/a')).toBe(true);
    expect(set.add('/docs/a')).toBe(false);
    expect(set.size).toBe(1);
  });

  it('tells apart paths that differ in one character, in case or in unicode', () => {
    const set = new PathSet();
    const paths = ['/docs/a', '/docs/b', '/Docs/a', '/docs/a/', '/ja/はじめに', '/ja/はじめね', '/🚀', '/🚁', ''];
    expect(paths.map((p) => set.add(p))).toEqual(paths.map(() => true));
    expect(paths.map((p) => set.add(p))).toEqual(paths.map(() => false));
  });

  it('keeps every entry while growing far past its initial capacity', () => {
    const set = new PathSet(16);
    const n = 200_000;
    // One expect over the count, not one per path: 200,000 expect calls were most of the file's time.
    let refused = 0;
    for (let i = 0; i < n; i++) if (!set.add(`/docs/section-${i % 97}/page-${i}`)) refused++;
    expect(refused, 'new paths refused').toBe(0);
    let duplicates = 0;
    for (let i = 0; i < n; i += 997) if (!set.add(`/docs/section-${i % 97}/page-${i}`)) duplicates++;
    expect(set.size).toBe(n);
    expect(duplicates).toBe(Math.ceil(n / 997));
  });
});
