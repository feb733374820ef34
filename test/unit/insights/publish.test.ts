/** What an insight message must be for SNS: a subject of printable ASCII on one line, under 100 characters. */
import { describe, expect, it } from 'vitest';
import { subjectOf } from '../../../functions/insights/publish.js';

describe('messages', () => {
  it('keeps a subject under 100 printable ASCII characters on one line', () => {
    expect(subjectOf('proj: views fell — by 90 %')).toBe('proj: views fell - by 90 %');
    const long = subjectOf(`x${'é'.repeat(10)}\n${'y'.repeat(200)}`);
    expect(long.length).toBeLessThan(100);
    expect(long).toMatch(/^[\x20-\x7e]+$/);
  });
});
