/**
 * Reads a pull request through GitHub's REST API with `@octokit/rest`: `GET pulls/{n}` (its head,
 * merge and count of changed files) and `GET pulls/{n}/files?per_page=100` through octokit's
 * pagination (the Link header) — two requests for a pull request of up to 100 files. GitHub
 * Enterprise: `GITHUB_API_URL` (`https://ghe.example.com/api/v3`). 429, 5xx and failed
 * connections are retried with backoff (p-retry); 4xx other than 429 fail at once. The token is
 * never logged nor put in an error message. `readPull` is the reader other code reuses (the
 * verdicts' merge dates); `setScopeStatus` writes the optional commit status.
 */
import { Octokit } from '@octokit/rest';
import pRetry, { AbortError } from 'p-retry';
import { scrubText } from '../shared/errors.js';
import { GITHUB_FILE_CAP, type PullFile } from './rules.js';

/** GitHub.com's API; Enterprise servers answer under `https://<host>/api/v3`. */
export const DEFAULT_GITHUB_API_URL = 'https://api.github.com';

/** The commit status's context: what a branch protection rule or ruleset requires. */
export const SCOPE_STATUS_CONTEXT = 'mintlify-exporter/scope';

export interface GitHubOptions {
  /** `GITHUB_API_URL`. @default DEFAULT_GITHUB_API_URL */
  readonly apiUrl?: string | undefined;
  readonly token: string;
  /** Retries after the first attempt of a request that may succeed later. @default 3 */
  readonly retries?: number;
  /** The first retry's wait, doubled for each next one (ms). @default 1000 */
  readonly retryDelayMs?: number;
  /** Per request (ms). @default 20000 */
  readonly timeoutMs?: number;
  /** Called with each request sent (method and route), retries included: the benchmark counts them. */
  readonly onRequest?: (route: string) => void;
}

/** `owner`, `repo` and `number` of a pull request's link. */
export interface PullLink {
  readonly owner: string;
  readonly repo: string;
  readonly number: number;
}

/** What GitHub says of a pull request. */
export interface PullFacts extends PullLink {
  readonly headSha: string;
  /** Epoch ms of the merge; null when not merged. */
  readonly mergedAt: number | null;
  /** `changed_files` of the pull request. */
  readonly changedFiles: number;
  /** Its files, in GitHub's order; empty when it has more than GitHub lists. */
  readonly files: readonly PullFile[];
  /** Every file was listed (false at or past GitHub's 3,000-file cap). */
  readonly listedAll: boolean;
}

/** A request GitHub refused, or that kept failing after its retries. */
export class GitHubError extends Error {
  constructor(
    message: string,
    readonly status: number | undefined,
  ) {
    super(message);
    this.name = 'GitHubError';
  }
}

