/**
 * Redaction: the key goes only into the Authorization header, and the client is the one place
 * that keeps it (and a prompt) out of everything built from a reply:
 * - a 2xx body has every occurrence of the key replaced by `[redacted]` right after parsing, so
 *   no value taken from it — a row written to a file, a path in a paging error, a `prLink` —
 *   can carry the key;
 * - an error text (non-2xx body) or a piece of a 2xx body quoted by a parse error is redacted
 *   of the key and the prompt, and masked of addresses, phone numbers and tokens
 *   (shared/personal-data/), before it is cut short, and loses its control characters (ESC,
 *   BEL, C1), so nothing the server sends can drive the terminal it is printed on.
 *
 * "The key" is every key the client has sent or been given: after a rotation the old one stays
 * secret too. The text scrubbers themselves (`redactSecrets`, `scrubText`) live in errors.ts,
 * whose error base class scrubs every message with them.
 */
import { REDACTED, redactSecrets, scrubText } from '../errors.js';
import { maskText } from '../personal-data/index.js';

/** How much of a server's text a message quotes, in characters. */
const MAX_SERVER_TEXT = 300;

/** Keeps the client's keys, and the secrets of one call, out of text and data. */
export interface Redactor {
  /** Adds a key the client is about to send: from now on it is redacted everywhere. */
  remember(key: string): void;
  /** Server text made safe to show: the keys and `secrets` redacted, no control characters, cut short. */
  scrub(text: string, secrets?: readonly string[]): string;
  /** `text` with the keys and `secrets` redacted, nothing else changed (for a schema's quote). */
  redact(text: string, secrets?: readonly string[]): string;
  /** A freshly parsed body with every key replaced in its strings and property names, in place. */
  redactBody(body: unknown): unknown;
}

/** A redactor that knows `keys` from the start (the key given as a string, if any). */
export function createRedactor(keys: readonly string[]): Redactor {
  /** Every key this client has sent or been given: all of them are kept out of messages and data. */
  const knownKeys = new Set<string>(keys);
  return {
    remember: (key) => void knownKeys.add(key),
    // What a reader typed may come back in a server's text (an echoed query, a bad value quoted
    // by a schema error): addresses, phone numbers and tokens are masked like a free-text column.
    scrub: (text, secrets = []) => scrubText(maskText(redactSecrets(text, [...knownKeys, ...secrets])), { maxLength: MAX_SERVER_TEXT }),
    redact: (text, secrets = []) => maskText(redactSecrets(text, [...knownKeys, ...secrets])),
    redactBody: (body) => {
      let safe = body;
      for (const key of knownKeys) safe = redactInPlace(safe, key);
      return safe;
    },
  };
}

/**
 * Replaces every occurrence of `secret` in the strings and keys of a freshly parsed JSON value,
 * in place (the value is ours), and returns it. Iterative: a deeply nested body cannot
 * overflow the stack.
 */
function redactInPlace(root: unknown, secret: string): unknown {
  const redact = (text: string): string => (text.includes(secret) ? text.split(secret).join(REDACTED) : text);
  if (typeof root === 'string') return redact(root);
  const pending: object[] = typeof root === 'object' && root !== null ? [root] : [];
  const set = (node: object, key: string, value: unknown) => Object.defineProperty(node, key, { value, writable: true, enumerable: true, configurable: true });
  for (let node = pending.pop(); node !== undefined; node = pending.pop()) {
    const record = node as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      const value = record[key];
      const safe = typeof value === 'string' ? redact(value) : value;
      if (typeof value === 'object' && value !== null) pending.push(value);
      const safeKey = Array.isArray(node) ? key : redact(key);
      if (safeKey !== key) {
        delete record[key];
        set(node, safeKey, safe);
      } else if (safe !== value) {
        set(node, key, safe);
      }
    }
  }
  return root;
}
