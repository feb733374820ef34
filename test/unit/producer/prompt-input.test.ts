/**
 * What a prompt file may hold (issue 28): UTF-8 with or without a byte order mark, and only
 * characters SQS accepts — checked before anything is sent, so a file stays all or nothing.
 */
import { describe, expect, it } from 'vitest';
import { checkPrompt, checkPrompts, decodePromptFile, InvalidPromptsError, promptLines } from '../../../functions/producer/prompts.js';

const line = (prompt: string, requestId = 'r-1') => JSON.stringify({ projectId: 'proj_1', jobId: 'job_1', prompt, requestId });
const bytes = (...parts: (string | number[])[]) =>
  Buffer.concat(parts.map((part) => (typeof part === 'string' ? Buffer.from(part, 'utf8') : Buffer.from(part))));

describe('decodePromptFile', () => {
  it('reads UTF-8 and leaves a leading byte order mark out', () => {
    expect(decodePromptFile(bytes([0xef, 0xbb, 0xbf], `${line('Café ✓')}\n`), 'f.jsonl')).toBe(`${line('Café ✓')}\n`);
  });

  it('refuses invalid UTF-8 naming its line, instead of sending U+FFFD', () => {
    const file = bytes(`${line('one', 'r-1')}\n\n${line('two', 'r-2')}\n`, '{"prompt":"bad ', [0xc3, 0x28], '"}\n');

    const refuse = () => decodePromptFile(file, 'f.jsonl');

    expect(refuse).toThrow(InvalidPromptsError);
    expect(refuse).toThrow('f.jsonl refused, nothing was sent: line 4: is not valid UTF-8: save the file as UTF-8');
  });

  it('refuses a lone continuation byte and a truncated sequence at the end', () => {
    expect(() => decodePromptFile(bytes([0x80]), 'f')).toThrow('line 1: is not valid UTF-8');
    expect(() => decodePromptFile(bytes(`${line('a')}\n`, [0xe2, 0x82]), 'f')).toThrow('line 2: is not valid UTF-8');
  });
});

describe('characters SQS refuses', () => {
  it.each(['\uFFFE', '\uFFFF', '\\uFFFF'])('sends a prompt holding %j as a JSON escape SQS accepts, which reads back unchanged', (text) => {
    const result = checkPrompt(`{"projectId":"proj_1","jobId":"job_1","prompt":"a${text}b","requestId":"r-1"}`, 3);

    expect(result.ok).toBe(true);
    const body = result.ok ? result.prompt.body : '';
    expect(body).toMatch(/^[\x09\x0a\x0d\x20-\ud7ff\ue000-\ufffd]*$/);
    expect(JSON.parse(body).prompt).toMatch(/^a[\uFFFE\uFFFF]b$/);
  });

  it('accepts control characters and lone surrogates, which the JSON body escapes, and astral characters', () => {
    const result = checkPrompt(line('tab\t bell\u0007 \uD800 😀 \uFFFD'), 1);

    expect(result.ok).toBe(true);
  });

  it('accepts the whole file when one line holds one: nothing in it is left for SQS to refuse', () => {
    const { inputs, makeRequestId } = promptLines([line('fine', 'r-1'), line('odd \uFFFF', 'r-2')].join('\n'));

    expect(checkPrompts(inputs, { makeRequestId, what: 'f.jsonl' })).toHaveLength(2);
  });
});
