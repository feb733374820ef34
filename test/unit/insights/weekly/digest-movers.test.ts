/**
 * The weekly digest's movers (the projects' headline figures that moved most, relative to last
 * week, over a base large enough to mean something), on typed figures in milliseconds.
 */
import { describe, expect, it } from 'vitest';
import type { Figures } from '../../../../functions/report/figures.js';
import type { Headline } from '../../../../functions/report/headline.js';
import { MOVER_MIN_BASE, MOVERS, type Mover, digestMovers } from '../../../../functions/insights/weekly/digest.js';
import { ZERO_HEADLINE } from '../../../helpers/figures.js';

const ZERO = ZERO_HEADLINE;

type Counts = Partial<Pick<Headline, 'human' | 'ai' | 'views' | 'searches' | 'questions' | 'unanswered' | 'thumbsDown'>>;

/** A project's week against the week before. */
const project = (projectId: string, current: Counts, previous: Counts) => ({
  projectId,
  current: { ...ZERO, ...current },
  previous: { ...ZERO, ...previous },
  visitorsTotal: current.human ?? 0,
});

/** The report's figures with only what the movers read: each project's headline, both weeks. */
const figures = (...byProject: ReturnType<typeof project>[]) => ({ byProject }) as unknown as Figures;

const listed = (movers: readonly Mover[]) => movers.map((m) => `${m.projectId} ${m.figure} ${m.previous}->${m.current}`);

describe("the digest's movers", () => {
  it(`counts a figure as a mover only from a base of ${MOVER_MIN_BASE} last week`, () => {
    const movers = digestMovers(figures(project('proj_a', { human: 400, views: 400 }, { human: MOVER_MIN_BASE - 1, views: MOVER_MIN_BASE })));

    expect(listed(movers)).toEqual([`proj_a views ${MOVER_MIN_BASE}->400`]);
  });

  it('leaves out a figure that did not change', () => {
    expect(digestMovers(figures(project('proj_a', { human: 500, searches: 80 }, { human: 500, searches: 80 })))).toEqual([]);
  });

  it('orders by the size of the relative change either way, ties by project, and gives the change as a ratio', () => {
    const movers = digestMovers(
      figures(
        project('proj_b', { human: 150 }, { human: 100 }),
        project('proj_a', { human: 200, views: 50, thumbsDown: 21 }, { human: 40, views: 100, thumbsDown: 20 }),
      ),
    );

    // 20 -> 21 thumbs down is what chance gives: not a mover (warehouse/noise.ts).
    expect(listed(movers)).toEqual(['proj_a human 40->200', 'proj_a views 100->50', 'proj_b human 100->150']);
    expect(movers.map((m) => m.change)).toEqual([4, -0.5, 0.5]);
  });

  it('judges every headline figure of the digest, AI visitors, searches, questions and unanswered included', () => {
    const movers = digestMovers(
      figures(project('proj_a', { ai: 60, searches: 90, questions: 20, unanswered: 10 }, { ai: 30, searches: 30, questions: 60, unanswered: 40 })),
    );

    expect(listed(movers)).toEqual(['proj_a searches 30->90', 'proj_a ai 30->60', 'proj_a unanswered 40->10', 'proj_a questions 60->20']);
  });

  it(`lists at most ${MOVERS} by default, or the limit asked`, () => {
    const projects = Array.from({ length: 7 }, (_, i) => project(`proj_${i}`, { views: 100 + 20 * (i + 1) }, { views: 100 }));

    expect(digestMovers(figures(...projects)).map((m) => m.projectId)).toEqual(['proj_6', 'proj_5', 'proj_4', 'proj_3', 'proj_2']);
    expect(digestMovers(figures(...projects), 2).map((m) => m.projectId)).toEqual(['proj_6', 'proj_5']);
  });

  it('lists neither +0.6 % nor a week missing a day as a mover, but a real jump per day exported', () => {
    const sixDays = { ...ZERO.coverage, views: { exported: 6, days: 7 }, searches: { exported: 6, days: 7 } };
    const movers = digestMovers(
      figures(
        project('proj_a', { human: 503 }, { human: 500 }),
        // 6 days of 100 views against 7 of 100: the same a day; 6 days of 40 searches against 7 of 20: twice as many a day.
        {
          ...project('proj_b', { views: 600, searches: 240 }, { views: 700, searches: 140 }),
          current: { ...ZERO, views: 600, searches: 240, coverage: sixDays },
        },
      ),
    );

    expect(listed(movers)).toEqual(['proj_b searches 140->240']);
    expect(movers[0]?.change).toBeCloseTo(1, 12);
    expect(movers[0]?.days).toEqual({ current: 6, previous: 7 });
  });
});
