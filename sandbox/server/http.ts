/**
 * The sandbox's HTTP plumbing: reading a request body (with a size limit), writing an
 * answer as JSON (or as the raw text a fault sends), and the request log, whose entries
 * never hold a credential.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FaultKind } from './faults.js';
import type { SandboxRoute } from './routes.js';

/** An HTTP answer. */
export interface Answer {
  readonly status: number;
  readonly body: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

/** Request bodies beyond this many bytes are refused (413). */
const MAX_BODY_BYTES = 1_048_576;
/** Query parameters whose name looks like a credential never reach the request log. */
const SECRET_PARAM = /key|token|secret|auth|password|signature/i;

/** One API request as the sandbox saw it. Never holds the Authorization header or a prompt. */
export interface RequestLogEntry {
  readonly method: string;
  readonly route: SandboxRoute;
  readonly projectId?: string;
  readonly jobId?: string;
  /** Query parameters, minus anything that looks like a credential. */
  readonly query: Readonly<Record<string, string>>;
  /** HTTP status sent; 0 when the connection was dropped without a response. */
  status: number;
  /** `now()` when the request arrived, epoch ms. */
  readonly startedAt: number;
  /** The injected fault that shaped the answer, if any. */
  fault?: FaultKind;
  /** True when the request budget refused the request (429). */
  overBudget?: boolean;
  /** Which accepted key the request carried (0: the sandbox's `apiKey`, then `moreApiKeys`); absent when refused. */
  keyIndex?: number | undefined;
}

/** The log of API requests, oldest first; the oldest entries are dropped beyond `limit`. */
export class RequestLog {
  /** The live entries (the `Sandbox.requests` array). */
  readonly entries: RequestLogEntry[] = [];

  constructor(private readonly limit: number) {}

  /** Logs an arriving request with its status still 0; the answer fills it in. */
  add(
    method: string,
    target: { readonly route: SandboxRoute; readonly projectId?: string | undefined; readonly jobId?: string | undefined },
    params: URLSearchParams,
    startedAt: number,
  ): RequestLogEntry {
    const query: Record<string, string> = {};
    for (const [name, value] of params) if (!SECRET_PARAM.test(name)) query[name] = value;
    const entry: RequestLogEntry = {
      method,
      route: target.route,
      ...(target.projectId !== undefined ? { projectId: target.projectId } : {}),
      ...(target.jobId !== undefined ? { jobId: target.jobId } : {}),
      query,
      status: 0,
      startedAt,
    };
    this.entries.push(entry);
    if (this.entries.length > this.limit) this.entries.splice(0, this.entries.length - this.limit);
    return entry;
  }

  clear(): void {
    this.entries.length = 0;
  }
}

/** The request body as text; undefined when it exceeds MAX_BODY_BYTES. */
export async function readBody(req: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  let tooLarge = false;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) tooLarge = true;
    else chunks.push(chunk);
  }
  return tooLarge ? undefined : Buffer.concat(chunks).toString('utf8');
}

/** The body as sent when it is not `Answer.body` as JSON (an HTML error page, truncated JSON). */
export interface RawBody {
  readonly text: string;
  readonly contentType: string;
}

/** Writes an answer with its length, unless the connection is gone or already answered. */
export function writeAnswer(res: ServerResponse, answer: Answer, raw?: RawBody): void {
  if (res.destroyed || res.headersSent) return;
  const text = raw?.text ?? JSON.stringify(answer.body);
  res.writeHead(answer.status, {
    'content-type': raw?.contentType ?? 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    ...answer.headers,
  });
  res.end(text);
}

/** An answer with no body and no headers (the control API's 204s). */
export function writeEmpty(res: ServerResponse, status: number): void {
  res.writeHead(status).end();
}

/** An API request being answered: each answer is written and recorded in its log entry. */
export interface Exchange {
  readonly entry: RequestLogEntry;
  send(answer: Answer, raw?: RawBody): void;
  /** Destroys the socket without a response (status 0 in the log). */
  drop(): void;
}

export function createExchange(req: IncomingMessage, res: ServerResponse, entry: RequestLogEntry): Exchange {
  return {
    entry,
    send(answer, raw) {
      entry.status = answer.status;
      writeAnswer(res, answer, raw);
    },
    drop() {
      entry.status = 0;
      req.socket.destroy();
    },
  };
}
