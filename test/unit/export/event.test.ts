import { describe, expect, it } from 'vitest';
import { FLAG_NAMES, parseExportEvent, requestedDays } from '../../../functions/export/event.js';
import { ConfigError } from '../../../functions/shared/errors.js';
import { configErrorOf } from '../../helpers/errors.js';

const NOW = Date.parse('2026-11-23T10:00:00Z');

/** The ConfigError `fn` throws (the test fails when it throws anything else or nothing). */
describe('parseExportEvent', () => {
  it('reads a scheduled event as the hourly run at the event time', () => {
    const event = { 'detail-type': 'Scheduled Event', source: 'aws.events', time: '2026-11-23T02:30:00Z', detail: {} };

    expect(parseExportEvent(event, NOW)).toEqual({ kind: 'scheduled', time: Date.parse('2026-11-23T02:30:00Z') });
  });

  it('reads {date} as that one day, exported again even when complete and kept as backlog until done', () => {
    expect(parseExportEvent({ date: '2026-02-28' }, NOW)).toEqual({ kind: 'days', days: ['2026-02-28'], force: true, backlog: true });
  });

  it('reads {from,to} as every day of the half-open range, with the projects given', () => {
    expect(parseExportEvent({ from: '2026-02-27', to: '2026-03-01', projects: ['proj_a'] }, NOW)).toEqual({
      kind: 'days',
      days: ['2026-02-27', '2026-02-28'],
      projects: ['proj_a'],
      force: true,
      backlog: true,
    });
  });

  it('reads {datasets} as the datasets to export', () => {
    expect(parseExportEvent({ date: '2026-02-28', datasets: ['visitors', 'feedback'] }, NOW)).toMatchObject({
      kind: 'days',
      datasets: ['visitors', 'feedback'],
    });
  });

  it('treats an empty manual invoke as this hour’s scheduled run, marked manual for the run log', () => {
    expect(parseExportEvent({}, NOW)).toEqual({ kind: 'scheduled', time: NOW, manual: true });
  });

  it('keeps the projects and datasets of a manual invoke without days on the scheduled run', () => {
    expect(parseExportEvent({ projects: ['proj_a'], datasets: ['views'] }, NOW)).toEqual({
      kind: 'scheduled',
      time: NOW,
      manual: true,
      projects: ['proj_a'],
      datasets: ['views'],
    });
  });

  it('refuses an unknown field with a message showing the accepted shapes', () => {
    expect(() => parseExportEvent({ day: '2026-01-01' }, NOW)).toThrow(/send \{"date":"YYYY-MM-DD"\}/);
  });

  it('refuses an unknown dataset with a message listing the datasets', () => {
    const error = configErrorOf(() => parseExportEvent({ date: '2026-01-01', datasets: ['visits'] }, NOW));

    expect(error.message).toContain('"caller_stats"');
  });

  it('refuses date together with from/to', () => {
    const error = configErrorOf(() => parseExportEvent({ date: '2026-01-01', from: '2026-01-01', to: '2026-01-02' }, NOW));

    expect(error.message).toContain('either "date" or "from"/"to"');
  });

  it('refuses an impossible date', () => {
    expect(() => parseExportEvent({ date: '2026-02-30' }, NOW)).toThrow(/does not exist/);
  });

  it('refuses an empty range, naming the event fields rather than CLI flags', () => {
    const error = configErrorOf(() => parseExportEvent({ from: '2026-01-01', to: '2026-01-01' }, NOW));

    expect(error.message).toMatch(/"from" 2026-01-01 "to" 2026-01-01 is empty: "to" is exclusive/);
    expect(error.message).not.toContain('--');
  });

  it('refuses a reversed range', () => {
    const error = configErrorOf(() => parseExportEvent({ from: '2026-01-05', to: '2026-01-01' }, NOW));

    expect(error.message).toMatch(/"from" 2026-01-05 is after "to" 2026-01-01/);
  });

  it('refuses a day that is not over yet (UTC), today included', () => {
    expect(() => parseExportEvent({ date: '2026-11-23' }, NOW)).toThrow(/"date" 2026-11-23 is not over yet \(UTC\).*the latest is 2026-11-22/);
    expect(() => parseExportEvent({ from: '2026-11-20', to: '2026-11-25' }, NOW)).toThrow(/day 2026-11-23 is not over yet/);
    expect(parseExportEvent({ from: '2026-11-20', to: '2026-11-23' }, NOW)).toMatchObject({ kind: 'days', days: ['2026-11-20', '2026-11-21', '2026-11-22'] });
  });

  it('refuses a malformed project id', () => {
    expect(() => parseExportEvent({ projects: ['../etc'] }, NOW)).toThrow(ConfigError);
  });

  it('refuses a scheduled event whose time is not a timestamp', () => {
    expect(() => parseExportEvent({ time: 'last night' }, NOW)).toThrow(/invalid "time"/);
  });
});

describe('requestedDays with CLI flags', () => {
  it('names the flags in an empty range', () => {
    const error = configErrorOf(() => requestedDays({ from: '2026-01-01', to: '2026-01-01' }, NOW, FLAG_NAMES));

    expect(error.message).toMatch(/^--from 2026-01-01 --to 2026-01-01 is empty/);
  });

  it('is undefined when no day is given', () => {
    expect(requestedDays({}, NOW, FLAG_NAMES)).toBeUndefined();
  });
});
