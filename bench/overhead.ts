/**
 * Figure 2 — overhead over the API's own latency. With a fixed latency L per request, a
 * 20,000-path day cannot take less than pages × L (the requests are sequential, the budget
 * forbids parallel ones). The engine prefetches the next page while the current one is
 * encoded — once the current one is staged (written and fsynced with its checkpoint, so a
 * stop never pays for it twice) — so the export should add at most 15 % to that floor.
 *
 * Visitors hold no personal column. With the personal-data policy on (issue 33), the same
 * figure over a `feedback` day of 5,000 rows (50 pages): every comment and code snippet masked,
 * every contact address HMAC'd, before the page is staged — measured against the floor, and
 * side by side with the same export under a policy that keeps every column as sent.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openDestination } from '../functions/shared/storage/destinations.js';
import { parsePolicyOverrides, resolvePolicy } from '../functions/warehouse/column-policy.js';
import type { ExportPolicy } from '../functions/export/policy.js';
import { createEngine, defaultSettings, manifestOf, unitOf, type Engine } from './lib/engine.js';
import { info, judged, median, progress, timed, type BenchResult } from './lib/figures.js';
import { nullDestination } from './lib/null-destination.js';
import { startSandboxProcess } from './lib/sandbox-process.js';

export const OVERHEAD_PATHS = 20_000;
export const OVERHEAD_LATENCY_MS = 50;
const PAGE = 250;
/** The feedback day of the policy figure, and its page size (the cursor endpoint's largest). */
export const POLICY_FEEDBACK_ROWS = 5_000;
const FEEDBACK_PAGE = 100;
/** Every personal column kept as sent: the policy switched off, for the side-by-side figure. */
const KEEP_ALL = 'feedback.contact=keep,feedback.comment=keep,feedback.code=keep,searches.search_query=keep,assistant.query=keep,assistant.response=keep';

export interface OverheadResult extends BenchResult {
  /** Median wall time of one export (ms), the denominator of figure 3's goal. */
  readonly wallMs: number;
}

export async function benchOverhead(runs = 3): Promise<OverheadResult> {
  // In its own process: its latency timers must not wait behind the export's encoding work.
  const sandbox = await startSandboxProcess({ latencyMs: OVERHEAD_LATENCY_MS });
  const dir = await mkdtemp(path.join(tmpdir(), 'mintlify-bench-overhead-'));
  const pages = Math.ceil(OVERHEAD_PATHS / PAGE);
  const floorMs = pages * OVERHEAD_LATENCY_MS;
  try {
    // Wired as the CLI wires a run: the budget gate (never waiting here) in front of every
    // request, unit leases, pages staged in the destination as they arrive.
    const unit = unitOf('visitors', `proj_synth_${OVERHEAD_PATHS}`, '2026-01-15');
    const local = createEngine({ apiUrl: sandbox.url, apiKey: sandbox.apiKey, destination: openDestination(dir) });
    // The same export into a destination that keeps nothing: the engine's own cost, without
    // the disk (each staged page is an fsync'd file and checkpoint before the next request).
    const nowhere = createEngine({ apiUrl: sandbox.url, apiKey: sandbox.apiKey, destination: nullDestination() });
    progress(`overhead: ${runs} exports of ${OVERHEAD_PATHS} paths at ${OVERHEAD_LATENCY_MS} ms per request (and ${runs} to a null destination)`);
    const exportOnce = async (engine: Engine, what = unit, expected = pages, settings?: ExportPolicy) => {
      const { ms, result } = await timed(() => engine.run([what], settings));
      if (manifestOf(result.units[0]).pages !== expected) throw new Error(`overhead: the export fetched ${result.requests} pages, not ${expected}`);
      return ms;
    };
    await exportOnce(local); // warm-up: JIT, connection, module init
    const samples: number[] = [];
    const nullSamples: number[] = [];
    // Interleaved, so a noisy neighbour hurts both alike.
    for (let run = 0; run < runs; run++) {
      samples.push(await exportOnce(local));
      nullSamples.push(await exportOnce(nowhere));
    }
    const wallMs = median(samples);
    const nullMs = median(nullSamples);

    // The policy on (the defaults: mask and hmac) and off (keep), interleaved.
    const feedback = unitOf('feedback', `proj_synth_${POLICY_FEEDBACK_ROWS}`, '2026-01-15');
    const feedbackPages = Math.ceil(POLICY_FEEDBACK_ROWS / FEEDBACK_PAGE);
    const feedbackFloorMs = feedbackPages * OVERHEAD_LATENCY_MS;
    const on = defaultSettings();
    const off = defaultSettings({ personalData: resolvePolicy(parsePolicyOverrides(KEEP_ALL, 'bench')) });
    progress(`overhead: ${runs} exports of a feedback day of ${POLICY_FEEDBACK_ROWS} rows with the personal-data policy on, and ${runs} with it off`);
    await exportOnce(local, feedback, feedbackPages, on);
    const onSamples: number[] = [];
    const offSamples: number[] = [];
    for (let run = 0; run < runs; run++) {
      onSamples.push(await exportOnce(local, feedback, feedbackPages, on));
      offSamples.push(await exportOnce(local, feedback, feedbackPages, off));
    }
    const onMs = median(onSamples);
    const offMs = median(offSamples);
    return {
      wallMs,
      figures: {
        'overhead.wall': info(wallMs, 'ms', `20k paths, L=${OVERHEAD_LATENCY_MS} ms, local dest, median of ${runs}`),
        'overhead.floor': info(floorMs, 'ms', `${pages} pages × ${OVERHEAD_LATENCY_MS} ms`),
        'overhead.ratio': judged(wallMs / floorMs, 'x floor', '<=', 1.15, 'wall ÷ (pages × L)'),
        'overhead.null_destination.ratio': info(nullMs / floorMs, 'x floor', `same export, null destination (no disk), median of ${runs}`),
        'overhead.policy.ratio': judged(
          onMs / feedbackFloorMs,
          'x floor',
          '<=',
          1.15,
          `feedback day of ${POLICY_FEEDBACK_ROWS} rows, policy on (mask + hmac), wall ÷ (${feedbackPages} pages × L), median of ${runs}`,
        ),
        'overhead.policy.keep_ratio': info(offMs / feedbackFloorMs, 'x floor', `the same day with every personal column kept (policy off), median of ${runs}`),
        'overhead.policy.on_vs_off': info(onMs / offMs, 'x', 'wall with the policy on ÷ wall with it off, interleaved'),
      },
      details: {
        overheadSamplesMs: samples,
        overheadNullSamplesMs: nullSamples,
        floorMs,
        pages,
        policyOnMs: onSamples,
        policyOffMs: offSamples,
        feedbackFloorMs,
      },
    };
  } finally {
    await sandbox.close();
    await rm(dir, { recursive: true, force: true });
  }
}