const LINK = /^https:\/\/([^/]+)\/([A-Za-z0-9_.-]+)\/([A-Za-z0-9_.-]+)\/pull\/(\d+)\/?(?:[?#].*)?$/;

/**
 * The pull request a link names: `https://github.com/{owner}/{repo}/pull/{n}`, or the same path
 * on the host of an Enterprise `apiUrl`. Undefined for anything else.
 */
export function parsePullLink(prLink: string, apiUrl: string = DEFAULT_GITHUB_API_URL): PullLink | undefined {
  const match = LINK.exec(prLink.trim());
  if (!match) return undefined;
  const [, host = '', owner = '', repo = '', number = ''] = match;
  const apiHost = safeHost(apiUrl);
  if (host.toLowerCase() !== 'github.com' && host.toLowerCase() !== apiHost) return undefined;
  return { owner, repo, number: Number(number) };
}

function safeHost(url: string): string | undefined {
  try {
    return new URL(url).host.toLowerCase();
  } catch {
    return undefined;
  }
}

/** An octokit client for `options`, counting requests, saying nothing on the console. */
export function createOctokit(options: GitHubOptions): Octokit {
  const silent = () => {};
  const octokit = new Octokit({
    auth: options.token,
    baseUrl: (options.apiUrl ?? DEFAULT_GITHUB_API_URL).replace(/\/$/, ''),
    userAgent: 'mintlify-exporter',
    log: { debug: silent, info: silent, warn: silent, error: silent },
  });
  octokit.hook.before('request', (request) => options.onRequest?.(`${request.method} ${request.url}`));
  return octokit;
}

/**
 * A request with the retries GitHub's answers deserve: 429, 5xx and failed connections again
 * after 1 s, 2 s, 4 s (by default); anything else at once, as a GitHubError naming the status.
 */
export async function withRetries<T>(what: string, options: GitHubOptions, call: (signal: AbortSignal) => Promise<T>): Promise<T> {
  try {
    return await pRetry(
      async () => {
        try {
          return await call(AbortSignal.timeout(options.timeoutMs ?? 20_000));
        } catch (error) {
          const status = statusOf(error);
          if (status !== undefined && status < 500 && status !== 429) throw new AbortError(asGitHubError(what, error, options.token));
          throw error instanceof Error ? error : new Error(String(error));
        }
      },
      { retries: options.retries ?? 3, minTimeout: options.retryDelayMs ?? 1000, factor: 2, randomize: false },
    );
  } catch (error) {
    throw asGitHubError(what, error, options.token);
  }
}

/** Reads a pull request and its files: two requests for up to 100 files, one more per further 100. */
export async function readPull(link: PullLink, options: GitHubOptions, octokit: Octokit = createOctokit(options)): Promise<PullFacts> {
  const { owner, repo, number } = link;
  const where = `${owner}/${repo}#${number}`;
  const pull = await withRetries(`reading pull request ${where}`, options, (signal) =>
    octokit.rest.pulls.get({ owner, repo, pull_number: number, request: { signal } }),
  );
  const changedFiles = pull.data.changed_files;
  const base = { owner, repo, number, headSha: pull.data.head.sha, mergedAt: pull.data.merged_at ? Date.parse(pull.data.merged_at) : null, changedFiles };
  // As many files as GitHub lists, or more: nothing to read could decide it.
  if (changedFiles >= GITHUB_FILE_CAP) return { ...base, files: [], listedAll: false };
  const listed = await withRetries(`listing the files of pull request ${where}`, options, (signal) =>
    octokit.paginate(octokit.rest.pulls.listFiles, { owner, repo, pull_number: number, per_page: 100, request: { signal } }),
  );
  const files: PullFile[] = listed.map((file) => ({
    filename: file.filename,
    ...(file.previous_filename ? { previousFilename: file.previous_filename } : {}),
    status: file.status,
    additions: file.additions,
    deletions: file.deletions,
  }));
  // A list that reached the cap may have stopped there: fail closed.
  return { ...base, files, listedAll: files.length >= changedFiles && files.length < GITHUB_FILE_CAP };
}

/** The commit status `mintlify-exporter/scope` on a head commit (needs `statuses: write`). */
export async function setScopeStatus(
  target: { readonly owner: string; readonly repo: string; readonly sha: string },
  status: { readonly state: 'success' | 'failure' | 'error'; readonly description: string },
  options: GitHubOptions,
  octokit: Octokit = createOctokit(options),
): Promise<void> {
  await withRetries(`setting the commit status of ${target.owner}/${target.repo}@${target.sha.slice(0, 7)}`, options, (signal) =>
    octokit.rest.repos.createCommitStatus({
      owner: target.owner,
      repo: target.repo,
      sha: target.sha,
      state: status.state,
      context: SCOPE_STATUS_CONTEXT,
      // GitHub takes at most 140 characters.
      description: status.description.slice(0, 140),
      request: { signal },
    }),
  );
}

function statusOf(error: unknown): number | undefined {
  const status = (error as { status?: unknown } | null)?.status;
  return typeof status === 'number' && status > 0 ? status : undefined;
}

function asGitHubError(what: string, error: unknown, token: string): GitHubError {
  if (error instanceof GitHubError) return error;
  const original = error instanceof AbortError ? error.originalError : error;
  if (original instanceof GitHubError) return original;
  const status = statusOf(original);
  const message = original instanceof Error ? original.message : String(original);
  return new GitHubError(
    scrubText(`${what} failed${status === undefined ? '' : ` (HTTP ${status})`}: ${message}`, { secrets: [token], maxLength: 300 }),
    status,
  );
}
