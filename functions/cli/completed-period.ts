/**
 * The period of completed jobs that `effects` and `scope` read, one way for both: `--days N` (the
 * last N days, today included), or `--from D1 --to D2` (the days jobs completed, `--to`
 * exclusive, today allowed), or neither (every completed job). A flag given wrong is a
 * ConfigError (exit 2) naming it, before any work.
 */
import { Option, type Command } from 'commander';
import { addDays, formatDay, parseDay } from '../shared/dates.js';
import { ConfigError } from '../shared/errors.js';
import { wholeNumberArg } from './args.js';

/** The flags of the period. */
export interface CompletedPeriodFlags {
  readonly days?: number;
  readonly from?: string;
  readonly to?: string;
}

/** Days of completion `[from, to)`. */
export interface CompletedPeriod {
  readonly from: string;
  readonly to: string;
}

/** Adds `--days`, `--from` and `--to` to `command`. */
export function addCompletedPeriodOptions(command: Command): Command {
  return command
    .addOption(
      new Option('--days <n>', 'jobs completed in the last N days, today included (default: every completed job)')
        .argParser(wholeNumberArg(1, 3660, 'use a whole number of days from 1 to 3660'))
        .conflicts(['from', 'to']),
    )
    .option('--from <YYYY-MM-DD>', 'jobs completed on or after this day')
    .option('--to <YYYY-MM-DD>', 'jobs completed before this day (exclusive)');
}

/** The completion days asked for, or undefined for every day. */
export function completedPeriod(flags: CompletedPeriodFlags, now: number): CompletedPeriod | undefined {
  if (flags.from !== undefined || flags.to !== undefined) {
    if (flags.from === undefined || flags.to === undefined)
      throw new ConfigError('--from and --to go together (--to is exclusive), e.g. --from 2026-01-01 --to 2026-02-01');
    const from = parseDay(flags.from, '--from');
    const to = parseDay(flags.to, '--to');
    if (from > to) throw new ConfigError(`--from ${from} is after --to ${to}: swap them (--to is exclusive)`);
    if (from === to) throw new ConfigError(`--from ${from} --to ${to} is empty: --to is exclusive, use the day after the last one`);
    return { from, to };
  }
  if (flags.days === undefined) return undefined;
  const today = formatDay(now);
  return { from: addDays(today, 1 - flags.days), to: addDays(today, 1) };
}
