import { describe, expect, it } from 'vitest';
import { parseExportEvent } from '../../../functions/export/event.js';
import { ConfigError } from '../../../functions/shared/errors.js';

const NOW = Date.parse('2026-11-23T10:00:00Z');

describe('parseExportEvent', () => {
  it('reads a scheduled event as a nightly run at the event time', () => {
    const event = { 'detail-type': 'Scheduled Event', source: 'aws.events', time: '2026-11-23T02:30:00Z', detail: {} };
    expect(parseExportEvent(event, NOW)).toEqual({ kind: 'nightly', time: '2026-11-23T02:30:00Z' });
  });

  it('reads {date} as that one day', () => {
    expect(parseExportEvent({ date: '2026-02-28' }, NOW)).toEqual({ kind: 'days', days: ['2026-02-28'] });
  });

  it('reads {from,to} as every day of the half-open range, with the projects given', () => {
    expect(parseExportEvent({ from: '2026-02-27', to: '2026-03-01', projects: ['proj_a'] }, NOW)).toEqual({
      kind: 'days',
      days: ['2026-02-27', '2026-02-28'],
      projects: ['proj_a'],
    });
  });

  it('treats an empty manual invoke as tonight’s nightly run', () => {
    expect(parseExportEvent({}, NOW)).toEqual({ kind: 'nightly', time: '2026-11-23T10:00:00.000Z' });
  });

  it('refuses an unknown field with a message showing the accepted shapes', () => {
    expect(() => parseExportEvent({ day: '2026-01-01' }, NOW)).toThrow(/send \{"date":"YYYY-MM-DD"\}/);
  });

  it('refuses date together with from/to', () => {
    expect(() => parseExportEvent({ date: '2026-01-01', from: '2026-01-01', to: '2026-01-02' }, NOW)).toThrow(ConfigError);
  });

  it('refuses an impossible date', () => {
    expect(() => parseExportEvent({ date: '2026-02-30' }, NOW)).toThrow(/does not exist/);
  });

  it('refuses a day that is not over yet (UTC), today included', () => {
    expect(() => parseExportEvent({ date: '2026-11-23' }, NOW)).toThrow(/date 2026-11-23 is not over yet \(UTC\).*the latest is 2026-11-22/);
    expect(() => parseExportEvent({ from: '2026-11-20', to: '2026-11-25' }, NOW)).toThrow(/day 2026-11-23 is not over yet/);
    expect(parseExportEvent({ from: '2026-11-20', to: '2026-11-23' }, NOW)).toEqual({ kind: 'days', days: ['2026-11-20', '2026-11-21', '2026-11-22'] });
  });

  it('refuses a malformed project id', () => {
    expect(() => parseExportEvent({ projects: ['../etc'] }, NOW)).toThrow(ConfigError);
  });
});
