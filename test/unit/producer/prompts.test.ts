import { describe, expect, it } from 'vitest';
import { MAX_PROMPT_LENGTH, parseFollowUpMessage } from '../../../functions/follow-up/message.js';
import { checkPrompt, checkPrompts, InvalidPromptsError, promptLines } from '../../../functions/producer/prompts.js';
import { ConfigError } from '../../../functions/shared/errors.js';

const body = (value: unknown) => JSON.stringify(value);

describe('checkPrompt', () => {
  it("refuses exactly what the consumer refuses, with the consumer's reason", () => {
    const bad = [
      '{"jobId":',
      '[1]',
      body({ prompt: 'x' }),
      body({ jobId: 'job_1', prompt: ' \n' }),
      body({ jobId: 'job_1', prompt: 'x'.repeat(MAX_PROMPT_LENGTH + 1) }),
      body({ jobId: 'job/../1', prompt: 'x' }),
      body({ jobId: 'job_1', prompt: 'x', requestId: 'r'.repeat(129) }),
      body({ jobId: 'job_1', prompt: 'x' }),
    ];
    for (const raw of bad) {
      const consumer = parseFollowUpMessage(raw, { messageId: 'm', projectIds: ['a', 'b'] });
      const producer = checkPrompt(raw, 1, { projectIds: ['a', 'b'] });
      expect(consumer.ok, raw).toBe(false);
      expect(producer, raw).toEqual({ ok: false, reason: consumer.ok ? '' : consumer.reason });
    }
  });

  it('accepts a prompt of exactly the longest length and defaults projectId as the consumer does', () => {
    const result = checkPrompt({ jobId: 'job_1', prompt: 'x'.repeat(MAX_PROMPT_LENGTH), requestId: 'req-1' }, 4, { projectIds: ['proj_a'] });
    expect(result).toMatchObject({ ok: true, prompt: { projectId: 'proj_a', jobId: 'job_1', requestId: 'req-1', requestIdMade: false, line: 4 } });
  });

  it('makes a request id when there is none and writes every field into the body', () => {
    const result = checkPrompt(body({ projectId: 'proj_a', jobId: 'job_1', prompt: 'Add a FAQ' }), 2, { makeRequestId: (line) => `made-${line}` });
    expect(result).toEqual({
      ok: true,
      prompt: {
        requestId: 'made-2',
        projectId: 'proj_a',
        jobId: 'job_1',
        groupId: 'job_1',
        prompt: 'Add a FAQ',
        requestIdMade: true,
        line: 2,
        body: body({ projectId: 'proj_a', jobId: 'job_1', prompt: 'Add a FAQ', requestId: 'made-2' }),
      },
    });
  });

  it('takes a message without jobId as a new job, grouped by its request id, with its gapId in the body', () => {
    const result = checkPrompt(body({ projectId: 'proj_a', prompt: 'Document SSO', requestId: 'gap-1', gapId: 'gap_1' }), 1);
    expect(result).toEqual({
      ok: true,
      prompt: {
        requestId: 'gap-1',
        projectId: 'proj_a',
        gapId: 'gap_1',
        groupId: 'gap-1',
        prompt: 'Document SSO',
        requestIdMade: false,
        line: 1,
        body: body({ projectId: 'proj_a', prompt: 'Document SSO', requestId: 'gap-1', gapId: 'gap_1' }),
      },
    });
  });

  it('writes characters SQS refuses (U+FFFF) or emulators refuse (an emoji) as JSON escapes, which read back unchanged', () => {
    const prompt = 'Readers wrote "not working 😕" and \uffff';
    const result = checkPrompt(body({ projectId: 'proj_a', prompt, requestId: 'r-1' }), 1);

    const sent = result.ok ? result.prompt.body : '';
    expect(sent).toMatch(/^[\x09\x0a\x0d\x20-\ud7ff\ue000-\ufffd]*$/);
    expect(sent).toContain('\\ud83d\\ude15');
    expect(JSON.parse(sent).prompt).toBe(prompt);
  });

  it('refuses an unknown (most likely misspelt) field, naming it and the fields', () => {
    expect(checkPrompt(body({ projectId: 'p', jobId: 'j', prompt: 'x', requestID: 'r' }), 1)).toEqual({
      ok: false,
      reason: 'unknown field "requestID" (the fields are projectId, jobId, prompt, requestId, gapId, org)',
    });
  });
});

