/**
 * A stand-in for GitHub's REST API on loopback, for the scope check's tests and benchmark (octokit's real client
 * talks to it through `GITHUB_API_URL`): `GET /repos/{o}/{r}/pulls/{n}` (head sha, merged_at,
 * changed_files), `GET …/pulls/{n}/files` in pages of `per_page` (at most 100) with GitHub's Link
 * header and its cap of 3,000 files, `POST /repos/{o}/{r}/statuses/{sha}`. A pull request can be
 * made to answer 500 (always, or a number of times). Every request is recorded with whether it
 * carried a token; the statuses set are kept.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StandInFile {
  readonly filename: string;
  readonly previous_filename?: string;
  readonly status?: string;
  readonly additions?: number;
  readonly deletions?: number;
}

export interface StandInPull {
  readonly owner: string;
  readonly repo: string;
  readonly number: number;
  readonly files: readonly StandInFile[];
  readonly headSha?: string;
  readonly mergedAt?: string | null;
  /** Answers 500 this many times to every request about it (Infinity: always). */
  readonly failures?: number;
}

export interface StandInRequest {
  readonly method: string;
  readonly path: string;
  readonly authorized: boolean;
}

export interface GitHubStandIn {
  /** `http://127.0.0.1:PORT`: the `GITHUB_API_URL` of a test. */
  readonly url: string;
  readonly requests: StandInRequest[];
  readonly statuses: { owner: string; repo: string; sha: string; state: string; context: string; description: string }[];
  add(pull: StandInPull): string;
  close(): Promise<void>;
}

/** GitHub lists at most this many files of a pull request. */
export const STAND_IN_FILE_CAP = 3000;

export async function startGitHubStandIn(options: { readonly token?: string } = {}): Promise<GitHubStandIn> {
  const pulls = new Map<string, StandInPull & { failuresLeft: number }>();
  const requests: StandInRequest[] = [];
  const statuses: GitHubStandIn['statuses'] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const url = new URL(request.url ?? '/', 'http://127.0.0.1');
      const authorization = String(request.headers.authorization ?? '');
      const authorized = authorization !== '' && (options.token === undefined || authorization.endsWith(` ${options.token}`));
      requests.push({ method: request.method ?? 'GET', path: `${url.pathname}${url.search}`, authorized });
      const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
        response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
        response.end(JSON.stringify(body));
      };
      if (!authorized) return send(401, { message: 'Requires authentication' });
      const status = /^\/repos\/([^/]+)\/([^/]+)\/statuses\/([0-9a-f]+)$/.exec(url.pathname);
      if (status && request.method === 'POST') {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as { state: string; context: string; description: string };
        statuses.push({ owner: status[1] as string, repo: status[2] as string, sha: status[3] as string, ...body });
        return send(201, { id: statuses.length, ...body });
      }
      const match = /^\/repos\/([^/]+)\/([^/]+)\/pulls\/(\d+)(\/files)?$/.exec(url.pathname);
      const pull = match ? pulls.get(`${match[1]}/${match[2]}#${match[3]}`) : undefined;
      if (!match || !pull || request.method !== 'GET') return send(404, { message: 'Not Found' });
      if (pull.failuresLeft > 0) {
        pull.failuresLeft--;
        return send(500, { message: 'Server Error' });
      }
      const listed = pull.files.slice(0, STAND_IN_FILE_CAP).map((file) => ({
        sha: 'f'.repeat(40),
        status: file.status ?? (file.previous_filename ? 'renamed' : 'modified'),
        additions: file.additions ?? 1,
        deletions: file.deletions ?? 0,
        changes: (file.additions ?? 1) + (file.deletions ?? 0),
        ...file,
      }));
      if (!match[4]) {
        return send(200, {
          number: pull.number,
          state: pull.mergedAt ? 'closed' : 'open',
          head: { sha: pull.headSha ?? 'a'.repeat(40), ref: 'agent/fix' },
          merged_at: pull.mergedAt ?? null,
          changed_files: pull.files.length,
          additions: listed.reduce((sum, file) => sum + file.additions, 0),
          deletions: listed.reduce((sum, file) => sum + file.deletions, 0),
        });
      }
      const perPage = Math.min(100, Number(url.searchParams.get('per_page') ?? 30));
      const page = Math.max(1, Number(url.searchParams.get('page') ?? 1));
      const last = Math.max(1, Math.ceil(listed.length / perPage));
      const link = (n: number) => `<http://127.0.0.1:${(server.address() as AddressInfo).port}${url.pathname}?per_page=${perPage}&page=${n}>`;
      const links = page < last ? { link: `${link(page + 1)}; rel="next", ${link(last)}; rel="last"` } : {};
      return send(200, listed.slice((page - 1) * perPage, page * perPage), links);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    statuses,
    add: (pull) => {
      pulls.set(`${pull.owner}/${pull.repo}#${pull.number}`, { ...pull, failuresLeft: pull.failures ?? 0 });
      return `https://github.com/${pull.owner}/${pull.repo}/pull/${pull.number}`;
    },
    close: async () => {
      server.close();
      server.closeAllConnections();
      await once(server, 'close');
    },
  };
}
