/**
 * README.md is the front door: short enough to read through (≤ 250 lines of at most 160
 * characters, the detail lives in docs/ and the generated docs/code-map.md), and every link of it
 * and of docs/ leads to a file and a heading that exist.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const DOCS = [
  'README.md',
  ...readdirSync(path.join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

/** GitHub's anchor of a heading: lower case, punctuation but `-` and `_` dropped, spaces as `-`. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[`*]/g, '')
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchorsOf(file: string): Set<string> {
  const text = readFileSync(path.join(ROOT, file), 'utf8').replace(/```[\s\S]*?```/g, '');
  return new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map((match) => anchorOf(match[1] ?? '')));
}

describe('the documentation', () => {
  it('keeps README.md to 250 lines at most', () => {
    const lines = readFileSync(path.join(ROOT, 'README.md'), 'utf8').trimEnd().split('\n').length;
    expect(lines).toBeLessThanOrEqual(250);
  });

  it('keeps every line of README.md outside its command samples to 160 characters (a map row per folder, not a file list)', () => {
    const text = readFileSync(path.join(ROOT, 'README.md'), 'utf8').replace(/```[\s\S]*?```/g, '');
    const long = text.split('\n').filter((line) => [...line].length > 160);

    expect(long).toEqual([]);
  });

  it.each(DOCS)('%s links only to files and headings that exist', (file) => {
    const text = readFileSync(path.join(ROOT, file), 'utf8').replace(/```[\s\S]*?```/g, '');
    const broken: string[] = [];
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (target === undefined || /^[a-z]+:/i.test(target)) continue;
      const [linked = '', anchor] = target.split('#');
      const resolved = linked === '' ? file : path.posix.normalize(path.posix.join(path.posix.dirname(file), linked));
      if (!existsSync(path.join(ROOT, resolved))) broken.push(`${target} (no file ${resolved})`);
      else if (anchor !== undefined && resolved.endsWith('.md') && !anchorsOf(resolved).has(anchor)) broken.push(`${target} (no heading #${anchor})`);
    }
    expect(broken).toEqual([]);
  });
});
