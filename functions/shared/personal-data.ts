/**
 * Personal data: the two transformations a column's policy (warehouse/column-policy.ts,
 * docs/privacy.md) applies to what readers typed or left:
 *
 * - `hmacOf`: the lowercase hex HMAC-SHA256 of the trimmed, lower-cased value, keyed by the
 *   deployment's key — the same person has the same value on every day and in every project,
 *   so counting and joining still work, and a dictionary of addresses is no use without the key;
 * - `maskText`: e-mail addresses → `[email]`, phone numbers → `[phone]`, API keys, bearer
 *   tokens and `password=…`-like values → `[secret]`, every other word kept. One pass of one
 *   regular expression whose every part starts only at a word boundary and is bounded, so the
 *   time is linear in the text (a 1 MB text in well under 50 ms, whatever it holds).
 *
 * The key never leaves this process: manifests and erasure records name its `keyIdOf`.
 */
import { createHmac } from 'node:crypto';
import { ConfigError } from './errors.js';

// --- masking ---------------------------------------------------------------------------------

/*
 * Where a masked value may start: an `@` (an address around it), a digit (a phone number, a
 * key — every generated key holds one), `:`/`=` after a secret's name, `Bearer `. The scanner
 * (`maskText`) walks the text once and looks around these only, each character a bounded
 * number of times: the time is linear in the text, whatever it holds.
 */

/** Names whose value after `:` or `=` is a secret (`api_key=…`, `"password": "…"`). */
const SECRET_NAMES = /^(?:api[_-]?key|apikey|access[_-]?token|auth[_-]?token|token|secret|client[_-]?secret|password|passwd|pwd)$/i;
/** Keys with a known prefix (Mintlify, Stripe/OpenAI, GitHub, Slack, GitLab, AWS, Google). */
const KNOWN_KEY =
  /^(?:mint_[A-Za-z0-9_]{8,}|(?:sk|pk|rk)[_-][A-Za-z0-9_-]{12,}|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|xox[abposr]-[A-Za-z0-9-]{10,}|glpat-[A-Za-z0-9_-]{16,}|A[KS]IA[0-9A-Z]{16}|AIza[0-9A-Za-z_-]{30,})$/;
const JWT = /^eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}$/;

const DATE_LIKE = /^(?:\d{4}[-/.]\d{1,2}[-/.]\d{1,2}|\d{1,2}[-/.]\d{1,2}[-/.]\d{2,4})/;
const IP_LIKE = /^\d{1,3}(?:\.\d{1,3}){3}$/;
const TLD = /\.\p{L}{2,63}$/u;

/** The ASCII characters `accepted`: printable ones but `refused`, as a lookup table. */
function asciiTable(refused: string): Uint8Array {
  const table = new Uint8Array(128);
  for (let c = 33; c < 127; c++) table[c] = refused.includes(String.fromCharCode(c)) ? 0 : 1;
  return table;
}
const ADDRESS_ASCII = asciiTable('<>()[]\\,;:"@');
const DOMAIN_ASCII = asciiTable('<>()[]\\,;:"@\'/?#=&*!');

const isAlnum = (c: number) => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c > 127;
/**
 * The value of the decimal digit `c`, or -1: ASCII, and the digits a phone number may be
 * written in besides — Arabic-Indic, Extended Arabic-Indic (Persian, Urdu), Devanagari,
 * Bengali, full-width. Plain comparisons: it runs on every character of a number.
 */
function digitValue(c: number): number {
  if (c <= 57) return c >= 48 ? c - 48 : -1;
  if (c < 0x660) return -1;
  if (c <= 0x669) return c - 0x660;
  if (c >= 0x6f0 && c <= 0x6f9) return c - 0x6f0;
  if (c >= 0x966 && c <= 0x96f) return c - 0x966;
  if (c >= 0x9e6 && c <= 0x9ef) return c - 0x9e6;
  if (c >= 0xff10 && c <= 0xff19) return c - 0xff10;
  return -1;
}
const isDigit = (c: number) => (c >= 48 && c <= 57) || (c >= 0x660 && digitValue(c) >= 0);
/** `text` with every digit of those scripts as its ASCII digit (to judge dates and addresses alike). */
function asciiDigits(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const value = c > 127 ? digitValue(c) : -1;
    out += value >= 0 ? String.fromCharCode(48 + value) : text[i];
  }
  return out;
}
/** A character of a token (key, id): ASCII letters, digits, `_`, `-`, `.`. */
const isTokenChar = (c: number) => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 45 || c === 46;
/** A character of an address's local part or domain: anything but spaces and what surrounds an address in text. */
const isAddressChar = (c: number) => (c < 128 ? ADDRESS_ASCII[c] === 1 : c !== 0xa0 && c !== 0x3000);
const isDomainChar = (c: number) => (c < 128 ? DOMAIN_ASCII[c] === 1 : c !== 0xa0 && c !== 0x3000);
const isPhoneChar = (c: number) => isDigit(c) || c === 32 || c === 0xa0 || c === 40 || c === 41 || c === 46 || c === 45 || c === 0xff0d;
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
    } else if (c === 46 || c === 45 || c === 47 || c === 0xff0d) dotted = true;
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

