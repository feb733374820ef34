/**
 * `mintlify-exporter export [--date D | --from D1 --to D2 | --days N] [--project ID]... [--dataset NAME]... [--out DEST] [--force] [--json]`:
 * each dataset of each day (default: the latest due day, UTC — `EXPORT_SETTLE_HOURS` after it ends) to Parquet. Paces itself through the same
 * budget ledger as every other run of this machine (a countdown while it waits), skips complete
 * units (`--force` re-exports them), resumes partial ones, and on the first Ctrl-C/SIGTERM lets
 * the request in flight arrive, stages it and stops (a second stops at once).
 */
import { Option, type Command } from 'commander';
import {
  FLAG_NAMES,
  createExportDeps,
  daysBefore,
  lastDueDay,
  localStateDir,
  openExportDestination,
  requestedDays,
  unknownProjectReason,
  wireRun,
  type RunEvent,
  type RunResult,
} from '../export/index.js';
import { wholeNumberArg } from './args.js';
import { probeSetup } from './probe.js';
import { sandboxPages } from './sandbox-sizes.js';
import { writePlantedOutcomes } from './sandbox-fixes.js';
import { loadConfig } from '../settings/config.js';
import { formatDuration } from '../shared/durations.js';
import { ConfigError, describeError } from '../shared/errors.js';
import { checkLaptopAnomalies } from './laptop-anomalies.js';
import { newLeaseOwner } from '../shared/pacing/leases.js';
import { silentLogger } from '../shared/logger.js';
import { partitionWarnings } from './register-partitions.js';
import { createMemoryStore } from '../shared/storage/shared-store.js';
import { missingKeyError, runsAgainstSandbox } from './api-target.js';
import { EXIT_STOPPED } from './io.js';
import { createProgress, createTerminalLine } from './progress.js';
import { exportJson, printExport } from './render/export.js';
import { writeJson } from './render/json.js';
import { retryLinePrinter } from './retry-lines.js';
import { clientOverrides, datasetsOf, probeInput, scopeOptions, type ExportCommandIo, type ScopeFlags } from './scope.js';
import { HOUR_MS } from '../shared/time.js';
import { parseLakeTarget } from '../warehouse/lake/target.js';

interface ExportFlags extends ScopeFlags {
  readonly force?: boolean;
  readonly days?: number;
}

const daysArg = wholeNumberArg(1, 366, 'use a whole number of days from 1 to 366');

export function registerExportCommand(program: Command, io: ExportCommandIo): void {
  scopeOptions(
    program
      .command('export')
      .description(
        'Export each dataset of each day in [--from, --to) (default: the latest due day, UTC: EXPORT_SETTLE_HOURS after it ends) to Parquet, paced by the request budget.',
      ),
  )
    .addOption(new Option('--days <n>', 'the last N due days (as status, report and gaps count them)').argParser(daysArg))
    .option('--force', 'export complete units again')
    .action(async (flags: ExportFlags) => io.setExitCode(await runExportCommand(flags, io)));
}

