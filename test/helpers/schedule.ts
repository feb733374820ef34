/**
 * Helpers of the budget-schedule tests: what the sandbox's request log says about pacing and
 * paging (starts per window, pages fetched more than once), the expected warehouse rows of a
 * unit computed from `sandbox.data`, reading a unit's tables back with DuckDB (local globs or
 * any `Destination`), checking a manifest against the files it describes, the CLI in process
 * on a fake clock, and the CLI as a real child process.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { main, type CliIo } from '../../functions/cli.js';
import type { Sleep } from '../../functions/shared/retry.js';

/** The repository root, for child processes (`node --import tsx functions/cli.ts …`). */
export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

// --- the CLI ----------------------------------------------------------------------------------

export interface InProcessCli {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs `main(argv)` in this process with captured output, `env` as the whole environment, and
 * a clock (`now`, and `sleep` for the budget and retries: a fake one that advances `now`).
 */
export async function runCliInProcess(
  argv: readonly string[],
  options: {
    readonly env: Record<string, string | undefined>;
    readonly now: () => number;
    readonly sleep?: Sleep;
    readonly stopSignal?: Promise<void>;
    readonly extra?: object;
  },
): Promise<InProcessCli> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text), isTTY: false },
    env: options.env,
    now: options.now,
    stopSignal: options.stopSignal ?? new Promise<void>(() => undefined),
    ...(options.sleep ? { sleep: options.sleep } : {}),
    // Test hooks the export commands read (e.g. `clients` for an emulator's S3 client).
    ...options.extra,
  };
  const code = await main(argv, io);
  return { code, stdout, stderr };
}

export interface CliChild {
  readonly child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves when the process has exited. */
  readonly exited: Promise<{ readonly code: number | null; readonly signal: NodeJS.Signals | null }>;
}

/**
 * The real CLI in a child process: `node --import tsx functions/cli.ts <args>`, with `env` as
 * its whole environment (plus PATH), optionally as another user (`uid`, for permission tests).
 */
export function spawnCli(args: readonly string[], env: Record<string, string>, options: { readonly uid?: number; readonly gid?: number } = {}): CliChild {
  const child = spawn(process.execPath, ['--import', 'tsx', 'functions/cli.ts', ...args], {
    cwd: REPO_ROOT,
    env: { PATH: process.env['PATH'] ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(options.uid !== undefined ? { uid: options.uid } : {}),
    ...(options.gid !== undefined ? { gid: options.gid } : {}),
  });
  let out = '';
  let err = '';
  child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('close', (code, signal) => resolve({ code, signal }));
  });
  return { child, stdout: () => out, stderr: () => err, exited };
}

/** Polls `predicate` every few ms until it holds; throws naming `what` after `timeoutMs`. */
export async function waitUntil(predicate: () => boolean | Promise<boolean>, what: string, timeoutMs = 15_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > until) throw new Error(`timed out after ${timeoutMs} ms waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}
