/**
 * The transport: one HTTP exchange, and nothing about what it means. It builds the request
 * (Authorization, Accept, User-Agent; redirects not followed), bounds it by the per-request
 * timeout cut to the call's deadline, ends it when the caller aborts, and reads the body as a
 * stream up to a cap: all of a 2xx body (at most `maxResponseBytes`), the first 64 KiB of any
 * other. A failure becomes a `NetworkError` that says whether the request provably never left
 * this machine (`beforeSend`), which a POST needs to know; one that never reached the service (a
 * connection refused, a name that does not resolve, TLS, a port fetch refuses) is an
 * `UnreachableError` naming its cause and the URL. Every answer's `Date` header goes to
 * the skew clock.
 *
 * What a status means is status-messages.ts's business; retries, keys and parsing are the
 * operations'.
 */
import type { ApiStats, CallOptions } from '../api-types.js';
import { describeSkew } from '../clock-skew.js';
import {
  ClockSkewError,
  DeadlineExceededError,
  MalformedResponseError,
  NetworkError,
  ResponseTooLargeError,
  TLS_FAILURE_CODE,
  UnreachableError,
} from '../errors.js';
import type { ResolvedApiOptions } from './options.js';

/** Logged when the measured clock offset changes (clock-skew.ts); the CLI prints it as one line. */
export const CLOCK_SKEW_LOG_MESSAGE = "this machine's clock is off the API's: the budget ledger and leases use the API's time";

/** Error codes (from undici's `cause`) that prove the request never left this machine. */
const BEFORE_SEND_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);

/** Of an error body only the start is read: its message quotes a few hundred characters at most (redact.ts). */
const MAX_ERROR_BODY_BYTES = 64 * 1024;

/** What one exchange brought back. */
export interface RawResponse {
  readonly status: number;
  readonly headers: Headers;
  /** The body (2xx: all of it, at most maxResponseBytes; otherwise its first bytes). */
  readonly bytes: Uint8Array;
}

/** The body is larger than the cap: thrown by `readBody`, reported as malformed. */
class BodyTooLarge extends Error {}

/** A 2xx status: the body is the answer, read whole (up to the cap) and parsed. */
export const isSuccess = (status: number): boolean => status >= 200 && status <= 299;

/**
 * One HTTP exchange with `key`: `path` is appended to the base URL; `body` is JSON. Throws
 * NetworkError (or the caller's abort reason), ResponseTooLargeError for a 2xx body over the cap,
 * DeadlineExceededError when no time is left to send it.
 */
export type Send = (method: 'GET' | 'POST', path: string, body: string | undefined, call: CallOptions, key: string) => Promise<RawResponse>;

