import { describe, expect, it } from 'vitest';
import {
  isoTimestampToEpochMs,
  parseAssistantPage,
  parseCallerStats,
  parseFeedbackByPage,
  parseFeedbackPage,
  parseSearchesPage,
  parseViewsPage,
  PathCountsRowSchema,
  TotalsSchema,
  ViewsPageSchema,
} from '../../../functions/shared/schemas.js';
import { unknownFieldsOf } from '../../../functions/shared/open-objects.js';
import { malformedMessage } from '../../helpers/errors.js';

/** A copy of `body` with `key` left out. */
function without<T extends Record<string, unknown>>(body: T, key: keyof T): Record<string, unknown> {
  const { [key]: _omitted, ...rest } = body;
  return rest;
}

const T_2026_01_15 = Date.UTC(2026, 0, 15, 10, 30, 0);

describe('isoTimestampToEpochMs', () => {
  it('reads ISO 8601 timestamps with Z, an offset, fractions or a date alone as UTC epoch ms', () => {
    expect(isoTimestampToEpochMs('2026-01-15T10:30:00Z')).toBe(T_2026_01_15);
    expect(isoTimestampToEpochMs('2026-01-15T10:30:00.250Z')).toBe(T_2026_01_15 + 250);
    expect(isoTimestampToEpochMs('2026-01-15T12:30:00+02:00')).toBe(T_2026_01_15);
    expect(isoTimestampToEpochMs('2026-01-15T05:00:00-0530')).toBe(T_2026_01_15);
    expect(isoTimestampToEpochMs('2026-01-15')).toBe(Date.UTC(2026, 0, 15));
  });

  it('reads a date-time without offset as UTC, whatever the machine time zone', () => {
    expect(isoTimestampToEpochMs('2026-01-15T10:30:00')).toBe(T_2026_01_15);
  });

  it('refuses strings Date.parse would accept or roll over', () => {
    for (const text of ['Jan 15 2026', '2026-02-30T00:00:00Z', '2026-13-01', '2026-01-15T24:00:00Z', '1768473000000', '', '2026-01-15 10:30:00Z']) {
      expect(isoTimestampToEpochMs(text), text).toBeUndefined();
    }
  });
});

describe('parseViewsPage', () => {
  const body = {
    totals: { human: 900, ai: 300, total: 1100 },
    views: [
      { path: '/quickstart', human: 500, ai: 120, total: 600 },
      { path: '/api/ü', human: 400, ai: 180, total: 500 },
    ],
    hasMore: true,
  };

  it('accepts the documented example, total not checked against human + ai', () => {
    expect(parseViewsPage(body)).toEqual(body);
  });

  it('keeps fields it does not know, as sent, at every level (for unknown_fields and the manifest)', () => {
    const drifted = {
      ...body,
      generatedAt: { at: '2026-01-01', zone: 'UTC' },
      totals: { ...body.totals, sessions: 12 },
      views: body.views.map((row) => ({ ...row, sessions: [1, { nested: true }] })),
    };

    const page = parseViewsPage(drifted);

    expect(page).toEqual(drifted);
    expect(unknownFieldsOf(page, ViewsPageSchema)).toEqual({ generatedAt: { at: '2026-01-01', zone: 'UTC' } });
    expect(unknownFieldsOf(page.totals, TotalsSchema)).toEqual({ sessions: 12 });
    expect(unknownFieldsOf(page.views[0] as object, PathCountsRowSchema)).toEqual({ sessions: [1, { nested: true }] });
    expect(unknownFieldsOf(parseViewsPage(body), ViewsPageSchema)).toBeUndefined();
  });

  it('refuses a negative count, naming the field', () => {
    const message = malformedMessage(() => parseViewsPage({ ...body, views: [{ path: '/a', human: 1, ai: -2, total: 1 }] }));
    expect(message).toContain('views[0].ai');
    expect(message).toContain('must be an integer ≥ 0');
  });

  it('refuses a page without hasMore', () => {
    expect(malformedMessage(() => parseViewsPage(without(body, 'hasMore')))).toContain('hasMore is missing');
  });

  it('refuses rows under the visitors key instead of views', () => {
    const { views, ...rest } = body;
    expect(malformedMessage(() => parseViewsPage({ ...rest, visitors: views }))).toContain('views is missing');
  });
});

