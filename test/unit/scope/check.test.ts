/**
 * The scope check against a GitHub stand-in on loopback (octokit's real client through
 * GITHUB_API_URL): the ten pull requests of issue 52's "Done when", each judged with the reasons
 * naming the rule and the files; no request without the token; retries of a 500; the commit
 * status only when asked for.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createScopeChecker, scopeCheckerFromSettings, type ScopeCheckerDeps } from '../../../functions/scope/check.js';
import { parsePullLink } from '../../../functions/scope/github.js';
import { DEFAULT_ALLOWED, DEFAULT_PROTECTED } from '../../../functions/scope/rules.js';
import { splitGlobs } from '../../../functions/scope/globs.js';
import { startGitHubStandIn, type GitHubStandIn } from '../../../scripts/lib/github-stand-in.js';

const TOKEN = 'ghp_stand_in_token_1234';
const pages = (n: number, prefix = 'guides/page') => Array.from({ length: n }, (_, i) => ({ filename: `${prefix}-${i + 1}.mdx`, additions: 5 }));

let github: GitHubStandIn;
const links: Record<string, string> = {};

beforeAll(async () => {
  github = await startGitHubStandIn({ token: TOKEN });
  const pr = (
    name: string,
    number: number,
    files: Parameters<GitHubStandIn['add']>[0]['files'],
    extra: { owner?: string; failures?: number; mergedAt?: string } = {},
  ) => {
    links[name] = github.add({ owner: extra.owner ?? 'acme', repo: 'docs', number, files, headSha: `${number}`.padStart(40, 'b'), ...extra });
  };
  pr('one page', 1, [{ filename: 'api/webhooks.mdx', additions: 30, deletions: 4 }], { mergedAt: '2026-11-20T10:00:00Z' });
  pr('workflow', 2, [{ filename: '.github/workflows/deploy.yml', additions: 3 }]);
  pr('renamed protected', 3, [{ filename: 'guides/build.mdx', previous_filename: 'scripts/build.sh', status: 'renamed', additions: 0 }]);
  pr('twelve pages', 4, pages(12));
  pr('800 lines', 5, [{ filename: 'api/webhooks.mdx', additions: 600, deletions: 200 }]);
  pr('manifest', 6, [
    { filename: 'api/webhooks.mdx', additions: 3 },
    { filename: 'package.json', additions: 1, deletions: 1 },
  ]);
  pr('other repository', 7, [{ filename: 'api/webhooks.mdx' }], { owner: 'someone-else' });
  pr('500', 8, [{ filename: 'api/webhooks.mdx' }], { failures: Number.POSITIVE_INFINITY });
  pr('cap', 9, pages(3_200));
  pr('page, docs.json, image', 10, [
    { filename: 'api/webhooks.mdx', additions: 12 },
    { filename: 'docs.json', additions: 2, deletions: 1 },
    { filename: 'images/webhooks.png', additions: 0 },
  ]);
});
afterAll(() => github.close());

function deps(overrides: Partial<ScopeCheckerDeps> = {}): ScopeCheckerDeps {
  return {
    rules: { docsRepository: 'acme/docs', allowed: splitGlobs(DEFAULT_ALLOWED), protected: splitGlobs(DEFAULT_PROTECTED), maxFiles: 10, maxLines: 500 },
    github: { apiUrl: github.url, retries: 3, retryDelayMs: 1 },
    token: async () => TOKEN,
    setStatus: false,
    ...overrides,
  };
}

describe('the ten pull requests of the issue', () => {
  it('judges each, with the reasons naming the rule and the files', async () => {
    const check = createScopeChecker(deps());
    const results: Record<string, unknown> = {};
    for (const [name, link] of Object.entries(links)) {
      const { scope, reasons } = await check(link);
      results[name] = { scope, reasons };
    }
    expect(results).toEqual({
      'one page': { scope: 'in_scope', reasons: [] },
      workflow: { scope: 'out_of_scope', reasons: [{ rule: 'protected', files: ['.github/workflows/deploy.yml'] }] },
      'renamed protected': { scope: 'out_of_scope', reasons: [{ rule: 'protected', files: ['scripts/build.sh'] }] },
      'twelve pages': { scope: 'out_of_scope', reasons: [{ rule: 'max_files', files: pages(12).map((file) => file.filename) }] },
      '800 lines': { scope: 'out_of_scope', reasons: [{ rule: 'max_lines', files: ['api/webhooks.mdx'] }] },
      manifest: { scope: 'out_of_scope', reasons: [{ rule: 'protected', files: ['package.json'] }] },
      'other repository': { scope: 'out_of_scope', reasons: [{ rule: 'repository', files: ['someone-else/docs'] }] },
      '500': { scope: 'unknown', reasons: [{ rule: 'api_error', files: [expect.stringMatching(/acme\/docs#8 failed \(HTTP 500\)/)] }] },
      cap: { scope: 'unknown', reasons: [{ rule: 'file_cap', files: ['3200 files changed; GitHub lists at most 3000'] }] },
      'page, docs.json, image': { scope: 'in_scope', reasons: [] },
    });
  });

  it('reads a pull request of up to 100 files in two requests, with its merge and head', async () => {
    const before = github.requests.length;
    const result = await createScopeChecker(deps())(links['one page'] as string);
    expect(github.requests.slice(before).map((request) => request.path)).toEqual(['/repos/acme/docs/pulls/1', '/repos/acme/docs/pulls/1/files?per_page=100']);
    expect(result).toMatchObject({ files: 1, changedLines: 34, mergedAt: Date.parse('2026-11-20T10:00:00Z'), headSha: '1'.padStart(40, 'b') });
  });

  it('retries a 500 three times, then says unknown; never in scope', async () => {
    const before = github.requests.length;
    await createScopeChecker(deps())(links['500'] as string);
    expect(github.requests.slice(before).map((request) => request.path)).toEqual(Array(4).fill('/repos/acme/docs/pulls/8'));
  });

  it("a pull request at GitHub's 3,000-file cap is unknown, without listing what cannot be whole", async () => {
    const link = github.add({ owner: 'acme', repo: 'docs', number: 11, files: pages(3_000) });
    const before = github.requests.length;
    const result = await createScopeChecker(deps({ rules: { ...deps().rules, maxFiles: 3000, maxLines: 100_000 } }))(link);
    expect(result).toMatchObject({ scope: 'unknown', reasons: [{ rule: 'file_cap', files: ['3000 files changed; GitHub lists at most 3000'] }] });
    expect(github.requests.length - before).toBe(1);
  });

  it('pages through the files with the Link header (250 files: three pages)', async () => {
    const link = github.add({ owner: 'acme', repo: 'docs', number: 12, files: pages(250) });
    const before = github.requests.length;
    const result = await createScopeChecker(deps({ rules: { ...deps().rules, maxFiles: 3000, maxLines: 100_000 } }))(link);
    expect(result).toMatchObject({ scope: 'in_scope', files: 250, changedLines: 1250 });
    expect(github.requests.slice(before).map((request) => request.path)).toEqual([
      '/repos/acme/docs/pulls/12',
      '/repos/acme/docs/pulls/12/files?per_page=100',
      '/repos/acme/docs/pulls/12/files?per_page=100&page=2',
      '/repos/acme/docs/pulls/12/files?per_page=100&page=3',
    ]);
  });

  it('sends no request without the token', async () => {
    const before = github.requests.length;
    const check = createScopeChecker(deps({ token: async () => undefined }));
    for (const link of Object.values(links)) {
      const { scope } = await check(link);
      expect(scope).not.toBe('in_scope');
    }
    expect(github.requests.length).toBe(before);
    expect((await check(links['one page'] as string)).reasons).toEqual([{ rule: 'no_token', files: [] }]);
  });

  it('a token secret that cannot be read is unknown, naming why', async () => {
    const result = await createScopeChecker(
      deps({
        token: async () => {
          throw new Error('could not read the GitHub token secret arn:… (AccessDeniedException)');
        },
      }),
    )(links['one page'] as string);
    expect(result).toMatchObject({ scope: 'unknown', reasons: [{ rule: 'no_token', files: [expect.stringContaining('AccessDeniedException')] }] });
  });
});

describe('what is configured', () => {
  const settings = {
    githubApiUrl: 'http://127.0.0.1:1',
    scopeAllowed: splitGlobs(DEFAULT_ALLOWED),
    scopeProtected: splitGlobs(DEFAULT_PROTECTED),
    scopeMaxFiles: 10,
    scopeMaxLines: 500,
    githubScopeStatus: false,
  };

  it('nothing configured: no checker, pull requests stay unchecked', () => {
    expect(scopeCheckerFromSettings(settings, { token: async () => undefined })).toBeUndefined();
  });

  it('a docs repository without a token: every pull request unknown', async () => {
    const check = scopeCheckerFromSettings({ ...settings, docsRepository: 'acme/docs' }, { token: async () => undefined });
    expect((await check?.('https://github.com/acme/docs/pull/1'))?.scope).toBe('unknown');
  });

  it('a link that names no pull request of this GitHub is unknown', async () => {
    const check = createScopeChecker(deps());
    expect((await check('https://gitlab.com/acme/docs/-/merge_requests/1')).reasons[0]?.rule).toBe('pr_link');
    expect(parsePullLink('https://ghe.example.com/acme/docs/pull/7', 'https://ghe.example.com/api/v3')).toEqual({ owner: 'acme', repo: 'docs', number: 7 });
    expect(parsePullLink('https://ghe.example.com/acme/docs/pull/7')).toBeUndefined();
  });
});

describe('the commit status (GITHUB_SCOPE_STATUS=on)', () => {
  it('sets mintlify-exporter/scope on the head: success in scope, failure out, error unknown', async () => {
    const check = createScopeChecker(deps({ setStatus: true }));
    await check(links['one page'] as string);
    await check(links.workflow as string);
    expect(github.statuses.slice(-2)).toEqual([
      expect.objectContaining({ sha: '1'.padStart(40, 'b'), state: 'success', context: 'mintlify-exporter/scope' }),
      expect.objectContaining({ sha: '2'.padStart(40, 'b'), state: 'failure', context: 'mintlify-exporter/scope', description: 'out of scope: protected' }),
    ]);
  });

  it('sets none when off', async () => {
    const before = github.statuses.length;
    await createScopeChecker(deps())(links['one page'] as string);
    expect(github.statuses.length).toBe(before);
  });
});
