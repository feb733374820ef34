/**
 * Personal data: the two transformations a column's policy (warehouse/column-policy.ts,
 * docs/privacy.md) applies to what readers typed or left:
 *
 * - `hmacOf`: the lowercase hex HMAC-SHA256 of the trimmed, lower-cased value, keyed by the
 *   deployment's key — the same person has the same value on every day and in every project,
 *   so counting and joining still work, and a dictionary of addresses is no use without the key;
 * - `maskText`: e-mail addresses → `[email]`, phone numbers → `[phone]`, API keys, bearer
 *   tokens and `password=…`-like values → `[secret]`, every other word kept. Detection runs on
 *   a folded copy of the text (`foldForDetection`: NFKC, so `＠` `﹫` are `@` and full-width
 *   letters and digits ASCII; `。` `｡` are `.`; `%40`, `&#64;`, `&commat;` are `@`;
 *   default-ignorable code points gone) and each match is replaced in the original text. One
 *   pass whose every step is bounded, so the time is linear in the text (a 1 MB text in well
 *   under 50 ms, whatever it holds). The same detector serves the lake, the report, the
 *   terminal and prompts;
 * - `maskPath`: a page path or URL without its query string and fragment, each segment that
 *   holds an address, a phone number or a secret replaced by its mask (the `path` policy).
 *
 * The key never leaves this process: manifests and erasure records name its `keyIdOf`.
 */
import { createHmac } from 'node:crypto';
import { domainToASCII } from 'node:url';
import { ConfigError } from './errors.js';

// --- masking ---------------------------------------------------------------------------------

/*
 * Where a masked value may start: an `@` (an address around it), a digit (a phone number, a
 * key — every generated key holds one), `:`/`=` after a secret's name, `Bearer `. The scanner
 * (`maskText`) walks the text once and looks around these only, each character a bounded
 * number of times: the time is linear in the text, whatever it holds.
 */

/** Names whose value after `:` or `=` is a secret (`api_key=…`, `"password": "…"`, `reset_token=…`). */
const SECRET_NAMES = /^(?:[a-z0-9]{1,12}[_-]){0,2}(?:api[_-]?key|apikey|token|secret|password|passwd|pwd)$/i;
/**
 * Names whose value is a secret in a query string (after `?`, `&` or `;`: `?key=…`,
 * `&sig=…`), where they are parameters, not words (`the key: navigation` is docs text).
 */
const QUERY_SECRET_NAMES = /^(?:key|code|sig|signature|session|session[_-]?id|sid|auth|otp|jwt|ticket|x-amz-signature|x-amz-credential|x-amz-security-token)$/i;
/** Keys with a known prefix (Mintlify, Stripe/OpenAI/Anthropic, GitHub, Slack, GitLab, AWS, Google, npm, Hugging Face), digits or not. */
const KNOWN_KEY =
  /^(?:mint_[A-Za-z0-9_]{8,}|(?:sk|pk|rk)[_-][A-Za-z0-9_-]{12,}|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|xox[abposre]-[A-Za-z0-9-]{10,}|glpat-[A-Za-z0-9_-]{16,}|A[KS]IA[0-9A-Z]{16}|AIza[0-9A-Za-z_-]{30,}|npm_[A-Za-z0-9]{30,}|hf_[A-Za-z0-9]{30,})$/;
/** Where a key of a known prefix may start (sticky: tested at one position, a few comparisons). */
const KEY_START = /(?:mint_|[spr]k[_-]|gh[pousr]_|github_pat_|xox[abposre]-|glpat-|A[KS]IA|AIza|npm_|hf_)/y;
/** An address's domain given as an IP literal: `[192.168.0.1]`, `[IPv6:2001:db8::1]`. */
const IP_LITERAL = /^(?:\d{1,3}(?:\.\d{1,3}){3}|IPv6:[0-9A-Fa-f:.]{2,45})$/;
const JWT = /^eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}$/;

