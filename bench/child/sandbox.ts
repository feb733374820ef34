/**
 * The sandbox in its own process, so its timers (the simulated API latency) do not share an
 * event loop with the export being measured. Input: `SandboxOptions` as one JSON argument
 * (`port` and `latencyMs` are what matter). Prints one JSON line `{ url, apiKey }` once it
 * listens; stops when its stdin closes (the parent exited) or on SIGTERM.
 */
import { startSandbox, type SandboxOptions } from '../../sandbox/index.js';

const options = JSON.parse(process.argv[2] ?? '{}') as SandboxOptions;
const sandbox = await startSandbox(options);
process.stdout.write(`${JSON.stringify({ url: sandbox.url, apiKey: sandbox.apiKey })}\n`);
const stop = () => void sandbox.close().then(() => process.exit(0));
process.on('SIGTERM', stop);
process.stdin.on('end', stop);
process.stdin.resume();
