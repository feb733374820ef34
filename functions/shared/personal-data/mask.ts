/**
 * Masking (personal data): `maskText` replaces what the detector (detect.ts) finds by `[email]`,
 * `[phone]` and `[secret]` and keeps every other character; `maskPath` cleans a page path or URL
 * (the `path` policy); `maskDeep` masks every string inside a value.
 */
import { detect } from './detect.js';

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

/** The mask `maskText` gives a value of each kind. */
export const MASKS = ['[email]', '[phone]', '[secret]'] as const;
/** A mask inside a text (a value cleaned before). */
const MASK_IN_TEXT = /\[(?:email|phone|secret)\]/;

/** Whether `text` holds an address, phone number or secret in any form the detector reads, or a mask. */
export function holdsPersonalData(text: string): boolean {
  return MASK_IN_TEXT.test(text) || detect(text).length > 0;
}

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
