import { describe, expect, it } from 'vitest';
import { scheduledTime } from '../../../functions/shared/scheduled-event.js';

describe('scheduledTime', () => {
  it("is the scheduled event's time, through the schema the export's event uses", () => {
    expect(scheduledTime({ 'detail-type': 'Scheduled Event', source: 'aws.events', time: '2026-11-23T06:00:00Z' }, () => 0)).toBe(
      Date.parse('2026-11-23T06:00:00Z'),
    );
  });

  it('is the clock for an invocation by hand (no time, or none that is one)', () => {
    expect(scheduledTime({ days: 90 }, () => 42)).toBe(42);
    expect(scheduledTime(undefined, () => 42)).toBe(42);
    expect(scheduledTime({ time: 'soon' }, () => 42)).toBe(42);
  });
});