describe('parseSearchesPage', () => {
  const row = {
    searchQuery: 'authentication',
    hits: 42,
    ctr: 0.31,
    topClickedPage: '/api/auth',
    lastSearchedAt: '2026-01-15T10:30:00Z',
  };
  const body = { searches: [row], totalSearches: 57, nextCursor: 'c2VhcmNoZXM6NTA=' };

  it('accepts the documented example and converts lastSearchedAt to epoch ms', () => {
    expect(parseSearchesPage(body)).toEqual({
      searches: [{ ...row, lastSearchedAt: T_2026_01_15 }],
      totalSearches: 57,
      nextCursor: 'c2VhcmNoZXM6NTA=',
    });
  });

  it('reads absent topClickedPage, lastSearchedAt and nextCursor as null', () => {
    const page = parseSearchesPage({ searches: [without(without(row, 'topClickedPage'), 'lastSearchedAt')], totalSearches: 42 });

    expect(page.searches[0]).toMatchObject({ topClickedPage: null, lastSearchedAt: null });
    expect(page.nextCursor).toBeNull();
  });

  it('keeps ctr exactly as sent, on either scale', () => {
    const page = parseSearchesPage({
      ...body,
      searches: [
        { ...row, ctr: 0 },
        { ...row, searchQuery: 'b', ctr: 87.5 },
      ],
    });
    expect(page.searches.map((search) => search.ctr)).toEqual([0, 87.5]);
  });

  it('refuses a negative or non-numeric ctr, naming the field', () => {
    expect(malformedMessage(() => parseSearchesPage({ ...body, searches: [{ ...row, ctr: -0.1 }] }))).toContain('searches[0].ctr');
    expect(malformedMessage(() => parseSearchesPage({ ...body, searches: [{ ...row, ctr: '0.3' }] }))).toContain('searches[0].ctr');
  });

  it('refuses hits sent as a string', () => {
    expect(malformedMessage(() => parseSearchesPage({ ...body, searches: [{ ...row, hits: '42' }] }))).toContain('searches[0].hits');
  });

  it('refuses a negative totalSearches', () => {
    expect(malformedMessage(() => parseSearchesPage({ ...body, totalSearches: -1 }))).toContain('totalSearches must be an integer ≥ 0');
  });

  it('refuses an empty search term', () => {
    expect(malformedMessage(() => parseSearchesPage({ ...body, searches: [{ ...row, searchQuery: '' }] }))).toContain(
      'searches[0].searchQuery must be a non-empty string',
    );
  });

  it('refuses a lastSearchedAt that is not an ISO 8601 timestamp', () => {
    for (const lastSearchedAt of ['yesterday', '2026-02-30T10:00:00Z', 1768473000000]) {
      const message = malformedMessage(() => parseSearchesPage({ ...body, searches: [{ ...row, lastSearchedAt }] }));
      expect(message, String(lastSearchedAt)).toContain('searches[0].lastSearchedAt must be an ISO 8601 timestamp');
    }
  });

  it('refuses an empty cursor string instead of reading it as the last page', () => {
    expect(malformedMessage(() => parseSearchesPage({ ...body, nextCursor: '' }))).toContain('nextCursor must be a non-empty string or null (got "")');
  });

  it('refuses a body without totalSearches', () => {
    expect(malformedMessage(() => parseSearchesPage(without(body, 'totalSearches')))).toContain('totalSearches is missing');
  });
});

