/**
 * Role: running the CLI. In this process — `main(argv, io)` with captured output and a given
 * environment and clock — or as a real child process: the TypeScript source under tsx, or the
 * published bin. Environments to give it are in `env.ts`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { main } from '../../functions/cli.js';
import type { CliIo } from '../../functions/cli/io.js';
import type { Sleep } from '../../functions/shared/time.js';
import { cliEnv } from './env.js';

/** The repository root, the working folder of child processes. */
export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The published entry: `bin/mintlify-exporter.js`. */
export const BIN = fileURLToPath(new URL('../../bin/mintlify-exporter.js', import.meta.url));

/** How a CLI run ended and what it printed. */
export interface CliRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export interface InProcessOptions {
  /** The whole environment the CLI reads. */
  readonly env: Record<string, string | undefined>;
  readonly now: () => number;
  /** The budget's and retries' sleep: a fake one advances `now`. @default the CLI's real sleep */
  readonly sleep?: Sleep;
  /** Resolves when the user stops the run (the first Ctrl-C). @default never */
  readonly stopSignal?: Promise<void>;
  /** Resolves when the user stops it again (the second Ctrl-C). */
  readonly forceStopSignal?: Promise<void>;
  /** Test hooks the export commands read (e.g. `clients` for an emulator's S3 client). */
  readonly extra?: object;
}

/** Runs `main(argv)` in this process with captured output, `env` as the whole environment, and the given clock. */
export async function runCliInProcess(argv: readonly string[], options: InProcessOptions): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text), isTTY: false },
    env: options.env,
    now: options.now,
    stopSignal: options.stopSignal ?? new Promise<void>(() => undefined),
    ...(options.forceStopSignal ? { forceStopSignal: options.forceStopSignal } : {}),
    ...(options.sleep ? { sleep: options.sleep } : {}),
    ...options.extra,
  };
  const code = await main(argv, io);
  return { code, stdout, stderr };
}

/**
 * `runCliInProcess` against `api` (the sandbox) as the dataset tests run it: the clock stands
 * at `now`, sleeps return at once, a 5 s request timeout, a budget far above what a test
 * spends, and the ledger in a fresh state folder. `env` adds or overrides variables.
 */
export async function runCliAt(
  api: { readonly url: string; readonly apiKey: string },
  argv: readonly string[],
  options: { readonly now: number; readonly env?: Record<string, string> },
): Promise<CliRun> {
  const env = await cliEnv(api, { API_TIMEOUT_MS: '5000', ANALYTICS_BUDGET: '100000/1h', ...options.env });
  return runCliInProcess(argv, { env, now: () => options.now, sleep: async () => undefined });
}

// --- a child process ------------------------------------------------------------------------------

export interface SpawnOptions {
  /**
   * `bin` runs the published entry (`bin/mintlify-exporter.js`: the CLI's cached bundle, as a
   * user runs it); `source` the TypeScript source under tsx. @default 'bin'
   */
  readonly entry?: 'source' | 'bin';
  /** The working folder; only with `entry: 'bin'` (the source is found from the root). @default REPO_ROOT */
  readonly cwd?: string;
  /** Written to stdin, which is then closed; without it the child has no stdin. */
  readonly stdin?: string;
  /** Node options before the entry, e.g. `['--import', preloadUrl]`. */
  readonly nodeArgs?: readonly string[];
  /** Run as another user (permission tests). */
  readonly uid?: number;
  readonly gid?: number;
}

export interface CliChild {
  readonly child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves when the process has exited and its output is read. */
  readonly exited: Promise<{ readonly code: number | null; readonly signal: NodeJS.Signals | null }>;
}

/** The real CLI in a child process with `env` as its whole environment (plus PATH). */
export function spawnCli(args: readonly string[], env: Record<string, string>, options: SpawnOptions = {}): CliChild {
  if (options.cwd !== undefined && options.entry === 'source') throw new Error('spawnCli: a cwd other than the repository root needs entry: bin');
  const entry = options.entry === 'source' ? ['--import', 'tsx', 'functions/cli.ts'] : [BIN];
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), ...entry, ...args], {
    cwd: options.cwd ?? REPO_ROOT,
    env: { PATH: process.env['PATH'] ?? '', ...env },
    stdio: [options.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    ...(options.uid !== undefined ? { uid: options.uid } : {}),
    ...(options.gid !== undefined ? { gid: options.gid } : {}),
  });
  let out = '';
  let err = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
  if (options.stdin !== undefined) child.stdin?.end(options.stdin);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('close', (code, signal) => resolve({ code, signal }));
  });
  return { child, stdout: () => out, stderr: () => err, exited };
}

/** `spawnCli` to its end: how it exited and everything it printed. */
export async function runSpawnedCli(
  args: readonly string[],
  env: Record<string, string>,
  options: SpawnOptions = {},
): Promise<{ readonly code: number | null; readonly signal: NodeJS.Signals | null; readonly stdout: string; readonly stderr: string }> {
  const cli = spawnCli(args, env, options);
  const { code, signal } = await cli.exited;
  return { code, signal, stdout: cli.stdout(), stderr: cli.stderr() };
}

/** Polls `predicate` every few ms until it holds; throws naming `what` after `timeoutMs`. */
export async function waitUntil(predicate: () => boolean | Promise<boolean>, what: string, timeoutMs = 15_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > until) throw new Error(`timed out after ${timeoutMs} ms waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

/**
 * The bin under a pseudo-terminal of `columns` columns (util-linux `script`), as a user at a
 * terminal runs it: stderr and stdout are a terminal, and what the terminal received (both,
 * in order, with `\r\n` line ends) is returned.
 */
export async function runCliInTerminal(
  args: readonly string[],
  env: Record<string, string>,
  options: { readonly columns: number },
): Promise<{ readonly code: number | null; readonly output: string }> {
  const quote = (word: string) => `'${word.replaceAll("'", `'\\''`)}'`;
  const command = `stty cols ${options.columns} rows 24; exec ${[process.execPath, BIN, ...args].map(quote).join(' ')}`;
  const child = spawn('script', ['-qec', command, '/dev/null'], {
    cwd: REPO_ROOT,
    env: { PATH: process.env['PATH'] ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const code = await new Promise<number | null>((resolve) => child.once('close', (exit) => resolve(exit)));
  return { code, output };
}
