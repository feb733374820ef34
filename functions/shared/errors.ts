/**
 * The project's one error hierarchy, and the helpers that keep what a message shows safe: no
 * secret (the key, a prompt) and no terminal control character in anything printed or stored.
 */
import { displayLines, displayText } from './display.js';

/** What a secret is replaced with wherever it would be shown or stored. */
export const REDACTED = '[redacted]';

/** C0 and C1 control characters and DEL, except tab, line feed and carriage return. */
const CONTROL_CHARACTERS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/g;

/** `text` without the control characters a terminal would act on (ESC, BEL, CSI, …). */
export function stripControlCharacters(text: string): string {
  return text.replace(CONTROL_CHARACTERS, '');
}

/** Every occurrence of each secret (of 4 characters or more) in `text` replaced by `[redacted]`. */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    if (secret.length >= 4 && out.includes(secret)) out = out.split(secret).join(REDACTED);
  }
  return out;
}

/**
 * Makes text that came from a server safe to show on one line: secrets redacted first (so no
 * cut can leave a fragment of one), control characters removed, whitespace runs made one
 * space, then cut to `maxLength` characters.
 */
export function scrubText(text: string, options: { readonly secrets?: readonly string[]; readonly maxLength?: number } = {}): string {
  const { secrets = [], maxLength = Infinity } = options;
  const out = displayText(stripControlCharacters(redactSecrets(text, secrets).replace(/\s+/g, ' ')).trim());
  return out.length > maxLength ? `${out.slice(0, Math.max(0, maxLength - 3))}...` : out;
}

/**
 * One error hierarchy for the whole project. Every message says what to do next and never
 * contains the API key or a prompt's text. Whether a failure may be tried (or sent) again is
 * not a property of the error but the policy's answer: see retry-policy.ts.
 */
export abstract class ExporterError extends Error {
  /**
   * Whose mistake it is: `user` (a setting, a flag, an input, a destination the user named —
   * fix it and run again; the CLI exits 2) or `tool` (what the run met: the service, the
   * network, the data — the CLI exits 1). Each class says its own; the CLI lists none.
   */
  readonly source: 'user' | 'tool' = 'tool';

  constructor(message: string, options?: { cause?: unknown }) {
    // Messages quote server data (error texts, wrong values, paths) and end up on terminals:
    // none may carry a character a terminal acts on.
    // Characters that reorder or hide text (a right-to-left override) are shown as escapes.
    super(displayLines(stripControlCharacters(message)), options);
    this.name = new.target.name;
  }
}

/** Bad configuration, flags or input: fix the input; exit code 2 in the CLI. */
export class ConfigError extends ExporterError {
  override readonly source = 'user';
}

/** The API answered with an HTTP error status. */
export class ApiError extends ExporterError {
  constructor(
    message: string,
    readonly status: number,
    options?: { cause?: unknown; retryAfterMs?: number; waitHeader?: string },
  ) {
    super(message, options);
    this.retryAfterMs = options?.retryAfterMs;
    this.waitHeader = options?.waitHeader;
  }
  /**
   * Delay the server asked for (Retry-After, else RateLimit-Reset / X-RateLimit-Reset), in ms;
   * undefined when absent or 0.
   */
  readonly retryAfterMs: number | undefined;
  /** The header that gave `retryAfterMs`, as sent (e.g. `Retry-After: 120`), for messages. */
  readonly waitHeader: string | undefined;
}

/** 429 from the API: wait and try again (Retry-After when given, otherwise backoff). */
export class RateLimitedError extends ApiError {
  constructor(message: string, options?: { cause?: unknown; retryAfterMs?: number; waitHeader?: string }) {
    super(message, 429, options);
  }
}