describe('parseFeedbackPage', () => {
  const contextual = {
    id: 'fb_1',
    path: '/quickstart',
    comment: 'Step 3 fails on Windows',
    createdAt: '2026-01-15T10:30:00.000Z',
    source: 'contextual',
    status: 'pending',
    helpful: false,
    contact: 'ana@example.com',
  };
  const codeSnippet = {
    id: 'fb_2',
    path: 'https://docs.example.com/api',
    comment: null,
    createdAt: null,
    source: 'code_snippet',
    status: 'resolved',
    code: 'curl -X POST …',
    filename: null,
    lang: 'bash',
  };
  const body = { feedback: [contextual, codeSnippet], nextCursor: 'cursor_2', hasMore: true };

  it('accepts the documented example and fills every absent source-specific field with null', () => {
    expect(parseFeedbackPage(body)).toEqual({
      feedback: [
        { ...contextual, createdAt: T_2026_01_15, code: null, filename: null, lang: null },
        { ...codeSnippet, helpful: null, contact: null },
      ],
      nextCursor: 'cursor_2',
      hasMore: true,
    });
  });

  it('reads absent hasMore, nextCursor, comment and createdAt as null', () => {
    const row = without(without(codeSnippet, 'comment'), 'createdAt');

    const page = parseFeedbackPage({ feedback: [row] });

    expect(page).toMatchObject({ nextCursor: null, hasMore: null });
    expect(page.feedback[0]).toMatchObject({ comment: null, createdAt: null });
  });

  it('accepts every documented source and status', () => {
    const rows = ['code_snippet', 'contextual', 'agent', 'thumbs_only'].flatMap((source) =>
      ['pending', 'in_progress', 'resolved', 'dismissed'].map((status, i) => ({ ...contextual, id: `${source}_${i}`, source, status })),
    );
    expect(parseFeedbackPage({ feedback: rows, nextCursor: null, hasMore: false }).feedback).toHaveLength(16);
  });

  it('keeps a source or status it does not know, as sent (the enums are open)', () => {
    const page = parseFeedbackPage({ ...body, feedback: [{ ...contextual, source: 'widget', status: 'archived' }] });

    expect(page.feedback[0]).toMatchObject({ source: 'widget', status: 'archived' });
  });

  it('refuses a source or status that is not a string, naming the field', () => {
    expect(malformedMessage(() => parseFeedbackPage({ ...body, feedback: [{ ...contextual, source: 3 }] }))).toContain('feedback[0].source must be a string');
    expect(malformedMessage(() => parseFeedbackPage({ ...body, feedback: [{ ...contextual, status: null }] }))).toContain(
      'feedback[0].status must be a string',
    );
  });

  it('refuses helpful sent as a string', () => {
    expect(malformedMessage(() => parseFeedbackPage({ ...body, feedback: [{ ...contextual, helpful: 'no' }] }))).toContain('feedback[0].helpful');
  });

  it('refuses a contact or code that is neither a string nor null', () => {
    expect(malformedMessage(() => parseFeedbackPage({ ...body, feedback: [{ ...contextual, contact: 7 }] }))).toContain('feedback[0].contact');
    expect(malformedMessage(() => parseFeedbackPage({ ...body, feedback: [codeSnippet, { ...codeSnippet, code: {} }] }))).toContain('feedback[1].code');
  });

  it('refuses a createdAt that is not an ISO timestamp', () => {
    expect(malformedMessage(() => parseFeedbackPage({ ...body, feedback: [{ ...contextual, createdAt: '15/01/2026' }] }))).toContain(
      'feedback[0].createdAt must be an ISO 8601 timestamp',
    );
  });

  it('refuses an empty id or path', () => {
    expect(malformedMessage(() => parseFeedbackPage({ ...body, feedback: [{ ...contextual, id: '' }] }))).toContain('feedback[0].id');
    expect(malformedMessage(() => parseFeedbackPage({ ...body, feedback: [{ ...contextual, path: '' }] }))).toContain('feedback[0].path');
  });

  it('refuses an empty cursor string and a hasMore of the wrong type', () => {
    expect(malformedMessage(() => parseFeedbackPage({ ...body, nextCursor: '' }))).toContain('nextCursor must be a non-empty string or null');
    expect(malformedMessage(() => parseFeedbackPage({ ...body, hasMore: 'yes' }))).toContain('hasMore');
  });
});

describe('parseFeedbackByPage', () => {
  const body = {
    feedback: [
      { path: '/quickstart', thumbsUp: 12, thumbsDown: 5, code: 2, total: 19 },
      { path: '/api', thumbsUp: 0, thumbsDown: 0, code: 1, total: 1 },
    ],
    hasMore: true,
  };

  it('accepts the documented example as is', () => {
    expect(parseFeedbackByPage(body)).toEqual(body);
  });

  it('refuses a negative count, naming the field', () => {
    const message = malformedMessage(() => parseFeedbackByPage({ ...body, feedback: [{ ...body.feedback[0], thumbsDown: -1 }] }));
    expect(message).toContain('feedback[0].thumbsDown must be an integer ≥ 0');
  });

  it('refuses a body without hasMore, the only sign of rows left out', () => {
    expect(malformedMessage(() => parseFeedbackByPage(without(body, 'hasMore')))).toContain('hasMore is missing');
  });

  it('refuses an empty path', () => {
    expect(malformedMessage(() => parseFeedbackByPage({ ...body, feedback: [{ ...body.feedback[0], path: '' }] }))).toContain('feedback[0].path');
  });
});

