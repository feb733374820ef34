/**
 * The command line: the same domain functions as the Lambdas, other wiring.
 *
 *   mintlify-exporter export [--date D | --from D1 --to D2] [--project ID]... [--out DEST] [--json]
 *   mintlify-exporter sandbox [--port N] [--latency MS]
 *   mintlify-exporter follow-up --project ID --job ID --prompt TEXT [--no-wait] [--json]
 *   mintlify-exporter consume --queue-url URL
 *
 * Exit codes: 0 success, 1 the work failed (named on stderr), 2 bad input (one line, before
 * any request is sent).
 */
import { pathToFileURL } from 'node:url';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import type { ExportRequest } from './export/event.js';
import { runExport, type DayEvent, type RunResult } from './export/run.js';
import { registerFollowUpCommands } from './follow-up/commands.js';
import { createApiClient } from './shared/api-client.js';
import { loadConfig, PROJECT_ID_PATTERN, validateApiKey, type Config } from './shared/config.js';
import { assertFinishedDays, daysBetween, parseDay, previousDay } from './shared/dates.js';
import { openDestination } from './shared/destinations.js';
import { ConfigError, describeError } from './shared/errors.js';
import { startSandbox, type Sandbox } from '../sandbox/index.js';

/** What the CLI reads and writes; tests pass their own. */
export interface CliIo {
  readonly stdout: { write(text: string): unknown };
  readonly stderr: { write(text: string): unknown; readonly isTTY?: boolean; readonly columns?: number };
  readonly env: Record<string, string | undefined>;
  readonly now: () => number;
  /** Resolves when the user asks to stop (SIGINT/SIGTERM); long-running commands await it. */
  readonly stopSignal: Promise<void>;
}

/** Where the API calls go: the real service with a key, or the embedded sandbox without one. */
export interface ApiTarget {
  readonly baseUrl: string;
  readonly apiKey: string;
  /** Projects to use when the user names none. */
  readonly defaultProjects: readonly string[];
  readonly sandbox?: Sandbox;
  close(): Promise<void>;
}

/**
 * With MINTLIFY_API_KEY: the configured API (the key validated first). Without: a sandbox
 * started in this process on 127.0.0.1, so everything runs on a laptop with nothing else.
 */
export async function resolveApiTarget(config: Config, io: CliIo): Promise<ApiTarget> {
  if (config.apiKey !== undefined) {
    return {
      baseUrl: config.apiUrl,
      apiKey: validateApiKey(config.apiKey),
      defaultProjects: config.projectIds,
      close: async () => undefined,
    };
  }
  const sandbox = await startSandbox();
  io.stderr.write(`No MINTLIFY_API_KEY set: using the embedded sandbox API at ${sandbox.url}\n`);
  return {
    baseUrl: sandbox.url,
    apiKey: sandbox.apiKey,
    defaultProjects: config.projectIds.length > 0 ? config.projectIds : sandbox.projectIds,
    sandbox,
    close: () => sandbox.close(),
  };
}

interface ExportFlags {
  date?: string;
  from?: string;
  to?: string;
  project: string[];
  out?: string;
  json?: boolean;
}

/** Builds the export request from flags, validating everything before any request is sent. */
export function exportRequestFromFlags(flags: ExportFlags, now: number): ExportRequest {
  const projects = flags.project.length > 0 ? { projects: flags.project } : {};
  if (flags.date !== undefined) {
    if (flags.from !== undefined || flags.to !== undefined) throw new ConfigError('use either --date or --from/--to, not both');
    const day = parseDay(flags.date, '--date');
    assertFinishedDays([day], now, '--date');
    return { kind: 'days', days: [day], ...projects };
  }
  if (flags.from !== undefined || flags.to !== undefined) {
    if (flags.from === undefined || flags.to === undefined) {
      throw new ConfigError('--from and --to go together (--to is exclusive): e.g. --from 2026-01-01 --to 2026-02-01');
    }
    const days = daysBetween(flags.from, flags.to);
    if (days.length === 0) throw new ConfigError(`--from ${flags.from} --to ${flags.to} is empty: --to is exclusive, use the day after`);
    assertFinishedDays(days, now, 'day');
    return { kind: 'days', days, ...projects };
  }
  return { kind: 'days', days: [previousDay(now)], ...projects };
}