const DATE_LIKE = /^(?:\d{4}[-/.]\d{1,2}[-/.]\d{1,2}|\d{1,2}[-/.]\d{1,2}[-/.]\d{2,4})/;
const IP_LIKE = /^\d{1,3}(?:\.\d{1,3}){3}$/;
/** An address's top-level domain: letters, or a punycode label (`xn--p1ai`). */
const TLD = /\.(?:\p{L}{2,63}|xn--[a-z0-9-]{1,59})$/iu;

/** The ASCII characters `accepted`: printable ones but `refused`, as a lookup table. */
function asciiTable(refused: string): Uint8Array {
  const table = new Uint8Array(128);
  for (let c = 33; c < 127; c++) table[c] = refused.includes(String.fromCharCode(c)) ? 0 : 1;
  return table;
}
const ADDRESS_ASCII = asciiTable('<>()[]\\,;:"@');

const isAlnum = (c: number) => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c > 127;
/**
 * The value of the decimal digit `c`, or -1: ASCII, and the decimal digits of every other
 * script of the Basic Multilingual Plane (Arabic-Indic, Persian, Devanagari, Bengali, Thai,
 * full-width …), from a table built on first use. Plain lookups: it runs on every character
 * of a number.
 */
function digitValue(c: number): number {
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
const isDigit = (c: number) => (c >= 48 && c <= 57) || (c >= 0x660 && digitValue(c) >= 0);
/** `text` with every digit of those scripts as its ASCII digit and every dash as `-` (to judge dates and addresses alike). */
function asciiDigits(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const value = c > 127 ? digitValue(c) : -1;
    out += value >= 0 ? String.fromCharCode(48 + value) : c > 127 && isDash(c) ? '-' : text[i];
  }
  return out;
}
/** A character of a token (key, id): ASCII letters, digits, `_`, `-`, `.`. */
const isTokenChar = (c: number) => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 45 || c === 46;
/** A character of an address's local part or domain: anything but spaces and what surrounds an address in text. */
const isAddressChar = (c: number) => (c < 128 ? ADDRESS_ASCII[c] === 1 : c !== 0xa0 && c !== 0x3000);
/** A dash between a phone number's groups: `-`, the Unicode hyphens and dashes (U+2010–U+2015), minus signs (U+2212, small and full-width forms). */
const isDash = (c: number) => c === 45 || (c >= 0x2010 && c <= 0x2015) || c === 0x2212 || c === 0xfe58 || c === 0xfe63 || c === 0xff0d;
const isPhoneChar = (c: number) => isDigit(c) || c === 32 || c === 0xa0 || c === 40 || c === 41 || c === 46 || isDash(c);
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
const isLetter = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c > 127 && c <= 0xffff && wideLabelKind(c) === 1);
/** A character of a domain's label: ASCII letters, digits and `-`, and letters, marks and digits of other scripts. */
const isDomainLabelChar = (c: number) =>
  (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 45 || (c > 127 && c <= 0xffff && wideLabelKind(c) !== 3);
/** A bearer token's characters (RFC 6750's b64token). */
const isBearerChar = (c: number) => isTokenChar(c) || c === 126 || c === 43 || c === 47 || c === 61;

/**
 * Whether `text` (digits and separators) is a phone number. `led`: whether a word such as
 * "call" or "tel" comes just before it (asked only when it decides), so that a shorter number
 * written without separators is one too.
 */
function isPhone(text: string, led: () => boolean): boolean {
  let digits = 0;
  let dotted = false;
  let ascii = true;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (isDigit(c)) {
      digits++;
      if (c > 127) ascii = false;
    } else if (c === 46 || c === 47 || isDash(c)) {
      dotted = true;
      if (c > 127) ascii = false;
    }
  }
  if (digits > 15 || digits < 6) return false;
  const plain = dotted && !ascii ? asciiDigits(text) : text;
  // Unbroken digits are a count or an id unless they are as long as a full number.
  const alone = digits >= 7 && !(dotted && (DATE_LIKE.test(plain) || IP_LIKE.test(plain))) && (digits !== text.length || digits >= 10);
  return alone || led();
}

