/**
 * The one period of completed jobs (functions/cli/completed-period.ts) that `effects` and `scope`
 * read: `--days N` today included, `--from`/`--to` with `--to` exclusive and today allowed, and a
 * wrong pair refused naming the flags — the same for both commands, from the same options.
 */
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { addCompletedPeriodOptions, completedPeriod } from '../../../functions/cli/completed-period.js';

const NOW = Date.parse('2026-11-20T15:00:00Z');

describe('the period of completed jobs', () => {
  it('is the last N days, today included, with --days', () => {
    expect(completedPeriod({ days: 7 }, NOW)).toEqual({ from: '2026-11-14', to: '2026-11-21' });
    expect(completedPeriod({ days: 1 }, NOW)).toEqual({ from: '2026-11-20', to: '2026-11-21' });
  });

  it('is every completed job without a flag', () => {
    expect(completedPeriod({}, NOW)).toBeUndefined();
  });

  it('is [from, to) with --from and --to, today allowed', () => {
    expect(completedPeriod({ from: '2026-11-01', to: '2026-11-21' }, NOW)).toEqual({ from: '2026-11-01', to: '2026-11-21' });
  });

  it('refuses half a pair, a reversed or empty one and a day that is not one, naming the flags', () => {
    expect(() => completedPeriod({ from: '2026-11-01' }, NOW)).toThrow(/--from and --to go together/);
    expect(() => completedPeriod({ from: '2026-11-05', to: '2026-11-01' }, NOW)).toThrow(/--from 2026-11-05 is after --to 2026-11-01: swap them/);
    expect(() => completedPeriod({ from: '2026-11-05', to: '2026-11-05' }, NOW)).toThrow(/is empty: --to is exclusive/);
    expect(() => completedPeriod({ from: '2026-02-30', to: '2026-03-05' }, NOW)).toThrow(/--from/);
  });

  it('gives a command --days, --from and --to, --days excluding the other two', () => {
    const command = addCompletedPeriodOptions(new Command('effects').exitOverride().configureOutput({ writeErr: () => undefined }));

    expect(command.options.map((option) => option.long)).toEqual(['--days', '--from', '--to']);
    expect(command.parse(['--days', '3'], { from: 'user' }).opts()).toEqual({ days: 3 });
    expect(() =>
      addCompletedPeriodOptions(new Command('scope').exitOverride().configureOutput({ writeErr: () => undefined })).parse(
        ['--days', '3', '--from', '2026-11-01'],
        { from: 'user' },
      ),
    ).toThrow(/cannot be used with/);
    expect(() =>
      addCompletedPeriodOptions(new Command('scope').exitOverride().configureOutput({ writeErr: () => undefined })).parse(['--days', '0'], { from: 'user' }),
    ).toThrow(/whole number of days from 1 to 3660/);
  });
});
