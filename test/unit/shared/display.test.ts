import { describe, expect, it } from 'vitest';
import { displayJson, displayText } from '../../../functions/shared/display.js';

describe('displayText', () => {
  it('writes bidi overrides, zero-width characters, C0 and C1 controls as visible escapes', () => {
    expect(displayText('gnp\u202E.exe a\u200Bb \u001b[31m \u0085 \u009b2J \u2028 \u2066x\u2069 \uFEFF')).toBe(
      'gnp\\u202E.exe a\\u200Bb \\u001B[31m \\u0085 \\u009B2J \\u2028 \\u2066x\\u2069 \\uFEFF',
    );
  });

  it('leaves accents, other scripts and emoji as they are', () => {
    expect(displayText('café 東京 שלום 👍🏽')).toBe('café 東京 שלום 👍🏽');
  });

  it('escapes a tag character (astral) and a lone surrogate', () => {
    expect(displayText('a\u{E0041}b\uD800c')).toBe('a\\uDB40\\uDC41b\\uD800c');
  });
});

describe('displayJson', () => {
  it('is JSON that reads back as the same value, with nothing raw that changes the display', () => {
    const value = { path: '/gnp\u202E.exe', note: 'a\u200Bb\u0085\u001b', n: 1 };

    const text = displayJson(value);

    expect(text).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u200b\u202e]/);
    expect(JSON.parse(text)).toEqual(value);
  });
});
