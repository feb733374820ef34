/**
 * What `effects` prints: first the portfolio (one line per project and gap kind: do its fixes
 * work on average), then one block per completed job made for a gap, the verdicts a lead acts on
 * first (`fixed`, `worse`, then `no_change`, `inconclusive`, `too_little_data`, then the jobs not
 * measured), each with its reason; `--json`: `{"effects":[…],"portfolio":[…]}` in the contract's
 * shape (completion order, latest first). Keys (page paths, terms, categories) are readers' words:
 * shown through readerText; every id, link and day read from a record through displayText (the
 * one cleaning function: no escape sequence or forged line reaches the terminal).
 */
import { VERDICTS_FIRST } from '../../gaps/effect.js';
import { byVerdict, type VerdictsResult } from '../../gaps/verdict-rows.js';
import type { Verdict } from '../../gaps/verdict.js';
import { displayText } from '../../shared/display.js';
import { readerText } from '../../shared/reader-text.js';
import type { CliIo } from '../io.js';
import { writeJson } from './json.js';

export interface EffectsOutput {
  readonly json: boolean;
  /** Keys written by `--save`. */
  readonly saved?: readonly string[] | undefined;
}

export function printEffects(result: VerdictsResult, output: EffectsOutput, io: Pick<CliIo, 'stdout' | 'stderr'>): void {
  if (output.json) {
    writeJson(io.stdout, { effects: result.effects, portfolio: result.portfolio });
  } else {
    const width = Math.max(...result.effects.map((e) => label(e.verdict).length), ...result.portfolio.map((p) => p.verdict.length));
    for (const p of result.portfolio) {
      io.stdout.write(`${p.verdict.padEnd(width)}  ${displayText(p.projectId)}  all ${p.kind} fixes: ${p.reason}\n`);
    }
    if (result.portfolio.length > 0) io.stdout.write('\n');
    for (const e of byVerdict(result.effects)) {
      const what = e.kind === null ? `gap ${displayText(e.gapId)} (not found in the warehouse)` : `${e.kind} ${readerText(e.key ?? '', 'quote')}`;
      const job = e.jobId === null ? 'a job' : `job ${displayText(e.jobId)}`;
      const pr = e.prLink === null ? '' : `, ${displayText(e.prLink)}`;
      const merged = e.mergedDay === null ? '' : `, merged ${e.mergedDay}`;
      io.stdout.write(`${label(e.verdict).padEnd(width)}  ${displayText(e.projectId)}  ${what}: ${job} completed ${e.completedDay}${merged}${pr}\n`);
      io.stdout.write(`${' '.repeat(width)}  ${e.reason}\n`);
      if (e.laterJobs.length > 0) {
        const later = e.laterJobs.map((j) => `${j.jobId === null ? 'a job' : `job ${displayText(j.jobId)}`} completed ${j.completedDay}`).join(', ');
        io.stdout.write(`${' '.repeat(width)}  later jobs for the same gap, not measured (the earliest is the fix): ${later}\n`);
      }
    }
  }
  const summary = [...VERDICTS_FIRST, null]
    .map((verdict) => [label(verdict), result.effects.filter((e) => e.verdict === verdict).length] as const)
    .filter(([, n]) => n > 0)
    .map(([verdict, n]) => `${n} ${verdict}`)
    .join(', ');
  io.stderr.write(`${result.effects.length} completed job(s) made for a gap in ${displayText(result.destination)}: ${summary}\n`);
  if (output.saved !== undefined) io.stderr.write(`Verdicts written to the fix_effects table: ${output.saved.map(displayText).join(', ') || 'none'}\n`);
}

function label(verdict: Verdict | null): string {
  return verdict ?? 'not measured';
}
