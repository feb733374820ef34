/**
 * One person, one value (personal data): the form of an address every written form folds to
 * (`identityOf`), its keyed hash (`hmacOf`, and the one releases before made), the key's id,
 * the key of an organisation, the check of a key given as text, and whether a text is one
 * e-mail address (`forget`). The key never leaves this process: manifests and erasure records
 * name its `keyIdOf`.
 */
import { createHmac } from 'node:crypto';
import { domainToASCII } from 'node:url';
import { ConfigError } from '../errors.js';
import { foldForDetection } from './fold.js';

/** An address's top-level domain: letters, or a punycode label (`xn--p1ai`). */
const TLD = /\.(?:\p{L}{2,63}|xn--[a-z0-9-]{1,59})$/iu;

/**
 * One person's value, whatever form it was written in: NFKC-folded (full-width and compatibility
 * forms, `。` as `.`, encoded at-signs decoded, default-ignorable code points removed), trimmed,
 * lower-cased, and an address's domain converted to ASCII (IDN → punycode, `node:url`'s
 * `domainToASCII`). Two forms of one address give one value, so one HMAC.
 */
export function identityOf(value: string): string {
  const folded = foldForDetection(value).text.normalize('NFKC').trim().toLowerCase();
  const at = folded.lastIndexOf('@');
  if (at <= 0 || folded.indexOf('@') !== at) return folded;
  const domain = folded.slice(at + 1);
  if (domain.startsWith('[')) return folded;
  const ascii = domainToASCII(domain);
  return ascii === '' ? folded : `${folded.slice(0, at + 1)}${ascii}`;
}

/** The lowercase hex HMAC-SHA256 of `identityOf(value)`, keyed by `key`. */
export function hmacOf(key: string, value: string): string {
  return createHmac('sha256', key).update(identityOf(value)).digest('hex');
}

/**
 * The HMAC of `value` as releases before the one-HMAC-per-person change made it (trimmed and
 * lower-cased only). It differs from `hmacOf` only for a value written in another form
 * (full-width, decomposed, IDN …): `forget` removes rows under both.
 */
export function legacyHmacOf(key: string, value: string): string {
  return createHmac('sha256', key).update(value.trim().toLowerCase()).digest('hex');
}

/**
 * A short id of `key` that manifests and erasure records may name: 12 hex digits of an HMAC
 * of a fixed text, so it tells two keys apart without helping anyone guess the key.
 */
export function keyIdOf(key: string): string {
  return createHmac('sha256', key).update('mintlify-exporter personal data key id').digest('hex').slice(0, 12);
}

/**
 * The key of one organisation's `hmac` columns, derived from the deployment's key and the
 * organisation's id (HMAC-SHA256, hex): one person has another HMAC in each organisation's lake,
 * so the lakes cannot be joined on it, and no organisation's key tells another's. A deployment
 * without organisations uses its key as it is.
 */
export function organisationKey(deploymentKey: string, orgId: string): string {
  return createHmac('sha256', deploymentKey).update(`mintlify-exporter organisation key\u0000${orgId}`).digest('hex');
}

/** The fewest characters a PERSONAL_DATA_KEY may have: a short key falls to a dictionary too. */
export const MIN_KEY_LENGTH = 16;

/** Checks a key given as text (PERSONAL_DATA_KEY, the secret, the key file) and returns it trimmed. */
export function validatePersonalDataKey(raw: string, source: string): string {
  const key = raw.trim();
  if (key.length < MIN_KEY_LENGTH) {
    throw new ConfigError(
      `${source} is too short (${key.length} characters): use at least ${MIN_KEY_LENGTH} random characters, e.g. the output of \`openssl rand -hex 32\``,
    );
  }
  return key;
}

// --- e-mail addresses (forget) ---------------------------------------------------------------

const EMAIL_ADDRESS = /^[\p{L}\p{N}._%+'-]{1,64}@[\p{L}\p{N}-]{1,63}(?:\.[\p{L}\p{N}-]{1,63}){1,8}$/u;

/**
 * Whether `text` is one e-mail address in any form `identityOf` folds (full-width, decomposed,
 * IDN): a local part, `@`, a domain with a top-level label of letters.
 */
export function isEmailAddress(text: string): boolean {
  const trimmed = foldForDetection(text).text.normalize('NFKC').trim();
  return trimmed.length <= 320 && EMAIL_ADDRESS.test(trimmed) && TLD.test(trimmed) && !trimmed.includes('..');
}