describe('parseAssistantPage', () => {
  const turn = {
    id: '01JH8Z3Q4V5W6X7Y8Z9A0B1C2D',
    timestamp: '2026-01-15T10:30:00Z',
    query: 'How do I rotate an API key?',
    response: 'Go to Settings → API keys …',
    responseType: 'answer',
    sources: [{ title: 'API keys', url: 'https://docs.example.com/keys' }],
    resolutionStatus: 'answered',
    queryCategory: 'authentication',
    pageUrl: 'https://docs.example.com/quickstart',
  };
  const body = { conversations: [turn], nextCursor: '01JH8Z3Q4V5W6X7Y8Z9A0B1C2E', hasMore: true };

  it('accepts the documented example and converts the timestamp to epoch ms', () => {
    expect(parseAssistantPage(body)).toEqual({ ...body, conversations: [{ ...turn, timestamp: T_2026_01_15 }] });
  });

  it('reads an absent responseType as answer, absent sources as [] and absent category, page, cursor and hasMore as null', () => {
    const bare = without(without(without(without(turn, 'responseType'), 'sources'), 'queryCategory'), 'pageUrl');

    const page = parseAssistantPage({ conversations: [bare] });

    expect(page.conversations[0]).toMatchObject({ responseType: 'answer', sources: [], queryCategory: null, pageUrl: null });
    expect(page).toMatchObject({ nextCursor: null, hasMore: null });
  });

  it('keeps turns that repeat a conversation id, in the order sent', () => {
    const later = { ...turn, timestamp: '2026-01-15T10:31:00Z', responseType: 'clarifying_question', resolutionStatus: 'unanswered' };

    const page = parseAssistantPage({ ...body, conversations: [later, turn] });

    expect(page.conversations.map((row) => [row.id, row.timestamp, row.responseType])).toEqual([
      [turn.id, T_2026_01_15 + 60_000, 'clarifying_question'],
      [turn.id, T_2026_01_15, 'answer'],
    ]);
  });

  it('keeps a responseType or resolutionStatus it does not know, as sent; absent responseType is still answer', () => {
    const page = parseAssistantPage({
      ...body,
      conversations: [{ ...turn, responseType: 'tool_call', resolutionStatus: 'escalated' }, without(turn, 'responseType')],
    });

    expect(page.conversations.map((t) => [t.responseType, t.resolutionStatus])).toEqual([
      ['tool_call', 'escalated'],
      ['answer', turn.resolutionStatus],
    ]);
  });

  it('refuses a responseType or resolutionStatus that is not a string, naming the field', () => {
    expect(malformedMessage(() => parseAssistantPage({ ...body, conversations: [{ ...turn, responseType: 7 }] }))).toContain('conversations[0].responseType');
    expect(malformedMessage(() => parseAssistantPage({ ...body, conversations: [{ ...turn, resolutionStatus: false }] }))).toContain(
      'conversations[0].resolutionStatus must be a string',
    );
  });

  it('refuses a turn without a timestamp or with one that is not ISO 8601', () => {
    expect(malformedMessage(() => parseAssistantPage({ ...body, conversations: [without(turn, 'timestamp')] }))).toContain(
      'conversations[0].timestamp is missing',
    );
    expect(malformedMessage(() => parseAssistantPage({ ...body, conversations: [{ ...turn, timestamp: 'Thu Jan 15 2026' }] }))).toContain(
      'conversations[0].timestamp must be an ISO 8601 timestamp',
    );
  });

  it('refuses a source without a string url, naming it', () => {
    const message = malformedMessage(() => parseAssistantPage({ ...body, conversations: [{ ...turn, sources: [turn.sources[0], { title: 'x', url: 3 }] }] }));
    expect(message).toContain('conversations[0].sources[1].url');
  });

  it('refuses sources that are not an array', () => {
    expect(malformedMessage(() => parseAssistantPage({ ...body, conversations: [{ ...turn, sources: 'API keys' }] }))).toContain(
      'conversations[0].sources must be an array',
    );
  });

  it('refuses an empty conversation id and an empty cursor string', () => {
    expect(malformedMessage(() => parseAssistantPage({ ...body, conversations: [{ ...turn, id: '' }] }))).toContain('conversations[0].id');
    expect(malformedMessage(() => parseAssistantPage({ ...body, nextCursor: '' }))).toContain('nextCursor must be a non-empty string or null');
  });
});

describe('parseCallerStats', () => {
  it('accepts the documented example', () => {
    expect(parseCallerStats({ web: 120, api: 30, other: 5, total: 155 })).toEqual({ web: 120, api: 30, other: 5, total: 155 });
  });

  it('keeps a total that differs from web + api + other as sent', () => {
    expect(parseCallerStats({ web: 1, api: 1, other: 1, total: 4 }).total).toBe(4);
  });

  it('refuses a negative or fractional count, naming the field', () => {
    expect(malformedMessage(() => parseCallerStats({ web: 1, api: -1, other: 0, total: 0 }))).toContain('api must be an integer ≥ 0');
    expect(malformedMessage(() => parseCallerStats({ web: 1.5, api: 0, other: 0, total: 1 }))).toContain('web must be an integer ≥ 0');
  });

  it('refuses a body without total', () => {
    expect(malformedMessage(() => parseCallerStats({ web: 1, api: 0, other: 0 }))).toContain('total is missing');
  });

  it('refuses a body that is not an object without echoing it', () => {
    const message = malformedMessage(() => parseCallerStats('<html>'.repeat(1_000)));
    expect(message).toContain('assistant caller stats response is malformed: body');
    expect(message.length).toBeLessThan(300);
  });
});
