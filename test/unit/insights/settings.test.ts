/**
 * The insights' settings (ANOMALY_DROP, ANOMALY_RISE, INSIGHTS_TOPIC_ARN: one line naming the
 * variable) and the pure parts of a message: the subject SNS accepts, the median, the weekdays
 * compared.
 */
import { describe, expect, it } from 'vitest';
import { comparedDays, median } from '../../../functions/insights/anomalies.js';
import { periodCovering } from '../../../functions/insights/figures.js';
import { subjectOf } from '../../../functions/insights/publish.js';
import { isStale } from '../../../functions/insights/stale.js';
import { loadConfig } from '../../../functions/shared/config.js';
import { ConfigError } from '../../../functions/shared/errors.js';

describe('settings', () => {
  it('defaults to a drop below 0.5× and a rise above 3×, and reads both', () => {
    expect(loadConfig({})).toMatchObject({ anomalyDrop: 0.5, anomalyRise: 3 });
    expect(loadConfig({ ANOMALY_DROP: '0.2', ANOMALY_RISE: '10' })).toMatchObject({ anomalyDrop: 0.2, anomalyRise: 10 });
  });

  it.each([
    ['ANOMALY_DROP', '1', /^ANOMALY_DROP must be/],
    ['ANOMALY_DROP', 'half', /^ANOMALY_DROP must be a number/],
    ['ANOMALY_RISE', '1', /^ANOMALY_RISE must be above 1/],
    ['ANOMALY_RISE', '-2', /^ANOMALY_RISE must be a number/],
    ['INSIGHTS_TOPIC_ARN', 'my-topic', /^INSIGHTS_TOPIC_ARN is not an SNS topic ARN: .*InsightsTopicArn/],
  ])('%s=%s is refused in one line naming it', (name, value, message) => {
    let error: unknown;
    try {
      loadConfig({ [name]: value });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).not.toContain('\n');
  });
});

describe('messages', () => {
  it('keeps a subject under 100 printable ASCII characters on one line', () => {
    expect(subjectOf('proj: views fell — by 90 %')).toBe('proj: views fell - by 90 %');
    const long = subjectOf(`x${'é'.repeat(10)}\n${'y'.repeat(200)}`);
    expect(long.length).toBeLessThan(100);
    expect(long).toMatch(/^[\x20-\x7e]+$/);
  });

  it('compares a day with the same weekday of the 4 weeks before, by their median', () => {
    expect(comparedDays('2026-11-17')).toEqual(['2026-10-20', '2026-10-27', '2026-11-03', '2026-11-10']);
    expect(median([3, 1, 2])).toBe(2);
    expect(median([480, 520, 500, 510])).toBe(505);
  });

  it("loads the report's two periods so that they cover the days read", () => {
    const period = periodCovering('2026-10-20', '2026-11-17');
    expect(period.to).toBe('2026-11-18');
    expect(Date.parse(period.from) - period.days.length * 86_400_000).toBeLessThanOrEqual(Date.parse('2026-10-20'));
  });

  it('calls a dataset stale once its newest day ended more than settle hours + 24 h ago', () => {
    const tuesday = '2026-11-17';
    expect(isStale(tuesday, Date.parse('2026-11-19T02:00:00Z'), 2)).toBe(false);
    expect(isStale(tuesday, Date.parse('2026-11-19T02:00:01Z'), 2)).toBe(true);
    expect(isStale(undefined, 0, 2)).toBe(true);
  });
});