/** Whether `domain` is dot-separated labels of 1–63 characters ending in a label of two or more letters. */
function isDomain(domain: string): boolean {
  const lastDot = domain.lastIndexOf('.');
  if (lastDot <= 0 || domain.length - lastDot - 1 < 2) return false;
  for (let i = lastDot + 1; i < domain.length; i++) {
    const c = domain.charCodeAt(i);
    if (!((c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c > 127)) return false;
  }
  let label = 0;
  for (let i = 0; i < domain.length; i++) {
    if (domain.charCodeAt(i) !== 46) label++;
    else if (label === 0 || label > 63) return false;
    else label = 0;
  }
  return label > 0 && label <= 63;
}

/** A run of token characters that is a secret: a known key, a JWT, long hex, or long mixed case with digits. */
function isSecret(token: string): boolean {
  if (KNOWN_KEY.test(token) || JWT.test(token)) return true;
  if (token.length < 24) return false;
  if (token.length >= 32 && /^[0-9a-f]+$/i.test(token) && /\d/.test(token)) return true;
  return /\d/.test(token) && /[a-z]/.test(token) && /[A-Z]/.test(token) && !token.includes('--') && !token.includes('.');
}

/** The masker's output, built piece by piece; `from` is where the text not yet copied starts. */
class Masked {
  private readonly parts: string[] = [];
  from = 0;
  constructor(private readonly text: string) {}
  replace(start: number, end: number, by: string): void {
    this.parts.push(this.text.slice(this.from, start), by);
    this.from = end;
  }
  result(): string {
    return this.parts.length === 0 ? this.text : this.parts.join('') + this.text.slice(this.from);
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
  if (!SECRET_NAMES.test(text.slice(nameStart, nameEnd))) return at + 1;
  let value = at + 1;
  while (value < text.length && value - at < 5 && ' \t"\''.includes(text[value] as string)) value++;
  const end = runEnd(text, value, (c) => c > 32 && c !== 34 && c !== 39 && c !== 44 && c !== 59, 4096);
  if (end - value < 6) return at + 1;
  out.replace(value, end, '[secret]');
  return end;
}

/** An address around the `@` at `at`. */
function address(text: string, at: number, out: Masked): number {
  let start = at;
  while (start > out.from && at - start < 64 && isAddressChar(text.charCodeAt(start - 1))) start--;
  if (start === at) return at + 1;
  let end = at + 1;
  let dot = -1;
  while (end < text.length && end - at <= 253) {
    const c = text.charCodeAt(end);
    if (!isDomainChar(c)) break;
    if (c === 46) dot = end;
    end++;
  }
  // A domain has a dot: `a@b` is not an address (and costs no more than this to rule out).
  if (dot === -1) return at + 1;
  // Quotes before it and the punctuation that ends a sentence after it are not the address's.
  while (start < at && "'`‘“«".includes(text[start] as string)) start++;
  while (end > at + 1 && ".'`’”»".includes(text[end - 1] as string)) end--;
  if (start === at || !isDomain(text.slice(at + 1, end))) return at + 1;
  out.replace(start, end, '[email]');
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

/**
 * `text` with e-mail addresses, phone numbers and secret-looking tokens replaced by `[email]`,
 * `[phone]` and `[secret]`; every other character kept. Linear in the length of `text`.
 */
export function maskText(text: string): string {
  const out = new Masked(text);
  const length = text.length;
  /**
   * Where the next spelled "dot" and "DOT" are (-1: none left): an "at" without brackets
   * starts an address only with one close after it, so the many "at"s of ordinary text cost a
   * comparison (a native search, repeated only once the text passes the last one found).
   */
  const next = { lower: -2, upper: -2 };
  const dotNear = (at: number): boolean => {
    // Each kept until the text passes it: every search starts beyond the last one's find.
    if (next.lower !== -1 && next.lower < at) next.lower = text.indexOf('dot', at);
    if (next.upper !== -1 && next.upper < at) next.upper = text.indexOf('DOT', at);
    const found = next.lower === -1 ? next.upper : next.upper === -1 ? next.lower : Math.min(next.lower, next.upper);
    return found !== -1 && found - at <= MAX_SPELLED_DOMAIN;
  };
  for (let at = 0; at < length; ) {
    const c = text.charCodeAt(at);
    let step: number;
    if (c === 64) step = address(text, at, out);
    else if ((c >= 48 && c <= 57) || (c >= 0x660 && isDigit(c))) step = digits(text, at, out);
    else if (
      (c === 97 || c === 65) &&
      at > 0 &&
      (text.charCodeAt(at + 1) | 32) === 116 &&
      (text.charCodeAt(at + 2) === 32 ? dotNear(at) : closingOf(text.charCodeAt(at - 1)) !== -1)
    )
      step = spelledAddress(text, at, out);
    else if (c === 58 || c === 61) step = namedSecret(text, at, out);
    else if ((c === 66 || c === 98) && text.startsWith('earer', at + 1) && (text[at + 6] === ' ' || text[at + 6] === '\t')) step = bearer(text, at, out);
    else step = at + 1;
    at = Math.max(step, out.from, at + 1);
  }
  return out.result();
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

/** The lowercase hex HMAC-SHA256 of `value` trimmed and lower-cased, keyed by `key`. */
export function hmacOf(key: string, value: string): string {
  return createHmac('sha256', key).update(value.trim().toLowerCase()).digest('hex');
}

/**
 * A short id of `key` that manifests and erasure records may name: 12 hex digits of an HMAC
 * of a fixed text, so it tells two keys apart without helping anyone guess the key.
 */
export function keyIdOf(key: string): string {
  return createHmac('sha256', key).update('mintlify-exporter personal data key id').digest('hex').slice(0, 12);
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

/** Whether `text` (trimmed) is one e-mail address: a local part, `@`, a domain with a top-level label of letters. */
export function isEmailAddress(text: string): boolean {
  const trimmed = text.trim();
  return trimmed.length <= 320 && EMAIL_ADDRESS.test(trimmed) && TLD.test(trimmed) && !trimmed.includes('..');
}
