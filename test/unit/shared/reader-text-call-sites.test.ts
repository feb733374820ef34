/**
 * The walk over the call sites of readers' words (issue 35): in every module that writes a
 * prompt, a terminal line, a report page or the digest, each line that reads a reader-supplied
 * field — a category, a search term (`query`), a path, a question or comment (`examples`,
 * `comments`), a mover's `label` — shows it through the one cleaning (readerText, or the
 * report's userText/pageLink, which call it) or is one of the few reads listed below with why
 * it shows nothing. A new printer of readers' words that skips the cleaning fails here; the
 * integration test test/integration/privacy/readers-words.test.ts proves the output of each place.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

/** Where readers' words are shown: the CLI's printers, the report's page, the gaps' prompts and titles, the digest. */
const SINK_FOLDERS = ['functions/cli/render', 'functions/report/sections', 'functions/report/page', 'functions/gaps'];
const SINK_FILES = /(^|\/)(digest|prompts|gaps|dead-letters|status)\.ts$/;
/** Modules that read readers' words but show none (they count, query or key them). */
const NOT_SINKS = new Set([
  'functions/gaps/read.ts',
  'functions/gaps/find.ts',
  'functions/gaps/effect.ts',
  'functions/gaps/day-rates.ts',
  'functions/report/page/style.ts',
  'functions/report/page/template.ts',
]);

const READER_FIELD = /\.(examples|comments|query|category|path|label)\b/;
const CLEANED = /\b(readerText|cleanReaderText|userText|pageLink|categoryLabel|readerValuesOf|checkEvidence)\(/;

/** Reads that show nothing, by file and the line's text: why each is safe. */
const ALLOWED: readonly { readonly file: string; readonly line: string; readonly why: string }[] = [
  { file: 'functions/gaps/gaps.ts', line: 'return evidence.query.toLowerCase();', why: "the gap's key" },
  { file: 'functions/gaps/gaps.ts', line: 'return evidence.path;', why: "the gap's key" },
  {
    file: 'functions/gaps/gaps.ts',
    line: 'const named = evidence.examples.slice(0, SCORED_QUESTIONS).reduce(',
    why: 'the score: how often the named questions were asked, a count',
  },
  { file: 'functions/gaps/gaps.ts', line: 'const named = Math.min(SCORED_QUESTIONS, evidence.examples.length);', why: 'how many questions are named, a count' },
  { file: 'functions/cli/render/gaps.ts', line: 'const quotes = gap.evidence.kind', why: 'picks the quotes, printed through readerText below' },
  { file: 'functions/report/sections/thumbs-down.ts', line: 'p.comments.length > 0', why: 'a count' },
  {
    file: 'functions/report/page/parts.ts',
    line: '<span class="bar-label">$' + '{b.label}</span>',
    why: "a bar's label: SafeHtml its caller built with userText/pageLink",
  },
  { file: 'functions/gaps/prompts.ts', line: 'value.label}: $' + '{value.shown.text}', why: "a fixed label and readerValuesOf's cleaned text" },
  { file: 'functions/gaps/readers-words.ts', line: 'evidence.category === NO_CATEGORY', why: 'a comparison' },
  { file: 'functions/gaps/readers-words.ts', line: "value('category', 'category', evidence.category)", why: 'cleaned by value()' },
  { file: 'functions/gaps/readers-words.ts', line: 'evidence.examples.map((text) => value(', why: 'cleaned by value()' },
  { file: 'functions/gaps/readers-words.ts', line: "value('search term', 'quote', evidence.query)", why: 'cleaned by value()' },
  { file: 'functions/gaps/readers-words.ts', line: "value('page', 'path', evidence.path)", why: 'cleaned by value()' },
  { file: 'functions/gaps/readers-words.ts', line: 'evidence.comments.map((text) => value(', why: 'cleaned by value()' },
  { file: 'functions/insights/weekly/digest.ts', line: 'DIGEST_FIGURES.find((f) => f.key === key)?.label', why: "a figure's fixed name" },
  { file: 'functions/insights/weekly/digest.ts', line: 'DIGEST_FIGURES.map((f) => f.label.length)', why: "a figure's fixed name" },
];

function sinkModules(): string[] {
  const all = readdirSync(join(ROOT, 'functions'), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)).split('\\').join('/'));
  return all.filter((file) => !NOT_SINKS.has(file) && (SINK_FOLDERS.some((folder) => file.startsWith(`${folder}/`)) || SINK_FILES.test(file)));
}

describe("the call sites of readers' words", () => {
  it('walks the printers, the report page, the prompts and the digest', () => {
    const files = sinkModules();

    for (const expected of [
      'functions/gaps/prompts.ts',
      'functions/cli/render/gaps.ts',
      'functions/cli/render/dead-letters.ts',
      'functions/report/page/parts.ts',
    ]) {
      expect(files).toContain(expected);
    }
    expect(files.some((file) => file.endsWith('/digest.ts'))).toBe(true);
  });

  it('shows every reader-supplied field through the one cleaning', () => {
    const unclean: string[] = [];
    for (const file of sinkModules()) {
      for (const [i, line] of readFileSync(join(ROOT, file), 'utf8').split('\n').entries()) {
        if (!READER_FIELD.test(line) || CLEANED.test(line) || /^\s*(\*|\/\/|\/\*\*)/.test(line)) continue;
        if (ALLOWED.some((allowed) => allowed.file === file && line.includes(allowed.line))) continue;
        unclean.push(`${file}:${i + 1}: ${line.trim()}`);
      }
    }
    expect(unclean).toEqual([]);
  });

  it('fails for a printer that shows a reader field raw', () => {
    const line = '  io.stdout.write(`$' + '{gap.evidence.query}`);';

    expect(READER_FIELD.test(line) && !CLEANED.test(line)).toBe(true);
  });
});
