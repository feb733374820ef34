/**
 * `mintlify-exporter report [--days N | --from D1 --to D2] [--project ID]... [--out DEST] [--file PATH]`:
 * reads the warehouse (`--out`, else EXPORT_DESTINATION, else ./data) and writes one
 * self-contained HTML page: `--file`, else `<dest>/report.html` for a local destination, else
 * `./report.html` (the current folder) for an `s3://` one. Sends no API request.
 */
import type { S3Client } from '@aws-sdk/client-s3';
import { InvalidArgumentError, Option, type Command } from 'commander';
import { FLAG_NAMES, budgetTime, daysBefore, lastDueDay, readPeriodFill, requestedDays, retentionCutoff } from '../export/index.js';
import { loadConfig, type Config } from '../settings/config.js';
import { validateProjectId } from '../shared/validators.js';
import { addDays } from '../shared/dates.js';
import { ConfigError, NoDataError } from '../shared/errors.js';
import { formatCount } from '../shared/format.js';
import { MAX_REPORT_DAYS, type Period } from '../warehouse/period.js';
import { checkLakeTarget, checkReportFile, reportFileOf } from '../report/targets.js';
import { validatedArg } from './args.js';
import { EXIT_STOPPED, type CliIo } from './io.js';
import type { BudgetSnapshot } from '../shared/pacing/budget.js';
import type { BudgetSpec } from '../shared/pacing/budget-spec.js';
import type { LakeTarget } from '../warehouse/lake/target.js';
import type { FillNotice } from '../report/sections/fill.js';
import { runsAgainstSandbox } from './api-target.js';
import { budgetNeeds, requestsLeftText } from './render/budget.js';
import { exportCommandOf } from './fill-command.js';

/** Days of a report when none are given. */
export const DEFAULT_REPORT_DAYS = 30;

export interface ReportCommandIo extends Pick<CliIo, 'stdout' | 'stderr' | 'env' | 'now' | 'stopSignal'> {
  setExitCode(code: number): void;
  /** Where relative paths start. @default process.cwd() */
  readonly cwd?: string;
  /** Test hook: an emulator's S3 client. */
  readonly clients?: { readonly s3?: S3Client };
}

interface ReportFlags {
  readonly days?: number;
  readonly from?: string;
  readonly to?: string;
  readonly project: string[];
  readonly out?: string;
  readonly file?: string;
}

const projectArg = validatedArg((value) => validateProjectId(value, '--project'));

function collectProject(value: string, previous: string[]): string[] {
  return [...previous, projectArg(value)];
}

function parseDays(value: string): number {
  const days = Number(value);
  if (!/^\d+$/.test(value) || days < 1 || days > MAX_REPORT_DAYS) throw new InvalidArgumentError(`use a whole number of days from 1 to ${MAX_REPORT_DAYS}`);
  return days;
}

export function registerReportCommand(program: Command, io: ReportCommandIo): void {
  program
    .command('report')
    .description('Write one self-contained HTML report of the warehouse: visitors, pages, searches, assistant, feedback and export health (sends no request).')
    .addOption(new Option('--days <n>', `the last N due days (default ${DEFAULT_REPORT_DAYS})`).argParser(parseDays).conflicts(['from', 'to']))
    .option('--from <YYYY-MM-DD>', 'first day (inclusive)')
    .option('--to <YYYY-MM-DD>', 'day after the last one (exclusive)')
    .option('--project <id>', 'project (repeatable; default every project found in the period)', collectProject, [])
    .option('--out <dest>', 'warehouse to read: a directory or s3://bucket/prefix (default EXPORT_DESTINATION or ./data)')
    .option('--file <path>', 'where to write the page (default <dest>/report.html; ./report.html for s3://)')
    .action(async (flags: ReportFlags) => io.setExitCode(await runReportCommand(flags, io)));
}

/** The period a report covers: --from/--to, else the last --days due days. */
export function reportPeriod(flags: Pick<ReportFlags, 'days' | 'from' | 'to'>, now: number, settleHours: number): Period {
  const requested = requestedDays({ from: flags.from, to: flags.to }, now, FLAG_NAMES);
  const days =
    requested ??
    (() => {
      const last = lastDueDay(now, settleHours);
      return [...daysBefore(last, (flags.days ?? DEFAULT_REPORT_DAYS) - 1), last];
    })();
  const first = days[0];
  const last = days[days.length - 1];
  if (first === undefined || last === undefined) throw new ConfigError('the report covers no day: give --days N or --from D1 --to D2');
  if (days.length > MAX_REPORT_DAYS) {
    throw new ConfigError(
      `--from ${first} --to ${addDays(last, 1)} covers ${formatCount(days.length)} days; a report covers at most ${MAX_REPORT_DAYS} (it compares them with as many before): choose a later --from, e.g. --from ${addDays(last, 1 - MAX_REPORT_DAYS)}`,
    );
  }
  return { from: first, to: addDays(last, 1), days };
}

/** The user stopped the run. */
class StoppedError extends Error {
  constructor() {
    super('stopped by the user');
    this.name = 'StoppedError';
  }
}

