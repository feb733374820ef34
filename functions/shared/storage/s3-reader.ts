/**
 * Many small objects of one bucket, read fast: a mirror (warehouse/lake.ts) reads thousands of
 * Parquet files and manifests of a few kilobytes each, and per object the SDK's command stack
 * (serialization, endpoint rules, retry, checksum and user-agent middleware, logging filters)
 * cost about three times the CPU of the request itself — measured here: 4,000 GETs against
 * the S3 emulator took 3.4–3.7 s of CPU through `client.send(GetObjectCommand)` and 1.0–1.3 s
 * as below. On a Lambda of 1 GB (about half a vCPU) that CPU is the mirror's time.
 *
 * So the reader asks the client once where and how a GET of this bucket goes — the command's
 * own stack up to its build step: the endpoint the SDK resolved (custom endpoint, path style,
 * FIPS, dual-stack, accelerate) and the auth scheme its rules chose — then signs each GET with
 * the client's own signer (its credentials, refreshed as the SDK refreshes them) and sends it
 * on the client's own HTTP handler (its sockets and timeouts). Only the per-command middleware
 * is left out; transient failures are retried as the SDK would (its `maxAttempts`). When the
 * bucket needs anything else (an auth scheme other than SigV4 for `s3`, headers the endpoint
 * requires, a path the reader cannot predict), every read goes through `GetObjectCommand`.
 */
import { GetObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { retry } from '../pacing/retry.js';

/** Reads one object of the bucket, whole. */
export type ReadObject = (key: string, signal?: AbortSignal) => Promise<Uint8Array>;

export interface ObjectReader {
  readonly read: ReadObject;
  /** Whether reads skip the command stack (false: the bucket needs what only the SDK's commands do). */
  readonly direct: boolean;
}

/** An error S3 answered (or the network gave), named as the SDK names it: `NoSuchKey`, `AccessDenied`, … */
export class S3ReadError extends Error {
  constructor(
    readonly code: string,
    message: string,
    /** The HTTP status, absent for a network failure. */
    readonly status?: number,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = code;
  }
}

/** Codes S3 answers that another attempt may cure, besides any 5xx and 429. */
const TRANSIENT_CODES = new Set(['RequestTimeout', 'SlowDown', 'Throttling', 'ThrottlingException', 'InternalError']);

/** Where a GET of the bucket goes, learnt from the client's own command stack. */
interface Route {
  readonly protocol: string;
  readonly hostname: string;
  readonly port?: number;
  /** The path before the encoded key (`/bucket/` path style, `/` virtual-hosted). */
  readonly base: string;
  readonly query: Record<string, string>;
  readonly authScheme: { readonly name: string; readonly signingName: string; readonly signingRegion: string };
}

/** The parts of the client's resolved configuration the reader uses (typed here: the SDK's are internal). */
interface ClientParts {
  readonly signer: (
    authScheme: Route['authScheme'],
  ) => Promise<{ sign(request: unknown, options: { signingRegion: string; signingService: string; signingDate: Date }): Promise<unknown> }>;
  readonly requestHandler: {
    handle(
      request: unknown,
      options?: { abortSignal?: AbortSignal },
    ): Promise<{ response: { statusCode: number; headers: Record<string, string>; body: AsyncIterable<Uint8Array> } }>;
  };
  readonly maxAttempts: () => Promise<number>;
}

/** A reader of `bucket`'s objects through `client` (its credentials, region, endpoint and handler). */
export async function openObjectReader(client: S3Client, bucket: string): Promise<ObjectReader> {
  const viaCommand: ReadObject = async (key, signal) => {
    const answer = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }), signal ? { abortSignal: signal } : {});
    return (await answer.Body?.transformToByteArray()) ?? new Uint8Array();
  };
  const route = await routeOf(client, bucket);
  // The client's parts as this SDK line has them (the Lambda runtime brings its own copy of
  // the SDK): anything else, and every read goes through the command.
  const parts = client.config as unknown as Partial<ClientParts>;
  if (route === undefined || typeof parts.signer !== 'function' || typeof parts.requestHandler?.handle !== 'function')
    return { read: viaCommand, direct: false };
  const signer = await parts.signer(route.authScheme).catch(() => undefined);
  if (typeof signer?.sign !== 'function') return { read: viaCommand, direct: false };
  const handler = parts.requestHandler;
  const attempts = Math.max(1, Number((await parts.maxAttempts?.()) ?? 3) || 3);
  const host = route.port === undefined ? route.hostname : `${route.hostname}:${route.port}`;
  const once = async (key: string, signal: AbortSignal | undefined): Promise<Uint8Array> => {
    const request = await signer.sign(
      {
        method: 'GET',
        protocol: route.protocol,
        hostname: route.hostname,
        ...(route.port === undefined ? {} : { port: route.port }),
        path: `${route.base}${encodeKey(key)}`,
        query: route.query,
        headers: { host, 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD' },
      },
      // The clock offset the client learnt from a skewed answer, as its own signing uses it.
      {
        signingRegion: route.authScheme.signingRegion,
        signingService: route.authScheme.signingName,
        signingDate: new Date(Date.now() + (Number((client.config as { systemClockOffset?: number }).systemClockOffset) || 0)),
      },
    );
    let answer: Awaited<ReturnType<ClientParts['requestHandler']['handle']>>;
    try {
      answer = await handler.handle(request, signal ? { abortSignal: signal } : {});
    } catch (error) {
      if (signal?.aborted) throw error;
      const name = error instanceof Error ? ((error as NodeJS.ErrnoException).code ?? error.name) : 'NetworkError';
      throw new S3ReadError(name, error instanceof Error ? error.message : String(error), undefined, { cause: error });
    }
    const { statusCode, body } = answer.response;
    const bytes = await collect(body);
    if (statusCode >= 200 && statusCode < 300) return bytes;
    throw errorOf(statusCode, bytes);
  };
  const read: ReadObject = (key, signal) =>
    retry(() => once(key, signal), {
      retries: attempts - 1,
      // The SDK's standard mode: 100 ms base, doubling, at most 20 s.
      minMs: 100,
      maxMs: 20_000,
      shouldRetry: (error) => !signal?.aborted && isTransient(error),
      ...(signal ? { signal } : {}),
    });
  return { read, direct: true };
}

