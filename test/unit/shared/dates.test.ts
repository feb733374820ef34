import { describe, expect, it } from 'vitest';
import { addDays, daysBetween, dayWindow, parseDay, previousDay } from '../../../functions/shared/dates.js';
import { ConfigError } from '../../../functions/shared/errors.js';

describe('day windows', () => {
  it('ends a window at the next day, exclusive, across a month end', () => {
    expect(dayWindow('2026-01-31')).toEqual({ from: '2026-01-31', to: '2026-02-01' });
  });

  it('ends a window at the next day across a year end', () => {
    expect(dayWindow('2025-12-31')).toEqual({ from: '2025-12-31', to: '2026-01-01' });
  });

  it('knows the leap day exists in 2028 and is followed by March 1st', () => {
    expect(dayWindow('2028-02-29')).toEqual({ from: '2028-02-29', to: '2028-03-01' });
    expect(addDays('2028-02-28', 1)).toBe('2028-02-29');
  });

  it('skips from February 28th to March 1st in a common year', () => {
    expect(addDays('2026-02-28', 1)).toBe('2026-03-01');
  });
});

describe('the event-time rule', () => {
  it('exports the day before the schedule event time', () => {
    expect(previousDay('2026-03-01T02:30:00Z')).toBe('2026-02-28');
  });

  it('keeps the same day for a retry that runs after the next midnight with the same event time', () => {
    // The platform retries with the original event, so its `time` — not the clock — decides.
    expect(previousDay('2026-11-23T23:59:59Z')).toBe('2026-11-22');
  });

  it('uses UTC, not the local offset of the timestamp', () => {
    expect(previousDay('2026-01-01T01:00:00+02:00')).toBe('2025-12-30');
  });

  it('refuses a time that is not a timestamp', () => {
    expect(() => previousDay('yesterday')).toThrow(ConfigError);
  });
});

describe('parsing days', () => {
  it('refuses an impossible date like 2026-02-30', () => {
    expect(() => parseDay('2026-02-30', '--date')).toThrow(/--date "2026-02-30" does not exist/);
  });

  it('refuses February 29th in a common year', () => {
    expect(() => parseDay('2026-02-29')).toThrow(ConfigError);
  });

  it('refuses other formats with an example of the right one', () => {
    expect(() => parseDay('31/01/2026')).toThrow(/use YYYY-MM-DD/);
  });

  it('lists every day of a half-open range', () => {
    expect(daysBetween('2028-02-27', '2028-03-02')).toEqual(['2028-02-27', '2028-02-28', '2028-02-29', '2028-03-01']);
  });

  it('gives no day for an empty range', () => {
    expect(daysBetween('2026-01-01', '2026-01-01')).toEqual([]);
  });

  it('refuses --from after --to', () => {
    expect(() => daysBetween('2026-01-05', '2026-01-01')).toThrow(/--from 2026-01-05 is after --to 2026-01-01/);
  });
});

describe('parseDay names the part of a date that is wrong', () => {
  it.each([
    ['2026-13-01', /month 13 does not exist: use 01 to 12/],
    ['2026-00-10', /month 00 does not exist: use 01 to 12/],
    ['2026-02-30', /February 2026 has 28 days: check the day of the month/],
    ['2026-04-31', /April 2026 has 30 days: check the day of the month/],
    ['2026-01-00', /day 00 does not exist: days start at 01/],
  ])('%s', (value, message) => {
    expect(() => parseDay(value, '--date')).toThrow(message);
  });
});
