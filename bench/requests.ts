/**
 * Figure 1 — requests. The analytics budget is about 100 requests per organisation per hour,
 * so a day of P paths must cost exactly ceil(P/250) successful requests, no page fetched
 * twice, also when the API answers a 429 and a 503 on the way (the retries are extra
 * attempts, not extra pages).
 */
import { createApiClient } from '../functions/shared/api-client.js';
import { exportDay } from '../functions/export/run.js';
import { startSandbox, type Sandbox } from '../sandbox/index.js';
import { judged, median, progress, repeat, type BenchResult, type Figures } from './lib/figures.js';
import { nullDestination } from './lib/null-destination.js';

export const REQUEST_PATH_COUNTS = [1, 250, 251, 20_000, 100_000] as const;
const DAY = '2026-01-15';
const PAGE = 250;

interface Sample {
  readonly successful: number;
  readonly refetched: number;
  readonly attempts: number;
}

/** Exports one day of `proj_synth_<paths>` and reads the sandbox's log of what it was asked. */
async function measure(sandbox: Sandbox, paths: number, withFaults: boolean): Promise<Sample> {
  const projectId = `proj_synth_${paths}`;
  const pages = Math.ceil(paths / PAGE);
  sandbox.clearRequests();
  sandbox.clearFaults();
  if (withFaults) {
    // A 429 (Retry-After: 0, i.e. "use your backoff") half-way, and a 503 on the last page.
    sandbox.addFault({ kind: 'rate-limit', route: 'visitors', projectId, offset: Math.floor(pages / 2) * PAGE, retryAfter: 0 });
    sandbox.addFault({ kind: 'server-error', route: 'visitors', projectId, offset: (pages - 1) * PAGE, status: 503 });
  }
  const api = createApiClient({
    baseUrl: sandbox.url,
    apiKey: sandbox.apiKey,
    // Backoff sleeps are not what this figure is about.
    sleep: async () => undefined,
    minDelayMs: 1,
    maxDelayMs: 1,
  });
  await exportDay({ projectId, day: DAY }, { limit: PAGE, maxPages: 10_000, exportedAt: Date.now() }, { api, destination: nullDestination(), now: Date.now });
  const visitors = sandbox.requests.filter((entry) => entry.route === 'visitors' && entry.projectId === projectId);
  const ok = visitors.filter((entry) => entry.status === 200);
  const offsets = new Set(ok.map((entry) => entry.query['offset'] ?? '0'));
  if (withFaults && !visitors.some((entry) => entry.status === 429) ) throw new Error(`${projectId}: the injected 429 was not served`);
  if (withFaults && !visitors.some((entry) => entry.status === 503)) throw new Error(`${projectId}: the injected 503 was not served`);
  return { successful: ok.length, refetched: ok.length - offsets.size, attempts: visitors.length };
}

export async function benchRequests(): Promise<BenchResult> {
  const sandbox = await startSandbox();
  const figures: Figures = {};
  const details: Record<string, unknown> = {};
  try {
    for (const withFaults of [false, true]) {
      for (const paths of REQUEST_PATH_COUNTS) {
        const label = `requests.p${paths}${withFaults ? '.faults' : ''}`;
        progress(`${label}`);
        const samples = await repeat(3, () => measure(sandbox, paths, withFaults));
        const minimum = Math.ceil(paths / PAGE);
        const successful = median(samples.map((s) => s.successful));
        const refetched = Math.max(...samples.map((s) => s.refetched));
        const attempts = median(samples.map((s) => s.attempts));
        const note = `${withFaults ? '429+503 injected; ' : ''}${attempts} attempts, 3 runs`;
        figures[`${label}.successful`] = judged(successful, 'requests', '==', minimum, note);
        figures[`${label}.refetched`] = judged(refetched, 'pages', '==', 0, 'worst of 3 runs');
        details[label] = samples;
      }
    }
  } finally {
    await sandbox.close();
  }
  return { figures, details };
}
