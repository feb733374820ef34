/**
 * The weekly digest made from the report's figures: the ISO week of the page, the period, the
 * headline table, the movers (over a base that means something), data health, and the days a
 * hand invocation may ask for.
 */
import { describe, expect, it } from 'vitest';
import type { Figures } from '../../../../functions/report/figures.js';
import { type Headline, REPORT_DATASETS } from '../../../../functions/report/headline.js';
import type { HealthCell } from '../../../../functions/report/health.js';
import { digestMovers, digestOf, healthCounts } from '../../../../functions/insights/weekly/digest.js';
import { formatChange } from '../../../../functions/shared/format.js';
import { daysAsked } from '../../../../functions/insights/weekly/handler.js';
import { isoWeek, weekPeriod } from '../../../../functions/insights/weekly/run.js';
import { ZERO_HEADLINE } from '../../../helpers/figures.js';

const ZERO = ZERO_HEADLINE;

function figures(byProject: Figures['byProject'], health: HealthCell[] = []): Figures {
  const sum = (side: 'current' | 'previous'): Headline => {
    const total = (field: 'human' | 'views' | 'thumbsDown') => byProject.reduce((n, p) => n + p[side][field], 0);
    return { ...ZERO, human: total('human'), views: total('views'), thumbsDown: total('thumbsDown') };
  };
  const period = weekPeriod(Date.parse('2026-11-23T06:00:00Z'), 2);
  return {
    period,
    previous: weekPeriod(Date.parse('2026-11-16T06:00:00Z'), 2),
    projects: byProject.map((p) => p.projectId),
    headline: { current: sum('current'), previous: sum('previous') },
    byProject,
    visitorsPerDay: [],
    topPages: [],
    unclickedSearches: [],
    unansweredByCategory: [],
    thumbsDownPages: [],
    health,
    // Every dataset's weeks compare as totals, no day left out (the tests of coverage set their own).
    comparisons: Object.fromEntries(
      REPORT_DATASETS.map((d) => [d, { comparison: 'totals', current: ZERO.coverage[d], previous: ZERO.coverage[d], leftOut: { current: [], previous: [] } }]),
    ),
    unreadableFiles: [],
    requestsPerDay: [],
  } as unknown as Figures;
}

describe('the week', () => {
  it('is the last 7 complete days, named by ISO week', () => {
    expect(weekPeriod(Date.parse('2026-11-23T06:00:00Z'), 2)).toMatchObject({ from: '2026-11-16', to: '2026-11-23' });
    // 01:00 on Monday: Sunday is not due yet with 2 settle hours, so the week is the one before
    // (Monday to Sunday: the page covers the ISO week it names, never Sunday to Saturday).
    expect(weekPeriod(Date.parse('2026-11-23T01:00:00Z'), 2)).toMatchObject({ from: '2026-11-09', to: '2026-11-16' });
    // With EXPORT_SETTLE_HOURS 30, Monday 06:00 has Saturday as its latest due day: the same.
    expect(weekPeriod(Date.parse('2026-11-23T06:00:00Z'), 30)).toMatchObject({ from: '2026-11-09', to: '2026-11-16' });
    expect(weekPeriod(Date.parse('2027-01-04T06:00:00Z'), 48)).toMatchObject({ from: '2026-12-21', to: '2026-12-28' });
    expect(weekPeriod(Date.parse('2027-01-05T06:00:00Z'), 30)).toMatchObject({ from: '2026-12-28', to: '2027-01-04' });
    expect(isoWeek('2027-01-03')).toBe('2026-W53');
    // Another length (by hand) is still the last N complete days.
    expect(weekPeriod(Date.parse('2026-11-23T06:00:00Z'), 30, 3)).toMatchObject({ from: '2026-11-19', to: '2026-11-22' });
    expect(isoWeek('2026-11-22')).toBe('2026-W47');
    expect(isoWeek('2026-01-01')).toBe('2026-W01');
    expect(isoWeek('2027-01-03')).toBe('2026-W53');
    expect(isoWeek('2024-12-30')).toBe('2025-W01');
  });

  it('asks for other lengths only as a whole number of days from 1 to 366', () => {
    expect(daysAsked({ time: '2026-11-23T06:00:00Z' })).toBeUndefined();
    expect(daysAsked({ days: 90 })).toBe(90);
    for (const bad of [0, 367, 1.5, '7']) expect(() => daysAsked({ days: bad }), String(bad)).toThrow(/^"days" must be a whole number from 1 to 366/);
  });
});

