/**
 * The embedded sandbox of a CLI run without a key, on a worker thread of its own: the export
 * and the sandbox it talks to then use two cores instead of sharing one (`npm start` exports
 * 14 days, 3,777 requests, ~800k rows: the sandbox's generating and answering was about 8 % of
 * the one thread's time, besides its share of HTTP and GC; on a thread, the run took 0.95× the
 * wall time, bench/README.md). The worker runs sandbox-thread-entry.mjs; the process reaches it
 * over HTTP on 127.0.0.1 as before. Tests and benchmarks that call `startSandbox` keep it in
 * their own process.
 */
import { Worker } from 'node:worker_threads';
import { startSandbox, type PlantedFix, type SandboxOptions } from '../../sandbox/index.js';
import type { CliIo, EmbeddedSandbox } from './io.js';

interface Ready {
  readonly url: string;
  readonly apiKey: string;
  readonly projectIds: readonly string[];
  readonly plantedFixes: readonly PlantedFix[];
}

/** What an embedded sandbox may be started with: its keys, projects and the day its past fixes are planted for (plain data: it crosses to the thread). */
export type EmbeddedSandboxOptions = Pick<SandboxOptions, 'apiKey' | 'moreApiKeys' | 'projects' | 'fixesAsOf'>;

/**
 * Starts the sandbox on a worker thread, or in this process if a thread cannot start it (the
 * same sandbox either way: only where its work runs differs).
 */
export async function startEmbeddedSandbox(io: Pick<CliIo, 'stderr'>, options: EmbeddedSandboxOptions = {}): Promise<EmbeddedSandbox> {
  try {
    return await startSandboxThread(io, options);
  } catch {
    return startSandbox(options);
  }
}

async function startSandboxThread(io: Pick<CliIo, 'stderr'>, options: EmbeddedSandboxOptions): Promise<EmbeddedSandbox> {
  // No inherited --import/--require: the entry registers the TypeScript loader itself, once.
  const worker = new Worker(new URL('./sandbox-thread-entry.mjs', import.meta.url), { execArgv: [], workerData: options });
  const ready = await new Promise<Ready>((resolve, reject) => {
    worker.once('message', (message: Ready) => resolve(message));
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the sandbox thread exited (code ${code}) before it listened`)));
  });
  worker.removeAllListeners();
  let closing: Promise<void> | undefined;
  worker.on('error', (error) => {
    if (closing === undefined) io.stderr.write(`The embedded sandbox stopped: ${error instanceof Error ? error.message : String(error)}\n`);
  });
  // It serves while the run needs it; it must not keep the process alive after the run.
  worker.unref();
  return {
    ...ready,
    threadId: worker.threadId,
    close() {
      closing ??= new Promise<void>((resolve) => {
        // Held again until the thread has closed the sandbox and exited: an unreferenced
        // worker would let the process end (exit 13) while `close` is awaited.
        worker.ref();
        worker.once('exit', () => resolve());
        worker.postMessage('close');
      });
      return closing;
    },
  };
}