async function runReportCommand(flags: ReportFlags, io: ReportCommandIo): Promise<number> {
  const config = loadConfig(io.env);
  const period = reportPeriod(flags, io.now(), config.settleHours);
  const destination = flags.out ?? config.destination;
  const started = performance.now();
  const cwd = io.cwd ?? process.cwd();
  // Every mistake of --out and --file before any work: exit 2 naming what the user typed.
  const target = await checkLakeTarget(destination, { cwd, source: flags.out !== undefined ? '--out' : 'EXPORT_DESTINATION' });
  const file = reportFileOf(target, flags.file, cwd);
  await checkReportFile(file, flags.file ?? file);
  const stop = new AbortController();
  void io.stopSignal.then(() => stop.abort(new StoppedError()));
  const building = (async () => {
    // Loaded on use: ECharts and DuckDB cost every other command nothing.
    const { buildReport } = await import('../report/report.js');
    return buildReport(
      {
        target,
        period,
        projects: [...new Set(flags.project)],
        ...(config.reportSiteUrl !== undefined ? { siteUrl: config.reportSiteUrl } : {}),
        exportCommand: (from, to, projects) => exportCommandOf({ config, out: flags.out, from, to, projects }),
        ...(config.personalDataRetentionDays !== undefined ? { retentionCutoff: retentionCutoff(config.personalDataRetentionDays, io.now()) as string } : {}),
        // The notice is advice: a destination it cannot read (a listing refused) costs the report nothing but it.
        fill: (projects) =>
          readFillNotice({ config, target, out: flags.out, period, projects, now: io.now(), io }).catch((error: unknown) => {
            io.stderr.write(`Warning: left out what fills the period's missing days: ${error instanceof Error ? error.message : String(error)}\n`);
            return undefined;
          }),
      },
      {
        now: io.now,
        signal: stop.signal,
        onWarning: (line) => io.stderr.write(`Warning: ${line}\n`),
        ...(io.clients?.s3 ? { s3Client: io.clients.s3 } : {}),
      },
    );
  })();
  // A DuckDB query cannot be cut short: a stop answers at once, and the build ends on its own.
  building.catch(() => undefined);
  const stopped = new Promise<StoppedError>((resolve) => stop.signal.addEventListener('abort', () => resolve(new StoppedError()), { once: true }));
  let report;
  try {
    report = await Promise.race([building, stopped]);
  } catch (error) {
    if (!(error instanceof NoDataError)) throw error;
    io.stderr.write(`No report: ${error.message}\n`);
    return 1;
  }
  if (report instanceof StoppedError) {
    io.stderr.write('Stopped: no report written (a report already there is untouched).\n');
    return EXIT_STOPPED;
  }
  const { writeReportFile } = await import('../report/report.js');
  await writeReportFile(file, report.html);
  if (report.fill) {
    const { fillLine } = await import('../report/sections/fill.js');
    io.stderr.write(`Not complete: ${fillLine(report.fill)}\n`);
  }
  const kb = Math.ceil(Buffer.byteLength(report.html) / 1024);
  const last = period.days[period.days.length - 1];
  io.stdout.write(
    `Report of ${report.destination}, ${period.from} to ${last} (${report.figures.projects.length} project(s)), written to ${file} (${kb} KB, ${Math.round(performance.now() - started)} ms)\n`,
  );
  return 0;
}

/**
 * What fills the report's period (its due days not fully exported), as the page and stderr say
 * it: the `export` command — `--project` when the report's projects are not MINTLIFY_PROJECT_IDS,
 * `--out` when the report was given one — and what the units to do are expected to cost, in
 * `status`'s words from the same estimator. The budget's time is counted from an empty window of
 * ANALYTICS_BUDGET (the report does not read the ledger); against the embedded sandbox, no wait.
 */
async function readFillNotice(input: {
  readonly config: Config;
  readonly target: LakeTarget;
  readonly out: string | undefined;
  readonly period: Period;
  readonly projects: readonly string[];
  readonly now: number;
  readonly io: ReportCommandIo;
}): Promise<FillNotice | undefined> {
  const { config, now } = input;
  const cutoff = retentionCutoff(config.personalDataRetentionDays, now);
  // The lake the report reads (a relative folder resolved at the door, as the report's).
  const destination = input.target.records(input.io.clients?.s3 ? { s3Client: input.io.clients.s3 } : {});
  const fill = await readPeriodFill(destination, {
    days: input.period.days,
    projects: input.projects,
    datasets: config.datasets,
    lastDay: lastDueDay(now, config.settleHours),
    now,
    ...(cutoff !== undefined ? { retentionCutoff: cutoff } : {}),
  });
  if (fill === undefined) return undefined;
  const unpaced = runsAgainstSandbox(config, input.projects);
  const ms = budgetTime(emptyWindow(config.budget, now), fill.status.requests, now).ms;
  return {
    missingDays: fill.missingDays,
    dueDays: fill.dueDays,
    command: exportCommandOf({ config, out: input.out, from: fill.from, to: fill.to, projects: input.projects }),
    estimate: `${requestsLeftText(fill.status)}; the request budget (${config.budget.text}) needs ${budgetNeeds(ms, unpaced, fill.status)}`,
  };
}

/** The ledger of a budget nobody has spent from yet. */
function emptyWindow(spec: BudgetSpec, now: number): BudgetSnapshot {
  return { spec, used: 0, nextStartAt: now, pausedUntil: 0, rateLimited: 0, limit: spec.requests };
}
