import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../functions/settings/config.js';
import { FOLLOW_UP_DEFAULTS, failureBackoff, resolveSettings, settingsFromConfig } from '../../../functions/follow-up/settings.js';

describe('follow-up settings', () => {
  it('fills every setting left out with its default', () => {
    const settings = resolveSettings({ projectIds: ['proj_a'] });

    expect(settings).toEqual({ ...FOLLOW_UP_DEFAULTS, projectIds: ['proj_a'] });
  });

  it('keeps a setting given explicitly', () => {
    const settings = resolveSettings({ projectIds: [], leaseMs: 5_000 });

    expect(settings).toEqual({ ...FOLLOW_UP_DEFAULTS, projectIds: [], leaseMs: 5_000 });
  });

  it.each([
    [{ leaseMs: 0 }, /leaseMs must be a number ≥ 1 \(got 0\)/],
    [{ maxFailures: 2.5 }, /maxFailures must be a whole number ≥ 1/],
    [{ pollBudgetMs: Number.NaN }, /pollBudgetMs/],
    [{ failureBackoffMs: 60_000, failureBackoffCapMs: 1_000 }, /failureBackoffCapMs must be a number ≥ 60000/],
    [{ schedule: { ...FOLLOW_UP_DEFAULTS.schedule, jitter: 1 } }, /schedule\.jitter must be in \[0, 1\)/],
  ])('refuses %o with a message that names the setting', (bad, message) => {
    expect(() => resolveSettings({ projectIds: [], ...bad })).toThrow(message);
  });

  it('returns settings already resolved as they are', () => {
    const settings = resolveSettings({ projectIds: [] });

    expect(resolveSettings(settings)).toBe(settings);
  });

  it('doubles the failure backoff from 10 s up to 15 min', () => {
    const settings = resolveSettings({ projectIds: [] });

    expect([1, 2, 3, 7, 8, 9, 30].map((n) => failureBackoff(n, settings))).toEqual([10_000, 20_000, 40_000, 640_000, 900_000, 900_000, 900_000]);
  });

  it('takes the defer bound from FOLLOWUP_MAX_DEFER_MINUTES', () => {
    const settings = resolveSettings(settingsFromConfig(loadConfig({ FOLLOWUP_MAX_DEFER_MINUTES: '5' })));

    expect(settings.maxDeferMs).toBe(300_000);
  });

  it("keeps the default defer bound of 2 h, longer than the API's rate-limit hour, when FOLLOWUP_MAX_DEFER_MINUTES is unset", () => {
    const settings = resolveSettings(settingsFromConfig(loadConfig({})));

    expect(settings.maxDeferMs).toBe(120 * 60_000);
  });

  it('refuses a FOLLOWUP_MAX_DEFER_MINUTES that is not a whole number of minutes', () => {
    expect(() => loadConfig({ FOLLOWUP_MAX_DEFER_MINUTES: '0.5' })).toThrow(/FOLLOWUP_MAX_DEFER_MINUTES must be a whole number/);
  });

  it('polls a job no sooner than FOLLOWUP_POLL_MIN_SECONDS (default 5 s), the rest of the schedule unchanged', () => {
    const fast = resolveSettings(settingsFromConfig(loadConfig({ FOLLOWUP_POLL_MIN_SECONDS: '0.2' })));
    const usual = resolveSettings(settingsFromConfig(loadConfig({})));

    expect(fast.schedule).toEqual({ ...usual.schedule, minIntervalMs: 200 });
    expect(usual.schedule.minIntervalMs).toBe(5_000);
    expect(() => loadConfig({ FOLLOWUP_POLL_MIN_SECONDS: '0' })).toThrow(/FOLLOWUP_POLL_MIN_SECONDS must be a number above 0/);
  });
});
