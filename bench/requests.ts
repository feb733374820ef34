/**
 * Figure 1 — requests. The analytics budget is about 100 requests per organisation per hour,
 * so every unit must cost exactly the paging minimum, no page fetched twice:
 *
 * - visitors (as before): a day of P paths costs ceil(P/250) successful requests, also when
 *   the API answers a 429 and a 503 on the way (the retries are extra attempts, not pages);
 * - every dataset (issue 9): one unit of `proj_synth_<N>` (N rows a day in every paged
 *   dataset) costs ceil(rows/limit) requests in all, `limit` being the endpoint's largest
 *   (offset: visitors/views 250; cursor: searches/feedback 100, assistant 1000 — the
 *   sandbox's cursor is null on the page that holds the last row, so no empty trailing page is
 *   needed), and 1 for feedback_by_page and caller_stats, which no request can page.
 *
 * Driven through the engine (`runUnits` behind the budget gate) on a simulated clock: the
 * client's backoff and the gate's pause after a 429 advance it instead of sleeping.
 */
import { DATASETS } from '../functions/export/datasets.js';
import type { DatasetName } from '../functions/warehouse/catalog.js';
import { startSandbox, type Sandbox } from '../sandbox/index.js';
import { createEngine, manifestOf, unitOf, type Clock } from './lib/engine.js';
import { judged, median, progress, repeat, type BenchResult, type Figures } from './lib/figures.js';
import { nullDestination } from './lib/null-destination.js';
import { refetchedPages, requestsOf } from './lib/request-log.js';

export const REQUEST_PATH_COUNTS = [1, 250, 251, 20_000, 100_000] as const;
const DAY = '2026-01-15';
const PAGE = 250;

/**
 * Each dataset's paging and the largest `limit` its endpoint accepts (the API's contract, not
 * the engine's settings: an engine asking for less would show here as extra requests), with
 * the row counts tried: 1, one full page, one row more, many pages.
 */
export const PAGING_CASES: readonly { readonly dataset: DatasetName; readonly limit: number | null; readonly rows: readonly number[] }[] = [
  { dataset: 'views', limit: 250, rows: [1, 250, 251, 20_000] },
  { dataset: 'searches', limit: 100, rows: [1, 100, 101, 10_000] },
  { dataset: 'feedback', limit: 100, rows: [1, 100, 101, 10_000] },
  { dataset: 'assistant', limit: 1000, rows: [1, 1000, 1001, 20_000] },
  // One request whatever the size; 10,000 feedback rows spread over more than 100 pages (truncated).
  { dataset: 'feedback_by_page', limit: null, rows: [1, 10_000] },
  { dataset: 'caller_stats', limit: null, rows: [1, 10_000] },
];

/** A simulated clock: backoff sleeps are not what this figure is about. */
function simulatedClock(): Clock {
  let time = Date.now();
  return { now: () => time, sleep: async (ms) => void (time += ms) };
}

interface Sample {
  readonly successful: number;
  readonly refetched: number;
  readonly attempts: number;
  readonly rows: number;
}

/** Exports one unit of `proj_synth_<rows>` and reads the sandbox's log of what it was asked. */
async function measure(sandbox: Sandbox, dataset: DatasetName, rows: number, withFaults: boolean): Promise<Sample> {
  const projectId = `proj_synth_${rows}`;
  const pages = Math.ceil(rows / PAGE);
  sandbox.clearRequests();
  sandbox.clearFaults();
  if (withFaults) {
    // A 429 (Retry-After: 0, i.e. "use your backoff") half-way, and a 503 on the last page.
    sandbox.addFault({ kind: 'rate-limit', route: 'visitors', projectId, offset: Math.floor(pages / 2) * PAGE, retryAfter: 0 });
    sandbox.addFault({ kind: 'server-error', route: 'visitors', projectId, offset: (pages - 1) * PAGE, status: 503 });
  }
  const engine = createEngine({
    apiUrl: sandbox.url,
    apiKey: sandbox.apiKey,
    destination: nullDestination(),
    clock: simulatedClock(),
    client: { minDelayMs: 1, maxDelayMs: 1 },
  });
  const summary = await engine.run([unitOf(dataset, projectId, DAY)]);
  const manifest = manifestOf(summary.units[0]);
  const entries = requestsOf(sandbox.requests, dataset, projectId);
  if (withFaults && !entries.some((entry) => entry.status === 429)) throw new Error(`${projectId}: the injected 429 was not served`);
  if (withFaults && !entries.some((entry) => entry.status === 503)) throw new Error(`${projectId}: the injected 503 was not served`);
  const ok = entries.filter((entry) => entry.status === 200 && entry.fault === undefined);
  const written = manifest.rows[DATASETS[dataset].table.name] ?? 0;
  const expected = sandbox.data.rowCount(dataset, projectId, DAY);
  // A request count is only worth something for a complete, correct export.
  if (written !== expected) throw new Error(`requests: ${dataset} ${projectId} wrote ${written} rows, the sandbox has ${expected}`);
  return { successful: ok.length, refetched: refetchedPages(entries), attempts: entries.length, rows: written };
}

export async function benchRequests(): Promise<BenchResult> {
  const sandbox = await startSandbox();
  const figures: Figures = {};
  const details: Record<string, unknown> = {};
  try {
    for (const withFaults of [false, true]) {
      for (const paths of REQUEST_PATH_COUNTS) {
        const label = `requests.p${paths}${withFaults ? '.faults' : ''}`;
        progress(label);
        // Counts are deterministic: three runs guard the small days, one the 400-page one (~10 s each).
        const runs = paths >= 100_000 ? 1 : 3;
        const samples = await repeat(runs, () => measure(sandbox, 'visitors', paths, withFaults));
        const minimum = Math.ceil(paths / PAGE);
        const successful = median(samples.map((s) => s.successful));
        const refetched = Math.max(...samples.map((s) => s.refetched));
        const attempts = median(samples.map((s) => s.attempts));
        const note = `${withFaults ? '429+503 injected; ' : ''}${attempts} attempts, ${runs} run(s)`;
        figures[`${label}.successful`] = judged(successful, 'requests', '==', minimum, note);
        figures[`${label}.refetched`] = judged(refetched, 'pages', '==', 0, `worst of ${runs} run(s)`);
        details[label] = samples;
      }
    }

    // Issue 9: every dataset's unit costs its paging minimum, every attempt counted.
    for (const { dataset, limit, rows: sizes } of PAGING_CASES) {
      progress(`requests: ${dataset}, ${sizes.length} unit sizes`);
      let refetched = 0;
      for (const rows of sizes) {
        const sample = await measure(sandbox, dataset, rows, false);
        const expectedRows = sandbox.data.rowCount(dataset, `proj_synth_${rows}`, DAY);
        const minimum = limit === null ? 1 : Math.ceil(expectedRows / limit);
        const rule = limit === null ? 'one request, no paging' : `ceil(${expectedRows} rows / ${limit})`;
        figures[`requests.${dataset}.n${rows}.sent`] = judged(
          sample.attempts,
          'requests',
          '==',
          minimum,
          `${rule}; ${sample.successful} answered 200; ${sample.rows} rows written`,
        );
        refetched = Math.max(refetched, sample.refetched);
        details[`requests.${dataset}.n${rows}`] = { ...sample, expectedRows, minimum };
      }
      figures[`requests.${dataset}.refetched`] = judged(refetched, 'pages', '==', 0, `worst of n=${sizes.join('/')}`);
    }
  } finally {
    await sandbox.close();
  }
  return { figures, details };
}