/** Raised by the probe's middleware once the request is built: nothing is sent. */
class Probed extends Error {}

/**
 * Runs a GetObject command of `bucket` through the client's stack up to its build step and
 * reads where it would go, or undefined when the reader cannot go there the same way.
 */
async function routeOf(client: S3Client, bucket: string): Promise<Route | undefined> {
  const probeKey = 'probe';
  const command = new GetObjectCommand({ Bucket: bucket, Key: probeKey });
  let seen: { request: Record<string, unknown>; endpoint: unknown } | undefined;
  command.middlewareStack.add(
    (_next, context) => async (args) => {
      seen = { request: args.request as Record<string, unknown>, endpoint: (context as { endpointV2?: unknown }).endpointV2 };
      throw new Probed();
    },
    { step: 'build', name: 'mintlifyObjectReaderProbe', priority: 'high' },
  );
  try {
    // As `client.send` runs a command, but it ends at the probe: nothing is signed or sent.
    await command.resolveMiddleware(client.middlewareStack, client.config, {})(command);
  } catch (error) {
    if (!(error instanceof Probed)) return undefined;
  }
  if (seen === undefined) return undefined;
  const { request, endpoint } = seen;
  const endpointHeaders = (endpoint as { headers?: Record<string, unknown> } | undefined)?.headers ?? {};
  const scheme = (endpoint as { properties?: { authSchemes?: Record<string, unknown>[] } } | undefined)?.properties?.authSchemes?.[0];
  const path = request['path'];
  const suffix = encodeKey(probeKey);
  if (
    Object.keys(endpointHeaders).length > 0 ||
    scheme?.['name'] !== 'sigv4' ||
    scheme['signingName'] !== 's3' ||
    typeof scheme['signingRegion'] !== 'string' ||
    typeof path !== 'string' ||
    !path.endsWith(`/${suffix}`) ||
    typeof request['hostname'] !== 'string' ||
    typeof request['protocol'] !== 'string'
  ) {
    return undefined;
  }
  const query = Object.fromEntries(
    Object.entries((request['query'] as Record<string, unknown> | undefined) ?? {}).filter((e): e is [string, string] => typeof e[1] === 'string'),
  );
  const port = request['port'];
  return {
    protocol: request['protocol'],
    hostname: request['hostname'],
    ...(typeof port === 'number' ? { port } : {}),
    base: path.slice(0, -suffix.length),
    query,
    authScheme: { name: 'sigv4', signingName: 's3', signingRegion: scheme['signingRegion'] },
  };
}

/** A key as S3's REST path holds it: each `/`-separated segment percent-encoded (RFC 3986), the slashes kept. */
export function encodeKey(key: string): string {
  return key
    .split('/')
    .map((segment) => encodeURIComponent(segment).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`))
    .join('/');
}

async function collect(body: AsyncIterable<Uint8Array>): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of body) chunks.push(chunk);
  return chunks.length === 1 ? (chunks[0] as Uint8Array) : Buffer.concat(chunks);
}

/** S3's XML error (`<Code>`, `<Message>`) as an error named by its code. */
function errorOf(status: number, body: Uint8Array): S3ReadError {
  const text = Buffer.from(body).toString('utf8');
  const code = /<Code>([^<]*)<\/Code>/.exec(text)?.[1] ?? (status === 404 ? 'NotFound' : `Http${status}`);
  const message = /<Message>([^<]*)<\/Message>/.exec(text)?.[1] ?? `HTTP ${status}`;
  return new S3ReadError(code, message, status);
}

function isTransient(error: unknown): boolean {
  if (!(error instanceof S3ReadError)) return false;
  if (error.status === undefined) return true; // the network: reset, timeout, refused
  return error.status >= 500 || error.status === 429 || TRANSIENT_CODES.has(error.code);
}
