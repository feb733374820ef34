/**
 * The record every benchmark produces and the helpers to measure, print and save it.
 *
 * `results.json` maps a figure's name to `{ value, unit, goal, holds }` so that two runs can be
 * compared key by key. Figures that only give context (e.g. a competitor's speed) have
 * `goal: null` and `holds: null`: they are measured, not judged.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** How `value` is compared with `goal`. */
export type GoalKind = '<=' | '>=' | '==';

export interface Figure {
  readonly value: number;
  readonly unit: string;
  readonly goal: number | null;
  readonly holds: boolean | null;
  /** How value is compared with goal; absent when there is no goal. */
  readonly compare?: GoalKind;
  /** One short line for the table (what was measured, how many repetitions). */
  readonly note?: string;
}

export type Figures = Record<string, Figure>;

/** A judged figure: `holds` is computed from `value`, `goal` and `compare`. */
export function judged(value: number, unit: string, compare: GoalKind, goal: number, note?: string): Figure {
  const holds = compare === '<=' ? value <= goal : compare === '>=' ? value >= goal : value === goal;
  return { value: round(value), unit, goal: round(goal), holds, compare, ...(note === undefined ? {} : { note }) };
}

/** A context-only figure (no goal). */
export function info(value: number, unit: string, note?: string): Figure {
  return { value: round(value), unit, goal: null, holds: null, ...(note === undefined ? {} : { note }) };
}

/** Median of a non-empty list (mean of the middle two for an even count). */
export function median(values: readonly number[]): number {
  if (values.length === 0) throw new RangeError('median of no values');
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** Runs `fn` `times` times, one after the other, and returns every result. */
export async function repeat<T>(times: number, fn: (run: number) => Promise<T>): Promise<T[]> {
  const results: T[] = [];
  for (let run = 0; run < times; run++) results.push(await fn(run));
  return results;
}

/** Wall time of `fn` in ms (high-resolution clock) and its result. */
export async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; result: T }> {
  const started = performance.now();
  const result = await fn();
  return { ms: performance.now() - started, result };
}

/** Keeps 3 significant decimals for small numbers, integers for large ones: readable diffs. */
function round(value: number): number {
  if (!Number.isFinite(value)) return value;
  if (Math.abs(value) >= 1000) return Math.round(value);
  return Math.round(value * 1000) / 1000;
}

/** A fixed-width table: figure, value, unit, goal, verdict, note. */
export function formatTable(figures: Figures): string {
  const rows = Object.entries(figures).map(([name, f]) => [
    name,
    formatNumber(f.value),
    f.unit,
    f.goal === null ? '' : `${f.compare ?? ''} ${formatNumber(f.goal)}`.trim(),
    f.holds === null ? '' : f.holds ? 'ok' : 'MISSED',
    f.note ?? '',
  ]);
  const header = ['figure', 'value', 'unit', 'goal', 'holds', 'note'];
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => (row[column] as string).length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) => (column === 1 || column === 3 ? cell.padStart(widths[column] as number) : cell.padEnd(widths[column] as number)))
      .join('  ')
      .trimEnd();
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

function formatNumber(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  return Number.isInteger(value) ? value.toLocaleString('en-US') : value.toLocaleString('en-US', { maximumFractionDigits: 3 });
}

/** Writes `results.json` (figures only) and `details.json` (anything else worth keeping). */
export async function saveResults(outDir: string, figures: Figures, details: Record<string, unknown>): Promise<string> {
  await mkdir(outDir, { recursive: true });
  const file = path.join(outDir, 'results.json');
  await writeFile(file, `${JSON.stringify(figures, null, 2)}\n`);
  await writeFile(path.join(outDir, 'details.json'), `${JSON.stringify(details, null, 2)}\n`);
  return file;
}

/** What each benchmark module returns. */
export interface BenchResult {
  readonly figures: Figures;
  /** Kept in details.json: raw samples, top bundle inputs, anything behind a figure. */
  readonly details?: Record<string, unknown>;
}

const STARTED = performance.now();

/** Progress on stderr, so stdout keeps only the table; with the seconds since the start, to see where the time goes. */
export function progress(message: string): void {
  process.stderr.write(`[bench ${Math.round((performance.now() - STARTED) / 1000)}s] ${message}\n`);
}