/** The client's one way to the network; counts every request in `stats.requests`. */
export function createTransport(options: ResolvedApiOptions, stats: ApiStats): Send {
  const { baseUrl, fetch: fetchImpl, timeoutMs, maxResponseBytes, now, logger, events, userAgent, clock } = options;
  return async function send(method: 'GET' | 'POST', path: string, body: string | undefined, call: CallOptions, key: string): Promise<RawResponse> {
    const remaining = call.deadline === undefined ? Infinity : call.deadline - now();
    if (remaining <= 0) throw new DeadlineExceededError('no time left before the deadline: the request was not sent');
    const limitMs = Math.max(1, Math.min(timeoutMs, remaining));
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, limitMs);
    const signal = call.signal ? AbortSignal.any([controller.signal, call.signal]) : controller.signal;
    const headers: Record<string, string> = {
      Authorization: `Bearer ${key}`,
      Accept: 'application/json',
      'User-Agent': userAgent,
    };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    stats.requests += 1;
    const started = now();
    let status: number | undefined;
    try {
      const response = await fetchImpl(`${baseUrl}${path}`, {
        method,
        headers,
        redirect: 'manual',
        signal,
        ...(body !== undefined ? { body } : {}),
      });
      status = response.status;
      const ok = isSuccess(status);
      let bytes: Uint8Array;
      try {
        bytes = await readBody(response, ok ? maxResponseBytes : MAX_ERROR_BODY_BYTES, !ok);
      } catch (error) {
        if (!(error instanceof BodyTooLarge)) throw error;
        throw new ResponseTooLargeError(`${method} ${path} got an HTTP ${status} response larger than ${maxResponseBytes} bytes`);
      }
      logger?.debug('api response', { method, path, status, bytes: bytes.byteLength, ms: now() - started });
      const offsetMs = clock?.observe(response.headers.get('date'));
      if (offsetMs !== undefined) {
        const skew = describeSkew(offsetMs);
        logger?.warn(CLOCK_SKEW_LOG_MESSAGE, { offsetMs, skew });
        events.onClockSkew?.({ offsetMs, skew });
      }
      return { status, headers: response.headers, bytes };
    } catch (error) {
      if (call.signal?.aborted) throw call.signal.reason;
      if (error instanceof MalformedResponseError || error instanceof ClockSkewError) throw error;
      const stage = status === undefined ? 'before a response arrived' : `while reading the HTTP ${status} response`;
      if (timedOut) {
        throw new NetworkError(`${method} ${path} timed out after ${limitMs} ms ${stage}`, false, { cause: error });
      }
      const { codes, messages } = causesOf(error);
      if (status === undefined) {
        const never = messages.includes(UnreachableError.BAD_PORT)
          ? UnreachableError.BAD_PORT
          : codes.length > 0 && codes.every((code) => BEFORE_SEND_CODES.has(code) || TLS_FAILURE_CODE.test(code))
            ? (codes[codes.length - 1] as string)
            : undefined;
        if (never !== undefined) {
          throw new UnreachableError(`${method} ${path}`, never, baseUrl, { cause: error });
        }
      }
      // undici's own error says only "fetch failed": the innermost cause names what happened.
      const code = codes[codes.length - 1] ?? messages[messages.length - 1] ?? (error instanceof Error ? error.name : 'unknown');
      throw new NetworkError(`${method} ${path} failed ${stage} (${code})`, false, { cause: error });
    } finally {
      clearTimeout(timer);
    }
  };
}

/**
 * Reads `response`'s body as a stream, up to `maxBytes`. Past the cap it cancels the stream
 * (undici then drops the connection) and throws `BodyTooLarge`, or with `truncate` returns the
 * first `maxBytes` bytes. Nothing beyond the cap is ever held in memory.
 */
async function readBody(response: Response, maxBytes: number, truncate: boolean): Promise<Uint8Array> {
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  const encoded = (response.headers.get('content-encoding') ?? 'identity').toLowerCase() !== 'identity';
  if (!truncate && !encoded && declared > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    throw new BodyTooLarge();
  }
  const reader = response.body?.getReader();
  if (!reader) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (size + value.byteLength > maxBytes) {
      await reader.cancel().catch(() => undefined);
      if (!truncate) throw new BodyTooLarge();
      chunks.push(value.subarray(0, maxBytes - size));
      size = maxBytes;
      break;
    }
    chunks.push(value);
    size += value.byteLength;
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return bytes;
}

/**
 * Every `code` on an error's cause chain (undici nests them; AggregateError lists several), and
 * the messages of the causes below the error itself (undici's says only "fetch failed").
 */
function causesOf(error: unknown): { readonly codes: string[]; readonly messages: string[] } {
  const codes: string[] = [];
  const messages: string[] = [];
  const seen = new Set<unknown>();
  const visit = (value: unknown, depth: number): void => {
    if (depth > 5 || typeof value !== 'object' || value === null || seen.has(value)) return;
    seen.add(value);
    const { code, cause, errors, message } = value as { code?: unknown; cause?: unknown; errors?: unknown; message?: unknown };
    if (typeof code === 'string') codes.push(code);
    if (depth > 0 && typeof message === 'string' && message !== '') messages.push(message.split('\n')[0] as string);
    visit(cause, depth + 1);
    if (Array.isArray(errors)) for (const inner of errors) visit(inner, depth + 1);
  };
  visit(error, 0);
  return { codes, messages };
}
