/**
 * The follow-up outcome record's schema (functions/warehouse/records.ts): the consumer writes
 * through it and the gaps read through it.
 */
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { buildOutcome } from '../../../functions/follow-up/outcome.js';
import { FOLLOWUP_OUTCOME, GAP_OUTCOME } from '../../../functions/warehouse/records.js';
import { FOLLOWUP_OUTCOMES } from '../../../functions/warehouse/tables.js';

const INPUT = {
  requestId: 'req-1',
  projectId: 'proj_a',
  kind: 'create',
  promptLength: 12,
  promptSha256: 'ab'.repeat(32),
  status: 'completed',
  finishedAt: Date.parse('2026-11-20T10:00:00Z'),
  polls: 3,
  attempts: 1,
} as const;

describe('the follow-up outcome record', () => {
  it('declares exactly the columns of followup_outcomes, in their order', () => {
    expect(Object.keys(FOLLOWUP_OUTCOME.entries)).toEqual(FOLLOWUP_OUTCOMES.columns.map((column) => column.name));
  });

  it('is built through its schema: the keys in column order, nulls for what the request never had', () => {
    const record = buildOutcome(INPUT);

    expect(Object.keys(record)).toEqual(FOLLOWUP_OUTCOMES.columns.map((column) => column.name));
    expect(record).toMatchObject({ job_id: null, pr_link: null, sent_at: null, gap_id: null, finished_at: '2026-11-20T10:00:00.000Z' });
  });

  it('refuses a record whose status is not one of the statuses', () => {
    expect(() => buildOutcome({ ...INPUT, status: 'done' as never })).toThrow();
  });

  it('is read by the gaps through its schema: a record without a gap is none, and a field of the wrong type is left out', () => {
    expect(v.safeParse(GAP_OUTCOME, { request_id: 'r' }).success).toBe(false);

    const read = v.parse(GAP_OUTCOME, { request_id: 'r', gap_id: 'g', job_id: null, status: 'later', pr_link: 7, finished_at: '2026-11-20T10:00:00Z' });

    expect(read).toEqual({ request_id: 'r', gap_id: 'g', finished_at: '2026-11-20T10:00:00Z' });
  });
});
