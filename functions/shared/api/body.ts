/**
 * A 2xx body, from bytes to a checked value: decoded as UTF-8, parsed as JSON, every known key
 * redacted (redact.ts), then validated by the operation's schema (schemas.ts). Invalid UTF-8
 * (one bad byte in a comment) becomes U+FFFD, counted and warned about: failing the day over it
 * would fail it on every run forever. Anything that is not JSON is a `MalformedResponseError`,
 * which the retry policy repeats once.
 */
import type { ApiOperation, ApiStats } from '../api-types.js';
import { MalformedResponseError } from '../errors.js';
import type { AppLogger } from '../logger.js';
import { parseJson } from '../lossless-json.js';
import type { ApiEvents } from './events.js';
import type { ParseOptions } from '../schemas.js';
import type { Redactor } from './redact.js';
import type { RawResponse } from './transport.js';

/**
 * Validates a parsed 2xx body (a schemas.ts function). `options.redact` keeps the key and the
 * prompt out of what its error quotes.
 */
export type BodyParser<T> = (body: unknown, options: ParseOptions) => T;

/** The warn record of a 2xx body with invalid UTF-8 (replaced by U+FFFD, kept). */
export const INVALID_UTF8_LOG_MESSAGE = 'the API answered with invalid UTF-8: replaced by U+FFFD';

/** What parsing a body needs besides the body: where it came from and who to tell. */
export interface BodyContext {
  readonly op: ApiOperation;
  /** The request's path; its query is left out of the warning. */
  readonly path: string;
  readonly redactor: Redactor;
  /** The call's own secrets (a prompt), redacted from what a schema error quotes. */
  readonly secrets: readonly string[];
  /** Counts replaced bytes in `invalidUtf8`. */
  readonly stats: ApiStats;
  readonly logger: Pick<AppLogger, 'warn'> | undefined;
  readonly events: ApiEvents;
}

/** Decodes a 2xx body as UTF-8, parses it as JSON, redacts the keys, then checks it with `parse`. */
export function parseBody<T>(response: RawResponse, parse: BodyParser<T>, context: BodyContext): T {
  const { op, path, redactor, secrets, stats, logger, events } = context;
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(response.bytes);
  } catch {
    text = new TextDecoder('utf-8').decode(response.bytes);
    const replaced = countReplacements(text) - countEncodedReplacements(response.bytes);
    stats.invalidUtf8 = (stats.invalidUtf8 ?? 0) + replaced;
    const request = path.split('?')[0] as string;
    logger?.warn(INVALID_UTF8_LOG_MESSAGE, { operation: op, request, replaced });
    events.onInvalidUtf8?.({ request, replaced });
  }
  let body: unknown;
  try {
    // Exact digits for integers past 2^53 (kept in unknown_fields): lossless-json.ts.
    body = parseJson(text);
  } catch (error) {
    const type = (response.headers.get('content-type') ?? 'no content type').split(';')[0];
    throw new MalformedResponseError(
      `${op} got an HTTP ${response.status} response that is not JSON (${type}, ${response.bytes.byteLength} bytes): the API did not answer as documented`,
      { cause: error },
    );
  }
  return parse(redactor.redactBody(body), { redact: (text) => redactor.redact(text, secrets) });
}

const REPLACEMENT = '\uFFFD';

function countReplacements(text: string): number {
  let count = 0;
  for (let at = text.indexOf(REPLACEMENT); at !== -1; at = text.indexOf(REPLACEMENT, at + 1)) count += 1;
  return count;
}

/** U+FFFD the body really sent (EF BF BD), which are not replacements. */
function countEncodedReplacements(bytes: Uint8Array): number {
  let count = 0;
  for (let i = 0; i + 2 < bytes.length; i++) if (bytes[i] === 0xef && bytes[i + 1] === 0xbf && bytes[i + 2] === 0xbd) count += 1;
  return count;
}
