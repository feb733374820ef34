/**
 * Factories for the integration tests of every analytics dataset (issue 9): a tiny API on
 * 127.0.0.1 that serves an empty visitors day (the sandbox cannot: every project has at least
 * one path).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

// --- an API with an empty visitors day ---------------------------------------------------

export interface EmptyVisitorsApi {
  readonly url: string;
  readonly apiKey: string;
  /** Query of every request, in order. */
  readonly requests: { readonly path: string; readonly query: Readonly<Record<string, string>> }[];
  close(): Promise<void>;
}

/**
 * A minimal API on 127.0.0.1 whose visitors endpoint answers every day as empty, the way the
 * service does for a site without traffic: `{totals: 0s, visitors: [], hasMore: false}`. The
 * sandbox cannot serve such a day (its projects have at least one path), yet the contract
 * says a complete empty day still gets its files. Anything else is a 404.
 */
export async function startEmptyVisitorsApi(apiKey: string): Promise<EmptyVisitorsApi> {
  const requests: { path: string; query: Record<string, string> }[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    requests.push({ path: url.pathname, query: Object.fromEntries(url.searchParams) });
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    if (req.headers.authorization !== `Bearer ${apiKey}`) return send(401, { error: 'invalid API key' });
    if (!/^\/v1\/analytics\/[^/]+\/visitors$/.test(url.pathname)) return send(404, { error: 'no such endpoint' });
    return send(200, { totals: { human: 0, ai: 0, total: 0 }, visitors: [], hasMore: false });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    apiKey,
    requests,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
