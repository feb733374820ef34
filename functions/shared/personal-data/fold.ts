/**
 * The copy of a text the detector reads (personal data, detect.ts): NFKC per character,
 * full stops, default-ignorable code points removed, percent-escapes and character references
 * decoded — with the offset of each of its units in the original text, so that what is found in
 * the copy is replaced in the original.
 */
import type { Masked } from './scanning.js';

/**
 * A copy of a text the detector reads, and where each of its UTF-16 units came from:
 * `origin[i]` is the index in the original text of the character that gave unit `i`.
 * Absent `origin`: the copy is the text itself.
 */
export interface FoldedText {
  readonly text: string;
  readonly origin?: Int32Array;
}

/** Whether a text needs folding at all: anything outside ASCII, a percent-escape or a character reference. */
const NEEDS_FOLDING = /[\u0080-\uffff]|%[0-9a-f]{2}|&#|&commat;|&period;|&amp;/i;
const DEFAULT_IGNORABLE = /^\p{Default_Ignorable_Code_Point}$/u;
/** Full stops NFKC keeps: ideographic `。` and half-width `｡` (full-width `．` folds by itself). */
const FULL_STOPS = new Set([0x3002, 0xff61]);
/** BMP code points: 0 not seen yet, 1 folds to itself, 2 folds to `FOLDS.get(c)`. */
const FOLD_STATE = new Uint8Array(0x10000);
const FOLDS = new Map<number, string>();
/** An astral code point that folds to itself (in `FOLDS`). */
const NO_FOLD = '\u0000';

/** What one character (a code point) folds to: '' for a default-ignorable one, `.` for a full stop, else its NFKC form. */
function foldOf(char: string, code: number): string {
  if (FULL_STOPS.has(code)) return '.';
  if (DEFAULT_IGNORABLE.test(char)) return '';
  return char.normalize('NFKC');
}

/** What the code point `code` folds to, or undefined when it folds to itself (memoised per code point). */
function foldedChar(code: number): string | undefined {
  if (code > 0xffff) {
    let value = FOLDS.get(code);
    if (value === undefined) {
      const pair = String.fromCodePoint(code);
      value = foldOf(pair, code);
      if (value === pair) value = NO_FOLD;
      FOLDS.set(code, value);
    }
    return value === NO_FOLD ? undefined : value;
  }
  let state = FOLD_STATE[code];
  if (state === 0) {
    const char = String.fromCharCode(code);
    const value = foldOf(char, code);
    state = value === char ? 1 : 2;
    if (state === 2) FOLDS.set(code, value);
    FOLD_STATE[code] = state;
  }
  return state === 2 ? (FOLDS.get(code) as string) : undefined;
}

/** The value of the hex digit `c`, or -1. */
const hexValue = (c: number) => (c >= 48 && c <= 57 ? c - 48 : (c | 32) >= 97 && (c | 32) <= 102 ? (c | 32) - 87 : -1);
/** The byte of the two hex digits at `at`, or -1. */
function hexByte(text: string, at: number): number {
  const high = hexValue(text.charCodeAt(at));
  const low = high < 0 ? -1 : hexValue(text.charCodeAt(at + 1));
  return low < 0 ? -1 : high * 16 + low;
}

/** An escape decoded: the code point it stands for, and how many characters of the text it takes. */
interface Decoded {
  readonly code: number;
  readonly width: number;
}

/**
 * The percent-escape at `at` (`%40`), decoded as a browser or server would, also when encoded
 * again (`%2540`, `%252540`: each `%25` before two hex digits is one more layer), and a UTF-8
 * sequence of escapes (`%EF%BC%A0`) as its one character; undefined for a broken one (`%E0`
 * alone, `%ZZ`), whose characters are then read as they are.
 */
