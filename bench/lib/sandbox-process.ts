/** Starts bench/child/sandbox.ts in a child process (through tsx) and stops it again. */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { SandboxOptions } from '../../sandbox/index.js';

export interface SandboxProcess {
  readonly url: string;
  readonly apiKey: string;
  close(): Promise<void>;
}

export async function startSandboxProcess(options: SandboxOptions): Promise<SandboxProcess> {
  const script = fileURLToPath(new URL('../child/sandbox.ts', import.meta.url));
  const child = spawn(process.execPath, ['--import', 'tsx', script, JSON.stringify(options)], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout });
  const exited = once(child, 'exit');
  const first = await Promise.race([
    once(lines, 'line').then(([line]) => String(line)),
    exited.then(([code]) => {
      throw new Error(`the sandbox process exited (code ${String(code)}) before listening`);
    }),
  ]);
  const { url, apiKey } = JSON.parse(first) as { url: string; apiKey: string };
  return {
    url,
    apiKey,
    async close() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await exited;
    },
  };
}
