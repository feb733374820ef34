/**
 * What the command line reads and writes. `functions/cli.ts` builds the process's (real
 * streams, env, clock, signals); tests pass their own.
 */
import type { Sleep } from '../shared/time.js';
import type { Organisation } from '../organisations/organisations.js';
import type { PlantedFix } from '../../sandbox/index.js';

/** What the CLI reads and writes; tests pass their own. */
export interface CliIo {
  readonly stdout: { write(text: string): unknown };
  readonly stderr: { write(text: string): unknown; readonly isTTY?: boolean; readonly columns?: number };
  /** Handed to `loadConfig` only: nothing else reads the environment. */
  readonly env: Record<string, string | undefined>;
  readonly now: () => number;
  /** Resolves when the user asks to stop (SIGINT/SIGTERM); long-running commands await it. */
  readonly stopSignal: Promise<void>;
  /** Resolves when the user asks a second time: stop at once, whatever it costs. */
  readonly forceStopSignal?: Promise<void>;
  /** Test hook: a fake clock's sleep for the budget and retries. @default a real timer */
  readonly sleep?: Sleep;
  /**
   * Many organisations without MINTLIFY_API_URL (cli/organisations.ts): the embedded sandbox serving every
   * organisation of MINTLIFY_ORGS_FILE with its key, started on first use and shared by their runs.
   */
  readonly organisationsSandbox?: () => Promise<EmbeddedSandbox>;
  /** MINTLIFY_ORGS_FILE's organisations, for the commands that route each prompt to its organisation (`consume`, `enqueue`). */
  readonly organisations?: readonly Organisation[];
}

/** Exit code of a command stopped by the user (128 + SIGINT). */
export const EXIT_STOPPED = 130;

/** What the CLI needs of its embedded sandbox. */
export interface EmbeddedSandbox {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  readonly apiKey: string;
  readonly projectIds: readonly string[];
  /** The past fixes it planted (completed jobs with a known effect); the export writes their outcome records (sandbox-fixes.ts). */
  readonly plantedFixes?: readonly PlantedFix[];
  /** The worker thread serving it; undefined when it runs in this process's own thread. */
  readonly threadId?: number;
  /** Stops the sandbox (and its thread). Safe to call more than once. */
  close(): Promise<void>;
}
