/**
 * Path globs of the scope rules (`SCOPE_ALLOWED`, `SCOPE_PROTECTED`), matched against the
 * repository-relative paths GitHub lists: `*` any characters but `/` (a leading dot included),
 * `?` one such character, `**` any number of whole segments (`**` then `/x` also matches `x` at
 * the root; `x/**` everything under `x`), `{a,b}` either. Case-sensitive, as Git's paths are.
 * A small matcher of its own: the rules need no more, and the project takes no glob library.
 */

/** Splits a comma-separated list of globs, keeping the commas of `{a,b}` inside their glob. */
export function splitGlobs(raw: string): string[] {
  const globs: string[] = [];
  let depth = 0;
  let current = '';
  for (const char of raw) {
    if (char === '{') depth++;
    if (char === '}') depth = Math.max(0, depth - 1);
    if (char === ',' && depth === 0) {
      globs.push(current.trim());
      current = '';
    } else current += char;
  }
  globs.push(current.trim());
  return globs.filter((glob) => glob !== '');
}

/** Why a glob cannot be used, or undefined when it can. */
export function globProblem(glob: string): string | undefined {
  let depth = 0;
  for (const char of glob) {
    if (char === '{') depth++;
    if (char === '}' && --depth < 0) return 'has a "}" without its "{"';
  }
  if (depth !== 0) return 'has a "{" without its "}"';
  if (glob.startsWith('/')) return 'starts with "/" (paths are relative to the repository: leave it out)';
  return undefined;
}

/** The regular expression of one glob, anchored at both ends. */
export function globToRegExp(glob: string): RegExp {
  return new RegExp(`^${translate(glob)}$`);
}

/** Compiles globs once into one test of a path. */
export function globMatcher(globs: readonly string[]): (path: string) => boolean {
  const patterns = globs.map(globToRegExp);
  return (path) => patterns.some((pattern) => pattern.test(path));
}

function translate(glob: string): string {
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const char = glob[i] as string;
    if (char === '*' && glob[i + 1] === '*') {
      const atStart = i === 0 || glob[i - 1] === '/';
      const next = glob[i + 2];
      if (atStart && next === '/') {
        out += '(?:.*/)?';
        i += 2;
      } else if (atStart && next === undefined) {
        // `x/**`: everything under x (and `**` alone: every path).
        out = out.endsWith('/') ? `${out.slice(0, -1)}(?:/.*)?` : `${out}.*`;
        i += 1;
      } else {
        out += '.*';
        i += 1;
      }
    } else if (char === '*') out += '[^/]*';
    else if (char === '?') out += '[^/]';
    else if (char === '{') {
      const end = closingBrace(glob, i);
      out += `(?:${splitAlternatives(glob.slice(i + 1, end))
        .map(translate)
        .join('|')})`;
      i = end;
    } else out += char.replace(/[.+^$()|[\]\\]/g, '\\$&');
  }
  return out;
}

function closingBrace(glob: string, open: number): number {
  let depth = 0;
  for (let i = open; i < glob.length; i++) {
    if (glob[i] === '{') depth++;
    if (glob[i] === '}' && --depth === 0) return i;
  }
  return glob.length;
}

function splitAlternatives(body: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = '';
  for (const char of body) {
    if (char === '{') depth++;
    if (char === '}') depth--;
    if (char === ',' && depth === 0) {
      parts.push(current);
      current = '';
    } else current += char;
  }
  parts.push(current);
  return parts;
}
