/**
 * The values the settings are made of, checked: the API's key and URL, ids, topic ARNs. They
 * live in the floor because the API client and the secrets read them too; the table of
 * variables that uses them is functions/settings/config.ts.
 */
import { ConfigError } from './errors.js';

/** The API client's per-request timeout when none is set (`API_TIMEOUT_MS`), ms. */
export const DEFAULT_API_TIMEOUT_MS = 30_000;

export const DEFAULT_API_URL = 'https://api.mintlify.com';

/**
 * Ids (projects, jobs, request ids) as the API's paths accept them, and as they are safe in
 * S3 keys and file names. The one pattern for the functions and the infra.
 */
export const ID_PATTERN = /^[A-Za-z0-9_-]{1,128}$/;
export const PROJECT_ID_PATTERN = ID_PATTERN;

// --- validators shared with the CLI and the API client ------------------------------------

const KEY_PREFIX = 'mint_';
const ASSISTANT_KEY_PREFIX = 'mint_dsc_';
/** Visible ASCII only: anything else cannot go in an HTTP header, and fetch would echo it. */
const HEADER_SAFE = /^[\x21-\x7e]+$/;

/**
 * Checks that `key` looks like a Mintlify admin key and returns it trimmed (secrets pasted
 * with a newline are common). Messages never contain the key — at most its length.
 *
 * @param source what to name in messages (the env var, or the secret).
 */
export function validateApiKey(key: string, source = 'MINTLIFY_API_KEY'): string {
  const trimmed = key.trim();
  if (trimmed === '') throw new ConfigError(`${source} is empty: set it to an admin API key (mint_…)`);
  if (trimmed.startsWith(ASSISTANT_KEY_PREFIX)) {
    throw new ConfigError(`${source} is an assistant key (mint_dsc_…), which cannot call the admin API: create an admin key on the dashboard's API keys page`);
  }
  if (!trimmed.startsWith(KEY_PREFIX)) {
    throw new ConfigError(
      `${source} must be an admin API key starting with mint_ (the value given, ${trimmed.length} characters, does not): copy it from the dashboard's API keys page`,
    );
  }
  if (trimmed.length <= KEY_PREFIX.length || !HEADER_SAFE.test(trimmed)) {
    throw new ConfigError(
      `${source} is not a valid key (${trimmed.length} characters, or it contains spaces/control characters): copy it again from the dashboard's API keys page`,
    );
  }
  return trimmed;
}

/**
 * Whether `hostname` names this machine by convention: 127.0.0.0/8, `localhost`, `*.localhost`
 * (RFC 6761) or [::1]. A name is not checked against what it resolves to: fine for choosing a
 * local default (the follow-up consumer's sandbox for an emulator's queue), never enough to
 * send a bearer token over plain http — see `allowsPlainHttp`.
 */
export function isLoopback(hostname: string): boolean {
  return allowsPlainHttp(hostname) || hostname.endsWith('.localhost');
}

/**
 * Whether the key may travel over plain http to `hostname` (a WHATWG URL's hostname, so numeric
 * forms like `127.1` are already `127.0.0.1`): only a literal loopback address (127.0.0.0/8,
 * [::1]) or `localhost`, which resolvers answer with loopback themselves. Other `*.localhost`
 * names are refused: nothing here checks what they resolve to, and resolving at start-up would
 * not bind the connection made later to that answer.
 */
export function allowsPlainHttp(hostname: string): boolean {
  if (hostname === 'localhost' || hostname === '[::1]') return true;
  const octets = hostname.split('.');
  return octets.length === 4 && octets[0] === '127' && octets.every((o) => /^\d{1,3}$/.test(o) && Number(o) <= 255);
}

/**
 * Checks an API base URL and returns it without trailing slashes. https is required, except
 * for loopback (127.0.0.0/8, localhost, [::1]) where the local sandbox speaks plain http: the
 * key is a bearer token and must not cross a network in clear text.
 */
export function validateApiUrl(url: string, source = 'MINTLIFY_API_URL'): string {
  let parsed: URL;
  try {
    parsed = new URL(url.trim());
  } catch {
    throw new ConfigError(`${source} is not a URL: use e.g. ${DEFAULT_API_URL}`);
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    throw new ConfigError(`${source} must use https (got ${parsed.protocol}): use e.g. ${DEFAULT_API_URL}`);
  }
  if (parsed.protocol === 'http:' && !allowsPlainHttp(parsed.hostname)) {
    throw new ConfigError(
      `${source} uses plain http for ${parsed.hostname}: use https (http is allowed only for 127.0.0.0/8, localhost and [::1]; other *.localhost names are not)`,
    );
  }
  if (parsed.username || parsed.password) {
    throw new ConfigError(`${source} must not contain credentials: pass the key in MINTLIFY_API_KEY instead`);
  }
  if (parsed.search || parsed.hash) {
    throw new ConfigError(`${source} must not have a query or fragment: give only the base URL, e.g. ${DEFAULT_API_URL}`);
  }
  return `${parsed.origin}${parsed.pathname.replace(/\/+$/, '')}`;
}

const TOPIC_ARN = /^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_-]{1,256}(?:\.fifo)?$/;

/** Checks an SNS topic ARN (the outcomes topic) and returns it trimmed. */
export function validateTopicArn(arn: string, source = 'FOLLOWUP_OUTCOMES_TOPIC_ARN', output = 'FollowUpOutcomesTopicArn'): string {
  const trimmed = arn.trim();
  if (!TOPIC_ARN.test(trimmed)) {
    throw new ConfigError(`${source} is not an SNS topic ARN: use arn:aws:sns:<region>:<account>:<topic> (the stack output ${output})`);
  }
  return trimmed;
}

/** Validates one project id (the same rule the config applies to MINTLIFY_PROJECT_IDS). */
export function validateProjectId(id: string, source = 'project id'): string {
  if (!PROJECT_ID_PATTERN.test(id)) {
    throw new ConfigError(`${source} "${id.slice(0, 40)}" is not a project id: use 1–128 letters, digits, _ or - (copy it from the dashboard's API keys page)`);
  }
  return id;
}