/** Words that say a number is a phone number ("call 5550199", "tel: …"), and the ones that may stand between ("call me on …"). */
const PHONE_LEADS = new Set([
  'call',
  'phone',
  'telephone',
  'tel',
  'mobile',
  'cell',
  'cellphone',
  'whatsapp',
  'sms',
  'fax',
  'téléphone',
  'tél',
  'portable',
  'telefon',
  'telefono',
  'teléfono',
  'telefone',
  'handy',
  'móvil',
]);
const PHONE_FILLERS = new Set(['me', 'us', 'on', 'at', 'is', 'number', 'no', 'nr', 'my', 'our', 'au', 'unter', 'al']);

/** Whether a phone lead word comes just before `at` (at most three words back, through fillers only). */
function ledByPhoneWord(text: string, at: number, floor: number): boolean {
  let end = at;
  for (let words = 0; words < 3; words++) {
    // Spaces and the punctuation of "tel.: ", "#", "(" between the words.
    let stop = end;
    while (stop > floor && end - stop < 4 && ' \t:.#(-'.includes(text[stop - 1] as string)) stop--;
    if (stop === end && words > 0) return false;
    const start = runStart(text, stop, (c) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c > 127 && digitValue(c) < 0), floor, 12);
    if (start === stop || (start > 0 && isAlnum(text.charCodeAt(start - 1)))) return false;
    const word = text.slice(start, stop).toLowerCase();
    if (PHONE_LEADS.has(word)) return true;
    if (!PHONE_FILLERS.has(word)) return false;
    end = start;
  }
  return false;
}

/** The longest a domain may be, and one of its labels. */
const MAX_DOMAIN = 253;
const MAX_LABEL = 63;

/**
 * Where the domain starting at `at` ends, or -1 when there is none: an address ends where its
 * domain's labels end, whatever follows (`ana@example.com%20thanks`, `…com-`, `…com_x`,
 * `…com{`). Labels are letters (of any script), digits and `-`, separated by single dots; the
 * domain ends with the longest top-level label it can: the letters that start the last label
 * (`com` of `com-thanks`), a punycode label (`xn--p1ai`), or else an earlier label's. At least
 * two labels. Bounded: at most 253 characters are read.
 */
function domainEnd(text: string, at: number): number {
  let labels = 0;
  let p = at;
  while (p - at < MAX_DOMAIN) {
    const labelEnd = runEnd(text, p, isDomainLabelChar, Math.min(MAX_LABEL, MAX_DOMAIN - (p - at)));
    if (labelEnd === p) break;
    LABEL_STARTS[labels] = p;
    LABEL_ENDS[labels++] = labelEnd;
    if (text.charCodeAt(labelEnd) !== 46 || !isDomainLabelChar(text.charCodeAt(labelEnd + 1))) break;
    p = labelEnd + 1;
  }
  for (let k = labels - 1; k >= 1; k--) {
    const length = topLevelLength(text, LABEL_STARTS[k] as number, LABEL_ENDS[k] as number);
    if (length > 0) return (LABEL_STARTS[k] as number) + length;
  }
  return -1;
}
/** The labels `domainEnd` found (reused: it runs at every `@`); a domain of 253 characters has at most 127. */
const LABEL_STARTS = new Int32Array(128);
const LABEL_ENDS = new Int32Array(128);

/** How much of the label from `start` to `end` may be a top-level domain: its leading letters (two or more), or a whole punycode label; 0 when none. */
function topLevelLength(text: string, start: number, end: number): number {
  if (end - start > 4 && (text.charCodeAt(start) | 32) === 120 && (text.charCodeAt(start + 1) | 32) === 110 && text.startsWith('--', start + 2)) {
    let last = runEnd(text, start, (c) => c < 128 && (isAlnum(c) || c === 45), end - start);
    while (last > start + 4 && text.charCodeAt(last - 1) === 45) last--;
    if (last > start + 4) return last - start;
  }
  // Letters of one kind: `com` of `comまで`, `рф` of `рф2`.
  const ascii = text.charCodeAt(start) < 128;
  const letters = runEnd(text, start, (c) => (ascii ? c < 128 : c >= 128) && isLetter(c), end - start);
  return letters - start >= 2 ? letters - start : 0;
}

