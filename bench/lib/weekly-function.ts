/**
 * The weekly report function as the `lake` benchmarks invoke it: its bundle synthesized by the
 * real `cdk synth` (and, with `MINTLIFY_BENCH_BEFORE=<another checkout, its node_modules in it>`,
 * that checkout's too, invoked alternately: before and after in one run), reading a bucket of
 * fauxqs through a loopback proxy that counts the objects it reads and the listings it asks.
 */
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { parseTableFileKey } from '../../functions/warehouse/lake/layout.js';
import { type Assembly, functionEnvironment, functionHandler, type Invocation, invokeBundle, synthAssembly } from '../../scripts/lib/bundles.js';

const WEEKLY = 'Weekly: the report of the last 7 complete days';

/** What a GET read, by the key's kind: where the objects go. */
function kindOf(url: string): string {
  const key = decodeURIComponent(url.split('?')[0] ?? '');
  if (key.includes('/_rollups/')) return key.endsWith('.json') ? 'rollup records' : 'roll-ups';
  if (key.includes('/_index/_runs/')) return 'run-log indexes';
  if (key.includes('/_index/')) return 'indexes';
  if (key.includes('/_manifests/')) return 'manifests';
  if (key.includes('/_staging/')) return 'staging';
  if (parseTableFileKey(key.split('/').slice(3).join('/')) === undefined) return `other ${key.split('/')[3] ?? ''}`;
  // The key after `/<bucket>/mintlify/`: a table's day file is named by the lake's layout.
  return `days ${parseTableFileKey(key.split('/').slice(3).join('/'))?.folder ?? ''}`;
}

/** The folder a listing asks for, to its kind: `_index/<dataset>`, a table's, `_manifests/<dataset>`… (its first two segments after the lake's). */
function listedFolder(url: string): string {
  const prefix = new URLSearchParams(url.split('?')[1] ?? '').get('prefix') ?? '';
  const segments = prefix.split('/').slice(1, 3);
  return segments[0]?.startsWith('_') ? segments.join('/') : (segments[0] ?? '');
}

/** The store's answers of one kind of request: how many, the milliseconds until their headers and until their bodies ended (summed; they overlap), the slowest. */
export interface Wait {
  requests: number;
  headersMs: number;
  totalMs: number;
  slowestMs: number;
}

/** A loopback proxy to `target` counting the GETs of objects (a listing is a GET with `list-type`), by kind, and the listings and their answers' bytes. */
export async function countingProxy(target: string): Promise<{
  url: string;
  gets: () => number;
  kinds: () => Record<string, number>;
  listings: () => { requests: number; bytes: number };
  /** How long the store took to answer, by kind of request: until its headers came, and until its body ended. */
  waits: () => Record<string, Wait>;
  reset: () => void;
  close: () => Promise<void>;
}> {
  const to = new URL(target);
  let gets = 0;
  let kinds: Record<string, number> = {};
  let listings = { requests: 0, bytes: 0 };
  let waits: Record<string, Wait> = {};
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const listing = req.method === 'GET' && /[?&]list-type=/.test(req.url ?? '');
    const kind = listing ? `listings ${listedFolder(req.url ?? '')}` : req.method === 'GET' ? kindOf(req.url ?? '') : `${req.method ?? '?'}`;
    if (req.method === 'GET' && !listing) {
      gets += 1;
      kinds[kind] = (kinds[kind] ?? 0) + 1;
    }
    if (listing) listings.requests += 1;
    const sent = performance.now();
    const upstream = request({ host: to.hostname, port: to.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      const headersMs = performance.now() - sent;
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      if (listing) answer.on('data', (chunk: Buffer) => (listings.bytes += chunk.length));
      answer.on('end', () => {
        const wait = (waits[kind] ??= { requests: 0, headersMs: 0, totalMs: 0, slowestMs: 0 });
        const totalMs = performance.now() - sent;
        wait.requests += 1;
        wait.headersMs += headersMs;
        wait.totalMs += totalMs;
        wait.slowestMs = Math.max(wait.slowestMs, totalMs);
      });
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    gets: () => gets,
    kinds: () => ({ ...kinds }),
    listings: () => ({ ...listings }),
    waits: () => structuredClone(waits),
    reset: () => {
      gets = 0;
      kinds = {};
      listings = { requests: 0, bytes: 0 };
      waits = {};
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

export type CountingProxy = Awaited<ReturnType<typeof countingProxy>>;

/** This checkout's weekly bundle for `projects`, and the one of MINTLIFY_BENCH_BEFORE's checkout when set. */
export async function weeklyBundles(projects: readonly string[]): Promise<{ now: Assembly; before: Assembly | undefined; close: () => Promise<void> }> {
  const context = { projectIds: projects.join(',') };
  const now = await synthAssembly(context);
  const beforeRoot = process.env['MINTLIFY_BENCH_BEFORE'];
  try {
    const before = beforeRoot ? await synthAssembly(context, path.resolve(beforeRoot)) : undefined;
    return {
      now,
      before,
      close: async () => {
        await now.close();
        await before?.close();
      },
    };
  } catch (error) {
    await now.close();
    throw error;
  }
}

/** What one invocation measured: the invocation's own figures, and what the proxy counted while it ran. */
export interface WeeklyRun extends Invocation {
  readonly gets: number;
  readonly kinds: Record<string, number>;
  readonly listings: { readonly requests: number; readonly bytes: number };
  readonly waits: Record<string, Wait>;
}

/**
 * Invokes `of`'s weekly function with `event` in its own process, its destination the bucket's
 * `mintlify/` through `proxy` (counted afresh), its digest to `topicArn`; `env` added to the
 * synthesized environment. Throws when the function failed.
 */
export async function invokeWeekly(
  of: Assembly,
  wiring: { readonly bucket: string; readonly topicArn: string; readonly proxy: CountingProxy; readonly snsEndpoint: string },
  event: unknown,
  env: Record<string, string> = {},
  remainingMs?: number,
): Promise<WeeklyRun> {
  const { bucket, topicArn, proxy, snsEndpoint } = wiring;
  proxy.reset();
  const environment = functionEnvironment(of.resources, WEEKLY, {
    EXPORT_DESTINATION: `s3://${bucket}/mintlify`,
    INSIGHTS_TOPIC_ARN: topicArn,
    EXPORT_GLUE_DATABASE: '',
  });
  const invocation = await invokeBundle(
    of.outDir,
    path.join(of.functionAssetDir(WEEKLY), 'index.js'),
    event,
    {
      ...environment,
      AWS_ENDPOINT_URL_S3: proxy.url,
      AWS_ENDPOINT_URL_SNS: snsEndpoint,
      ...env,
    },
    functionHandler(of.resources, WEEKLY),
    remainingMs,
  );
  if (invocation.error !== undefined) throw new Error(`the report function failed: ${invocation.error}\n${invocation.logs.slice(-2000)}`);
  return { ...invocation, gets: proxy.gets(), kinds: proxy.kinds(), listings: proxy.listings(), waits: proxy.waits() };
}
