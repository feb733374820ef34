/**
 * The Parquet writer's shredding, side by side: the project's writer
 * (functions/export/parquet.ts) with its flat-schema shredder, and the same writer with
 * parquetjs-lite's own `shredRecord` put back, on the same 100k visitors rows (the sandbox's
 * generator), converted and appended as the engine does, to a null sink. Interleaved runs, so
 * a noisy neighbour hurts both alike; the files' bytes are compared too (they must be equal).
 *
 * `npm run bench -- writer` (seconds; figure 3, `encoding`, compares parquetjs-lite with other
 * writers).
 */
import { Writable } from 'node:stream';
import parquet from 'parquetjs-lite';
import type { PageVisitors } from '../functions/shared/api-types.js';
import { DATASET_SPECS, DATASETS, type RowContext } from '../functions/export/datasets.js';
import { installFlatShredder, LIBRARY_SHRED_RECORD, openTableWriter } from '../functions/export/parquet.js';
import type { PendingWrite } from '../functions/shared/storage/destination.js';
import { sampleRows } from './encoding.js';
import { info, judged, median, progress, timed, type BenchResult, type Figures } from './lib/figures.js';

const ROWS = 100_000;
const RUNS = 3;
const VISITORS = DATASETS.visitors;
const CONTEXT: RowContext = { projectId: 'proj_bench', date: '2026-01-15', exportedAt: new Date(Date.UTC(2026, 0, 16, 2)) };

/** A pending write that keeps the bytes in memory (to compare the two writers' files). */
function memoryPendingWrite(): { pending: PendingWrite; bytes: () => Buffer } {
  const chunks: Buffer[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      chunks.push(Buffer.from(chunk));
      callback();
    },
  });
  const pending: PendingWrite = {
    stream,
    async commit() {
      if (!stream.writableFinished) await new Promise<void>((resolve, reject) => stream.once('finish', resolve).once('error', reject));
      return { bytes: chunks.reduce((sum, chunk) => sum + chunk.length, 0) };
    },
    async abort() {
      stream.destroy();
    },
  };
  return { pending, bytes: () => Buffer.concat(chunks) };
}

async function encode(rows: readonly PageVisitors[], flat: boolean): Promise<Buffer> {
  const target = memoryPendingWrite();
  const writer = await openTableWriter(VISITORS.table, target.pending);
  // openTableWriter installs the flat shredder; the library's run puts the original back.
  if (!flat) parquet.ParquetShredder.shredRecord = LIBRARY_SHRED_RECORD;
  try {
    for (const row of rows) await writer.append(DATASET_SPECS.visitors.toRow(row, CONTEXT));
    await writer.close();
  } finally {
    parquet.ParquetShredder.shredRecord = LIBRARY_SHRED_RECORD;
    installFlatShredder();
  }
  return target.bytes();
}

export async function benchWriter(): Promise<BenchResult> {
  progress(`writer: ${ROWS / 1000}k rows × ${RUNS} runs, flat shredder and the library's`);
  const rows = sampleRows(ROWS);
  await encode(rows.slice(0, 10_000), true); // warm-up (JIT, module init)
  await encode(rows.slice(0, 10_000), false);
  const flatMs: number[] = [];
  const libraryMs: number[] = [];
  let same = true;
  for (let run = 0; run < RUNS; run++) {
    const library = await timed(() => encode(rows, false));
    const flat = await timed(() => encode(rows, true));
    libraryMs.push(library.ms);
    flatMs.push(flat.ms);
    same &&= flat.result.equals(library.result);
  }
  const figures: Figures = {
    'writer.flat.100k.ms': info(median(flatMs), 'ms', `median of ${RUNS}`),
    'writer.library.100k.ms': info(median(libraryMs), 'ms', `median of ${RUNS}`),
    'writer.flat_vs_library.100k.time': info(median(flatMs) / median(libraryMs), 'ratio', 'writing time, flat shredder ÷ the library'),
    'writer.same_bytes': judged(same ? 1 : 0, 'bool', '==', 1, 'the two files are byte for byte equal'),
  };
  return { figures, details: { 'writer.100k': { flatMs, libraryMs } } };
}