/** A run of token characters that is a secret: a known key, a JWT, long hex, or long mixed case with digits. */
function isSecret(token: string): boolean {
  if (KNOWN_KEY.test(token) || JWT.test(token)) return true;
  if (token.length < 24) return false;
  if (token.length >= 32 && /^[0-9a-f]+$/i.test(token) && /\d/.test(token)) return true;
  return /\d/.test(token) && /[a-z]/.test(token) && /[A-Z]/.test(token) && !token.includes('--') && !token.includes('.');
}

/** The masker's replacements, in the order found; `from` is where the text not yet replaced starts. */
class Masked {
  readonly spans: { start: number; end: number; by: string }[] = [];
  from = 0;
  replace(start: number, end: number, by: string): void {
    this.spans.push({ start, end, by });
    this.from = end;
  }
}

/** The end of the run of `accepts` characters from `at`, at most `max` long. */
function runEnd(text: string, at: number, accepts: (c: number) => boolean, max = Number.MAX_SAFE_INTEGER): number {
  let end = at;
  while (end < text.length && end - at < max && accepts(text.charCodeAt(end))) end++;
  return end;
}

/** The start of the run of `accepts` characters ending at `at` (exclusive), not before `floor`, at most `max` long. */
function runStart(text: string, at: number, accepts: (c: number) => boolean, floor: number, max = Number.MAX_SAFE_INTEGER): number {
  let start = at;
  while (start > floor && at - start < max && accepts(text.charCodeAt(start - 1))) start--;
  return start;
}

/** `Bearer <token>`: the token masked; the next place to look. */
function bearer(text: string, at: number, out: Masked): number {
  if (at > 0 && isAlnum(text.charCodeAt(at - 1))) return at + 1;
  let value = at + 6;
  while (value < text.length && value - at < 10 && (text[value] === ' ' || text[value] === '\t')) value++;
  const end = runEnd(text, value, isBearerChar, 4096);
  if (end - value >= 8) out.replace(value, end, '[secret]');
  return Math.max(end, at + 1);
}

/** `name: value` / `name=value` for a secret's name: the value masked. */
function namedSecret(text: string, at: number, out: Masked): number {
  let nameEnd = at;
  while (nameEnd > out.from && at - nameEnd < 4 && ' \t"\''.includes(text[nameEnd - 1] as string)) nameEnd--;
  const nameStart = runStart(text, nameEnd, (c) => isTokenChar(c) && c !== 46, out.from, 20);
  if (nameStart === nameEnd || (nameStart > 0 && isAlnum(text.charCodeAt(nameStart - 1)))) return at + 1;
  const name = text.slice(nameStart, nameEnd);
  const inQuery = text.charCodeAt(at) === 61 && nameStart > 0 && '?&;'.includes(text[nameStart - 1] as string);
  if (!SECRET_NAMES.test(name) && !(inQuery && QUERY_SECRET_NAMES.test(name))) return at + 1;
  let value = at + 1;
  while (value < text.length && value - at < 5 && ' \t"\''.includes(text[value] as string)) value++;
  const end = runEnd(text, value, (c) => c > 32 && c !== 34 && c !== 39 && c !== 44 && c !== 59, 4096);
  if (end - value < 6) return at + 1;
  out.replace(value, end, '[secret]');
  return end;
}

/** How many spaces may stand between an `@` and the address's parts (`frank @ example.com`). */
const MAX_AT_SPACES = 2;

/**
 * An address around the `@` at `at`: `ana@example.com`, with spaces around the `@`
 * (`frank @ example.com`), a quoted local part (`"grace smith"@example.com`) or an IP literal
 * as its domain (`heidi@[192.168.0.1]`).
 */
