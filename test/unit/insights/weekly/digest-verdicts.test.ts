/** The digest's verdict lines: one per completed job made for a gap, `fixed` and `worse` first, at most DIGEST_VERDICTS. */
import { describe, expect, it } from 'vitest';
import type { GapEffect } from '../../../../functions/gaps/effect.js';
import type { Verdict } from '../../../../functions/gaps/verdict.js';
import { DIGEST_VERDICTS, verdictLines } from '../../../../functions/insights/weekly/digest.js';

function effect(page: string, verdict: Verdict, completedDay: string): GapEffect {
  const side = { days: 28, signals: 40, exposure: 4000, rate: 0.01 };
  return {
    gapId: `gap_${page}`,
    projectId: 'proj_a',
    gap: { kind: 'thumbs_down_page', key: `/docs/${page}`, title: `Thumbs down on /docs/${page}` },
    requestId: `r_${page}`,
    completedDay,
    startDay: completedDay,
    laterJobs: [],
    daysSince: 30,
    n: 28,
    tooEarly: false,
    judged: {
      verdict,
      reason: `reason of ${page}`,
      before: side,
      after: side,
      control: { gaps: 3, ratio: 1 },
      effect: { ratio: 1, low: 0.8, high: 1.2 },
      detectable: 0.3,
      daysToVerdict: null,
    },
  };
}

describe('verdictLines', () => {
  it('leads with the fixes pooled per kind, then lists fixed and worse first, then no_change and too_little_data, the latest completion first within each', () => {
    const lines = verdictLines([
      effect('a', 'no_change', '2026-10-01'),
      effect('b', 'too_little_data', '2026-11-20'),
      effect('c', 'worse', '2026-10-02'),
      effect('d', 'fixed', '2026-09-01'),
      effect('e', 'fixed', '2026-10-05'),
    ]);

    expect(lines[2]).toMatch(/^ {2}on average, proj_a, pages with thumbs down: no_change — 4 fixes \(of 5; the others have no interval yet\) pooled/);
    expect(lines.slice(3)).toEqual([
      '  fixed: proj_a, Thumbs down on /docs/e (job completed 2026-10-05) — reason of e',
      '  fixed: proj_a, Thumbs down on /docs/d (job completed 2026-09-01) — reason of d',
      '  worse: proj_a, Thumbs down on /docs/c (job completed 2026-10-02) — reason of c',
      '  no_change: proj_a, Thumbs down on /docs/a (job completed 2026-10-01) — reason of a',
      '  too_little_data: proj_a, Thumbs down on /docs/b (job completed 2026-11-20) — reason of b',
    ]);
  });

  it('says how many more there are past the limit, and nothing at all without a completed job', () => {
    const many = Array.from({ length: DIGEST_VERDICTS + 3 }, (_, i) => effect(`p${i}`, 'no_change', '2026-10-01'));

    expect(verdictLines(many).at(-1)).toBe('  and 3 more: see "Fixes and their effect" in the report');
    expect(verdictLines([])).toEqual([]);
  });
});
