/**
 * `--json`: exactly one JSON object a command prints, escaped for any terminal.
 */
import { displayJson } from '../../shared/display.js';

/**
 * `--json`: exactly one JSON object, on one line of stdout. Strings from elsewhere (a manifest,
 * a failure, the service) may hold characters that reorder or hide what a terminal shows:
 * they are written as JSON escapes (`displayJson`), the same value for any parser.
 */
export function writeJson(out: { write(text: string): unknown }, value: unknown): void {
  out.write(`${displayJson(value)}\n`);
}
