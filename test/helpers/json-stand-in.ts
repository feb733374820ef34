/**
 * Role: the base of the AWS stand-ins on loopback that speak the JSON 1.1 protocol (Glue,
 * Athena): an HTTP server on 127.0.0.1 that reads each request's `X-Amz-Target` and JSON body
 * and answers what the stand-in's handler returns, as `application/x-amz-json-1.1` — an error
 * as AWS shapes it (`__type`, `Message`), a target no handler serves as UnknownOperationException.
 * Each stand-in keeps its own state and records its own calls.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request: the operation (`AmazonAthena.StartQueryExecution`) and its parsed body. */
export interface JsonCall<Body> {
  readonly target: string;
  readonly body: Body;
}

/** What the stand-in answers: a status and a JSON value. */
export interface JsonAnswer {
  readonly status: number;
  readonly value: unknown;
}

/** An answer of 200. */
export const ok = (value: unknown): JsonAnswer => ({ status: 200, value });

/** An error as AWS's JSON protocol shapes it: `__type` names the exception. */
export const refused = (type: string, message: string, status = 400): JsonAnswer => ({ status, value: { __type: type, Message: message } });

/** A target the stand-in does not serve. */
export const unknownOperation = (target: string): JsonAnswer => refused('UnknownOperationException', `the stand-in does not serve ${target}`);

export interface JsonStandIn {
  readonly endpoint: string;
  close(): Promise<void>;
}

/** Starts a server answering every request with `handle`'s answer. */
export async function startJsonStandIn<Body>(handle: (call: JsonCall<Body>) => JsonAnswer): Promise<JsonStandIn> {
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const target = String(request.headers['x-amz-target'] ?? '');
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Body;
      const { status, value } = handle({ target, body });
      response.statusCode = status;
      response.setHeader('content-type', 'application/x-amz-json-1.1');
      response.end(JSON.stringify(value));
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