async function runExportCommand(flags: ExportFlags, io: ExportCommandIo): Promise<number> {
  const config = loadConfig(io.env);
  // No day: the latest due one (EXPORT_SETTLE_HOURS after it ends), never a day still settling.
  const requested = requestedDays(flags, io.now(), FLAG_NAMES);
  if (requested !== undefined && flags.days !== undefined) throw new ConfigError('give --days or --date / --from --to, not both');
  const latest = lastDueDay(io.now(), config.settleHours);
  const days = requested ?? [...daysBefore(latest, (flags.days ?? 1) - 1), latest];
  const datasets = datasetsOf(flags, config);
  const clients = clientOverrides(io, flags.out);
  const destination = openExportDestination(config, clients);
  // Without a key, a --project the embedded sandbox does not serve is meant for the real API.
  const mistake = config.apiKey === undefined ? missingKeyError(config, flags.project, '--project') : undefined;
  if (mistake) throw mistake;
  // Before any request: a destination or state folder that cannot be written must not cost budget.
  // A run against the embedded sandbox keeps no ledger in the state folder (below).
  const usesState = !runsAgainstSandbox(config, flags.project.length > 0 ? flags.project : config.projectIds);
  await probeSetup({ ...probeInput(config, io, flags.out, destination, usesState), mode: 'write' });
  const target = await io.resolveApiTarget(config);
  try {
    const projects = flags.project.length > 0 ? flags.project : target.defaultProjects;
    const projectSource = flags.project.length > 0 ? '--project' : 'MINTLIFY_PROJECT_IDS';
    if (projects.length === 0) throw new ConfigError('no project to export: pass --project ID or set MINTLIFY_PROJECT_IDS');
    // The embedded sandbox is not the organisation's API: it has no limit, and spending the
    // real ledger on it would only slow the real exports. ANALYTICS_BUDGET still applies if set.
    // The target, not the configuration (runsAgainstSandbox), says it: with MINTLIFY_ORGS_FILE an
    // organisation's key goes to the sandbox of every organisation too (api-target.ts).
    const sandboxed = target.sandbox !== undefined && !config.budgetSet;
    // One line for the bar on a terminal: every other line of the run goes through it and clears the bar first.
    const line = createTerminalLine(io.stderr);
    const stderr = line.through(io.stderr);
    const deps = createExportDeps(config, {
      ...clients,
      destination,
      apiUrl: target.baseUrl,
      apiKey: target.apiKey,
      keyFolder: localStateDir(config, flags.out),
      onKeyGenerated: (file) =>
        stderr.write(
          `Generated the personal-data key ${file} (mode 0600): keep it with the data — every later export hashes contact addresses with it (docs/privacy.md)\n`,
        ),
      ...(sandboxed
        ? { store: createMemoryStore(), unlimited: true as const, budget: { requests: 1_000_000, windowMs: HOUR_MS, text: 'unlimited (embedded sandbox)' } }
        : {}),
    });
    const spec = deps.ledger.spec;
    const progress = flags.json ? undefined : createProgress(io, spec.text, deps.ledger, await deps.ledger.snapshot(), line);
    const wired = wireRun(deps, {
      owner: newLeaseOwner(),
      projectSource,
      ...(progress ? { onWait: progress.onWait, onEvent: (event: RunEvent) => progress.onEvent(event, wired.api.stats.requests) } : {}),
      // The CLI's lines are the client's events; its log records (JSON, for the Lambda's logs) are not printed.
      api: { logger: silentLogger, events: retryLinePrinter((text) => stderr.write(text)) },
      partitionLogger: partitionWarnings(stderr),
      now: io.now,
      // The embedded sandbox's sizes are known before any page: its plan is no guess (sandbox-sizes.ts).
      ...(target.sandbox !== undefined ? { sizedPages: sandboxPages } : {}),
    });
    const api = wired.api;
    const stop = new AbortController();
    const controller = new AbortController();
    let running = true;
    const say = (text: string) => running && stderr.write(`${text}\n`);
    void io.stopSignal.then(() => {
      say(
        `Stopping: the request in flight finishes (at most ${formatDuration(config.apiTimeoutMs)}) and its page is kept. Ctrl-C again stops at once, but that page is then fetched (and paid) again by the next run.`,
      );
      stop.abort(new Error('stopped by the user'));
    });
    void io.forceStopSignal?.then(() => {
      say('Stopping now: a page on its way is dropped; the next run fetches it again (one more request).');
      controller.abort(new Error('stopped by the user'));
    });
    let result: RunResult;
    try {
      result = await wired.run({ kind: 'days', days, projects, datasets, force: flags.force === true }, { signal: controller.signal, stop: stop.signal });
    } finally {
      running = false;
      progress?.close();
    }
    const mistake = configurationMistake(result, projects, projectSource, api.stats.successes > 0);
    // A mistake that stopped everything before anything else happened is all there is to say.
    if (mistake?.alone) throw new ConfigError(mistake.line);
    // The embedded sandbox's past fixes: their outcome records once their project's feedback is in the lake (sandbox-fixes.ts).
    const planted = target.sandbox?.plantedFixes ?? [];
    if (planted.length > 0 && datasets.includes('feedback')) {
      const exported = projects.filter((p) => result.units.some((u) => u.projectId === p && u.dataset === 'feedback' && u.status === 'complete'));
      const written = await writePlantedOutcomes(destination, planted, exported);
      if (written > 0) {
        stderr.write(
          `The embedded sandbox planted ${written} past fix(es) (completed agent jobs for pages' thumbs down, one that worked): their outcome records are in the lake — try "mintlify-exporter effects"\n`,
        );
      }
    }
    if (flags.json) writeJson(io.stdout, exportJson(result, destination.url));
    else printExport(result, destination.url, io);
    // The deployment's anomaly check over what this run completed, with the same marks.
    try {
      const lines = await checkLaptopAnomalies({
        result,
        destination,
        target: parseLakeTarget(flags.out ?? config.destination, flags.out !== undefined ? '--out' : 'EXPORT_DESTINATION'),
        thresholds: { drop: config.anomalyDrop, rise: config.anomalyRise },
        ...(io.clients?.s3 ? { s3Client: io.clients.s3 } : {}),
      });
      for (const line of lines) io.stderr.write(`${line}\n`);
    } catch (error) {
      io.stderr.write(`warning: the anomaly check of the days exported could not run (${describeError(error)}); the exported units are kept\n`);
    }
    if (mistake) return 2;
    if (result.ok) return 0;
    return result.stopped ? EXIT_STOPPED : 1;
  } finally {
    await target.close();
  }
}

/**
 * A configuration mistake the run met, which exits 2 like one found before the first request:
 * a refused key (401), an API that never answered (nothing reached the service: a wrong
 * MINTLIFY_API_URL), projects the key cannot see (404). `alone`: nothing else happened (every
 * unit failed for it or was stopped by it), so its one line is the whole answer.
 */
export function configurationMistake(
  result: RunResult,
  projects: readonly string[],
  projectSource: string,
  answered: boolean,
): { readonly line: string; readonly alone: boolean } | undefined {
  const onlyStops =
    result.failed === result.stops.length && result.units.every((u) => u.status === 'failed' || (u.status === 'pending' && u.blocked !== undefined));
  const { runStop, unknownProjects } = result;
  if (runStop?.why === 'key' || (runStop?.why === 'unreachable' && !answered)) return { line: runStop.reason, alone: onlyStops };
  if (unknownProjects.length === 0) return undefined;
  const all = projects.every((project) => unknownProjects.includes(project));
  return { line: unknownProjectReason(unknownProjects, projectSource), alone: all && onlyStops };
}
