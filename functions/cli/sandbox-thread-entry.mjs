// The worker thread of functions/cli/sandbox-thread.ts: starts the sandbox, says where it
// listens, closes it when asked. Plain JavaScript that registers tsx's loader itself (the
// thread is started without the process's own flags), as bin/mintlify-exporter.js does.
import { parentPort, workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
const { startSandbox } = await import('../../sandbox/index.ts');
// workerData: the keys and projects of the organisations it serves (none: its own key and projects), the day its past fixes are planted for.
const sandbox = await startSandbox(workerData ?? {});
parentPort.postMessage({ url: sandbox.url, apiKey: sandbox.apiKey, projectIds: [...sandbox.projectIds], plantedFixes: [...sandbox.plantedFixes] });
parentPort.once('message', async () => {
  await sandbox.close();
  parentPort.close();
});
