/**
 * The command line's entry point (the package's bin, `npm run cli`): the process's io, the
 * program of functions/cli/ (one file per command), and exit codes. The commands call the same
 * domain functions as the Lambdas, with other wiring.
 *
 *   mintlify-exporter export [--date D | --from D1 --to D2] [--project ID]... [--dataset NAME]... [--out DEST] [--force] [--json]
 *   mintlify-exporter plan   [--date D | --from D1 --to D2] [--project ID]... [--dataset NAME]... [--out DEST] [--json]
 *   mintlify-exporter status [--date D | --from D1 --to D2 | --days N] [--project ID]... [--dataset NAME]... [--out DEST] [--json]
 *   mintlify-exporter report [--days N | --from D1 --to D2] [--project ID]... [--out DEST] [--file PATH]
 *   mintlify-exporter sandbox [--port N] [--latency MS] [--budget N/WINDOW [--window fixed|rolling]] [--drift]
 *   mintlify-exporter follow-up --project ID --job ID --prompt TEXT [--no-wait] [--json]
 *   mintlify-exporter consume --queue-url URL [--wait-seconds N] [--outcomes-topic ARN] [--json]
 *   mintlify-exporter enqueue --queue-url URL (--job ID --prompt TEXT [--project ID] [--request-id ID] | --file PATH|-) [--json]
 *   mintlify-exporter dead-letters (list | redrive) --queue-url URL [--json]
 *
 * Exit codes: 0 success, 1 the work failed (named on stderr), 2 bad input or configuration
 * (one line naming the fix, before any request is sent), 130 stopped (Ctrl-C).
 */
import { pathToFileURL } from 'node:url';
import { CommanderError } from 'commander';
import { EXIT_STOPPED, type CliIo } from './cli/io.js';
import { createProgram } from './cli/program.js';
import { ConfigError, DestinationError, stripControlCharacters } from './shared/errors.js';

/** Runs the CLI and returns its exit code; never calls process.exit (tests call it in-process). */
export async function main(argv: readonly string[], io: CliIo): Promise<number> {
  let exitCode = 0;
  const program = createProgram(io, (code) => {
    exitCode = code;
  });
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
  // Nothing is left to do: a socket a timed-out probe left open must not keep the process alive.
  setTimeout(() => process.exit(code), 1_000).unref();
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await runCli();
}
