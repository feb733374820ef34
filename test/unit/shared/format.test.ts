import { describe, expect, it } from 'vitest';
import { formatChange, formatCount, formatShare, percent, plural, signed } from '../../../functions/shared/format.js';

describe('formatCount', () => {
  it('groups thousands the en-US way and keeps up to three decimals', () => {
    expect([formatCount(0), formatCount(1234567), formatCount(-1234), formatCount(2.5), formatCount(1.23456)]).toEqual([
      '0',
      '1,234,567',
      '-1,234',
      '2.5',
      '1.235',
    ]);
  });

  it('rounds to one decimal when asked (a median of two days)', () => {
    expect([formatCount(12345, { oneDecimal: true }), formatCount(2.25, { oneDecimal: true }), formatCount(1.04, { oneDecimal: true })]).toEqual([
      '12,345',
      '2.3',
      '1',
    ]);
  });
});

describe('formatShare and percent', () => {
  it('writes a share with one decimal, and a dash when there is nothing to divide', () => {
    expect([formatShare(0.1234), formatShare(0), formatShare(1), formatShare(null)]).toEqual(['12.3 %', '0.0 %', '100.0 %', '—']);
  });

  it('writes a part of a whole in whole percent, 0 % of nothing', () => {
    expect([percent(1, 3), percent(2, 3), percent(5, 0), percent(50, 505)]).toEqual(['33 %', '67 %', '0 %', '10 %']);
  });
});

describe('signed and formatChange', () => {
  it('signs a change with the page minus (U+2212) by default, ASCII on request, ±0 for none', () => {
    expect([signed(3, '3'), signed(-3, '-3'), signed(-3, '3'), signed(0, '0'), signed(-1.5, '1.5 %', '-')]).toEqual(['+3', '−3', '−3', '±0', '-1.5 %']);
  });

  it('writes the relative change in whole percent, new from 0', () => {
    expect([formatChange(120, 100), formatChange(50, 100), formatChange(100, 100), formatChange(1001, 1000), formatChange(5, 0), formatChange(0, 0)]).toEqual([
      '+20 %',
      '−50 %',
      '0 %',
      '0 %',
      'new',
      '0 %',
    ]);
    expect(formatChange(50, 100, '-')).toBe('-50 %');
  });
});

describe('plural', () => {
  it('writes the number as is with the word for one or many', () => {
    expect([plural(1, 'question'), plural(3, 'question'), plural(2, 'search', 'searches'), plural(1200, 'day')]).toEqual([
      '1 question',
      '3 questions',
      '2 searches',
      '1200 days',
    ]);
  });
});
