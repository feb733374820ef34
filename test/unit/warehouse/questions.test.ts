/**
 * The typed rows of the questions the readers ask (functions/warehouse/questions.ts): one decoder
 * per question, one rule for lists of texts and for counts, and each question the report and
 * gaps share bound to its decoder in queries/questions.ts. The rows themselves are read from a
 * real export by test/integration/docs/questions.test.ts, report.test.ts and gaps-effect.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { QUESTION_IDS, QUESTIONS, questionById, questionSql, TYPED_QUESTIONS } from '../../../queries/questions.js';
import { decodeThumbsDownPage, decodeUnansweredCategory, strings } from '../../../functions/warehouse/questions.js';

describe('the typed rows of the questions', () => {
  it('bind every question the report and gaps share to its decoder, under its registered id', () => {
    expect(Object.fromEntries(Object.entries(TYPED_QUESTIONS).map(([name, q]) => [name, q.id]))).toEqual(QUESTION_IDS);
    for (const id of Object.values(QUESTION_IDS)) expect(questionById(id).id).toBe(id);
  });

  it('keep a list’s non-null items as text, whoever asks: one rule for examples and comments', () => {
    expect(strings(['why?', null, 42, undefined])).toEqual(['why?', '42']);
    expect(strings(null)).toEqual([]);
    expect(decodeUnansweredCategory({ project_id: 'p', query_category: '', unanswered: 3, conversations: null, example_queries: ['a', null] })).toEqual({
      projectId: 'p',
      category: '',
      unanswered: 3,
      conversations: 0,
      examples: ['a'],
      asked: [],
    });
    expect(decodeThumbsDownPage({ project_id: 'p', path: '/x', thumbs_down: 2, thumbs_up: 1, example_comments: null })).toMatchObject({
      thumbsDown: 2,
      comments: [],
    });
  });
});

describe("a question's days on a run's clock", () => {
  it('count "the last N days" back from the day given, in both dialects: no engine clock is read', () => {
    for (const question of QUESTIONS) {
      for (const dialect of question.duckdbOnly ? (['duckdb'] as const) : (['duckdb', 'athena'] as const)) {
        const sql = questionSql(question, dialect, { root: '/lake' }, { today: '2026-11-27' });
        expect(sql, `${question.file} (${dialect})`).not.toMatch(/current_date|now\(\)|current_timestamp/i);
      }
    }
    const sql = questionSql(questionById(QUESTION_IDS.topPages), 'duckdb', { root: '/lake' }, { today: '2026-11-27' });
    expect(sql).toContain("DATE '2026-11-27' - interval '30' day");
  });

  it("keep the engine's current_date for the saved queries, and refuse a day that is not YYYY-MM-DD", () => {
    expect(questionSql(questionById(QUESTION_IDS.topPages), 'athena')).toContain("current_date - interval '30' day");
    expect(() => questionSql(questionById(QUESTION_IDS.topPages), 'athena', undefined, { today: "2026-11-27' OR 1=1" })).toThrow(/is not a YYYY-MM-DD day/);
  });
});