/** The connection failed, was reset, or the per-request timeout fired. */
export class NetworkError extends ExporterError {
  constructor(
    message: string,
    /** True when the request provably never reached the server (e.g. ECONNREFUSED, DNS). */
    readonly beforeSend: boolean,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/**
 * A request that never reached the service: the connection was refused, the host name did not
 * resolve, TLS failed, or fetch refused the port. Nothing was sent, so it spent no budget; its
 * cause is a setting (MINTLIFY_API_URL) or this machine's network far more often than a moment's
 * hiccup, so it is tried again only a few times, within seconds (retry-policy.ts).
 */
export class UnreachableError extends NetworkError {
  /** The code of a port the fetch standard blocks (9, 25, 6000, …): undici throws `fetch failed` caused by `Error: bad port`. */
  static readonly BAD_PORT = 'bad port';

  /** What failed, in words a person can act on, starting with the code: `ECONNREFUSED: nothing listens there`. */
  readonly what: string;

  constructor(
    /** The request, e.g. `GET /v1/analytics/p/visitors?…`. */
    request: string,
    /** What failed: a system code (`ECONNREFUSED`, `ENOTFOUND`, `ERR_SSL_…`) or `bad port`. */
    readonly code: string,
    /** The API base URL that could not be reached, e.g. `http://127.0.0.1:9` (MINTLIFY_API_URL). */
    readonly url: string,
    options?: { cause?: unknown },
  ) {
    const what = describeUnreachable(code);
    super(`${request} never reached ${url} (${what})`, true, options);
    this.what = what;
  }
}

/** TLS handshake failures (a certificate, or https to a plain-http port) by their code. */
export const TLS_FAILURE_CODE = /^(ERR_SSL_|ERR_TLS_|CERT_|UNABLE_TO_|DEPTH_ZERO_SELF_SIGNED_CERT$|SELF_SIGNED_CERT_IN_CHAIN$)/;

function describeUnreachable(code: string): string {
  if (code === UnreachableError.BAD_PORT) return 'bad port: fetch refuses to connect to this port; use the port the API listens on';
  if (code === 'ECONNREFUSED') return 'ECONNREFUSED: nothing listens there';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `${code}: the host name does not resolve`;
  if (TLS_FAILURE_CODE.test(code)) return `${code}: the TLS handshake failed`;
  return code;
}

/** The response was not what the spec promises (not JSON, wrong types, negative counts). */
export class MalformedResponseError extends ExporterError {}

/**
 * A 2xx body larger than the client reads (16 MiB): asking the same again gives the same
 * answer, so it is not retried; the export asks again with a smaller `limit` instead.
 */
export class ResponseTooLargeError extends MalformedResponseError {}

/** Waiting longer would pass the caller's deadline (e.g. the Lambda's remaining time). */
export class DeadlineExceededError extends ExporterError {}

/**
 * Writing to the destination (local directory or S3) failed. One that reaches the CLI came before
 * any unit: the destination the user named is wrong (exit 2).
 */
export class DestinationError extends ExporterError {
  override readonly source = 'user';
}

/**
 * A follow-up POST may or may not have reached the service (timeout, reset after sending,
 * 5xx). It must never be sent again: the request is recorded as `uncertain`.
 */
export class SendUncertainError extends ExporterError {}

/** A report found nothing exported for the days and projects asked for: export first, or ask for other days. */
export class NoDataError extends ExporterError {}

/** The CLI's exit code for a failure: 2 for the user's mistake (fix the input), 1 for anything else. */
export function exitCodeOf(error: unknown): 1 | 2 {
  return error instanceof ExporterError && error.source === 'user' ? 2 : 1;
}

/** A short, secret-free description of any thrown value, for logs and summaries. */
export function describeError(error: unknown): string {
  return stripControlCharacters(error instanceof Error ? `${error.name}: ${error.message}` : String(error));
}

/**
 * This machine's clock is further from the API's (its `Date` header) than a run sharing the
 * deployment's ledger may be: fix the clock. A configuration mistake of the machine (exit 2).
 */
export class ClockSkewError extends ConfigError {}
