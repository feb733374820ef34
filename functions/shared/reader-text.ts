/**
 * Readers' words as data: the one function every reader-supplied value (a search term, an
 * assistant question, a feedback comment, a page path a browser reported, the category the
 * assistant derived from a question) goes through before it reaches a prompt for the agent, a
 * terminal line, the report or the digest.
 *
 * Anyone on the internet can type these values, so the result:
 * - is one line (line breaks and tabs become spaces: a value cannot forge a heading, a list
 *   item or a line of a listing);
 * - holds no C0/C1 control (ESC, BEL, CSI act on a terminal), no bidi control, no zero-width
 *   or other format character, no default-ignorable code point and no filler (Hangul fillers,
 *   the blank Braille pattern: they reorder or hide what a reviewer sees, while the agent reads
 *   the logical order) — removed, not escaped: the value is evidence to read, not an
 *   identifier to tell apart (`shared/display.ts` escapes the names that are);
 * - shows e-mail addresses, phone numbers and secrets as `[email]`, `[phone]`, `[secret]` in
 *   every written form (the one detector, `shared/personal-data/`: they would travel from the
 *   prompt into a public pull request);
 * - has its links defanged (`hxxps://evil[.]example`, `javascript[:]`, `data[:]`, a bare
 *   `evil[.]example/path`): nothing clicks or fetches them;
 * - never holds `RESERVED_MARK`, the character of the prompts' block markers, so a value can
 *   never close the block it stands in;
 * - is cut (a path at 200 characters, a category at 80, a quote at 300), ending with `…`.
 *
 * Linear time: the value is cut to a window before it is cleaned, so a value of megabytes costs
 * what its first few thousand characters cost, and every pattern scans without backtracking.
 *
 * The masking is the lake's own detector; the rest is how a value is shown, wherever it came
 * from (a lake written before a policy included).
 */
import { maskText } from './personal-data/index.js';

/** Longest value shown, in characters, by kind. */
export const READER_TEXT_LIMITS = {
  /** A page path. */
  path: 200,
  /** A question category. */
  category: 80,
  /** A search term, question or comment. */
  quote: 300,
} as const;

export type ReaderTextKind = keyof typeof READER_TEXT_LIMITS;

/**
 * The character of the marker lines around readers' words in a prompt (`⁂`, U+2042 ASTERISM):
 * cleaning turns it into `*`, so no cleaned value holds it.
 */
export const RESERVED_MARK = '\u2042';

export interface CleanedReaderText {
  /** The value as it may be shown. */
  readonly text: string;
  /** Longer than its limit: cut, ending with `…`. */
  readonly cut: boolean;
  /** Something was removed or rewritten: a line break, a control, bidi or zero-width character, an e-mail address, a link, the marker character. */
  readonly cleaned: boolean;
  /** It held a link (now defanged). */
  readonly link: boolean;
}

/** How far past the limit the value is cleaned, so a token straddling the cut is judged whole (an address is at most 254 characters). */
const LOOKAHEAD = 320;
/** Raw characters read for each character shown: removed characters and whitespace runs fold away. */
const RAW_PER_SHOWN = 4;

/** Characters that break a line (or tab), made spaces. */
const BREAKS = /[\t\n\v\f\r\u0085\u2028\u2029]/gu;
/**
 * Controls (C0, DEL, C1), format characters (bidi embeddings, overrides, isolates and marks,
 * zero-width space and joiners, BOM, soft hyphen, tag characters), lone surrogates,
 * default-ignorable code points (variation selectors, the Hangul fillers U+115F, U+1160,
 * U+3164, U+FFA0) and the blank Braille pattern U+2800 (a filler that shows as nothing): removed.
 */
const HIDDEN = /[\p{Cc}\p{Cf}\p{Cs}\p{Default_Ignorable_Code_Point}\u2800]/gu;
const RESERVED = new RegExp(RESERVED_MARK, 'gu');

/** The last token of a text: what follows its last whitespace. */
const LAST_TOKEN = /[^\s]*$/u;
/** The start of an address, for a token the cut may have ended early (any at-sign the detector folds). */
const ADDRESS_START = /[^@＠﹫\s]\s?[@＠﹫]|%40|&#(?:64|x40);|&commat;/iu;
const EMAIL = '[email]';
/** A masked `mailto:` link: the whole link is the address. */
const MAILTO = /mailto:\[email\]/giu;

/**
 * `scheme://host`: the scheme is bounded, the host ends at the first character that cannot be in
 * one. The colon may be full-width or small (`：`, `﹕`) and the slashes backslashes or
 * full-width (`https:\\evil.example`, `https：//evil.example`): browsers and chat clients read
 * those as a link too.
 */
