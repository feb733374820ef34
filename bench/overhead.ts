/**
 * Figure 2 — overhead over the API's own latency. With a fixed latency L per request, a
 * 20,000-path day cannot take less than pages × L (the requests are sequential, the budget
 * forbids parallel ones). The engine prefetches the next page while the current one is
 * encoded — once the current one is staged (written and fsynced with its checkpoint, so a
 * stop never pays for it twice) — so the export should add at most 15 % to that floor.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openDestination } from '../functions/shared/storage/destinations.js';
import { createEngine, manifestOf, unitOf, type Engine } from './lib/engine.js';
import { info, judged, median, progress, timed, type BenchResult } from './lib/figures.js';
import { nullDestination } from './lib/null-destination.js';
import { startSandboxProcess } from './lib/sandbox-process.js';

export const OVERHEAD_PATHS = 20_000;
export const OVERHEAD_LATENCY_MS = 50;
const PAGE = 250;

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
    const exportOnce = async (engine: Engine) => {
      const { ms, result } = await timed(() => engine.run([unit]));
      if (manifestOf(result.units[0]).pages !== pages) throw new Error(`overhead: the export fetched ${result.requests} pages, not ${pages}`);
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
    return {
      wallMs,
      figures: {
        'overhead.wall': info(wallMs, 'ms', `20k paths, L=${OVERHEAD_LATENCY_MS} ms, local dest, median of ${runs}`),
        'overhead.floor': info(floorMs, 'ms', `${pages} pages × ${OVERHEAD_LATENCY_MS} ms`),
        'overhead.ratio': judged(wallMs / floorMs, 'x floor', '<=', 1.15, 'wall ÷ (pages × L)'),
        'overhead.null_destination.ratio': info(nullMs / floorMs, 'x floor', `same export, null destination (no disk), median of ${runs}`),
      },
      details: { overheadSamplesMs: samples, overheadNullSamplesMs: nullSamples, floorMs, pages },
    };
  } finally {
    await sandbox.close();
    await rm(dir, { recursive: true, force: true });
  }
}
