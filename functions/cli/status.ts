/**
 * `mintlify-exporter status [--date D | --from D1 --to D2 | --days N] [--project ID]... [--dataset NAME]... [--out DEST] [--json]`:
 * complete / partial / missing / failed units per day, project and dataset, what is left to do
 * and the budget. Reads the destination and the ledger only: sends no API request.
 */
import { Option, type Command } from 'commander';
import { FLAG_NAMES, budgetTime, daysBefore, dueAt, lastDueDay, readExportStatus, requestedDays, retentionCutoff, unitsOf } from '../export/index.js';
import { runsAgainstSandbox } from './api-target.js';
import { readAnomalies } from '../warehouse/records.js';
import { describeRolledUp, rolledUpMonths } from '../warehouse/lake/rollups-read.js';
import { loadConfig } from '../settings/config.js';
import { addDays } from '../shared/dates.js';
import { ConfigError } from '../shared/errors.js';
import { wholeNumberArg } from './args.js';
import { writeJson } from './render/json.js';
import { printStatus, statusJson } from './render/status.js';
import { scopeOptions, type ExportCommandIo, type ScopeFlags } from './scope.js';
import { prepareReadScope } from './read-scope.js';

import { exportCommandOf } from './fill-command.js';
import type { ExportStatus } from '../export/index.js';
import type { BudgetSnapshot } from '../shared/pacing/budget.js';
import type { NextRun } from './render/status.js';
import type { Config } from '../settings/config.js';

interface StatusFlags extends ScopeFlags {
  readonly days?: number;
}

const daysArg = wholeNumberArg(1, 366, 'use a whole number of days from 1 to 366');

export function registerStatusCommand(program: Command, io: ExportCommandIo): void {
  scopeOptions(
    program
      .command('status')
      .description('Show complete / partial / missing / failed units per day, project and dataset, what is left to do and the budget (sends no request).'),
  )
    .addOption(new Option('--days <n>', 'days to show, ending with the latest due day (default 7)').argParser(daysArg))
    .action(async (flags: StatusFlags) => io.setExitCode(await runStatusCommand(flags, io)));
}

async function runStatusCommand(flags: StatusFlags, io: ExportCommandIo): Promise<number> {
  const config = loadConfig(io.env);
  const now = io.now();
  const requested = requestedDays(flags, now, FLAG_NAMES);
  if (requested !== undefined && flags.days !== undefined) throw new ConfigError('give --days or --date / --from --to, not both');
  const { projects, datasets, destination, ledger } = await prepareReadScope(flags, config, io);
  const latest = lastDueDay(now, config.settleHours);
  const days = requested ?? [...daysBefore(latest, (flags.days ?? 7) - 1), latest];
  const cutoff = retentionCutoff(config.personalDataRetentionDays, now);
  const status = await readExportStatus(destination, unitsOf(days, projects, datasets), {
    lastDay: latest,
    now,
    ...(cutoff !== undefined ? { retentionCutoff: cutoff } : {}),
  });
  const anomalies = await readAnomalies(destination, days, projects);
  const snapshot = await ledger.snapshot();
  // The embedded sandbox (not paced) is what an export with this configuration would use.
  const unpaced = runsAgainstSandbox(config, projects);
  const next = config.org === undefined ? undefined : nextRunOf(status, snapshot, now, { config, out: flags.out, projects });
  const view = {
    ...(next === undefined ? {} : { next }),
    destination: destination.url,
    days,
    projects,
    datasets,
    settleHours: config.settleHours,
    nextDueAt: dueAt(addDays(latest, 1), config.settleHours),
    status,
    anomalies,
    budgetMs: unpaced ? 0 : budgetTime(snapshot, status.requests, now).ms,
    unpaced,
    snapshot,
    now,
  };
  const rollups = await rolledUpMonths(destination, days, datasets);
  // How far each month is rolled up, once one is (a lake without roll-ups shows as before).
  const rolled = rollups.some((month) => month.rolled > 0);
  if (flags.json) writeJson(io.stdout, rolled ? { ...statusJson(view), rollups } : statusJson(view));
  else {
    printStatus(view, io.stdout);
    const line = describeRolledUp(rollups);
    if (line !== undefined) io.stdout.write(`${line}\n`);
  }
  return 0;
}

/**
 * With an organisations file: the `export` that does this organisation's units left to do (its
 * `--org`, the root destination) and how long its first request waits for the organisation's own
 * ledger (0: at once). Undefined when nothing is left.
 */
export function nextRunOf(
  status: ExportStatus,
  snapshot: BudgetSnapshot,
  now: number,
  input: { readonly config: Config; readonly out: string | undefined; readonly projects: readonly string[] },
): NextRun | undefined {
  const todo = status.units.filter((unit) => unit.state !== 'complete' && unit.state !== 'expired');
  if (todo.length === 0) return undefined;
  const days = todo.map((unit) => unit.date).sort();
  const projects = input.projects.filter((project) => todo.some((unit) => unit.projectId === project));
  const command = exportCommandOf({ config: input.config, out: input.out, from: days[0] as string, to: addDays(days.at(-1) as string, 1), projects });
  return { command, waitMs: Math.max(0, snapshot.nextStartAt - now, snapshot.pausedUntil - now) };
}