const SCHEME_URL = /(?<![a-z0-9+.-])([a-z][a-z0-9+.-]{0,31})[:\uff1a\ufe55][/\\\uff0f\uff3c]{2}([^\s/?#\\\uff0f\uff3c]*)/giu;
/** `www.host` without a scheme. */
const WWW_HOST = /(?<![\p{L}\p{N}.\-/])(www\.[^\s/?#\\]+)/giu;
/** `//host.tld` (or `\\\\host.tld`) at a token's start (a protocol-relative link). */
const RELATIVE_HOST = /(?<![^\s"'(<[])[/\\]{2}([^\s/?#\\.]+\.[^\s/?#\\]+)/gu;
/** Schemes that run or read something without `//`: `javascript:`, `vbscript:`, `data:text/html…`, `file:/etc`. */
const DANGEROUS_SCHEME = /(?<![\p{L}\p{N}+.-])(javascript|vbscript|data|file)\s{0,3}[:\uff1a\ufe55](?![\s[])/giu;
/** A bare `host.tld/path`, without a scheme or `www.`: labels, a top-level domain of letters, then `/`. */
const BARE_HOST = /(?<![\p{L}\p{N}.\-/\\@:\][_])((?:[a-z0-9-]{1,63}\.){1,8}[a-z]{2,24})(?=[/\\])/giu;
/**
 * What each link pattern cannot match without (a colon of either width; a slash or backslash;
 * `www.`): a text without it is left as it is without running the pattern, which scans every
 * position with a look-behind (most questions hold no link: a day of 200,000 spent a third of
 * its cleaning there). The same text either way.
 */
const COLON = /[:\uff1a\ufe55]/u;
const SLASH = /[/\\]/;
const WWW = /www\./iu;
/** Whitespace `\s+` → ' ' and `trim` would change: any but a space, two spaces, or a space at either end. */
const UNEVEN_SPACE = /[^\S ]| {2}|^ | $/u;
const DEFANGED_SCHEME: Readonly<Record<string, string>> = { http: 'hxxp', https: 'hxxps', ftp: 'fxp', hxxp: 'hxxp', hxxps: 'hxxps', fxp: 'fxp' };

/** `value` cleaned and cut for `kind` (or to `max` characters), with what was done to it. */
export function cleanReaderText(value: string, limit: ReaderTextKind | number): CleanedReaderText {
  const max = typeof limit === 'number' ? limit : READER_TEXT_LIMITS[limit];
  const window = max + LOOKAHEAD;
  const head = cutAt(value, window * RAW_PER_SHOWN);
  const flat = head.replace(BREAKS, ' ').replace(HIDDEN, '').replace(RESERVED, '*');
  let cleaned = flat !== head;
  const visible = UNEVEN_SPACE.test(flat) ? flat.replace(/\s+/gu, ' ').trim() : flat;
  const cutShort = head.length < value.length || visible.length > window;
  const shown = cutAt(visible, window);
  const masked = maskPersonal(shown, cutShort);
  if (masked !== shown) cleaned = true;
  const defanged = defangLinks(masked);
  const link = defanged !== masked;
  if (link) cleaned = true;
  const cut = cutShort || defanged.length > max;
  return { text: cut ? `${cutAt(defanged, max - 1)}…` : defanged, cut, cleaned, link };
}

/** `value` as it may be shown (see `cleanReaderText`). */
export function readerText(value: string, limit: ReaderTextKind | number): string {
  return cleanReaderText(value, limit).text;
}

/**
 * Addresses, phone numbers and secrets masked by the one detector (`maskText`), in every form
 * it reads. `cutShort`: the text was cut, so its last token may be an address's start.
 */
function maskPersonal(text: string, cutShort: boolean): string {
  const masked = maskText(text).replace(MAILTO, EMAIL);
  if (!cutShort) return masked;
  const last = LAST_TOKEN.exec(masked)?.[0] ?? '';
  return last !== '' && ADDRESS_START.test(last) ? `${masked.slice(0, masked.length - last.length)}${EMAIL}` : masked;
}

/**
 * `https://evil.example/x` → `hxxps://evil[.]example/x` (also `https:\\evil.example` and
 * `https：//evil.example`); `www.evil.example`, `//evil.example`, `\\\\evil.example` and a bare
 * `evil.example/x` get their dots bracketed; `javascript:` → `javascript[:]` (and `vbscript:`,
 * `data:`, `file:`, with a full-width colon too).
 */
function defangLinks(text: string): string {
  const colon = COLON.test(text);
  let out = text;
  if (colon) {
    out = out.replace(SCHEME_URL, (_, scheme: string, host: string) => {
      const known = DEFANGED_SCHEME[scheme.toLowerCase()];
      return `${known ?? `${scheme}[:]`}${known ? ':' : ''}//${bracketDots(host)}`;
    });
  }
  if (WWW.test(out)) out = out.replace(WWW_HOST, (host: string) => bracketDots(host));
  // The patterns after add no slash, backslash or colon: the text as it is now says whether they can match.
  const slash = SLASH.test(out);
  if (slash) out = out.replace(RELATIVE_HOST, (link: string, host: string) => `${link.slice(0, 2)}${bracketDots(host)}`);
  if (colon) out = out.replace(DANGEROUS_SCHEME, (_, scheme: string) => `${scheme}[:]`);
  if (slash) out = out.replace(BARE_HOST, (host: string) => bracketDots(host));
  return out;
}

function bracketDots(host: string): string {
  return host.replace(/(?<!\[)[.\uff0e\u3002\uff61](?!\])/g, '[.]');
}

/** The first `max` UTF-16 units of `text`, one fewer rather than half a surrogate pair. */
function cutAt(text: string, max: number): string {
  if (text.length <= max) return text;
  const code = text.charCodeAt(max - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max);
}
