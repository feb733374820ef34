/**
 * Text and numbers as the report shows them: user text (search terms, questions, paths,
 * comments) cut, cleaned and with e-mail addresses masked; counts and shares formatted. The
 * page itself is written by page/ (escaping is the template's job: page/template.ts).
 */
import { displayText } from '../shared/display.js';

/** What ends an e-mail-like token: whitespace and the punctuation that surrounds an address in prose. */
const TOKEN_END = /([\s<>()[\]{}"',;:]+)/u;
/** A token that holds an address: something, `@`, something with a dot. Linear: each `@` starts one scan that ends at the next `@`. */
const ADDRESS = /[^@]@[^@]*\.[^@]/u;
/** The start of an address, for a token the cut may have ended early. */
const ADDRESS_START = /[^@]@/u;
/** How far past the cut the text is cleaned, so a token straddling the cut is judged whole (an address is at most 254 characters). */
const LOOKAHEAD = 320;
/** Raw characters read for each character shown: control characters and whitespace runs may fold away. */
const RAW_PER_SHOWN = 4;

/**
 * Every token that looks like an e-mail address replaced by `[e-mail removed]`; linear in the
 * text's length. `cutShort`: the text was cut, so its last token may be an address's start.
 */
export function maskEmails(text: string, cutShort = false): string {
  // Split with a capture: tokens at even indexes, the separators between them at odd ones.
  const parts = text.split(TOKEN_END);
  const last = parts.length - 1;
  return parts
    .map((part, i) => (i % 2 === 0 && (ADDRESS.test(part) || (i === last && cutShort && ADDRESS_START.test(part))) ? '[e-mail removed]' : part))
    .join('');
}

/** The first `max` UTF-16 units of `text`, one fewer rather than half an emoji (a surrogate pair). */
function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  const code = text.charCodeAt(max - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max);
}

/**
 * User text (a search term, a question, a path) for display: whitespace runs made one space,
 * controls and bidirectional or zero-width characters shown as `\uXXXX` (displayText: a
 * right-to-left override cannot make `gnp.exe` read `exe.png`), e-mail addresses masked (readers paste them into questions), whitespace runs made one space,
 * cut to `max` characters. It is cut before it is cleaned, so a value of megabytes costs what
 * its first few hundred characters cost. Not escaped: the page's template does that.
 */
export function userText(text: string, max = 160): string {
  const window = max + LOOKAHEAD;
  const head = cut(text, window * RAW_PER_SHOWN);
  const folded = displayText(head.replace(/\s+/g, ' ').trim());
  const cutShort = head.length < text.length || folded.length > window;
  const cleaned = maskEmails(cut(folded, window), cutShort);
  const longer = cutShort || cleaned.length > max;
  return longer ? `${cut(cleaned, max - 1)}…` : cleaned;
}

const NUMBER = new Intl.NumberFormat('en-US');

/** `12,345`: exact, with thousands separators. */
export function formatCount(value: number): string {
  return NUMBER.format(value);
}

/** `12.3 %`, or `—` when there is nothing to divide. */
export function formatShare(value: number | null): string {
  return value === null ? '—' : `${(value * 100).toFixed(1)} %`;
}

/** `+12`, `−3`, `±0` of a change, with `text` the magnitude as shown. */
export function signed(value: number, text: string): string {
  return value > 0 ? `+${text}` : value < 0 ? `−${text.replace(/^-/, '')}` : '±0';
}
