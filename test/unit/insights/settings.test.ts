/**
 * The insights' settings (ANOMALY_DROP, ANOMALY_RISE, INSIGHTS_TOPIC_ARN): defaults, and one line
 * naming the variable when a value is refused.
 */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../functions/settings/config.js';
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
