import { describe, expect, it } from 'vitest';
import { formatDuration, type DurationStyle } from '../../../functions/shared/durations.js';

describe('formatDuration', () => {
  it.each<[DurationStyle, number, string]>([
    ['precise', 12_000, '12 s'],
    ['precise', 200_000, '3 min 20 s'],
    ['precise', 3_900_000, '1 h 05 min'],
    ['precise', 1, '1 s'],
    ['retry', 250, '0.3 s'],
    ['retry', 12_000, '12 s'],
    ['retry', 300_000, '5 min'],
    ['coarse', 1_000, '1 min'],
    ['coarse', 360_000, '6 min'],
    ['coarse', 5_400_000, '1.5 h'],
    ['coarse', 86_400_000, '24 h'],
    ['clock', 754_000, '12:34'],
    ['clock', 3_723_000, '1:02:03'],
    ['window', 3_600_000, '1h'],
    ['window', 1_800_000, '30m'],
    ['window', 20_000, '20s'],
    ['window', 86_400_000, '1d'],
  ])('writes %s %d ms as "%s"', (style, ms, text) => {
    expect(formatDuration(ms, style)).toBe(text);
  });

  it.each<DurationStyle>(['precise', 'retry', 'coarse', 'clock'])('writes a huge %s duration in days, bounded, never in exponent notation', (style) => {
    expect(formatDuration(3 * 86_400_000 + 4 * 3_600_000, style)).toBe('3 d 04 h');
    expect(formatDuration(1e26, style)).toBe('over 999 days');
    expect(formatDuration(Number.POSITIVE_INFINITY, style)).toBe('over 999 days');
    expect(formatDuration(Number.MAX_SAFE_INTEGER, style)).not.toMatch(/e\+/);
  });

  it('writes a negative or NaN duration as none', () => {
    expect(formatDuration(-5_000)).toBe('0 s');
    expect(formatDuration(Number.NaN)).toBe('0 s');
  });

  it('is precise by default', () => {
    expect(formatDuration(200_000)).toBe('3 min 20 s');
  });
});
