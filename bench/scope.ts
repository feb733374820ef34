/**
 * The scope check (issue 52): 200 generated in-scope pull requests (pages, `docs.json`/`mint.json`,
 * images and snippets, up to 100 files each, within the default limits after raising the file
 * limit to 100 for the large ones) and planted violations of every rule — a protected path
 * (dot folders, workflows, CODEOWNERS, AGENTS.md, manifests and lock files, scripts), a path
 * outside the allowed globs, a protected file renamed into a page, more files or lines than the
 * limits, another repository — each read through octokit from the GitHub stand-in on loopback.
 * Goals: 0 false flags, 100 % of violations flagged, at most 2 requests per pull request of up
 * to 100 files.
 */
import { createScopeChecker } from '../functions/scope/check.js';
import { splitGlobs } from '../functions/scope/globs.js';
import { DEFAULT_ALLOWED, DEFAULT_PROTECTED } from '../functions/scope/rules.js';
import { startGitHubStandIn, type StandInFile } from '../scripts/lib/github-stand-in.js';
import { judged, progress, type BenchResult } from './lib/figures.js';

const TOKEN = 'ghp_bench_token_0001';
const PULLS = 200;

/** A deterministic generator (no Math.random: the same pull requests every run). */
function lcg(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const FOLDERS = ['', 'guides/', 'api-reference/', 'api-reference/webhooks/', 'essentials/', 'snippets/', 'images/', 'fr/guides/'];

function inScopeFiles(random: () => number, count: number, lineBudget: number): StandInFile[] {
  const files: StandInFile[] = [];
  for (let i = 0; i < count; i++) {
    const folder = FOLDERS[Math.floor(random() * FOLDERS.length)] as string;
    const name =
      folder === 'images/'
        ? `images/shot-${i}.${random() < 0.5 ? 'png' : 'svg'}`
        : folder === 'snippets/'
          ? `snippets/part-${i}.mdx`
          : `${folder}page-${i}.${random() < 0.8 ? 'mdx' : 'md'}`;
    files.push({ filename: name, additions: Math.floor((random() * lineBudget) / count), deletions: 0 });
  }
  if (random() < 0.3) files.push({ filename: random() < 0.5 ? 'docs.json' : 'mint.json', additions: 2, deletions: 1 });
  if (random() < 0.1) files.push({ filename: `guides/renamed-${count}.mdx`, previous_filename: `guides/old-${count}.mdx`, status: 'renamed', additions: 0 });
  return files;
}

/** Each violation planted beside an in-scope page, with the rule it must be flagged by. */
const VIOLATIONS: readonly { name: string; rule: string; files: StandInFile[]; owner?: string }[] = [
  { name: 'workflow', rule: 'protected', files: [{ filename: '.github/workflows/deploy.yml' }] },
  { name: 'dot folder', rule: 'protected', files: [{ filename: '.mintlify/config.mdx' }] },
  { name: 'dot file', rule: 'protected', files: [{ filename: 'guides/.hidden.md' }] },
  { name: 'CODEOWNERS', rule: 'protected', files: [{ filename: '.github/CODEOWNERS' }] },
  { name: 'CODEOWNERS at the root', rule: 'protected', files: [{ filename: 'CODEOWNERS' }] },
  { name: 'AGENTS.md', rule: 'protected', files: [{ filename: 'AGENTS.md' }] },
  { name: 'nested AGENTS.md', rule: 'protected', files: [{ filename: 'guides/AGENTS.md' }] },
  { name: 'package.json', rule: 'protected', files: [{ filename: 'package.json' }] },
  { name: 'lock file', rule: 'protected', files: [{ filename: 'package-lock.json' }] },
  { name: 'yarn lock', rule: 'protected', files: [{ filename: 'tools/yarn.lock' }] },
  { name: 'script', rule: 'protected', files: [{ filename: 'scripts/build.sh' }] },
  { name: 'python', rule: 'protected', files: [{ filename: 'tools/gen.py' }] },
  { name: 'javascript', rule: 'protected', files: [{ filename: 'snippets/widget.js' }] },
  { name: 'yaml', rule: 'protected', files: [{ filename: 'openapi.yaml' }] },
  { name: 'renamed into a page', rule: 'protected', files: [{ filename: 'guides/build.mdx', previous_filename: 'scripts/build.sh', status: 'renamed' }] },
  { name: 'renamed out of pages', rule: 'not_allowed', files: [{ filename: 'notes.txt', previous_filename: 'guides/notes.mdx', status: 'renamed' }] },
  { name: 'outside the allowed', rule: 'not_allowed', files: [{ filename: 'src/index.html' }] },
  { name: 'a json beside docs.json', rule: 'not_allowed', files: [{ filename: 'openapi.json' }] },
  { name: 'eleven files', rule: 'max_files', files: Array.from({ length: 10 }, (_, i) => ({ filename: `guides/extra-${i}.mdx` })) },
  { name: '501 lines', rule: 'max_lines', files: [{ filename: 'guides/long.mdx', additions: 400, deletions: 101 }] },
  { name: 'another repository', rule: 'repository', files: [], owner: 'someone-else' },
];

export async function benchScope(): Promise<BenchResult> {
  progress('scope: 200 in-scope pull requests and planted violations of every rule');
  const github = await startGitHubStandIn({ token: TOKEN });
  try {
    const random = lcg(52);
    const rules = { docsRepository: 'acme/docs', allowed: splitGlobs(DEFAULT_ALLOWED), protected: splitGlobs(DEFAULT_PROTECTED), maxFiles: 10, maxLines: 500 };
    // The large in-scope pull requests are judged with the file limit raised to 100: what is measured is the paths' rules and the requests.
    const wide = createScopeChecker({
      rules: { ...rules, maxFiles: 102, maxLines: 100_000 },
      github: { apiUrl: github.url, retryDelayMs: 1 },
      token: async () => TOKEN,
      setStatus: false,
    });
    const strict = createScopeChecker({ rules, github: { apiUrl: github.url, retryDelayMs: 1 }, token: async () => TOKEN, setStatus: false });
    let falseFlags = 0;
    let worstRequests = 0;
    for (let n = 1; n <= PULLS; n++) {
      // Sizes up to 100 files: a quarter of them large.
      const count = n % 4 === 0 ? 50 + Math.floor(random() * 48) : 1 + Math.floor(random() * 8);
      const files = inScopeFiles(random, count, count > 10 ? 5_000 : 400);
      const link = github.add({ owner: 'acme', repo: 'docs', number: n, files });
      const before = github.requests.length;
      const result = await (count > 8 ? wide : strict)(link);
      worstRequests = Math.max(worstRequests, github.requests.length - before);
      if (result.scope !== 'in_scope') falseFlags++;
    }
    let flagged = 0;
    const missed: string[] = [];
    for (const [i, violation] of VIOLATIONS.entries()) {
      const number = 1000 + i;
      const link = github.add({
        owner: violation.owner ?? 'acme',
        repo: 'docs',
        number,
        files: [{ filename: 'guides/page.mdx', additions: 5 }, ...violation.files],
      });
      const before = github.requests.length;
      const result = await strict(link);
      worstRequests = Math.max(worstRequests, github.requests.length - before);
      if (result.scope === 'out_of_scope' && result.reasons.some((reason) => reason.rule === violation.rule)) flagged++;
      else missed.push(violation.name);
    }
    return {
      figures: {
        scope_false_flags: judged(falseFlags, 'PRs', '==', 0, `of ${PULLS} in-scope pull requests`),
        scope_flagged: judged(
          (flagged / VIOLATIONS.length) * 100,
          '%',
          '>=',
          100,
          `${flagged} of ${VIOLATIONS.length} planted violations${missed.length ? `; missed: ${missed.join(', ')}` : ''}`,
        ),
        scope_requests_per_pr: judged(worstRequests, 'requests', '<=', 2, 'the most for one pull request of up to 100 files'),
      },
      details: { scope: { pulls: PULLS, violations: VIOLATIONS.length, missed, requests: github.requests.length } },
    };
  } finally {
    await github.close();
  }
}