function collectProject(value: string, previous: string[]): string[] {
  if (!PROJECT_ID_PATTERN.test(value)) {
    throw new InvalidArgumentError('a project id is letters, digits, "_" and "-" (copy it from the dashboard)');
  }
  return [...previous, value];
}

async function runExportCommand(flags: ExportFlags, io: CliIo): Promise<number> {
  const config = loadConfig(io.env);
  const request = exportRequestFromFlags(flags, io.now());
  const destination = openDestination(flags.out ?? config.destination);
  const target = await resolveApiTarget(config, io);
  try {
    const projectIds = request.projects ?? target.defaultProjects;
    if (projectIds.length === 0) {
      throw new ConfigError('no project to export: pass --project ID or set MINTLIFY_PROJECT_IDS');
    }
    const api = createApiClient({ baseUrl: target.baseUrl, apiKey: target.apiKey, timeoutMs: config.apiTimeoutMs });
    const progress = flags.json ? undefined : createProgress(io);
    const result = await runExport(
      { ...request, projects: projectIds },
      { projectIds, healDays: config.healDays, pageLimit: config.pageLimit ?? 250, maxPages: config.maxPages },
      { api, destination, now: io.now, ...(progress ? { onDay: progress } : {}) },
    );
    if (flags.json) io.stdout.write(`${JSON.stringify(jsonSummary(result, destination.url))}\n`);
    else printSummary(result, destination.url, io);
    return result.ok ? 0 : 1;
  } finally {
    await target.close();
  }
}

function jsonSummary(result: RunResult, destination: string) {
  return {
    ok: result.ok,
    destination,
    exported: result.exported,
    failed: result.failed,
    requests: result.requests,
    days: result.days.map((d) =>
      d.ok
        ? {
            projectId: d.projectId,
            date: d.day,
            ok: true,
            pages: d.manifest.rows.pages,
            totals: d.manifest.totals,
            requests: d.manifest.requests.successful,
            files: d.manifest.files,
          }
        : { projectId: d.projectId, date: d.day, ok: false, error: d.error },
    ),
  };
}

function printSummary(result: RunResult, destination: string, io: CliIo): void {
  for (const day of result.days) {
    if (day.ok) {
      const m = day.manifest;
      io.stdout.write(
        `ok     ${day.projectId} ${day.day}: ${m.rows.pages} paths, totals human=${m.totals.human} ai=${m.totals.ai} total=${m.totals.total}, ${m.requests.successful} requests, ${m.durationsMs.total} ms\n`,
      );
    } else {
      io.stdout.write(`FAILED ${day.projectId} ${day.day}: ${day.error}\n`);
    }
  }
  io.stdout.write(
    `${result.exported} of ${result.days.length} day(s) exported to ${destination} with ${result.requests} API request(s)${result.failed > 0 ? `; ${result.failed} failed` : ''}\n`,
  );
  if (result.failed > 0) {
    const names = result.days.filter((d) => !d.ok).map((d) => `${d.projectId} ${d.day}`);
    io.stderr.write(`Export incomplete: ${names.join(', ')} failed; re-run those days with --date or --from/--to\n`);
  }
}

/** A progress bar on a terminal; plain lines otherwise (CI logs, pipes). */
function createProgress(io: CliIo): (event: DayEvent) => void {
  const tty = io.stderr.isTTY === true;
  return (event) => {
    const done = event.kind === 'done' ? event.position + 1 : event.position;
    const label = event.kind === 'start' ? `${event.projectId} ${event.day}` : `${event.result.projectId} ${event.result.day}`;
    if (tty) {
      const width = 24;
      const filled = Math.round((done / event.count) * width);
      io.stderr.write(`\r[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${done}/${event.count} ${label}\x1b[K`);
      if (event.kind === 'done' && done === event.count) io.stderr.write('\n');
    } else if (event.kind === 'start') {
      io.stderr.write(`[${event.position + 1}/${event.count}] exporting ${label}\n`);
    }
  };
}