describe('checkPrompt with organisations', () => {
  const organisations = [
    { id: 'acme', projectIds: ['proj_a'] },
    { id: 'beta', projectIds: ['proj_b'] },
  ];

  it("writes each prompt's organisation (its project's, or the one it names) into its message", () => {
    const found = checkPrompt(body({ projectId: 'proj_b', jobId: 'j', prompt: 'x', requestId: 'r' }), 1, { organisations });
    expect(found.ok && JSON.parse(found.prompt.body)).toMatchObject({ org: 'beta', projectId: 'proj_b' });
    const named = checkPrompt(body({ org: 'acme', projectId: 'proj_a', jobId: 'j', prompt: 'x', requestId: 'r' }), 1, { organisations });
    expect(named.ok && JSON.parse(named.prompt.body).org).toBe('acme');
  });

  it('refuses a project of no organisation, one its named organisation does not hold, and org without organisations', () => {
    expect(checkPrompt(body({ projectId: 'proj_z', jobId: 'j', prompt: 'x', requestId: 'r' }), 1, { organisations })).toEqual({
      ok: false,
      reason: 'unknown_project: project "proj_z" is in no organisation (acme, beta): add it to its organisation\'s projectIds',
    });
    expect(checkPrompt(body({ org: 'acme', projectId: 'proj_b', jobId: 'j', prompt: 'x', requestId: 'r' }), 1, { organisations })).toEqual({
      ok: false,
      reason: 'unknown_project: project "proj_b" is not a project of organisation "acme"',
    });
    expect(checkPrompt(body({ org: 'acme', projectId: 'proj_a', jobId: 'j', prompt: 'x', requestId: 'r' }), 1)).toEqual({
      ok: false,
      reason: 'org names an organisation, but MINTLIFY_ORGS_FILE is not set: set it, or leave org out',
    });
  });
});

describe('checkPrompts', () => {
  it('refuses all of them when one is bad, naming every bad line and its reason', () => {
    const inputs = [
      { line: 1, input: body({ projectId: 'p', jobId: 'j', prompt: 'fine', requestId: 'a' }) },
      { line: 3, input: body({ projectId: 'p', jobId: 'j', prompt: '' }) },
      { line: 4, input: 'not json' },
    ];
    const error = (() => {
      try {
        checkPrompts(inputs, { what: 'prompts.jsonl' });
      } catch (thrown) {
        return thrown;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(InvalidPromptsError);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as InvalidPromptsError).message).toBe('prompts.jsonl refused, nothing was sent: line 3: prompt is empty; line 4: body is not JSON');
    expect((error as InvalidPromptsError).problems).toEqual([
      { line: 3, reason: 'prompt is empty' },
      { line: 4, reason: 'body is not JSON' },
    ]);
  });

  it('refuses a request id used on two lines', () => {
    const inputs = [1, 2].map((line) => ({ line, input: body({ projectId: 'p', jobId: `j${line}`, prompt: 'x', requestId: 'same' }) }));
    expect(() => checkPrompts(inputs)).toThrow('line 2: requestId "same" is also used on line 1');
  });

  it('refuses an input without any prompt', () => {
    expect(() => checkPrompts([], { what: 'stdin' })).toThrow(/^stdin has no prompt/);
  });
});

describe('promptLines', () => {
  it('numbers lines as an editor does, skipping blank ones, and makes the same ids for the same text only', () => {
    const text = `${body({ jobId: 'j', prompt: 'a' })}\r\n\n  \n${body({ jobId: 'j', prompt: 'b' })}\n`;
    const first = promptLines(text);
    expect(first.inputs.map((i) => i.line)).toEqual([1, 4]);
    expect(first.makeRequestId(4)).toBe(promptLines(text).makeRequestId(4));
    expect(first.makeRequestId(4)).not.toBe(first.makeRequestId(1));
    expect(first.makeRequestId(4)).not.toBe(promptLines(`${text}\n${body({ jobId: 'j', prompt: 'c' })}`).makeRequestId(4));
    expect(first.makeRequestId(4)).toMatch(/^[A-Za-z0-9_-]{1,128}$/);
  });
});