function percentAt(text: string, at: number): Decoded | undefined {
  let p = at + 1;
  let byte = hexByte(text, p);
  if (byte < 0) return undefined;
  p += 2;
  while (byte === 0x25) {
    const inner = hexByte(text, p);
    if (inner < 0) break;
    byte = inner;
    p += 2;
  }
  if (byte < 0x80) return { code: byte, width: p - at };
  // A UTF-8 sequence: its lead byte says how many continuation escapes follow.
  const more = byte >= 0xf0 && byte <= 0xf4 ? 3 : byte >= 0xe0 ? 2 : byte >= 0xc2 && byte <= 0xdf ? 1 : -1;
  if (more < 0) return undefined;
  let code = byte & (more === 3 ? 0x07 : more === 2 ? 0x0f : 0x1f);
  for (let k = 0; k < more; k++) {
    const next = text.charCodeAt(p) === 37 ? hexByte(text, p + 1) : -1;
    if (next < 0x80 || next > 0xbf) return undefined;
    code = code * 64 + (next & 0x3f);
    p += 3;
  }
  const shortest = more === 1 ? 0x80 : more === 2 ? 0x800 : 0x10000;
  if (code < shortest || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return undefined;
  return { code, width: p - at };
}

/** Digits of a numeric character reference read past its leading zeros (`&#0000064;`): more is no code point. */
const MAX_REFERENCE_DIGITS = 7;

/**
 * The character reference at `at` — numeric (`&#64;`, `&#0064;`, `&#x40;`, `&#X0040;`, the
 * `;` optional as browsers read it), `&commat;` or `&period;` — also encoded again
 * (`&amp;#64;`); undefined for anything else.
 */
function referenceAt(text: string, at: number): Decoded | undefined {
  let p = at + 1;
  while (text.charCodeAt(p + 3) === 59 && text.slice(p, p + 3).toLowerCase() === 'amp') p += 4;
  if (text.charCodeAt(p) !== 35) {
    if (text.charCodeAt(p + 6) !== 59) return undefined;
    const name = text.slice(p, p + 6).toLowerCase();
    return name === 'commat' ? { code: 64, width: p + 7 - at } : name === 'period' ? { code: 46, width: p + 7 - at } : undefined;
  }
  p++;
  const hex = (text.charCodeAt(p) | 32) === 120;
  if (hex) p++;
  while (text.charCodeAt(p) === 48) p++;
  let code = 0;
  let digits = 0;
  for (; digits < MAX_REFERENCE_DIGITS; digits++, p++) {
    const c = text.charCodeAt(p);
    const value = hex ? hexValue(c) : c >= 48 && c <= 57 ? c - 48 : -1;
    if (value < 0) break;
    code = code * (hex ? 16 : 10) + value;
  }
  if (digits === 0 || code === 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return undefined;
  if (text.charCodeAt(p) === 59) p++;
  return { code, width: p - at };
}

/** The escape or reference at `at` (`c` is its first character), decoded; undefined when there is none. */
function decodedAt(text: string, at: number, c: number): Decoded | undefined {
  return c === 37 ? percentAt(text, at) : c === 38 ? referenceAt(text, at) : undefined;
}

/**
 * The copy the detector reads (see the module's header): NFKC per character (`＠` `﹫` → `@`,
 * full-width letters and digits → ASCII, U+3000 → space), `。` `｡` → `.`, default-ignorable
 * code points removed, encoded at-signs decoded. Linear: a table lookup per character once seen.
 */
export function foldForDetection(text: string): FoldedText {
  const folded = foldInScratch(text);
  return folded.origin === undefined ? folded : { text: folded.text, origin: folded.origin.slice() };
}

/**
 * The copy's units and their origins, written here and reused from one text to the next (grown
 * as needed): no two typed arrays and no closure per text (a day of 200,000 questions folds
 * 40,000 Chinese and Japanese ones; allocating per text took most of their folding).
 */
let SCRATCH_UNITS = new Uint16Array(256);
let SCRATCH_ORIGIN = new Int32Array(256);

/** Room for `needed` units in the scratch arrays, what they hold kept. */
function growScratch(needed: number): void {
  const size = Math.max(SCRATCH_UNITS.length * 2, needed + 16);
  const units = new Uint16Array(size);
  units.set(SCRATCH_UNITS);
  SCRATCH_UNITS = units;
  const origin = new Int32Array(size);
  origin.set(SCRATCH_ORIGIN);
  SCRATCH_ORIGIN = origin;
}

/**
 * `foldForDetection`, its `origin` a view of the scratch array: valid until the next text is
 * folded (the detector maps its spans back at once, detect.ts).
 */
export function foldInScratch(text: string): FoldedText {
  if (!NEEDS_FOLDING.test(text)) return { text };
  let length = 0;
  for (let i = 0; i < text.length; ) {
    const c = text.charCodeAt(i);
    let folded: string | undefined;
    let width = 1;
    if (c < 128) {
      const decoded = c === 37 || c === 38 ? decodedAt(text, i, c) : undefined;
      if (decoded !== undefined) {
        folded = decoded.code < 128 ? String.fromCharCode(decoded.code) : (foldedChar(decoded.code) ?? String.fromCodePoint(decoded.code));
        width = decoded.width;
      }
    } else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      width = 2;
      folded = foldedChar(text.codePointAt(i) as number);
    } else folded = foldedChar(c);
    if (folded === undefined) {
      if (length + width > SCRATCH_UNITS.length) growScratch(length + width);
      for (let k = 0; k < width; k++) {
        SCRATCH_UNITS[length] = text.charCodeAt(i + k);
        SCRATCH_ORIGIN[length++] = i + k;
      }
    } else {
      if (length + folded.length > SCRATCH_UNITS.length) growScratch(length + folded.length);
      for (let k = 0; k < folded.length; k++) {
        SCRATCH_UNITS[length] = folded.charCodeAt(k);
        SCRATCH_ORIGIN[length++] = i;
      }
    }
    i += width;
  }
  return { text: UTF16.decode(SCRATCH_UNITS.subarray(0, length)), origin: SCRATCH_ORIGIN.subarray(0, length) };
}
const UTF16 = new TextDecoder('utf-16le');

/** The spans found in a folded copy, as spans of the original text. */
export function spansInOriginal(spans: Masked['spans'], folded: FoldedText, original: string): Masked['spans'] {
  const { origin } = folded;
  if (origin === undefined) return spans;
  const endOf = (end: number): number => {
    // The end of the original character that gave the span's last unit.
    const last = origin[end - 1] as number;
    let k = end;
    while (k < origin.length && origin[k] === last) k++;
    if (k < origin.length) return origin[k] as number;
    // The span ends the copy: it ends with its last unit's character (an escape is several).
    const code = original.charCodeAt(last);
    if (code === 37 || code === 38) {
      const decoded = decodedAt(original, last, code);
      if (decoded !== undefined) return last + decoded.width;
    }
    return last + (code >= 0xd800 && code <= 0xdbff ? 2 : 1);
  };
  return spans.map(({ start, end, by }) => ({ start: origin[start] as number, end: endOf(end), by }));
}
