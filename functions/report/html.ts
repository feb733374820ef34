/**
 * Text and numbers as the report shows them: readers' words (search terms, questions, paths,
 * comments) through readerText — one line, cut, controls, bidi and zero-width characters
 * removed, e-mail addresses `[email]`, links defanged. Numbers read as shared/format.ts writes
 * them. The page itself is written by page/ (escaping is the template's job: page/template.ts).
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