function address(text: string, at: number, out: Masked): number {
  let localEnd = at;
  while (localEnd > out.from && at - localEnd < MAX_AT_SPACES && text.charCodeAt(localEnd - 1) === 32) localEnd--;
  let start: number;
  if (localEnd - 1 > out.from && text.charCodeAt(localEnd - 1) === 34) {
    // A quoted local part: back to its opening quote, on the same line, at most 64 characters.
    start = localEnd - 2;
    while (start >= out.from && localEnd - start <= 66 && text.charCodeAt(start) !== 34 && text.charCodeAt(start) !== 10) start--;
    if (start < out.from || text.charCodeAt(start) !== 34 || start === localEnd - 2) return at + 1;
  } else {
    start = localEnd;
    while (start > out.from && localEnd - start < 64 && isAddressChar(text.charCodeAt(start - 1))) start--;
    // Quotes before it are not the address's.
    while (start < localEnd && "'`‘“«".includes(text[start] as string)) start++;
    if (start === localEnd) return at + 1;
  }
  let domainStart = at + 1;
  while (domainStart - at <= MAX_AT_SPACES && text.charCodeAt(domainStart) === 32) domainStart++;
  if (text.charCodeAt(domainStart) === 91) {
    let close = domainStart + 1;
    while (close < text.length && close - domainStart < 48 && text.charCodeAt(close) !== 93) close++;
    if (text.charCodeAt(close) !== 93 || !IP_LITERAL.test(text.slice(domainStart + 1, close))) return at + 1;
    out.replace(start, close + 1, '[email]');
    return close + 1;
  }
  const end = domainEnd(text, domainStart);
  if (end === -1) return at + 1;
  out.replace(start, end, '[email]');
  return end;
}

/** A key of a known prefix starting at `at` (`sk_live_…`, `ghp_…`, `AKIA…`), with digits or without. */
function knownKey(text: string, at: number, out: Masked): number {
  if (at > 0 && isTokenChar(text.charCodeAt(at - 1))) return at + 1;
  KEY_START.lastIndex = at;
  if (!KEY_START.test(text)) return at + 1;
  let end = runEnd(text, at, isTokenChar, 512);
  while (end > at + 1 && text[end - 1] === '.') end--;
  if (!KNOWN_KEY.test(text.slice(at, end))) return at + 1;
  out.replace(at, end, '[secret]');
  return end;
}

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
const closingOf = (c: number) => (c === 91 ? 93 : c === 40 ? 41 : c === 123 ? 125 : -1);

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
function spelledAddress(text: string, at: number, out: Masked): number {
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

/** A phone number or a key around the digit at `at`. */
function digits(text: string, at: number, out: Masked): number {
  // A phone number: starts after something that is not a letter or digit, with an optional `+` or `(`.
  let start = at;
  while (start > out.from && at - start < 2 && (text[start - 1] === '+' || text[start - 1] === '(')) start--;
  if (start === 0 || !isAlnum(text.charCodeAt(start - 1))) {
    let end = runEnd(text, at, isPhoneChar, 22);
    while (end > at && !isDigit(text.charCodeAt(end - 1))) end--;
    if (!(end < text.length && isAlnum(text.charCodeAt(end))) && isPhone(text.slice(start, end), () => ledByPhoneWord(text, start, out.from))) {
      out.replace(start, end, '[phone]');
      return end;
    }
  }
  // A key: the whole run of token characters around the digit, judged once.
  const runFrom = runStart(text, at, isTokenChar, out.from);
  let runTo = runEnd(text, at, isTokenChar);
  while (runTo > at + 1 && text[runTo - 1] === '.') runTo--;
  const run = text.slice(runFrom, runTo);
  if (isSecret(run)) {
    out.replace(runFrom, runTo, '[secret]');
  } else if (run.includes('.')) {
    // `key.example` or `sentence.Token`: each part judged alone.
    let offset = runFrom;
    for (const part of run.split('.')) {
      if (isSecret(part)) out.replace(offset, offset + part.length, '[secret]');
      offset += part.length + 1;
    }
  }
  return Math.max(runTo, at + 1);
}

// --- folding -----------------------------------------------------------------------------------

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
  if (!NEEDS_FOLDING.test(text)) return { text };
  // UTF-16 units of the copy and their origins, decoded once at the end: no string is built piece by piece.
  let units = new Uint16Array(text.length + 16);
  let origin = new Int32Array(text.length + 16);
  let length = 0;
  const grow = (needed: number) => {
    const size = Math.max(units.length * 2, needed + 16);
    const moreUnits = new Uint16Array(size);
    moreUnits.set(units);
    units = moreUnits;
    const moreOrigin = new Int32Array(size);
    moreOrigin.set(origin);
    origin = moreOrigin;
  };
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
      if (length + width > units.length) grow(length + width);
      for (let k = 0; k < width; k++) {
        units[length] = text.charCodeAt(i + k);
        origin[length++] = i + k;
      }
    } else {
      if (length + folded.length > units.length) grow(length + folded.length);
      for (let k = 0; k < folded.length; k++) {
        units[length] = folded.charCodeAt(k);
        origin[length++] = i;
      }
    }
    i += width;
  }
  return { text: UTF16.decode(units.subarray(0, length)), origin: origin.subarray(0, length) };
}
const UTF16 = new TextDecoder('utf-16le');

