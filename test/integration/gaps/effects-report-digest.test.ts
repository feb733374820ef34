/**
 * The verdicts on fixes where people read them: the report's "Fixes and their effect" and the
 * weekly digest, built over the stand-in lake of planted truths (test/helpers/effects-lake.ts) —
 * the same verdicts `effects --json` gives there (test/integration/gaps/cli-effects.test.ts), the
 * digest's lines `fixed` and `worse` first.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { digestOf } from '../../../functions/insights/weekly/digest.js';
import { buildReport, type BuiltReport } from '../../../functions/report/report.js';
import { addDays, formatDay } from '../../../functions/shared/dates.js';
import { periodOf } from '../../../functions/warehouse/period.js';
import { buildEffectsLake, NOW, type EffectsLake } from '../../helpers/effects-lake.js';
import { removeTempDirs } from '../../helpers/files.js';
import { parseLakeTarget } from '../../../functions/warehouse/lake/target.js';

let lake: EffectsLake;
let report: BuiltReport;

beforeAll(async () => {
  lake = await buildEffectsLake();
  const today = formatDay(NOW);
  report = await buildReport({ target: parseLakeTarget(lake.root, '--out'), period: periodOf(addDays(today, -7), today), projects: [] }, { now: () => NOW });
}, 120_000);

afterAll(async () => {
  await removeTempDirs();
});

/** The verdict cell of the row of `page` in the page's fixes table. */
function verdictCell(html: string, page: string): string {
  const table = html.slice(html.indexOf('id="fixes-effect"'));
  const rows = table
    .slice(0, table.indexOf('</table>'))
    .split('<tr>')
    .filter((row) => row.includes(page));
  expect(rows).toHaveLength(1);
  const cell = /data-label="Verdict">(.*?)<\/td>/s.exec(rows[0] ?? '')?.[1] ?? '';
  return cell.replace(/<[^>]+>/g, '');
}

describe('the verdicts in the report and the digest', () => {
  it('shows each completed job’s verdict and reason in the report, as effects gives them', () => {
    expect(verdictCell(report.html, '/docs/fixed')).toMatch(/^fixed — thumbs down per view fell 60 %/);
    expect(verdictCell(report.html, '/docs/no-change')).toMatch(/^no change — .*inside 0\.70–1\.43/);
    expect(verdictCell(report.html, '/docs/rare')).toMatch(
      /^inconclusive — .*could only have seen a fall of \d+ % or more; at this pace, a 30 % fall is visible in about \d+ days$/,
    );
    expect(verdictCell(report.html, '/docs/recent')).toBe('too little data — only 3 whole days since the job completed: a verdict needs 7');
    const effectTable = report.html.slice(report.html.indexOf('id="fixes-effect"'), report.html.indexOf('id="fixes-open"'));
    expect(effectTable).not.toContain('/docs/unfinished');
    expect(verdictCell(report.html, 'retry webhook')).toMatch(/^fixed — share of questions unanswered fell 67 %/);
    expect(report.fixes.map((f) => [f.gap?.key, f.judged.verdict]).sort()).toEqual([
      ['/docs/fixed', 'fixed'],
      ['/docs/no-change', 'no_change'],
      ['/docs/rare', 'inconclusive'],
      ['/docs/recent', 'too_little_data'],
      ['retry webhook', 'fixed'],
    ]);
  });

  it('leads the section with the portfolio: one row per kind of gap, its fixes pooled', () => {
    const table = report.html.slice(report.html.indexOf('id="fixes-portfolio"'), report.html.indexOf('id="fixes-effect"'));
    const rows = table.slice(0, table.indexOf('</table>')).split('<tr>').slice(2);
    expect(rows.map((row) => /data-label="Gaps">(.*?)<\/td>/s.exec(row)?.[1])).toEqual(['pages with thumbs down', 'unanswered topics']);
    expect(rows[1]).toMatch(/verdict-fixed/);
    expect(report.html.indexOf('id="fixes-portfolio"')).toBeLessThan(report.html.indexOf('id="fixes-effect"'));
  });

  it('shows beside each verdict its own sides: its days, signals and rate, "a day" over the days exported', () => {
    const table = report.html.slice(report.html.indexOf('id="fixes-effect"'));
    const row = table.split('<tr>').find((r) => r.includes('/docs/rare')) ?? '';
    const text = row.replace(/<[^>]+>/g, '');
    expect(text).toContain('3.0 a day — 30 thumbs down in 10 day(s) exported');
    expect(text).toContain('2.1 a day — 21 thumbs down in 10 day(s) exported');
    expect(text).toContain('thumbs down per view 0.0200 over 1,500');
  });

  it('lists one line per verdict in the digest, the portfolio first, then fixed, with the report’s reasons', () => {
    const { body } = digestOf({ figures: report.figures, week: '2026-W16', fixes: report.fixes });

    const lines = body.split('\n');
    const start = lines.indexOf('Fixes and their effect (the rate against similar gaps without a job):');
    expect(start).toBeGreaterThan(0);
    expect(lines.slice(start + 1, start + 3).map((line) => /^ {2}on average, proj_small, ([a-z ]+): (\w+) — /.exec(line)?.[1])).toEqual([
      'pages with thumbs down',
      'unanswered topics',
    ]);
    const verdicts = lines.slice(start + 3, start + 8);
    expect(verdicts.map((line) => /^ {2}(\w+): proj_small, /.exec(line)?.[1])).toEqual(['fixed', 'fixed', 'no_change', 'inconclusive', 'too_little_data']);
    expect(verdicts.slice(2).map((line) => /Thumbs down on (\S+) /.exec(line)?.[1])).toEqual(['/docs/no-change', '/docs/rare', '/docs/recent']);
    expect(verdicts.slice(0, 2).some((line) => line.includes('Thumbs down on /docs/fixed '))).toBe(true);
    for (const fix of report.fixes) expect(body).toContain(fix.judged.reason);
    expect(lines[start + 8]).toBe('');
  });
});
