/** The CLI in a fresh node process (tsx, module loading included), as a user starts it. */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Runs `mintlify-exporter <args>` from the source; rejects on a non-zero exit with its stderr. */
export function runCli(args: readonly string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'functions/cli.ts', ...args], { cwd: REPO_ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.once('error', reject);
    child.once('close', (code) => (code === 0 ? resolve() : reject(new Error(`${args[0] ?? 'the CLI'} exited ${code}: ${stderr.trim()}`))));
  });
}
