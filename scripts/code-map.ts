/**
 * docs/code-map.md, generated: every source file of the project with the first sentence of its
 * header comment, grouped by folder, so "where is X?" has one page that cannot drift from the
 * code. `npm run docs` writes it; a test fails while it is stale, and another while a source file
 * has no header sentence to show.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { blockMarkers, cell, withBlock } from './generated-block.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));

/** The folders whose source files the map lists (tests have test/helpers/README.md and docs/tests.md). */
export const MAPPED_ROOTS = ['functions', 'sandbox', 'infra', 'scripts', 'bench', 'bin', 'queries', 'test/helpers'] as const;

export const CODE_MAP_MARKERS = blockMarkers('code-map', 'the header comment of each source file');

const SOURCE = /\.(ts|mts|mjs|js)$/;

/** Every source file under the mapped roots, relative to the repository, sorted. */
export function sourceFiles(root = ROOT): string[] {
  const files: string[] = [];
  const walk = (relative: string): void => {
    for (const entry of readdirSync(path.join(root, relative), { withFileTypes: true })) {
      const child = path.posix.join(relative, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== 'node_modules' && entry.name !== 'out' && !entry.name.startsWith('.')) walk(child);
      } else if (SOURCE.test(entry.name) && !entry.name.endsWith('.d.ts') && entry.name !== 'bundle.js') files.push(child);
    }
  };
  for (const top of MAPPED_ROOTS) walk(top);
  return files.sort();
}

/**
 * The first sentence of a file's header: its leading `/** … *\/` block, or its leading `//`
 * lines (after a shebang), up to the first full stop followed by a space or the end of the paragraph, or the
 * first blank comment line. Undefined when the file opens with code.
 */
export function headerSentence(text: string): string | undefined {
  const body = text.replace(/^#![^\n]*\n/, '').trimStart();
  let comment: string | undefined;
  if (body.startsWith('/**') || body.startsWith('/*')) {
    const end = body.indexOf('*/');
    if (end < 0) return undefined;
    comment = body
      .slice(body.startsWith('/**') ? 3 : 2, end)
      .split('\n')
      .map((line) => line.replace(/^\s*\*\s?/, ''))
      .join('\n');
  } else if (body.startsWith('//')) {
    const lines: string[] = [];
    for (const line of body.split('\n')) {
      if (!line.startsWith('//')) break;
      lines.push(line.replace(/^\/\/\s?/, ''));
    }
    comment = lines.join('\n');
  }
  if (comment === undefined) return undefined;
  const paragraph = (comment.trim().split(/\n\s*\n/)[0] ?? '').replace(/\s+/g, ' ').trim();
  if (paragraph === '') return undefined;
  const stop = paragraph.search(/\.(\s|$)/);
  const sentence = stop < 0 ? paragraph : paragraph.slice(0, stop);
  return sentence.replace(/[.:;,]+$/, '');
}

/** The folder a file is listed under: its directory. */
function folderOf(file: string): string {
  return path.posix.dirname(file);
}

/** The map's body: a heading and a table per folder, a row per file. */
export function codeMap(root = ROOT): string {
  const byFolder = new Map<string, string[]>();
  for (const file of sourceFiles(root)) {
    const sentence = headerSentence(readFileSync(path.join(root, file), 'utf8')) ?? '(no header comment)';
    const rows = byFolder.get(folderOf(file)) ?? [];
    rows.push(`| [\`${path.posix.basename(file)}\`](../${file}) | ${cell(sentence)} |`);
    byFolder.set(folderOf(file), rows);
  }
  return [...byFolder].map(([folder, rows]) => [`### \`${folder}/\``, '', '| file | what |', '|---|---|', ...rows].join('\n')).join('\n\n');
}

/** docs/code-map.md with its generated block replaced. */
export function withCodeMap(doc: string, root = ROOT): string {
  return withBlock(doc, CODE_MAP_MARKERS, codeMap(root));
}
