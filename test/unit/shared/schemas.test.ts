import { describe, expect, it } from 'vitest';
import { isTerminalJobStatus } from '../../../functions/shared/api-enums.js';
import { parseAgentJob, parseVisitorsPage } from '../../../functions/shared/schemas.js';
import { malformedMessage } from '../../helpers/errors.js';

function visitorsBody(overrides: Record<string, unknown> = {}) {
  return {
    totals: { human: 10, ai: 4, total: 12 },
    visitors: [
      { path: '/intro', human: 6, ai: 2, total: 7 },
      { path: '/api', human: 4, ai: 2, total: 5 },
    ],
    hasMore: false,
    ...overrides,
  };
}

function jobBody(overrides: Record<string, unknown> = {}) {
  return {
    id: 'job_1',
    status: 'completed',
    source: { repository: 'acme/docs', ref: 'main' },
    model: 'agent-1',
    prLink: 'https://github.com/acme/docs/pull/7',
    createdAt: '2026-01-15T10:00:00Z',
    archivedAt: null,
    ...overrides,
  };
}

describe('parseVisitorsPage', () => {
  it('accepts a documented page and returns its rows', () => {
    const page = parseVisitorsPage(visitorsBody());
    expect(page.totals).toEqual({ human: 10, ai: 4, total: 12 });
    expect(page.visitors.map((row) => row.path)).toEqual(['/intro', '/api']);
    expect(page.hasMore).toBe(false);
  });

  it('accepts a total that differs from human + ai, since the service deduplicates it', () => {
    const page = parseVisitorsPage(visitorsBody({ totals: { human: 5, ai: 5, total: 7 } }));
    expect(page.totals.total).toBe(7);
  });

  it('ignores extra fields', () => {
    const page = parseVisitorsPage(visitorsBody({ nextCursor: 'x' }));
    expect(page.hasMore).toBe(false);
  });

  it('refuses a negative count and names the field', () => {
    const body = visitorsBody();
    body.visitors[1] = { path: '/api', human: -1, ai: 0, total: 0 };
    expect(malformedMessage(() => parseVisitorsPage(body))).toContain('visitors[1].human');
  });

  it('refuses a number sent as a string', () => {
    const message = malformedMessage(() => parseVisitorsPage(visitorsBody({ totals: { human: '10', ai: 4, total: 12 } })));
    expect(message).toContain('totals.human');
    expect(message).toContain('integer');
  });

  it('refuses a fractional count', () => {
    expect(malformedMessage(() => parseVisitorsPage(visitorsBody({ totals: { human: 1.5, ai: 0, total: 1 } })))).toContain('totals.human');
  });

  it('refuses a page without hasMore', () => {
    const { hasMore: _omitted, ...body } = visitorsBody();
    expect(malformedMessage(() => parseVisitorsPage(body))).toContain('hasMore is missing');
  });

  it('refuses an empty path', () => {
    const body = visitorsBody();
    body.visitors[0] = { path: '', human: 1, ai: 0, total: 1 };
    expect(malformedMessage(() => parseVisitorsPage(body))).toContain('visitors[0].path');
  });

  it('passes what it shows of a wrong value through the redact hook before cutting it short', () => {
    const secret = 'mint_Zq8xTopSecretAdminKey0123456789';
    const message = malformedMessage(() =>
      parseVisitorsPage(visitorsBody({ hasMore: `${secret}${'x'.repeat(50)}` }), { redact: (text) => text.split(secret).join('[redacted]') }),
    );
    expect(message).toContain('(got "[redacted]xxx');
    expect(message).not.toContain('Zq8xTop');
  });

  it('shows no control character of a wrong value, C1 included', () => {
    const message = malformedMessage(() => parseVisitorsPage(visitorsBody({ hasMore: 'a\u009b31mb' })));
    expect(message).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
    expect(message).toContain('(got "a31mb")');
  });

  it('refuses an HTML page without echoing it', () => {
    const html = `<html><body>${'x'.repeat(5_000)}</body></html>`;
    const message = malformedMessage(() => parseVisitorsPage(html));
    expect(message).toContain('body');
    expect(message.length).toBeLessThan(300);
  });
});

describe('parseAgentJob', () => {
  it('accepts a documented job', () => {
    expect(parseAgentJob(jobBody())).toEqual(jobBody());
  });

  it('reads a missing prLink as null', () => {
    const { prLink: _omitted, ...body } = jobBody({ status: 'active' });
    expect(parseAgentJob(body).prLink).toBeNull();
  });

  it('keeps a status it does not know, as sent, and does not take it for terminal', () => {
    const job = parseAgentJob(jobBody({ status: 'queued' }));

    expect(job.status).toBe('queued');
    expect(isTerminalJobStatus(job.status)).toBe(false);
    expect(['completed', 'archived', 'failed'].every(isTerminalJobStatus)).toBe(true);
    expect(isTerminalJobStatus('active')).toBe(false);
  });

  it('refuses a status that is not a string and names the field', () => {
    expect(malformedMessage(() => parseAgentJob(jobBody({ status: 3 })))).toContain('status must be a string');
  });

  it('refuses a prLink that is neither a string nor null', () => {
    expect(malformedMessage(() => parseAgentJob(jobBody({ prLink: 42 })))).toContain('prLink');
  });

  it.each([
    ['http://github.com/acme/docs/pull/7', 'plain http'],
    ['javascript:alert(1)', 'another scheme'],
    ['github.com/acme/docs/pull/7', 'no scheme'],
    ['mint_Zq8xTopSecretAdminKey0123456789', 'any other string'],
    ['https://github.com/acme/docs/pull/7\u001b]8;;https://evil.example\u0007', 'an escape sequence'],
    ['https://user:pass@github.com/acme/docs/pull/7', 'credentials'],
    ['https://github.com/acme/docs/pull/7 extra', 'a space'],
  ])('refuses a prLink %j (%s)', (prLink) => {
    expect(malformedMessage(() => parseAgentJob(jobBody({ prLink })))).toContain('prLink must be an https:// URL');
  });

  it('refuses a job without an id', () => {
    const { id: _omitted, ...body } = jobBody();
    expect(malformedMessage(() => parseAgentJob(body))).toContain('id is missing');
  });

  it('drops optional descriptive fields of the wrong type instead of failing', () => {
    const job = parseAgentJob(jobBody({ model: 7, source: 'acme/docs', extra: true }));
    expect(job).not.toHaveProperty('model');
    expect(job).not.toHaveProperty('source');
    expect(job).not.toHaveProperty('extra');
    expect(job.status).toBe('completed');
  });
});
