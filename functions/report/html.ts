/**
 * Text and numbers as the report shows them: readers' words (search terms, questions, paths,
 * comments) through readerText — one line, cut, controls, bidi and zero-width characters
 * removed, e-mail addresses `[email]`, links defanged; counts and shares formatted. The page
 * itself is written by page/ (escaping is the template's job: page/template.ts).
 */
import { readerText } from '../shared/reader-text.js';

/**
 * Readers' words (or other outside text: a failure's detail) for display, cut to `max`
 * characters: `readerText` (shared/reader-text.ts), the one cleaning of readers' words that
 * prompts, terminal lines and the digest use too. Not escaped: the page's template does that.
 */
export function userText(text: string, max = 160): string {
  return readerText(text, max);
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
