/**
 * The page's one way to write HTML: a tagged template, `html`, that escapes every value put
 * into it unless the value is already `SafeHtml` (made by `html` itself). The only way around
 * the escaping is `trustedHtml(…)`, for markup this program made (the charts' SVG, the style
 * sheet): greppable, and never called on data.
 */

const SAFE = Symbol('SafeHtml');

/** HTML that is safe to put in a page as it is. */
export interface SafeHtml {
  readonly [SAFE]: true;
  readonly html: string;
  toString(): string;
}

function safe(text: string): SafeHtml {
  return { [SAFE]: true, html: text, toString: () => text };
}

/** What `html` accepts between `${…}`: text and numbers are escaped; nothing, `false` and `''` write nothing. */
export type Interpolation = SafeHtml | string | number | null | undefined | false | readonly Interpolation[];

const ESCAPES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text made safe for HTML content and (quoted) attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);
}

export function isSafeHtml(value: unknown): value is SafeHtml {
  return typeof value === 'object' && value !== null && (value as { [SAFE]?: unknown })[SAFE] === true;
}

function write(value: Interpolation): string {
  if (value === null || value === undefined || value === false) return '';
  if (isSafeHtml(value)) return value.html;
  if (Array.isArray(value)) return value.map(write).join('');
  return escapeHtml(String(value));
}

/** `html\`<p>${text}</p>\``: the template's own markup as written, every value escaped. */
export function html(strings: TemplateStringsArray, ...values: readonly Interpolation[]): SafeHtml {
  let out = strings[0] ?? '';
  values.forEach((value, i) => {
    out += write(value) + (strings[i + 1] ?? '');
  });
  return safe(out);
}

/** Markup this program made itself (an SVG chart, the style sheet), written as it is. Never call it on data. */
export function trustedHtml(markup: string): SafeHtml {
  return safe(markup);
}
