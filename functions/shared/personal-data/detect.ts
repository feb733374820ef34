/**
 * The detector (personal data): where e-mail addresses, phone numbers and secret-looking tokens
 * are in a text, in every written form the fold reads (fold.ts). One pass over the folded copy
 * whose every step is bounded, so the time is linear in the text; each span found is mapped
 * back to the original text. The same detector serves the lake, the report, the terminal and
 * prompts (mask.ts).
 */
import { foldInScratch, spansInOriginal } from './fold.js';
import {
  asciiDigits,
  digitValue,
  isAddressChar,
  isAlnum,
  isBearerChar,
  isDash,
  isDigit,
  isDomainLabelChar,
  isLetter,
  isPhoneChar,
  isTokenChar,
  Masked,
  runEnd,
  runStart,
} from './scanning.js';
import { closingOf, type DotSearch, dotNear, spelledAddress } from './spelled.js';

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
 * Where masked values are in `text`: the spans of its folded copy that the detector replaces,
 * mapped back to the original text, in order and not overlapping.
 */
export function detect(text: string): Masked['spans'] {
  // The scan never folds another text: the scratch origins are still this text's when the spans are mapped.
  const folded = foldInScratch(text);
  return spansInOriginal(scan(folded.text), folded, text);
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