describe('the digest', () => {
  const a = {
    projectId: 'proj_a',
    current: { ...ZERO, human: 1_200, views: 5_000, thumbsDown: 10 },
    previous: { ...ZERO, human: 1_000, views: 5_000, thumbsDown: 40 },
    visitorsTotal: 2_000,
  };
  const b = { projectId: 'proj_b', current: { ...ZERO, human: 100, views: 30 }, previous: { ...ZERO, human: 10, views: 300 }, visitorsTotal: 100 };

  it('says the change of each figure, and new for one from nothing', () => {
    expect([formatChange(120, 100, '-'), formatChange(50, 100, '-'), formatChange(100, 100, '-'), formatChange(5, 0, '-'), formatChange(0, 0, '-')]).toEqual([
      '+20 %',
      '-50 %',
      '0 %',
      'new',
      '0 %',
    ]);
  });

  it('lists the projects’ biggest relative moves over a base of at least 20, both ways', () => {
    expect(digestMovers(figures([a, b])).map((m) => `${m.projectId} ${m.figure} ${m.previous}->${m.current}`)).toEqual([
      'proj_b views 300->30',
      'proj_a thumbsDown 40->10',
      'proj_a human 1000->1200',
    ]);
  });

  it('counts the week’s units by state over every project', () => {
    const cell = (state: HealthCell['state'], states: HealthCell['state'][]): HealthCell =>
      ({ day: '2026-11-16', dataset: 'visitors', state, projects: states.map((s, i) => ({ projectId: `p${i}`, state: s })), anomalies: [] }) as HealthCell;
    expect(
      healthCounts(figures([a], [cell('failed', ['failed', 'complete']), cell('missing', ['missing', 'missing']), cell('drift', ['drift', 'partial'])])),
    ).toEqual({
      drift: 1,
      expired: 0,
      partial: 1,
      missing: 2,
      failed: 1,
    });
  });

  it('puts the headline change in a subject under 100 characters and the link in the body', () => {
    const digest = digestOf({
      figures: figures([a, b]),
      week: '2026-W47',
      link: { url: 'https://d111.cloudfront.net/weekly/2026-W47.html?Expires=1&Signature=x&Key-Pair-Id=K1', expiresAt: '2026-11-30T06:00:00.000Z' },
    });
    expect(digest.kind).toBe('weekly-report');
    expect(digest.subject).toBe('Docs 2026-W47: human visitors 1,300 (+29 %), views 5,030 (-5 %)');
    expect(digest.body).toMatch(/^Human visitors\s+1,300\s+1,010\s+\+29 %\s+better$/m);
    expect(digest.body).toContain('This week');
    expect(digest.body).toContain('The report: https://d111.cloudfront.net/weekly/2026-W47.html?Expires=1&Signature=x&Key-Pair-Id=K1');
    expect(digest.body).toContain('(the link works until 2026-11-30T06:00:00.000Z;');
  });

  it('names the page in the bucket and says why there is no link when the deployment has no report distribution', () => {
    const digest = digestOf({ figures: figures([a, b]), week: '2026-W47', place: 's3://bucket/mintlify/reports/weekly/2026-W47.html' });
    expect(digest.body).toContain('The report: s3://bucket/mintlify/reports/weekly/2026-W47.html');
    expect(digest.body).toContain('no link: the deployment has no report distribution');
    expect(digest.body).not.toContain('the link works until');
  });
});