/** The spans found in a folded copy, as spans of the original text. */
function spansInOriginal(spans: Masked['spans'], folded: FoldedText, original: string): Masked['spans'] {
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

/**
 * Where masked values are in `text`: the spans of its folded copy that the detector replaces,
 * mapped back to the original text, in order and not overlapping.
 */
function detect(text: string): Masked['spans'] {
  const folded = foldForDetection(text);
  return spansInOriginal(scan(folded.text), folded, text);
}

/**
 * `text` with e-mail addresses, phone numbers and secret-looking tokens replaced by `[email]`,
 * `[phone]` and `[secret]`, in every written form the detector folds; every other character
 * kept. Linear in the length of `text`.
 */
export function maskText(text: string): string {
  const spans = detect(text);
  if (spans.length === 0) return text;
  const parts: string[] = [];
  let from = 0;
  for (const { start, end, by } of spans) {
    if (start < from) continue;
    parts.push(text.slice(from, start), by);
    from = end;
  }
  parts.push(text.slice(from));
  return parts.join('');
}

/**
 * Where the next spelled "dot" and "DOT" of a text are (-1: none left; -2: not searched yet):
 * an "at" without brackets starts an address only with one close after it, so the many "at"s
 * of ordinary text cost a comparison (a native search, repeated only once the text passes the
 * last one found).
 */
interface DotSearch {
  lower: number;
  upper: number;
}

/** Whether a spelled "dot" follows `at` closely enough in `text` to finish an address. */
function dotNear(text: string, at: number, next: DotSearch): boolean {
  // Each kept until the text passes it: every search starts beyond the last one's find.
  if (next.lower !== -1 && next.lower < at) next.lower = text.indexOf('dot', at);
  if (next.upper !== -1 && next.upper < at) next.upper = text.indexOf('DOT', at);
  const found = next.lower === -1 ? next.upper : next.upper === -1 ? next.lower : Math.min(next.lower, next.upper);
  return found !== -1 && found - at <= MAX_SPELLED_DOMAIN;
}

/** The detector's pass over a folded text: the spans to replace. */
function scan(text: string): Masked['spans'] {
  const out = new Masked();
  const length = text.length;
  const next: DotSearch = { lower: -2, upper: -2 };
  for (let at = 0; at < length; ) {
    const c = text.charCodeAt(at);
    let step: number;
    if (c === 64) step = address(text, at, out);
    else if ((c >= 48 && c <= 57) || (c >= 0x660 && isDigit(c))) step = digits(text, at, out);
    else if (
      (c === 97 || c === 65) &&
      at > 0 &&
      (text.charCodeAt(at + 1) | 32) === 116 &&
      (text.charCodeAt(at + 2) === 32 ? dotNear(text, at, next) : closingOf(text.charCodeAt(at - 1)) !== -1)
    )
      step = spelledAddress(text, at, out);
    else if (c === 58 || c === 61) step = namedSecret(text, at, out);
    else if ((c === 66 || c === 98) && text.startsWith('earer', at + 1) && (text[at + 6] === ' ' || text[at + 6] === '\t')) step = bearer(text, at, out);
    else if (c === 115 || c === 112 || c === 114 || c === 103 || c === 120 || c === 65 || c === 109 || c === 110 || c === 104) step = knownKey(text, at, out);
    else step = at + 1;
    at = Math.max(step, out.from, at + 1);
  }
  return out.spans;
}

/** The mask `maskText` gives a value of each kind. */
export const MASKS = ['[email]', '[phone]', '[secret]'] as const;
/** A mask inside a text (a value cleaned before). */
const MASK_IN_TEXT = /\[(?:email|phone|secret)\]/;

/** Whether `text` holds an address, phone number or secret in any form the detector reads, or a mask. */
export function holdsPersonalData(text: string): boolean {
  return MASK_IN_TEXT.test(text) || detect(text).length > 0;
}

// --- paths -----------------------------------------------------------------------------------

/**
 * Where a path's query string or fragment starts: `?` `#` and their full-width forms — but not
 * the `#` of an HTML entity (`&#64;`, `&amp;#64;`): that is an encoded at-sign inside a segment,
 * and cutting there would keep the address's local part.
 */
const QUERY_OR_FRAGMENT = /[?\uff1f\uff03]|(?<!&|&amp;)#/i;

/**
 * A page path or URL as the `path` policy stores it: its query string and fragment removed,
 * each `/`-separated segment that holds an address, a phone number or a secret (read
 * percent-decoded, in every form `maskText` reads) replaced by `[email]`, `[phone]` or
 * `[secret]`; every other segment as it was.
 */
export function maskPath(value: string): string {
  const cut = value.search(QUERY_OR_FRAGMENT);
  const kept = cut === -1 ? value : value.slice(0, cut);
  const segments = kept.split('/');
  let changed = cut !== -1;
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i] as string;
    if (segment === '') continue;
    const mask = segmentMask(segment);
    if (mask === undefined) continue;
    segments[i] = mask;
    changed = true;
  }
  return changed ? segments.join('/') : value;
}

