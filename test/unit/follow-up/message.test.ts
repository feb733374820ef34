import { describe, expect, it } from 'vitest';
import { MAX_PROMPT_LENGTH, fingerprintPrompt, messageGroupOf, parseFollowUpMessage } from '../../../functions/follow-up/message.js';

const ctx = { messageId: 'msg-1', projectIds: ['proj_a'] };
const body = (value: unknown) => JSON.stringify(value);

describe('parseFollowUpMessage', () => {
  it('accepts a full message and keeps the caller requestId', () => {
    const result = parseFollowUpMessage(body({ projectId: 'proj_b', jobId: 'job_1', prompt: 'fix it', requestId: 'req-9' }), ctx);
    expect(result).toEqual({ ok: true, message: { kind: 'follow_up', projectId: 'proj_b', jobId: 'job_1', prompt: 'fix it', requestId: 'req-9' } });
  });

  it('defaults requestId to the SQS message id and projectId to the only configured project', () => {
    const result = parseFollowUpMessage(body({ jobId: 'job_1', prompt: 'x' }), ctx);
    expect(result).toEqual({ ok: true, message: { kind: 'follow_up', projectId: 'proj_a', jobId: 'job_1', prompt: 'x', requestId: 'msg-1' } });
  });

  it('reads a message without jobId as a new job, and keeps its gapId', () => {
    const result = parseFollowUpMessage(body({ projectId: 'proj_b', prompt: 'Document SSO', requestId: 'gap-1', gapId: 'gap_0123abcd' }), ctx);
    expect(result).toEqual({ ok: true, message: { kind: 'create', projectId: 'proj_b', prompt: 'Document SSO', requestId: 'gap-1', gapId: 'gap_0123abcd' } });
  });

  it('groups a follow-up by its job and a new job by its own request id', () => {
    expect(messageGroupOf({ jobId: 'job_1', requestId: 'req-1' })).toBe('job_1');
    expect(messageGroupOf({ requestId: 'req-2' })).toBe('req-2');
  });

  it('refuses a missing projectId when several projects are configured', () => {
    const result = parseFollowUpMessage(body({ jobId: 'job_1', prompt: 'x' }), { messageId: 'm', projectIds: ['a', 'b'] });
    expect(result).toMatchObject({ ok: false, reason: expect.stringContaining('more than one project') });
  });

  it('refuses a missing projectId when no project is configured', () => {
    const result = parseFollowUpMessage(body({ jobId: 'job_1', prompt: 'x' }), { messageId: 'm', projectIds: [] });
    expect(result).toMatchObject({ ok: false, reason: expect.stringContaining('MINTLIFY_PROJECT_IDS is not set') });
  });

  it.each([
    ['not JSON', '{"jobId":', 'body is not JSON'],
    ['a JSON array', '[1]', 'not a JSON object'],
    ['a gapId with a space', body({ prompt: 'x', gapId: 'gap 1' }), 'gapId must match'],
    ['an empty prompt', body({ jobId: 'job_1', prompt: '' }), 'prompt is empty'],
    ['a blank prompt', body({ jobId: 'job_1', prompt: '  \n' }), 'prompt is empty'],
    ['a prompt over the limit', body({ jobId: 'job_1', prompt: 'x'.repeat(MAX_PROMPT_LENGTH + 1) }), 'longer than'],
    ['a job id with a slash', body({ jobId: 'job/../1', prompt: 'x' }), 'jobId must match'],
    ['a numeric prompt', body({ jobId: 'job_1', prompt: 5 }), 'prompt must be a string'],
    ['a too long requestId', body({ jobId: 'job_1', prompt: 'x', requestId: 'r'.repeat(129) }), 'requestId must match'],
  ])('refuses %s with a reason', (_name, raw, reason) => {
    const result = parseFollowUpMessage(raw, ctx);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toContain(reason);
  });

  it('never puts the prompt text in a reason', () => {
    const secret = 'SECRET-PROMPT-TEXT';
    const result = parseFollowUpMessage(body({ jobId: 'bad id!', prompt: secret }), ctx);
    expect(JSON.stringify(result)).not.toContain(secret);
  });

  it('keeps the valid requestId of an invalid message for the dead-letter attributes', () => {
    const result = parseFollowUpMessage(body({ jobId: 'job_1', prompt: '', requestId: 'req-7' }), ctx);
    expect(result).toMatchObject({ ok: false, requestId: 'req-7', jobId: 'job_1' });
  });
});

describe('fingerprintPrompt', () => {
  it('gives the length and the SHA-256 hex of the prompt', () => {
    expect(fingerprintPrompt('abc')).toEqual({
      length: 3,
      sha256: 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    });
  });
});