async function runSandboxCommand(flags: { port: number; latency?: number }, io: CliIo): Promise<number> {
  const sandbox = await startSandbox({ port: flags.port, ...(flags.latency === undefined ? {} : { latencyMs: flags.latency }) });
  io.stdout.write(
    [
      `Sandbox API listening on ${sandbox.url}`,
      `Projects: ${sandbox.projectIds.join(', ')}`,
      'Use it from another terminal with:',
      `  export MINTLIFY_API_URL=${sandbox.url} MINTLIFY_API_KEY=${sandbox.apiKey}`,
      '  mintlify-exporter export --project proj_large',
      'Stop with Ctrl-C.',
      '',
    ].join('\n'),
  );
  await io.stopSignal;
  await sandbox.close();
  return 0;
}

function parsePort(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new InvalidArgumentError('use a port from 0 to 65535');
  return port;
}

function parseMs(value: string): number {
  const ms = Number(value);
  if (!Number.isInteger(ms) || ms < 0) throw new InvalidArgumentError('use a whole number of milliseconds');
  return ms;
}

/** Runs the CLI and returns its exit code; never calls process.exit (tests call it in-process). */
export async function main(argv: readonly string[], io: CliIo): Promise<number> {
  let exitCode = 0;
  const program = new Command('mintlify-exporter')
    .description('Export Mintlify visitor analytics to Parquet and run follow-up prompts on agent jobs.')
    .exitOverride()
    .showSuggestionAfterError(true)
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
      outputError: (text, write) => write(text.split('\n')[0] + '\n'),
    });

  program
    .command('export')
    .description('Export each day in [--from, --to) (default: yesterday, UTC) to Parquet.')
    .option('--date <YYYY-MM-DD>', 'export this one day')
    .option('--from <YYYY-MM-DD>', 'first day to export (inclusive)')
    .option('--to <YYYY-MM-DD>', 'day after the last one to export (exclusive)')
    .option('--project <id>', 'project to export (repeatable; default MINTLIFY_PROJECT_IDS)', collectProject, [])
    .option('--out <dest>', 'directory or s3://bucket/prefix (default EXPORT_DESTINATION or ./data)')
    .option('--json', 'print one JSON summary on stdout')
    .action(async (flags: ExportFlags) => {
      exitCode = await runExportCommand(flags, io);
    });

  program
    .command('sandbox')
    .description('Run the local API sandbox (both endpoints, seeded data, faults) on 127.0.0.1.')
    .addOption(new Option('--port <n>', 'port to listen on').argParser(parsePort).default(4010))
    .addOption(new Option('--latency <ms>', 'latency added to every response').argParser(parseMs))
    .action(async (flags: { port: number; latency?: number }) => {
      exitCode = await runSandboxCommand(flags, io);
    });

  registerFollowUpCommands(program, {
    ...io,
    resolveApiTarget: (config: Config) => resolveApiTarget(config, io),
    setExitCode: (code: number) => {
      exitCode = code;
    },
  });

  try {
    await program.parseAsync([...argv], { from: 'user' });
    return exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version are not errors; everything else is a usage error, already printed.
      return error.code === 'commander.helpDisplayed' || error.code === 'commander.version' ? 0 : 2;
    }
    if (error instanceof ConfigError) {
      io.stderr.write(`error: ${error.message}\n`);
      return 2;
    }
    io.stderr.write(`error: ${describeError(error)}\n`);
    return 1;
  }
}

/** The process-level wiring: real streams, env, clock and signals. */
export function processIo(): CliIo {
  const stopSignal = new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
  return { stdout: process.stdout, stderr: process.stderr, env: process.env, now: Date.now, stopSignal };
}

export async function runCli(): Promise<void> {
  process.exitCode = await main(process.argv.slice(2), processIo());
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await runCli();
}
