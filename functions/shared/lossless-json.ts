/**
 * JSON that keeps every digit of an integer. `JSON.parse` reads `12345678901234567890` as the
 * nearest double, `12345678901234567000`: a new field the service sends as a large id would be
 * written to `unknown_fields` with other digits. Node 20 has neither the reviver's source text
 * nor `JSON.rawJSON` (both came with V8 11.4 / Node 21), and no dependency is needed for this:
 *
 * - `parseJson` reads an integer literal outside the safe range (|n| > 2^53 − 1, no fraction,
 *   no exponent) as a `bigint` with its exact digits; everything else exactly as `JSON.parse`.
 *   The text is scanned only when it holds a run of 16 digits (the fast path is one regex).
 * - `stringifyJson` writes a `bigint` back as its digits, so `unknown_fields`, `sources_json`
 *   and staged pages keep them. A `bigint` never comes from anything but such a literal.
 *
 * A known field (a count) that receives a `bigint` is refused by its schema as before: only
 * values this version does not interpret are kept this way.
 */
import { randomUUID } from 'node:crypto';

/** A run of digits long enough to hold an unsafe integer (2^53 has 16 digits). */
const LONG_DIGITS = /\d{16}/;

/**
 * The text of each JSON number that is an integer outside the safe range, with its offset.
 * Strings are skipped (escapes included); the text is valid JSON (JSON.parse read it first).
 */
function unsafeIntegers(text: string): { at: number; digits: string }[] {
  const found: { at: number; digits: string }[] = [];
  const number = /-?\d+(\.\d+)?([eE][+-]?\d+)?/y;
  for (let i = 0; i < text.length; ) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // A string: skip to its closing quote.
      i += 1;
      while (i < text.length && text.charCodeAt(i) !== 0x22) i += text.charCodeAt(i) === 0x5c ? 2 : 1;
      i += 1;
    } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      number.lastIndex = i;
      const match = number.exec(text);
      const token = match?.[0] ?? text[i] ?? '';
      if (match && match[1] === undefined && match[2] === undefined && !Number.isSafeInteger(Number(token))) found.push({ at: i, digits: token });
      i += Math.max(1, token.length);
    } else {
      i += 1;
    }
  }
  return found;
}

/**
 * `JSON.parse(text)`, but an integer outside the safe range is a `bigint` with its exact
 * digits. Throws `SyntaxError` as `JSON.parse` does.
 */
export function parseJson(text: string): unknown {
  const value: unknown = JSON.parse(text);
  if (!LONG_DIGITS.test(text)) return value;
  const integers = unsafeIntegers(text);
  if (integers.length === 0) return value;
  // Each such literal becomes a string holding a fresh random mark, which the reviver turns
  // into a bigint: no string the text itself holds can carry the mark.
  const mark = `\u0000${randomUUID()}:`;
  let marked = '';
  let from = 0;
  for (const { at, digits } of integers) {
    marked += `${text.slice(from, at)}"\\u0000${mark.slice(1)}${digits}"`;
    from = at + digits.length;
  }
  marked += text.slice(from);
  return JSON.parse(marked, (_key, item: unknown) => (typeof item === 'string' && item.startsWith(mark) ? BigInt(item.slice(mark.length)) : item));
}

/**
 * `JSON.stringify(value)` (no indentation), writing each `bigint` as its digits. Throws as
 * `JSON.stringify` does on a cycle.
 */
export function stringifyJson(value: unknown): string {
  // Without a bigint (nearly always) JSON.stringify alone, several times faster than with a
  // replacer called for every value; with one, it throws a TypeError and the replacer does it.
  try {
    return JSON.stringify(value);
  } catch (error) {
    if (!(error instanceof TypeError) || !/BigInt/i.test(error.message)) throw error;
  }
  let mark: string | undefined;
  const text = JSON.stringify(value, (_key, item: unknown) => {
    if (typeof item !== 'bigint') return item;
    mark ??= `${randomUUID()}:`;
    return `${mark}${item}`;
  });
  if (mark === undefined) return text;
  const marked = mark;
  return text.replace(new RegExp(`"${marked}(-?\\d+)"`, 'g'), '$1');
}
