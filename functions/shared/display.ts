/**
 * Text that came from elsewhere (the service, a bucket, a file) as a person may be shown it:
 * on a terminal, in a log line, in a manifest someone reads with `cat`, on a report page.
 * A character that changes how the text around it is shown — a control a terminal acts on
 * (ESC, BEL, C1's CSI), a bidirectional override that turns `gnp.exe` into `exe.png`, a
 * zero-width character that makes two names look alike, a line separator — is written as a
 * visible escape (`\u202E`) instead: nothing is hidden and nothing is dropped, so two different
 * names never display alike. Everything else, accents and emoji included, is left as it is.
 *
 * One home for display safety: the drift warning, manifests' drift names, `--json` output and
 * the report's HTML all use these two functions.
 */

/**
 * The characters escaped: Unicode's controls (Cc: C0, DEL, C1), format characters (Cf: bidi
 * embeddings, overrides and isolates, zero-width space/joiners, soft hyphen, the BOM, tag
 * characters), line and paragraph separators (Zl, Zp) and lone surrogates (Cs).
 */
const UNSAFE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/gu;

/** `\uXXXX` for each UTF-16 unit of `character` (an astral tag character gives two). */
function escaped(character: string): string {
  let out = '';
  for (let i = 0; i < character.length; i++) out += `\\u${character.charCodeAt(i).toString(16).toUpperCase().padStart(4, '0')}`;
  return out;
}

/**
 * `text` with every character that changes how text is shown written as `\uXXXX` (tab and
 * newline included: the result is one line). Use it wherever outside text reaches a person.
 */
export function displayText(text: string): string {
  return text.replace(UNSAFE, escaped);
}

/** The characters `displayText` escapes but tab, line feed and carriage return. */
const UNSAFE_IN_LINES = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/gu;

/** `displayText` for a message of several lines: tab and line breaks are kept, the rest escaped. */
export function displayLines(text: string): string {
  return text.replace(UNSAFE_IN_LINES, (character) => (character === '\t' || character === '\n' || character === '\r' ? character : escaped(character)));
}

/**
 * `JSON.stringify(value)` that is also safe to show: the same JSON value (any parser reads it
 * back unchanged), with the characters `displayText` escapes written as JSON `\uXXXX` escapes,
 * so `--json` output piped to a terminal cannot reorder or hide what it shows.
 */
export function displayJson(value: unknown): string {
  // JSON.stringify already escapes C0 and lone surrogates; the rest (C1, bidi, zero-width, …)
  // become JSON escapes, which read back as the same characters.
  return JSON.stringify(value).replace(UNSAFE, escaped);
}
