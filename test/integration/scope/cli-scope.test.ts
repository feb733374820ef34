/**
 * `mintlify-exporter scope` (issue 52): the pull requests of the period's completed jobs checked
 * again against the GitHub stand-in (octokit through GITHUB_API_URL) and recorded on their
 * outcome records; `--json` in docs/follow-ups.md's shape; exit 0 all in scope, 1 any out of scope or
 * unknown, 2 without GITHUB_TOKEN or for a bad period. A pull request merged after its job
 * completed gets its merged_at. One spawned run as a user runs it.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOutcome, outcomeKey } from '../../../functions/follow-up/outcome.js';
import { formatDay } from '../../../functions/shared/dates.js';
import { runCliInProcess, runSpawnedCli } from '../../helpers/cli.js';
import { hostEnv } from '../../helpers/env.js';
import { makeTempDir, removeTempDirs } from '../../helpers/files.js';
import { startGitHubStandIn, type GitHubStandIn } from '../../../scripts/lib/github-stand-in.js';

const TOKEN = 'ghp_cli_scope_token_77';
const NOW = Date.parse('2026-11-25T12:00:00Z');
const FINISHED = Date.parse('2026-11-22T08:00:00Z');

let github: GitHubStandIn;
let lake: string;
const keys: Record<string, string> = {};

const pages = (n: number) => Array.from({ length: n }, (_, i) => ({ filename: `guides/page-${i + 1}.mdx`, additions: 5 }));

async function plant(dir: string, name: string, link: string, options: { project?: string; finishedAt?: number; status?: 'completed' | 'failed' } = {}) {
  const outcome = buildOutcome({
    requestId: `req_${name.replace(/\W+/g, '_')}`,
    projectId: options.project ?? 'proj_docs',
    jobId: `job_${name.replace(/\W+/g, '_')}`,
    kind: 'create',
    gapId: `gap_${name.replace(/\W+/g, '_')}`,
    promptLength: 100,
    promptSha256: 'a'.repeat(64),
    status: options.status ?? 'completed',
    prLink: link,
    sentAt: (options.finishedAt ?? FINISHED) - 3_600_000,
    finishedAt: options.finishedAt ?? FINISHED,
    polls: 3,
    attempts: 1,
  });
  const key = outcomeKey(outcome);
  await mkdir(path.dirname(path.join(dir, key)), { recursive: true });
  await writeFile(path.join(dir, key), `${JSON.stringify(outcome)}\n`);
  keys[name] = key;
}

beforeAll(async () => {
  github = await startGitHubStandIn({ token: TOKEN });
  lake = await makeTempDir('scope-cli-');
  const add = (number: number, files: Parameters<GitHubStandIn['add']>[0]['files'], extra: { owner?: string; failures?: number; mergedAt?: string } = {}) =>
    github.add({ owner: extra.owner ?? 'acme', repo: 'docs', number, files, ...extra });
  await plant(lake, 'one page', add(1, [{ filename: 'api/webhooks.mdx', additions: 30 }], { mergedAt: '2026-11-23T10:00:00Z' }));
  await plant(lake, 'workflow', add(2, [{ filename: '.github/workflows/deploy.yml' }]));
  await plant(lake, 'renamed protected', add(3, [{ filename: 'guides/build.mdx', previous_filename: 'scripts/build.sh', status: 'renamed' }]));
  await plant(lake, 'twelve pages', add(4, pages(12)));
  await plant(lake, '800 lines', add(5, [{ filename: 'api/webhooks.mdx', additions: 800 }]));
  await plant(lake, 'manifest', add(6, [{ filename: 'api/webhooks.mdx' }, { filename: 'package.json' }]));
  await plant(lake, 'other repository', add(7, [{ filename: 'api/webhooks.mdx' }], { owner: 'elsewhere' }));
  await plant(lake, '500', add(8, [{ filename: 'api/webhooks.mdx' }], { failures: Number.POSITIVE_INFINITY }));
  await plant(lake, 'cap', add(9, pages(3_100)));
  await plant(lake, 'page, docs.json, image', add(10, [{ filename: 'api/webhooks.mdx' }, { filename: 'docs.json' }, { filename: 'images/retry.png' }]));
  await plant(lake, 'failed job', add(11, [{ filename: 'package.json' }]), { status: 'failed' });
  await plant(lake, 'other project', add(12, [{ filename: 'api/other.mdx' }]), { project: 'proj_other' });
});
afterAll(async () => {
  await github.close();
  await removeTempDirs();
});

function env(extra: Record<string, string> = {}): Record<string, string> {
  return { GITHUB_TOKEN: TOKEN, GITHUB_API_URL: github.url, DOCS_REPOSITORY: 'acme/docs', EXPORT_DESTINATION: lake, ...extra };
}

const run = (argv: string[], environment = env()) =>
  runCliInProcess(['scope', ...argv], { env: environment, now: () => NOW, extra: { githubRetryDelayMs: 1, cwd: lake } });

async function recordOf(name: string) {
  return JSON.parse(await readFile(path.join(lake, keys[name] as string), 'utf8')) as Record<string, unknown>;
}

describe('mintlify-exporter scope', () => {
  it('checks each completed job of the period, prints the pulls as JSON and exits 1', async () => {
    const result = await run(['--days', '7', '--project', 'proj_docs', '--json']);

    expect(result.stderr).toBe('');
    expect(result.code).toBe(1);
    const { pulls } = JSON.parse(result.stdout) as { pulls: { prLink: string; scope: string; reasons: { rule: string; files: string[] }[] }[] };
    const number = (link: string) => Number(link.split('/').pop());
    const sorted = [...pulls].sort((a, b) => number(a.prLink) - number(b.prLink));
    expect(sorted.map((pull) => [pull.prLink.replace('https://github.com/', ''), pull.scope, pull.reasons.map((reason) => reason.rule).join(',')])).toEqual([
      ['acme/docs/pull/1', 'in_scope', ''],
      ['acme/docs/pull/2', 'out_of_scope', 'protected'],
      ['acme/docs/pull/3', 'out_of_scope', 'protected'],
      ['acme/docs/pull/4', 'out_of_scope', 'max_files'],
      ['acme/docs/pull/5', 'out_of_scope', 'max_lines'],
      ['acme/docs/pull/6', 'out_of_scope', 'protected'],
      ['elsewhere/docs/pull/7', 'out_of_scope', 'repository'],
      ['acme/docs/pull/8', 'unknown', 'api_error'],
      ['acme/docs/pull/9', 'unknown', 'file_cap'],
      ['acme/docs/pull/10', 'in_scope', ''],
    ]);
    expect(sorted[0]).toEqual({
      jobId: 'job_one_page',
      projectId: 'proj_docs',
      gapId: 'gap_one_page',
      prLink: 'https://github.com/acme/docs/pull/1',
      scope: 'in_scope',
      reasons: [],
      files: 1,
      changedLines: 30,
    });
  });

  it('records the result and the merge on each outcome record, and leaves other records as they were', async () => {
    expect(await recordOf('one page')).toMatchObject({ scope: 'in_scope', scope_reasons: '[]', merged_at: '2026-11-23T10:00:00.000Z', status: 'completed' });
    expect(await recordOf('workflow')).toMatchObject({
      scope: 'out_of_scope',
      scope_reasons: JSON.stringify([{ rule: 'protected', files: ['.github/workflows/deploy.yml'] }]),
    });
    expect(await recordOf('500')).toMatchObject({ scope: 'unknown', merged_at: null });
    expect(await recordOf('failed job')).toMatchObject({ scope: null });
    expect(await recordOf('other project')).toMatchObject({ scope: null });
  });

  it('exits 0 when every pull request is in scope, with a line each', async () => {
    const result = await run(['--from', '2026-11-22', '--to', '2026-11-23', '--project', 'proj_other']);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toContain('✓ in_scope');
    expect(result.stdout).toContain('1 pull requests: 1 in scope, 0 out of scope, 0 unknown.');
  });

  it('exits 2 with one line without GITHUB_TOKEN, reading nothing', async () => {
    const before = github.requests.length;
    const result = await run(['--days', '7'], env({ GITHUB_TOKEN: '' }));
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/GITHUB_TOKEN is not set/);
    expect(github.requests.length).toBe(before);
  });

  it('exits 2 for --from without --to, and a bad glob in SCOPE_ALLOWED', async () => {
    expect((await run(['--from', '2026-11-20'])).code).toBe(2);
    const bad = await run(['--days', '7'], env({ SCOPE_ALLOWED: '**/*.{md,mdx' }));
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/SCOPE_ALLOWED/);
  });

  it('runs as a user runs it (the bin, spawned)', async () => {
    const recent = await makeTempDir('scope-cli-spawned-');
    await plant(recent, 'spawned', github.add({ owner: 'acme', repo: 'docs', number: 30, files: [{ filename: 'api/retry.mdx' }] }), { finishedAt: Date.now() });
    const result = await runSpawnedCli(['scope', '--days', '2', '--out', recent], { ...hostEnv(), ...env() });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('acme/docs/pull/30');
    expect(formatDay(Date.now())).toBe(JSON.parse(await readFile(path.join(recent, keys.spawned as string), 'utf8')).finished_at.slice(0, 10));
  });
});
