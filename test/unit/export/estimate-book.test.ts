/** The run's estimate book: what a completed unit teaches refreshes the units still to do. */
import { describe, expect, it } from 'vitest';
import { createEstimateBook } from '../../../functions/export/estimate-book.js';
import type { PlannedUnit } from '../../../functions/export/plan.js';

const unit = (projectId: string, day: string, extra: Partial<PlannedUnit> = {}): PlannedUnit => ({
  dataset: 'searches',
  projectId,
  day,
  reason: 'missing',
  force: false,
  estimate: 3,
  ...extra,
});

describe('the estimate book', () => {
  const planned = [unit('a', '2026-01-01'), unit('a', '2026-01-02', { guess: true }), unit('b', '2026-01-01', { guess: true, typical: true })];

  it('gives the plan as it is before anything is learnt', () => {
    const book = createEstimateBook(planned);

    expect(book.remainingFrom(0)).toBe(9);
    expect(book.guessesFrom(0)).toBe(2);
    expect(book.refreshed(planned[2] as PlannedUnit)).toEqual(planned[2]);
  });

  it("takes a completed unit's pages for its project's dataset, and for another project's guess", () => {
    const book = createEstimateBook(planned);

    book.learn({ dataset: 'searches', projectId: 'a' }, 10);

    // The same project's guess is no longer one; another project's guess takes the dataset's pages and stays a guess.
    expect(book.refreshed(planned[1] as PlannedUnit)).toEqual({ ...planned[1], estimate: 10, guess: undefined });
    expect(book.stillGuess(planned[1] as PlannedUnit)).toBe(false);
    // Another project's typical day is no longer one: the dataset's pages are known.
    expect(book.refreshed(planned[2] as PlannedUnit)).toEqual({ ...planned[2], estimate: 10, typical: undefined });
    expect(book.remainingFrom(1)).toBe(20);
    expect(book.guessesFrom(0)).toBe(1);
  });

  it('never estimates below one request', () => {
    const book = createEstimateBook(planned);

    book.learn({ dataset: 'searches', projectId: 'a' }, 0);

    expect(book.estimate(planned[0] as PlannedUnit)).toBe(1);
  });
});
