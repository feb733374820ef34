/**
 * Where the scope of the agent's pull requests shows (issue 52), over the stand-in lake of
 * planted fixes (test/helpers/effects-lake.ts), whose completed jobs' pull request the GitHub
 * stand-in serves touching a workflow file: `scope` records out_of_scope on each outcome record,
 * then `gaps` says so on each gap's request, the report has its section "The agent's changes in
 * scope" naming the rule and the file, and the weekly digest counts them and lists them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { digestOf } from '../../../functions/insights/weekly/digest.js';
import { buildReport, type BuiltReport } from '../../../functions/report/report.js';
import { addDays, formatDay } from '../../../functions/shared/dates.js';
import { periodOf } from '../../../functions/warehouse/period.js';
import { parseLakeTarget } from '../../../functions/warehouse/lake/target.js';
import { runCliInProcess } from '../../helpers/cli.js';
import { buildEffectsLake, NOW, PR_LINK, type EffectsLake } from '../../helpers/effects-lake.js';
import { removeTempDirs } from '../../helpers/files.js';
import { startGitHubStandIn, type GitHubStandIn } from '../../../scripts/lib/github-stand-in.js';

const TOKEN = 'ghp_read_side_token_55';
let lake: EffectsLake;
let github: GitHubStandIn;
let checked: { code: number; stdout: string };
let report: BuiltReport;

beforeAll(async () => {
  [lake, github] = await Promise.all([buildEffectsLake(), startGitHubStandIn({ token: TOKEN })]);
  expect(github.add({ owner: 'acme', repo: 'docs', number: 45, files: [{ filename: '.github/workflows/deploy.yml' }, { filename: 'docs/fixed.mdx' }] })).toBe(
    PR_LINK,
  );
  const env = { GITHUB_TOKEN: TOKEN, GITHUB_API_URL: github.url, DOCS_REPOSITORY: 'acme/docs', EXPORT_DESTINATION: lake.root };
  checked = await runCliInProcess(['scope', '--json'], { env, now: () => NOW });
  const today = formatDay(NOW);
  report = await buildReport({ target: parseLakeTarget(lake.root, '--out'), period: periodOf(addDays(today, -7), today), projects: [] }, { now: () => NOW });
}, 120_000);

afterAll(async () => {
  await github.close();
  await removeTempDirs();
});

describe('the scope where people read it', () => {
  it('scope checked every completed job and recorded out_of_scope (exit 1)', () => {
    expect(checked.code).toBe(1);
    const { pulls } = JSON.parse(checked.stdout) as { pulls: { scope: string; reasons: unknown }[] };
    expect(pulls.length).toBeGreaterThan(0);
    for (const pull of pulls) expect(pull).toMatchObject({ scope: 'out_of_scope', reasons: [{ rule: 'protected', files: ['.github/workflows/deploy.yml'] }] });
  });

  it('gaps says it on each gap whose job made that pull request', async () => {
    const result = await runCliInProcess(['gaps', '--out', lake.root, '--days', '28'], { env: {}, now: () => NOW });
    const lines = result.stdout.split('\n').filter((line) => line.includes(PR_LINK));
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(line).toMatch(/; out of scope: protected: \.github\/workflows\/deploy\.yml$/);
  });

  it('the report has its section, naming the rule and the file', () => {
    const start = report.html.indexOf('<section id="scope">');
    expect(start).toBeGreaterThan(0);
    const section = report.html.slice(start, report.html.indexOf('</section>', start));
    expect(section).toContain('The agent&#39;s changes in scope');
    expect(section).toContain(`<a href="${PR_LINK}">${PR_LINK}</a>`);
    expect(section).toContain('out of scope');
    expect(section).toContain('protected: .github/workflows/deploy.yml');
    expect(report.scope?.length).toBeGreaterThan(0);
  });

  it('the digest counts them and lists each', () => {
    const { body } = digestOf({ figures: report.figures, week: '2026-W16', fixes: report.fixes, ...(report.scope ? { scope: report.scope } : {}) });
    const count = report.scope?.length ?? 0;
    expect(body).toContain(`The agent's pull requests against the scope rules: 0 in scope, ${count} out of scope, 0 unknown.`);
    expect(body).toContain(`  out of scope: ${PR_LINK}`);
    expect(body).toContain('Their fixes get no verdict (not measured). Check them again: mintlify-exporter scope');
  });
});
