/**
 * What `effects` prints: one block per completed job made for a gap, the verdicts a lead acts on
 * first (`fixed`, `worse`, then `no_change`, `too_little_data`), each with its reason; `--json`:
 * `{"effects":[…]}` in the contract's shape (completion order, latest first). Keys (page paths,
 * terms, categories) are readers' words: shown through readerText; ids and links through displayText.
 */
import { VERDICTS_FIRST } from '../../gaps/effect.js';
import { byVerdict, type FixEffectsResult } from '../../gaps/fix-effects.js';
import { displayText } from '../../shared/display.js';
import { readerText } from '../../shared/reader-text.js';
import type { CliIo } from '../io.js';
import { writeJson } from './json.js';

export interface EffectsOutput {
  readonly json: boolean;
  /** Keys written by `--save`. */
  readonly saved?: readonly string[] | undefined;
}

export function printEffects(result: FixEffectsResult, output: EffectsOutput, io: Pick<CliIo, 'stdout' | 'stderr'>): void {
  if (output.json) {
    writeJson(io.stdout, { effects: result.effects });
  } else {
    const width = Math.max(...result.effects.map((e) => e.verdict.length));
    for (const e of byVerdict(result.effects)) {
      const what = e.kind === null ? `gap ${e.gapId} (not found in the warehouse)` : `${e.kind} ${readerText(e.key ?? '', 'quote')}`;
      const job = e.jobId === null ? 'a job' : `job ${displayText(e.jobId)}`;
      const pr = e.prLink === null ? '' : `, ${displayText(e.prLink)}`;
      io.stdout.write(`${e.verdict.padEnd(width)}  ${e.projectId}  ${what}: ${job} completed ${e.completedDay}${pr}\n`);
      io.stdout.write(`${' '.repeat(width)}  ${e.reason}\n`);
    }
  }
  const summary = VERDICTS_FIRST.map((verdict) => [verdict, result.effects.filter((e) => e.verdict === verdict).length] as const)
    .filter(([, n]) => n > 0)
    .map(([verdict, n]) => `${n} ${verdict}`)
    .join(', ');
  io.stderr.write(`${result.effects.length} completed job(s) made for a gap in ${result.destination}: ${summary}\n`);
  if (output.saved !== undefined) io.stderr.write(`Verdicts written to the fix_effects table: ${output.saved.join(', ') || 'none'}\n`);
}
