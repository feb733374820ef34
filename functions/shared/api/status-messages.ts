/**
 * The status→message table: what a non-2xx answer means, said as the error that names the fix
 * ("API key rejected (401): … create a new admin key …"). A 429 becomes `RateLimitedError` with
 * the wait the answer asked for (rate-limit-headers.ts reads every header that can say it); any
 * other status an `ApiError` carrying it, which retry-policy.ts classifies. The server's own
 * words (`error`, `details[].message`, or a plain-text body) are quoted after it, scrubbed.
 */
import type { ApiOperation } from '../api-types.js';
import { ApiError, RateLimitedError } from '../errors.js';
import { rateLimitWait } from '../pacing/rate-limit-headers.js';
import type { RawResponse } from './transport.js';

/** The ids a request names, quoted (cut to 128 characters) in its messages. */
export interface RequestIds {
  readonly projectId: string;
  readonly jobId?: string;
}

/**
 * Turns a non-2xx response into the error that says what to fix. `nowMs` dates a Retry-After
 * given as a time; `scrub` makes the server's text safe to quote (redact.ts).
 */
export function httpError(op: ApiOperation, response: RawResponse, ids: RequestIds, nowMs: number, scrub: (text: string) => string): ApiError {
  const { status } = response;
  const wait = rateLimitWait(response.headers, nowMs);
  const retryAfterMs = wait?.ms;
  const retryAfter = wait !== undefined ? { retryAfterMs: wait.ms, waitHeader: wait.header } : {};
  const detail = serverDetail(new TextDecoder().decode(response.bytes), scrub);
  const suffix = detail ? `: ${detail}` : '';
  const project = JSON.stringify(ids.projectId.slice(0, 128));
  const job = JSON.stringify((ids.jobId ?? '').slice(0, 128));
  if (status === 429) {
    return new RateLimitedError(`rate limited (429) by the API${retryAfterMs !== undefined ? `, retry after ${retryAfterMs} ms` : ''}${suffix}`, retryAfter);
  }
  if (status >= 300 && status < 400) {
    return new ApiError(
      `unexpected redirect (${status}) from the API: check MINTLIFY_API_URL (it should be the API's base URL, e.g. https://api.mintlify.com)`,
      status,
    );
  }
  switch (status) {
    case 400:
      return new ApiError(`request refused as invalid (400)${suffix || ': no details given'}`, status);
    case 402:
      return new ApiError(
        `out of agent credits (402)${suffix}: the organisation has no credits left for agent jobs; add credits on the Mintlify dashboard, then enqueue the prompt again under a new requestId`,
        status,
      );
    case 401:
      return new ApiError(
        "API key rejected (401): it may be expired or wrong; create a new admin key on the dashboard's API keys page and update MINTLIFY_API_KEY or the secret",
        status,
      );
    case 403:
      return new ApiError(
        `access denied (403) for project ${project}: the key is missing a scope, the plan does not include this API, or an IP allowlist blocks this caller; check the key's settings on the dashboard's API keys page${suffix}`,
        status,
      );
    case 404:
      return op === 'getAnalytics' || op === 'createJob'
        ? new ApiError(`project ${project} not found (404): the key cannot see it; check the project id (copy it from the dashboard's API keys page)`, status)
        : new ApiError(`job ${job} not found in project ${project} (404): check the job and project ids`, status);
    default:
      return new ApiError(`HTTP ${status} from the API${status >= 500 ? ' (server error)' : ''}${suffix}`, status, retryAfter);
  }
}

/**
 * The server's `error` and `details[].message`; a plain-text body (a 429 from the service or a
 * proxy: "Too many requests, please try again later.") as it is; a note for an HTML page.
 */
function serverDetail(text: string, scrub: (text: string) => string): string {
  if (text.trim() === '') return '';
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return /^\s*</.test(text) ? 'the body is an HTML page, not JSON' : scrub(text);
  }
  if (typeof body !== 'object' || body === null) return '';
  const { error, message, details } = body as { error?: unknown; message?: unknown; details?: unknown };
  const parts: string[] = [];
  if (typeof error === 'string') parts.push(error);
  else if (typeof message === 'string') parts.push(message);
  if (Array.isArray(details)) {
    for (const item of details) {
      const m = (item as { message?: unknown } | null)?.message;
      if (typeof m === 'string') parts.push(m);
    }
  }
  return scrub(parts.join('; '));
}