describe('the digest says what a change means, without colour', () => {
  /** One project whose every digest figure moved, each way. */
  const moved = {
    projectId: 'proj_a',
    current: { ...ZERO, human: 800, ai: 300, views: 6_000, searches: 90, questions: 100, unanswered: 60, thumbsDown: 10 },
    previous: { ...ZERO, human: 1_000, ai: 100, views: 5_000, searches: 30, questions: 50, unanswered: 20, thumbsDown: 40 },
    visitorsTotal: 1_100,
  };
  const byProject = [moved];
  const body = () => {
    const base = figures(byProject);
    const headline = { current: moved.current, previous: moved.previous };
    return digestOf({ figures: { ...base, headline } as Figures, week: '2026-W47' }).body;
  };
  const row = (label: string) =>
    body()
      .split('\n')
      .find((line) => line.startsWith(label)) ?? '';

  it('marks a rise of unanswered questions and a fall of human visitors worse, a fall of thumbs down and a rise of views better', () => {
    expect(row('Unanswered questions')).toMatch(/\+200 %\s+worse$/);
    expect(row('Human visitors')).toMatch(/-20 %\s+worse$/);
    expect(row('Thumbs down')).toMatch(/-75 %\s+better$/);
    expect(row('Page views')).toMatch(/\+20 %\s+better$/);
  });

  it('judges neither way the figures whose rise is neither good nor bad (AI visitors, searches, assistant questions)', () => {
    for (const label of ['AI visitors', 'Searches', 'Assistant questions']) {
      expect(row(label), label).toMatch(/ %$/);
    }
  });

  it('marks a figure new from nothing by its meaning too', () => {
    const fresh = { ...moved, previous: { ...moved.previous, unanswered: 0 } };
    const base = figures([fresh]);
    const text = digestOf({ figures: { ...base, headline: { current: fresh.current, previous: fresh.previous } } as Figures, week: 'W' }).body;
    expect(text).toMatch(/^Unanswered questions\s+60\s+0\s+new\s+worse$/m);
  });

  it('says better or worse on each mover, and what the words mean under the table', () => {
    const text = body();
    expect(text).toContain('  proj_a: unanswered questions 20 -> 60 (+200 %, worse)');
    expect(text).toContain('  proj_a: thumbs down 40 -> 10 (-75 %, better)');
    expect(text).toContain('  proj_a: searches 30 -> 90 (+200 %)');
    expect(text).toContain(
      'better / worse: by what the figure means (more unanswered questions or thumbs down is worse); AI visitors, searches and assistant questions are not judged.',
    );
  });
});

describe('unreadable Parquet files in the digest', () => {
  const project = { projectId: 'docs', current: { ...ZERO, human: 10 }, previous: { ...ZERO, human: 10 } } as unknown as Figures['byProject'][number];

  it('are listed under data health by name, with what to do, instead of dropping out silently', () => {
    const base = figures([project]);
    const withBad = { ...base, unreadableFiles: ['tables/views_totals/dt=2026-11-18/docs.parquet', 'tables/feedback/dt=2026-11-19/docs.parquet'] } as Figures;
    const body = digestOf({ figures: withBad, week: '2026-W47' }).body;
    const health = body.slice(body.indexOf('Data health'));
    expect(health).toContain('unreadable Parquet files left out of the figures (2):');
    expect(health).toContain('    tables/views_totals/dt=2026-11-18/docs.parquet');
    expect(health).toContain('    tables/feedback/dt=2026-11-19/docs.parquet');
    expect(health).toContain('--force');
    expect(digestOf({ figures: { ...base, unreadableFiles: [] } as Figures, week: '2026-W47' }).body).not.toContain('unreadable');
  });
});

describe('the digest compares only weeks that compare (the report’s rule)', () => {
  /** Last week with 1 of its 7 days exported: a seventh of this week's traffic, every dataset. */
  const oneDayBefore = (headline: Headline, days: number): Headline => ({
    ...headline,
    coverage: Object.fromEntries(Object.keys(headline.coverage).map((d) => [d, { exported: days, days: 7 }])) as unknown as Headline['coverage'],
    perDay: Object.fromEntries(
      Object.entries(headline.perDay).map(([f]) => [f, (headline[f as keyof Headline] as number) / days]),
    ) as unknown as Headline['perDay'],
  });
  const project = {
    projectId: 'proj_a',
    current: oneDayBefore({ ...ZERO, human: 7_000, views: 14_000, unanswered: 700, thumbsDown: 70 }, 7),
    previous: oneDayBefore({ ...ZERO, human: 1_050, views: 1_900, unanswered: 100, thumbsDown: 11 }, 1),
    visitorsTotal: 7_000,
  };
  const digest = () => {
    const base = figures([project]);
    return digestOf({ figures: { ...base, headline: { current: project.current, previous: project.previous } } as Figures, week: '2026-W47' });
  };

  it('compares each figure per day, never judged, and says why', () => {
    const { body } = digest();
    expect(body).toMatch(/^Human visitors\s+1,000\/day\s+1,050\/day\s+-5 %$/m);
    expect(body).toMatch(/^Page views\s+2,000\/day\s+1,900\/day\s+\+5 %$/m);
    expect(body).not.toMatch(/(better|worse)$/m);
    expect(body).not.toMatch(/\+\d{3,} %/);
    expect(body).toContain(
      'Human visitors and the other visitors figures: per day (/day), not as totals — this period has 7 of 7 day(s) exported, the one before 1 of 7',
    );
  });

  it('draws no mover from the barely exported week, and puts the per-day change in the subject', () => {
    expect(digestMovers(figures([project]))).toEqual([]);
    expect(digest().subject).toBe('Docs 2026-W47: human visitors 7,000 (-5 % per day), views 14,000 (+5 % per day)');
  });
});
