/**
 * How plan, status, export's progress and the report's notice word what is left
 * (functions/cli/render/budget.ts): "about" and how many units are a guess, "at least" only for a
 * floor, "up to" only for the budget's time of firm estimates.
 */
import { describe, expect, it } from 'vitest';
import { budgetNeeds, requestsLeftOf, requestsLeftText } from '../../../functions/cli/render/budget.js';
import { HOUR_MS } from '../../../functions/shared/time.js';

describe('the words of an estimate', () => {
  it('counts each kind of unit: typical days, other projects, floors', () => {
    const left = requestsLeftOf([{ estimate: 8, guess: true, typical: true }, { estimate: 10, guess: true }, { estimate: 1, floor: true }, { estimate: 6 }]);

    expect(left).toEqual({ requests: 25, typical: 1, guessed: 1, floors: 1 });
    expect(requestsLeftText(left)).toBe(
      "at least 25 request(s) (a guess for 1 unit(s) at their dataset's typical day, nothing of it exported yet, 1 unit(s) from another project's pages) (1 partial unit(s) already as large as their known day: at least one more request each)",
    );
    expect(budgetNeeds(2 * HOUR_MS, false, left)).toBe('at least 2 h 00 min');
  });

  it('a guess is "about … (a guess)", a firm estimate "about" requests and "up to" the time', () => {
    const guessed = requestsLeftOf([{ estimate: 8, guess: true, typical: true }]);
    const firm = requestsLeftOf([{ estimate: 8 }]);

    expect(requestsLeftText(guessed)).toBe("about 8 request(s) (a guess for 1 unit(s) at their dataset's typical day, nothing of it exported yet)");
    expect(budgetNeeds(HOUR_MS, false, guessed)).toBe('about 1 h 00 min (a guess)');
    expect(requestsLeftText(firm)).toBe('about 8 request(s)');
    expect(budgetNeeds(HOUR_MS, false, firm)).toBe('up to 1 h 00 min');
    expect(budgetNeeds(HOUR_MS, true, guessed)).toMatch(/^no wait \(the embedded sandbox is not paced/);
  });
});