/**
 * The segments seen lately and their masks (`null`: kept). A day's paths share most of their
 * segments (`docs`, a section), so most are looked up here, not read again; the map is
 * emptied when it holds `SEGMENT_MEMO_SIZE`, which bounds its memory.
 */
const SEGMENT_MEMO = new Map<string, string | null>();
const SEGMENT_MEMO_SIZE = 4_096;
/** Segments longer than this are read every time (an address or token in a path is rarely repeated). */
const MEMO_SEGMENT_LENGTH = 64;

/** The mask that replaces a path segment (read percent-decoded), or undefined when it holds nothing to mask. */
function segmentMask(segment: string): string | undefined {
  const memo = segment.length <= MEMO_SEGMENT_LENGTH;
  const known = memo ? SEGMENT_MEMO.get(segment) : undefined;
  if (known !== undefined) return known ?? undefined;
  const spans = detect(decodeSegment(segment));
  const mask = spans.length === 0 ? null : (spans[0] as { by: string }).by;
  if (memo) {
    if (SEGMENT_MEMO.size >= SEGMENT_MEMO_SIZE) SEGMENT_MEMO.clear();
    SEGMENT_MEMO.set(segment, mask);
  }
  return mask ?? undefined;
}

/** A segment percent-decoded (as a browser or server reads it), or as it is when it does not decode. */
function decodeSegment(segment: string): string {
  if (!segment.includes('%')) return segment;
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** `value` with `maskText` applied to every string inside it (arrays and plain objects); other values as they are. */
export function maskDeep(value: unknown): unknown {
  if (typeof value === 'string') return maskText(value);
  if (Array.isArray(value)) return value.map(maskDeep);
  if (value !== null && typeof value === 'object') {
    const proto = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) return value;
    const out: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(value)) out[key] = maskDeep(inner);
    return out;
  }
  return value;
}

