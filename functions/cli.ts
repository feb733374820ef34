/**
 * The command line's entry point (the package's bin, `npm run cli`): the process's io, the
 * program of functions/cli/ (one file per command), and exit codes. The commands call the same
 * domain functions as the Lambdas, with other wiring.
 *
 * Every command and flag: docs/cli.md (its flag tables are generated from the program).
 *
 * Exit codes: 0 success, 1 the work failed (named on stderr), 2 bad input or configuration
 * (one line naming the fix, before any request is sent), 130 stopped (Ctrl-C).
 */
import { pathToFileURL } from 'node:url';
import { CommanderError } from 'commander';
import { EXIT_STOPPED, type CliIo } from './cli/io.js';
import { createProgram } from './cli/program.js';
import { runForOrganisations, type RunHooks } from './cli/organisations.js';
import { exitCodeOf, stripControlCharacters } from './shared/errors.js';

/**
 * Commands that only read (a destination, a ledger): the first SIGINT/SIGTERM ends them at once
 * with exit 130, since nothing of theirs needs finishing. The others listen to the stop signal
 * themselves: `export` finishes its request in flight, `enqueue` sends no further batch and says
 * what was queued, `consume` finishes its message.
 */
const STOP_AT_ONCE = new Set(['plan', 'status']);

/**
 * Runs the CLI and returns its exit code; never calls process.exit (tests call it in-process).
 * With `MINTLIFY_ORGS_FILE`, a command that reads or writes a lake runs once per organisation (cli/organisations.ts).
 */
export async function main(argv: readonly string[], io: CliIo): Promise<number> {
  return runForOrganisations(argv, io, runProgram);
}

/** One run of the program over `argv`: its exit code, and whether that was a usage error. */
async function runProgram(argv: readonly string[], io: CliIo, hooks: RunHooks = {}): Promise<{ readonly code: number; readonly usage: boolean }> {
  const code = await runOnce(argv, io, hooks);
  return { code: code === USAGE ? 2 : code, usage: code === USAGE };
}

/** What `runOnce` returns for a usage error (exit 2, already printed by commander). */
const USAGE = -2;

async function runOnce(argv: readonly string[], io: CliIo, hooks: RunHooks): Promise<number> {
  let exitCode = 0;
  const program = createProgram(io, (code) => {
    exitCode = code;
  });
  if (hooks.onAction) program.hook('preAction', hooks.onAction);
  try {
    const run = program.parseAsync([...argv], { from: 'user' }).then(() => exitCode);
    const command = argv.find((arg) => !arg.startsWith('-'));
    if (command === undefined || !STOP_AT_ONCE.has(command)) return await run;
    const stopped = io.stopSignal.then(() => {
      io.stderr.write(`stopped: ${command} was interrupted before it finished; it changes nothing, run it again\n`);
      return EXIT_STOPPED;
    });
    // Whichever comes first; a read still on its way after a stop is left to the process's end.
    run.catch(() => undefined);
    return await Promise.race([run, stopped]);
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version are not errors; everything else is a usage error, already printed.
      return error.code === 'commander.helpDisplayed' || error.code === 'commander.version' ? 0 : USAGE;
    }
    // One line saying what to fix: a class name ("DestinationError: …") tells a user nothing.
    // A destination error that reaches this far came before any unit: the setup is wrong.
    io.stderr.write(`error: ${messageOf(error)}\n`);
    return exitCodeOf(error);
  }
}

function messageOf(error: unknown): string {
  return stripControlCharacters(error instanceof Error ? error.message : String(error));
}

/** The process-level wiring: real streams, env, clock and signals. */
export function processIo(): CliIo {
  // The AWS SDK's own switch for its notice that releases after January 2027 need Node 22:
  // nine lines on stderr before the first S3/SQS/SNS command's output, about upgrading this
  // package's runtime (package.json `engines`), which a user of the CLI cannot act on.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
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
  endQuietlyWhenClosed(process.stdout);
  endQuietlyWhenClosed(process.stderr);
  return { stdout: process.stdout, stderr: process.stderr, env: process.env, now: Date.now, stopSignal, forceStopSignal };
}

/**
 * A reader that went away (`status | head`, a closed terminal) ends the process at once, quietly
 * and with exit 0: what it asked for, it read. Without a listener the failed write (EPIPE) is an
 * uncaught error with a stack trace.
 */
function endQuietlyWhenClosed(stream: NodeJS.WriteStream): void {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE' || error.code === 'ERR_STREAM_DESTROYED') process.exit(0);
    throw error;
  });
}

export async function runCli(): Promise<void> {
  const code = await main(process.argv.slice(2), processIo());
  process.exitCode = code;
  // Stopped by the user: whatever is still on its way (a read that never answers) is not waited for.
  if (code === EXIT_STOPPED) process.exit(code);
  // Nothing is left to do: a socket a timed-out probe left open must not keep the process alive.
  setTimeout(() => process.exit(code), 1_000).unref();
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await runCli();
}
