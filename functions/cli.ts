/**
 * The command line: the same domain functions as the Lambdas, other wiring.
 *
 *   mintlify-exporter export [--date D | --from D1 --to D2] [--project ID]... [--dataset NAME]... [--out DEST] [--force] [--json]
 *   mintlify-exporter plan   [--date D | --from D1 --to D2] [--project ID]... [--dataset NAME]... [--out DEST] [--json]
 *   mintlify-exporter status [--date D | --from D1 --to D2 | --days N] [--project ID]... [--dataset NAME]... [--out DEST] [--json]
 *   mintlify-exporter report [--days N | --from D1 --to D2] [--project ID]... [--out DEST] [--file PATH]
 *   mintlify-exporter sandbox [--port N] [--latency MS] [--budget N/WINDOW [--window fixed|rolling]] [--drift]
 *   mintlify-exporter follow-up --project ID --job ID --prompt TEXT [--no-wait] [--json]
 *   mintlify-exporter consume --queue-url URL [--wait-seconds N] [--outcomes-topic ARN] [--json]
 *   mintlify-exporter enqueue --queue-url URL (--job ID --prompt TEXT [--project ID] [--request-id ID] | --file PATH|-) [--json]
 *
 * Exit codes: 0 success, 1 the work failed (named on stderr), 2 bad input or configuration
 * (one line naming the fix, before any request is sent), 130 stopped (Ctrl-C).
 */
import { pathToFileURL } from 'node:url';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { EXIT_STOPPED, registerExportCommands } from './export/commands.js';
import { registerFollowUpCommands } from './follow-up/commands.js';
import { registerEnqueueCommand } from './producer/command.js';
import { registerReportCommand } from './report/command.js';
import { validateApiKey, type Config } from './shared/config.js';
import { ConfigError, DestinationError, stripControlCharacters } from './shared/errors.js';
import type { Sleep } from './shared/retry.js';
import { parseBudget, type BudgetSpec } from './shared/budget-spec.js';
import { DEFAULT_PROJECTS } from '../sandbox/data.js';
import { startSandbox, type Sandbox } from '../sandbox/index.js';

/** What the CLI reads and writes; tests pass their own. */
export interface CliIo {
  readonly stdout: { write(text: string): unknown };
  readonly stderr: { write(text: string): unknown; readonly isTTY?: boolean; readonly columns?: number };
  readonly env: Record<string, string | undefined>;
  readonly now: () => number;
  /** Resolves when the user asks to stop (SIGINT/SIGTERM); long-running commands await it. */
  readonly stopSignal: Promise<void>;
  /** Resolves when the user asks a second time: stop at once, whatever it costs. */
  readonly forceStopSignal?: Promise<void>;
  /** Test hook: a fake clock's sleep for the budget and retries. @default a real timer */
  readonly sleep?: Sleep;
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

interface SandboxFlags {
  port: number;
  latency?: number;
  budget?: BudgetSpec;
  window: 'fixed' | 'rolling';
  drift?: boolean;
}

async function runSandboxCommand(flags: SandboxFlags, io: CliIo): Promise<number> {
  const sandbox = await startSandbox({
    port: flags.port,
    ...(flags.latency === undefined ? {} : { latencyMs: flags.latency }),
    ...(flags.budget ? { budget: { requests: flags.budget.requests, windowMs: flags.budget.windowMs, window: flags.window } } : {}),
    ...(flags.drift === true ? { drift: true } : {}),
  });
  io.stdout.write(
    [
      `Sandbox API listening on ${sandbox.url}`,
      `Projects: ${sandbox.projectIds.join(', ')}`,
      ...(flags.budget ? [`Analytics budget: ${flags.budget.text} (${flags.window} window); beyond it: 429 with Retry-After`] : []),
      ...(flags.drift === true ? ['Drift mode: every answer carries fields and enum values this version does not know (as after an API change)'] : []),
      'Use it from another terminal with:',
      `  export MINTLIFY_API_URL=${sandbox.url} MINTLIFY_API_KEY=${sandbox.apiKey}`,
      '  npx mintlify-exporter export --project proj_large',
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

function parseBudgetFlag(value: string): BudgetSpec {
  try {
    return parseBudget(value, '--budget');
  } catch (error) {
    throw new InvalidArgumentError(error instanceof Error ? error.message : String(error));
  }
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
      outputError: (text, write) => write(`${text.split('\n')[0]}\n`),
    });

  const setExitCode = (code: number) => {
    exitCode = code;
  };
  registerExportCommands(program, {
    ...io,
    resolveApiTarget: (config: Config) => resolveApiTarget(config, io),
    sandboxProjects: DEFAULT_PROJECTS.map((project) => project.id),
    setExitCode,
  });

  registerReportCommand(program, { ...io, setExitCode });

  program
    .command('sandbox')
    .description('Run the local API sandbox (both endpoints, seeded data, faults) on 127.0.0.1.')
    .addOption(new Option('--port <n>', 'port to listen on').argParser(parsePort).default(4010))
    .addOption(new Option('--latency <ms>', 'latency added to every response').argParser(parseMs))
    .addOption(new Option('--budget <n/window>', 'answer 429 beyond this many analytics requests per window, e.g. 100/1h').argParser(parseBudgetFlag))
    .addOption(new Option('--window <kind>', 'how the budget window moves').choices(['fixed', 'rolling']).default('rolling'))
    .option('--drift', 'answer as after an API change: new fields on every dataset and the agent job, new enum values')
    .action(async (flags: SandboxFlags) => {
      exitCode = await runSandboxCommand(flags, io);
    });

  registerFollowUpCommands(program, {
    ...io,
    resolveApiTarget: (config: Config) => resolveApiTarget(config, io),
    setExitCode,
  });

  registerEnqueueCommand(program, { ...io, setExitCode });

  try {
    await program.parseAsync([...argv], { from: 'user' });
    return exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version are not errors; everything else is a usage error, already printed.
      return error.code === 'commander.helpDisplayed' || error.code === 'commander.version' ? 0 : 2;
    }
    // One line saying what to fix: a class name ("DestinationError: …") tells a user nothing.
    // A destination error that reaches this far came before any unit: the setup is wrong.
    io.stderr.write(`error: ${messageOf(error)}\n`);
    return error instanceof ConfigError || error instanceof DestinationError ? 2 : 1;
  }
}

function messageOf(error: unknown): string {
  return stripControlCharacters(error instanceof Error ? error.message : String(error));
}

/** The process-level wiring: real streams, env, clock and signals. */
export function processIo(): CliIo {
  let stop = (): void => undefined;
  let force = (): void => undefined;
  const stopSignal = new Promise<void>((resolve) => (stop = resolve));
  const forceStopSignal = new Promise<void>((resolve) => (force = resolve));
  let signals = 0;
  const onSignal = () => {
    signals += 1;
    if (signals === 1) return stop();
    // A command that does not stop at once on the second signal is ended; a third ends it now.
    if (signals === 2) {
      force();
      setTimeout(() => process.exit(EXIT_STOPPED), 5_000).unref();
      return;
    }
    process.exit(EXIT_STOPPED);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return { stdout: process.stdout, stderr: process.stderr, env: process.env, now: Date.now, stopSignal, forceStopSignal };
}

export async function runCli(): Promise<void> {
  const code = await main(process.argv.slice(2), processIo());
  process.exitCode = code;
  // Nothing is left to do: a socket a timed-out probe left open must not keep the process alive.
  setTimeout(() => process.exit(code), 1_000).unref();
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await runCli();
}
