/**
 * The sandbox's feedback comments agree with their thumbs (issue 41): over 30 days of its
 * default projects, a contextual comment with a thumbs up is praise and one with a thumbs down
 * never is — so the demo's prompts never quote praise as the reason for a thumbs down.
 */
import { describe, expect, it } from 'vitest';
import { addDays } from '../../../functions/shared/dates.js';
import { createSandboxData, DEFAULT_PROJECTS } from '../../../sandbox/index.js';
import { COMPLAINT_COMMENTS, PRAISE_COMMENTS } from '../../../sandbox/generators/text.js';

const FIRST = '2026-10-01';
const DAYS = Array.from({ length: 30 }, (_, i) => addDays(FIRST, i));

describe('sandbox feedback comments', () => {
  it('praise only with a thumbs up, complaints only with a thumbs down, both plentiful', () => {
    const data = createSandboxData();
    const seen = { praiseUp: 0, complaintDown: 0, disagreeing: [] as string[] };
    for (const { id } of DEFAULT_PROJECTS) {
      for (const day of DAYS) {
        for (const row of data.iterateRows('feedback', id, day)) {
          if (row.source !== 'contextual' || row.comment === null) continue;
          if (row.helpful && PRAISE_COMMENTS.includes(row.comment)) seen.praiseUp += 1;
          else if (!row.helpful && COMPLAINT_COMMENTS.includes(row.comment)) seen.complaintDown += 1;
          else seen.disagreeing.push(`${row.helpful ? 'up' : 'down'}: ${row.comment}`);
        }
      }
    }

    expect(seen.disagreeing).toEqual([]);
    expect(seen.praiseUp).toBeGreaterThan(100);
    expect(seen.complaintDown).toBeGreaterThan(100);
  });

  it('no comment is both praise and a complaint', () => {
    expect(PRAISE_COMMENTS.filter((comment) => COMPLAINT_COMMENTS.includes(comment))).toEqual([]);
    expect(PRAISE_COMMENTS.length).toBeGreaterThan(0);
  });
});
