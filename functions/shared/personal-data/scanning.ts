/**
 * The detector's tools (personal data, detect.ts): character classes read by table lookups —
 * digits of every script, the characters of tokens, addresses, domain labels, phone numbers and
 * bearer tokens — and the runs and spans the scanner finds with them.
 */

/** The ASCII characters `accepted`: printable ones but `refused`, as a lookup table. */
function asciiTable(refused: string): Uint8Array {
  const table = new Uint8Array(128);
  for (let c = 33; c < 127; c++) table[c] = refused.includes(String.fromCharCode(c)) ? 0 : 1;
  return table;
}
const ADDRESS_ASCII = asciiTable('<>()[]\\,;:"@');

export const isAlnum = (c: number) => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c > 127;
/**
 * The value of the decimal digit `c`, or -1: ASCII, and the decimal digits of every other
 * script of the Basic Multilingual Plane (Arabic-Indic, Persian, Devanagari, Bengali, Thai,
 * full-width …), from a table built on first use. Plain lookups: it runs on every character
 * of a number.
 */
export function digitValue(c: number): number {
  if (c <= 57) return c >= 48 ? c - 48 : -1;
  if (c < 0x660 || c > 0xffff) return -1;
  DIGITS ??= digitTable();
  return DIGITS[c] as number;
}
let DIGITS: Int8Array | undefined;
/** Every BMP code point's decimal value (Unicode `Nd`: runs of ten from zero), or -1. */
function digitTable(): Int8Array {
  const table = new Int8Array(0x10000).fill(-1);
  const decimal = /\p{Nd}/u;
  let runStart = -1;
  for (let c = 0x660; c <= 0xffff; c++) {
    if (c >= 0xd800 && c <= 0xdfff) {
      runStart = -1;
      continue;
    }
    if (decimal.test(String.fromCharCode(c))) {
      if (runStart === -1) runStart = c;
      table[c] = (c - runStart) % 10;
    } else runStart = -1;
  }
  return table;
}
export const isDigit = (c: number) => (c >= 48 && c <= 57) || (c >= 0x660 && digitValue(c) >= 0);
/** `text` with every digit of those scripts as its ASCII digit and every dash as `-` (to judge dates and addresses alike). */
export function asciiDigits(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const value = c > 127 ? digitValue(c) : -1;
    out += value >= 0 ? String.fromCharCode(48 + value) : c > 127 && isDash(c) ? '-' : text[i];
  }
  return out;
}
/** A character of a token (key, id): ASCII letters, digits, `_`, `-`, `.`. */
export const isTokenChar = (c: number) => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 45 || c === 46;
/** A character of an address's local part or domain: anything but spaces and what surrounds an address in text. */
export const isAddressChar = (c: number) => (c < 128 ? ADDRESS_ASCII[c] === 1 : c !== 0xa0 && c !== 0x3000);
/** A dash between a phone number's groups: `-`, the Unicode hyphens and dashes (U+2010–U+2015), minus signs (U+2212, small and full-width forms). */
export const isDash = (c: number) => c === 45 || (c >= 0x2010 && c <= 0x2015) || c === 0x2212 || c === 0xfe58 || c === 0xfe63 || c === 0xff0d;
export const isPhoneChar = (c: number) => isDigit(c) || c === 32 || c === 0xa0 || c === 40 || c === 41 || c === 46 || isDash(c);
/**
 * Letters, marks and digits beyond ASCII (what an internationalised domain's labels hold), from
 * a table filled on first sight of each code point: 1 a letter, 2 a mark or digit, 3 neither.
 * Surrogates (letters of the astral planes) count as marks: in a label, never a top-level domain.
 */
const WIDE_LABEL = new Uint8Array(0x10000);
const WIDE_LETTER = /\p{L}/u;
const WIDE_MARK_OR_DIGIT = /[\p{M}\p{N}]/u;
function wideLabelKind(c: number): number {
  let kind = WIDE_LABEL[c] as number;
  if (kind === 0) {
    const char = String.fromCharCode(c);
    kind = c >= 0xd800 && c <= 0xdfff ? 2 : WIDE_LETTER.test(char) ? 1 : WIDE_MARK_OR_DIGIT.test(char) ? 2 : 3;
    WIDE_LABEL[c] = kind;
  }
  return kind;
}
export const isLetter = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c > 127 && c <= 0xffff && wideLabelKind(c) === 1);
/** A character of a domain's label: ASCII letters, digits and `-`, and letters, marks and digits of other scripts. */
export const isDomainLabelChar = (c: number) =>
  (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 45 || (c > 127 && c <= 0xffff && wideLabelKind(c) !== 3);
/** A bearer token's characters (RFC 6750's b64token). */
export const isBearerChar = (c: number) => isTokenChar(c) || c === 126 || c === 43 || c === 47 || c === 61;

/** The masker's replacements, in the order found; `from` is where the text not yet replaced starts. */
export class Masked {
  readonly spans: { start: number; end: number; by: string }[] = [];
  from = 0;
  replace(start: number, end: number, by: string): void {
    this.spans.push({ start, end, by });
    this.from = end;
  }
}

/** The end of the run of `accepts` characters from `at`, at most `max` long. */
export function runEnd(text: string, at: number, accepts: (c: number) => boolean, max = Number.MAX_SAFE_INTEGER): number {
  let end = at;
  while (end < text.length && end - at < max && accepts(text.charCodeAt(end))) end++;
  return end;
}

/** The start of the run of `accepts` characters ending at `at` (exclusive), not before `floor`, at most `max` long. */
export function runStart(text: string, at: number, accepts: (c: number) => boolean, floor: number, max = Number.MAX_SAFE_INTEGER): number {
  let start = at;
  while (start > floor && at - start < max && accepts(text.charCodeAt(start - 1))) start--;
  return start;
}
