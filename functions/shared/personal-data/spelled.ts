/**
 * Addresses written out ("ana at example dot com", "ana [at] example [dot] org",
 * "ana(at)example.org"), for the detector (detect.ts): the known top-level domains, the words
 * that start ordinary phrases, and where the next spelled "dot" is.
 */
import { isAlnum, type Masked, runStart } from './scanning.js';

/** Top-level domains an address written out as "ana at example dot com" may end with (a word such as "com" after " dot "). */
const SPELLED_TLDS = new Set([
  'com',
  'org',
  'net',
  'io',
  'dev',
  'co',
  'ai',
  'app',
  'edu',
  'gov',
  'info',
  'me',
  'us',
  'uk',
  'fr',
  'de',
  'es',
  'it',
  'nl',
  'be',
  'ch',
  'at',
  'se',
  'no',
  'dk',
  'fi',
  'pl',
  'pt',
  'br',
  'ca',
  'au',
  'nz',
  'jp',
  'in',
  'ie',
  'eu',
]);
/** Words that start ordinary phrases ("look at the dot com era", "at least"): never a domain. */
const NOT_DOMAINS = new Set([
  'the',
  'a',
  'an',
  'this',
  'that',
  'these',
  'our',
  'your',
  'my',
  'its',
  'their',
  'least',
  'most',
  'all',
  'any',
  'some',
  'one',
  'each',
  'once',
  'first',
  'last',
  'noon',
  'night',
]);
const isLabelChar = (c: number) => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 45 || (c > 127 && c !== 0xa0 && c !== 0x3000);
const isLocalChar = (c: number) => isLabelChar(c) || c === 46 || c === 95 || c === 43;

/** How far after its "at" an address written out may spell its first dot (the longest first label and the marker around it). */
const MAX_SPELLED_DOMAIN = 72;

/** The closing bracket of an opening one (`[`, `(`, `{`), or -1. */
export const closingOf = (c: number) => (c === 91 ? 93 : c === 40 ? 41 : c === 123 ? 125 : -1);

/**
 * The end of what separates two labels at `at` — `.`, ` dot `, ` [dot] `, `(dot)` — and
 * whether the dot was spelled; undefined when none.
 */
function dotMarker(text: string, at: number): { end: number; spelled: boolean } | undefined {
  const first = text.charCodeAt(at);
  if (first === 46) return { end: at + 1, spelled: false };
  let i = at;
  while (i - at < 2 && text.charCodeAt(i) === 32) i++;
  const close = closingOf(text.charCodeAt(i));
  const word = close === -1 ? i : i + 1;
  const d = text.charCodeAt(word);
  if (
    d === 100
      ? text.charCodeAt(word + 1) !== 111 || text.charCodeAt(word + 2) !== 116
      : d !== 68 || text.charCodeAt(word + 1) !== 79 || text.charCodeAt(word + 2) !== 84
  ) {
    return undefined;
  }
  let end = word + 3;
  if (close !== -1) {
    if (text.charCodeAt(end) !== close) return undefined;
    end++;
  } else if (i === at || text.charCodeAt(end) !== 32) return undefined;
  while (end - word < 6 && text.charCodeAt(end) === 32) end++;
  return { end, spelled: true };
}

/**
 * An address written out around the "at" at `at` ("ana at example dot com", "ana [at] example
 * [dot] org", "ana(at)example.org"). Without brackets it must spell a dot and end with a known
 * top-level domain, and its domain must not be a word that starts ordinary phrases: "available
 * at docs.example.com" or "look at the dot com era" are docs text, not addresses. Looks
 * forward first: most "at"s are followed by no dot at all, and cost a few comparisons.
 */
export function spelledAddress(text: string, at: number, out: Masked): number {
  const before = text.charCodeAt(at - 1);
  const after = text.charCodeAt(at + 2);
  const bracketed = after !== 32 && closingOf(before) === after;
  if (!bracketed && !(before === 32 && after === 32)) return at + 1;
  let p = at + 3;
  if (bracketed && text.charCodeAt(p) === 32) p++;
  let labels = 0;
  let firstEnd = p;
  let tldStart = p;
  let spelled = false;
  let end = p;
  const from = p;
  while (labels < 8) {
    let labelEnd = p;
    while (labelEnd - p < 63 && isLabelChar(text.charCodeAt(labelEnd))) labelEnd++;
    if (labelEnd === p) break;
    labels++;
    if (labels === 1) firstEnd = labelEnd;
    tldStart = p;
    end = labelEnd;
    const dot = dotMarker(text, labelEnd);
    if (!dot || !isLabelChar(text.charCodeAt(dot.end))) break;
    spelled ||= dot.spelled;
    p = dot.end;
  }
  if (labels < 2 || end - tldStart < 2 || end - tldStart > 24 || (!bracketed && !spelled)) return at + 1;
  const tld = text.slice(tldStart, end).toLowerCase();
  if (bracketed ? !/^\p{L}+$/u.test(tld) : !SPELLED_TLDS.has(tld) || NOT_DOMAINS.has(text.slice(from, firstEnd).toLowerCase())) return at + 1;
  // The local part ends before the marker (and a space before a bracket).
  let localEnd = at - 1;
  if (bracketed && text.charCodeAt(localEnd - 1) === 32) localEnd--;
  const localStart = runStart(text, localEnd, isLocalChar, out.from, 64);
  if (localStart === localEnd || (localStart > 0 && isAlnum(text.charCodeAt(localStart - 1)))) return at + 1;
  out.replace(localStart, end, '[email]');
  return end;
}

/**
 * Where the next spelled "dot" and "DOT" of a text are (-1: none left; -2: not searched yet):
 * an "at" without brackets starts an address only with one close after it, so the many "at"s
 * of ordinary text cost a comparison (a native search, repeated only once the text passes the
 * last one found).
 */
export interface DotSearch {
  lower: number;
  upper: number;
}

/** Whether a spelled "dot" follows `at` closely enough in `text` to finish an address. */
export function dotNear(text: string, at: number, next: DotSearch): boolean {
  // Each kept until the text passes it: every search starts beyond the last one's find.
  if (next.lower !== -1 && next.lower < at) next.lower = text.indexOf('dot', at);
  if (next.upper !== -1 && next.upper < at) next.upper = text.indexOf('DOT', at);
  const found = next.lower === -1 ? next.upper : next.upper === -1 ? next.lower : Math.min(next.lower, next.upper);
  return found !== -1 && found - at <= MAX_SPELLED_DOMAIN;
}
