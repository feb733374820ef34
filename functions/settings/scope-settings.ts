/**
 * The rows of the settings table (table.ts `SETTINGS`) for the scope check of the agent's pull
 * requests (functions/scope/): where GitHub is, the token, the docs repository and the rules.
 * Kept in a file of their own so table.ts stays one screenful of rows per area; each row is
 * the same shape as table.ts's (`Setting`, setting.ts).
 */
import { ConfigError } from '../shared/errors.js';
import { allowsPlainHttp } from '../shared/validators.js';
import { globProblem, splitGlobs } from '../scope/globs.js';
import { DEFAULT_ALLOWED, DEFAULT_MAX_FILES, DEFAULT_MAX_LINES, DEFAULT_PROTECTED } from '../scope/rules.js';

const SECRET_ARN = /^arn:aws[a-z-]*:secretsmanager:[a-z0-9-]+:\d{12}:secret:[A-Za-z0-9/_+=.@-]+$/;
const REPOSITORY = /^[A-Za-z0-9-]{1,39}\/[A-Za-z0-9_.-]{1,100}$/;

function fail(message: string): never {
  throw new ConfigError(message);
}

function globs(env: string, raw: string): readonly string[] {
  const list = splitGlobs(raw);
  if (list.length === 0) fail(`${env} holds no glob: give comma-separated globs such as **/*.mdx, or unset it for the default`);
  for (const glob of list) {
    const problem = globProblem(glob);
    if (problem !== undefined) fail(`${env}'s glob "${glob.slice(0, 60)}" ${problem}: fix it or unset ${env} for the default`);
  }
  return Object.freeze(list);
}

function count(env: string, raw: string, max: number, fallback: number): number {
  return /^\d+$/.test(raw) && Number(raw) >= 1 && Number(raw) <= max
    ? Number(raw)
    : fail(`${env} must be a whole number from 1 to ${max} (got "${raw.slice(0, 20)}"): fix or unset it (default ${fallback})`);
}

/** The follow-up function checks each completed job's pull request; the CLI's `scope` checks them again. */
const READERS = ['follow-up', 'cli'] as const;

export const SCOPE_SETTINGS = {
  githubApiUrl: {
    env: 'GITHUB_API_URL',
    doc: "GitHub's REST API the scope check reads pull requests from; GitHub Enterprise: `https://<host>/api/v3`. https only, plain http only on loopback",
    default: 'https://api.github.com',
    readBy: READERS,
    parse: (raw: string): string => {
      let url: URL | undefined;
      try {
        url = new URL(raw);
      } catch {
        url = undefined;
      }
      const loopback = url !== undefined && allowsPlainHttp(url.hostname);
      if (url === undefined || !(url.protocol === 'https:' || (url.protocol === 'http:' && loopback)) || url.username !== '' || url.search !== '') {
        fail(`GITHUB_API_URL "${raw.slice(0, 60)}" is not an API base URL: use https://api.github.com or https://<host>/api/v3, or unset it`);
      }
      return url.href.replace(/\/$/, '');
    },
  },
  githubToken: {
    env: 'GITHUB_TOKEN',
    doc: 'token the scope check reads pull requests with (CLI): read-only (fine-grained: Pull requests read, Contents read; with `GITHUB_SCOPE_STATUS=on` also Commit statuses write); never logged',
    defaultDoc: 'none: with `DOCS_REPOSITORY` set, every pull request is `unknown`; with neither, nothing is checked',
    readBy: ['cli'],
    parse: (raw: string): string =>
      /^\S{8,}$/.test(raw) ? raw : fail('GITHUB_TOKEN is not a GitHub token (no spaces, 8 characters or more): fix or unset it'),
  },
  githubTokenSecretArn: {
    env: 'GITHUB_TOKEN_SECRET_ARN',
    doc: 'Secrets Manager secret holding the scope check\'s GitHub token (the follow-up function; context `githubTokenSecretArn`): the raw token or `{"token":"…"}`',
    defaultDoc: 'none',
    readBy: ['follow-up'],
    parse: (raw: string): string =>
      SECRET_ARN.test(raw) ? raw : fail('GITHUB_TOKEN_SECRET_ARN is not a Secrets Manager ARN: use arn:aws:secretsmanager:<region>:<account>:secret:<name>'),
  },
  docsRepository: {
    env: 'DOCS_REPOSITORY',
    doc: "the docs repository, `owner/name`: the agent's pull requests are checked against the scope rules, and one in any other repository is out of scope (docs/follow-ups.md)",
    defaultDoc: 'none: any repository; with no token either, pull requests are not checked',
    readBy: READERS,
    parse: (raw: string): string =>
      REPOSITORY.test(raw) ? raw : fail(`DOCS_REPOSITORY "${raw.slice(0, 60)}" is not a repository: use owner/name, e.g. acme/docs`),
  },
  scopeAllowed: {
    env: 'SCOPE_ALLOWED',
    doc: 'comma-separated globs of the paths a pull request may change (`**` any folders, `*` any name, `{a,b}` either)',
    default: DEFAULT_ALLOWED,
    defaultDoc: `\`${DEFAULT_ALLOWED}\``,
    readBy: READERS,
    parse: (raw: string) => globs('SCOPE_ALLOWED', raw),
  },
  scopeProtected: {
    env: 'SCOPE_PROTECTED',
    doc: 'comma-separated globs of paths always out of scope, even where `SCOPE_ALLOWED` lets them in',
    default: DEFAULT_PROTECTED,
    defaultDoc: 'any path with a segment starting with `.`, CODEOWNERS, AGENTS.md, manifests and lock files, scripts and workflow files (docs/follow-ups.md)',
    readBy: READERS,
    parse: (raw: string) => globs('SCOPE_PROTECTED', raw),
  },
  scopeMaxFiles: {
    env: 'SCOPE_MAX_FILES',
    doc: 'a pull request changing more files than this is out of scope',
    default: String(DEFAULT_MAX_FILES),
    range: { min: 1, max: 3000 },
    readBy: READERS,
    parse: (raw: string) => count('SCOPE_MAX_FILES', raw, 3000, DEFAULT_MAX_FILES),
  },
  scopeMaxLines: {
    env: 'SCOPE_MAX_LINES',
    doc: 'a pull request changing more lines than this (additions + deletions) is out of scope',
    default: String(DEFAULT_MAX_LINES),
    range: { min: 1, max: 10_000_000 },
    readBy: READERS,
    parse: (raw: string) => count('SCOPE_MAX_LINES', raw, 10_000_000, DEFAULT_MAX_LINES),
  },
  githubScopeStatus: {
    env: 'GITHUB_SCOPE_STATUS',
    doc: "`on`: the scope check also sets the commit status `mintlify-exporter/scope` on the pull request's head (the token needs `statuses: write`; context `githubScopeStatus=on` deployed)",
    default: 'off',
    readBy: READERS,
    parse: (raw: string): boolean => (raw === 'on' ? true : raw === 'off' ? false : fail(`GITHUB_SCOPE_STATUS must be on or off (got "${raw.slice(0, 20)}")`)),
  },
} as const;