// --- keyed hashes ------------------------------------------------------------------------------

/**
 * One person's value, whatever form it was written in: NFKC-folded (full-width and compatibility
 * forms, `。` as `.`, encoded at-signs decoded, default-ignorable code points removed), trimmed,
 * lower-cased, and an address's domain converted to ASCII (IDN → punycode, `node:url`'s
 * `domainToASCII`). Two forms of one address give one value, so one HMAC.
 */
export function identityOf(value: string): string {
  const folded = foldForDetection(value).text.normalize('NFKC').trim().toLowerCase();
  const at = folded.lastIndexOf('@');
  if (at <= 0 || folded.indexOf('@') !== at) return folded;
  const domain = folded.slice(at + 1);
  if (domain.startsWith('[')) return folded;
  const ascii = domainToASCII(domain);
  return ascii === '' ? folded : `${folded.slice(0, at + 1)}${ascii}`;
}

/** The lowercase hex HMAC-SHA256 of `identityOf(value)`, keyed by `key`. */
export function hmacOf(key: string, value: string): string {
  return createHmac('sha256', key).update(identityOf(value)).digest('hex');
}

/**
 * The HMAC of `value` as releases before the one-HMAC-per-person change made it (trimmed and
 * lower-cased only). It differs from `hmacOf` only for a value written in another form
 * (full-width, decomposed, IDN …): `forget` removes rows under both.
 */
export function legacyHmacOf(key: string, value: string): string {
  return createHmac('sha256', key).update(value.trim().toLowerCase()).digest('hex');
}

/**
 * A short id of `key` that manifests and erasure records may name: 12 hex digits of an HMAC
 * of a fixed text, so it tells two keys apart without helping anyone guess the key.
 */
export function keyIdOf(key: string): string {
  return createHmac('sha256', key).update('mintlify-exporter personal data key id').digest('hex').slice(0, 12);
}

/**
 * The key of one organisation's `hmac` columns, derived from the deployment's key and the
 * organisation's id (HMAC-SHA256, hex): one person has another HMAC in each organisation's lake,
 * so the lakes cannot be joined on it, and no organisation's key tells another's. A deployment
 * without organisations uses its key as it is.
 */
export function organisationKey(deploymentKey: string, orgId: string): string {
  return createHmac('sha256', deploymentKey).update(`mintlify-exporter organisation key\u0000${orgId}`).digest('hex');
}

/** The fewest characters a PERSONAL_DATA_KEY may have: a short key falls to a dictionary too. */
export const MIN_KEY_LENGTH = 16;

/** Checks a key given as text (PERSONAL_DATA_KEY, the secret, the key file) and returns it trimmed. */
export function validatePersonalDataKey(raw: string, source: string): string {
  const key = raw.trim();
  if (key.length < MIN_KEY_LENGTH) {
    throw new ConfigError(
      `${source} is too short (${key.length} characters): use at least ${MIN_KEY_LENGTH} random characters, e.g. the output of \`openssl rand -hex 32\``,
    );
  }
  return key;
}

// --- e-mail addresses (forget) ---------------------------------------------------------------

const EMAIL_ADDRESS = /^[\p{L}\p{N}._%+'-]{1,64}@[\p{L}\p{N}-]{1,63}(?:\.[\p{L}\p{N}-]{1,63}){1,8}$/u;

/**
 * Whether `text` is one e-mail address in any form `identityOf` folds (full-width, decomposed,
 * IDN): a local part, `@`, a domain with a top-level label of letters.
 */
export function isEmailAddress(text: string): boolean {
  const trimmed = foldForDetection(text).text.normalize('NFKC').trim();
  return trimmed.length <= 320 && EMAIL_ADDRESS.test(trimmed) && TLD.test(trimmed) && !trimmed.includes('..');
}
