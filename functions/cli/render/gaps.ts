/**
 * What `gaps` prints: the ranked gaps with their evidence and what was done about each on
 * stdout (`--json`: one JSON document), then summary lines on stderr (how many readers' words
 * were cut or cleaned and which gaps read like instructions, where the prompts went, what to do
 * next). Readers' words are shown through readerText (titles are made so); what the follow-up
 * records hold (ids, links) through displayText.
 */
import { reasonsText, SCOPE_LABEL } from '../../scope/summary.js';
import type { GapsResult } from '../../gaps/find.js';
import { FAILURES_RULE, type Gap, type GapRequest, SCORE_RULE } from '../../gaps/gaps.js';
import { checkEvidence, type EvidenceCheck, readersWordsNote } from '../../gaps/readers-words.js';
import { MAX_TOPICS } from '../../gaps/topics.js';
import { displayText } from '../../shared/display.js';
import { readerText } from '../../shared/reader-text.js';
import type { CliIo } from '../io.js';
import { writeJson } from './json.js';

export interface GapsOutput {
  readonly json: boolean;
  /** The `--prompts` file, when one was written. */
  readonly promptsFile?: string | undefined;
  /** Prompts written to it. */
  readonly written?: number | undefined;
}

/** Mark of a gap whose readers' words read like instructions, in the listing. */
const FLAG = '!';

export function printGaps(result: GapsResult, output: GapsOutput, io: Pick<CliIo, 'stdout' | 'stderr'>): void {
  const checks = new Map(result.gaps.map((gap) => [gap.gapId, checkEvidence(gap.evidence)]));
  const total = readersWordsTotal([...checks.values()]);
  if (output.json) {
    writeJson(io.stdout, {
      destination: result.destination,
      from: result.from,
      last: result.last,
      projects: result.projects,
      days: result.days,
      daysWithData: result.daysWithData,
      followUpStateRead: result.stateRead,
      unplacedQuestions: result.unplaced,
      readersWords: total,
      scoring: { score: SCORE_RULE, failures: FAILURES_RULE },
      gaps: result.gaps.map((gap) => ({ ...gap, readersWords: checks.get(gap.gapId) })),
      ...(output.promptsFile === undefined ? {} : { prompts: { file: output.promptsFile, written: output.written ?? 0 } }),
    });
  } else {
    io.stdout.write(
      `${result.gaps.length === 0 ? 'No gap' : `The ${result.gaps.length} most severe gap(s)`} in ${result.destination}, ${result.from} to ${result.last} (${result.projects.length} project(s); data on ${result.daysWithData} of ${result.days} day(s)); open gaps first\n`,
    );
    if (result.gaps.length > 0) io.stdout.write(`Score: ${SCORE_RULE} ("of N": N is ${FAILURES_RULE})\n`);
    for (const [i, gap] of result.gaps.entries()) io.stdout.write(gapLines(gap, i + 1, checks.get(gap.gapId)));
  }
  if (total.cut + total.cleaned + total.flagged > 0) {
    const note = readersWordsNote(total);
    io.stderr.write(
      `Readers' words: ${note === '' ? `${total.values} quotes from readers, none changed` : note}` +
        (total.flagged > 0 ? `; ${total.flagged} gap(s) read like instructions (marked ${FLAG}): read their prompts first` : '') +
        '\n',
    );
  }
  if (result.unplaced.questions > 0) {
    io.stderr.write(
      `Note: ${result.unplaced.questions} unanswered question(s) (${result.unplaced.unanswered} time(s)) fit no topic listed: no word to group them by, or fewer readers than the ${MAX_TOPICS} topics per project drawn\n`,
    );
  }
  if (!result.stateRead) {
    io.stderr.write('Note: the follow-up state was not read (an s3:// destination without FOLLOWUP_STATE_TABLE): only finished jobs mark their gaps\n');
  }
  if (output.promptsFile !== undefined) {
    const skipped = result.gaps.filter((gap) => !gap.promptable).length;
    const flagged = result.gaps.filter((gap) => gap.promptable && (checks.get(gap.gapId)?.flags.length ?? 0) > 0).length;
    io.stderr.write(
      `${output.written ?? 0} prompt(s) written to ${output.promptsFile}${skipped > 0 ? ` (${skipped} gap(s) left out: a job in flight or done)` : ''}; review them${flagged > 0 ? ` (${flagged} say their readers' words read like instructions: read those first)` : ''}, then: mintlify-exporter enqueue --queue-url URL --file ${output.promptsFile}\n`,
    );
  }
}

/** The counts of every listed gap: values, cut, cleaned, and gaps flagged. */
function readersWordsTotal(checks: readonly EvidenceCheck[]): { values: number; cut: number; cleaned: number; flagged: number } {
  return {
    values: checks.reduce((sum, c) => sum + c.values, 0),
    cut: checks.reduce((sum, c) => sum + c.cut, 0),
    cleaned: checks.reduce((sum, c) => sum + c.cleaned, 0),
    flagged: checks.filter((c) => c.flags.length > 0).length,
  };
}

function gapLines(gap: Gap, rank: number, check: EvidenceCheck | undefined): string {
  const flagged = check !== undefined && check.flags.length > 0;
  const lines = [
    `${String(rank).padStart(3)}. ${flagged ? `${FLAG} ` : ''}${gap.title} — ${displayText(gap.projectId)}, score ${gap.score}${gap.failures === gap.score ? '' : ` of ${gap.failures}`} [${gap.kind} ${gap.gapId}]`,
    `     ${gap.because}`,
  ];
  if (check !== undefined && (flagged || check.cut + check.cleaned > 0)) {
    const note = readersWordsNote(check);
    lines.push(`     ${flagged ? `${FLAG} reads like instructions (${check.flags.join(', ')})${note === '' ? '' : '; '}` : ''}${note}`);
  }
  const quotes = gap.evidence.kind === 'unanswered_topic' ? gap.evidence.examples : gap.evidence.kind === 'thumbs_down_page' ? gap.evidence.comments : [];
  const asked = gap.evidence.kind === 'unanswered_topic' ? (gap.evidence.asked ?? []) : [];
  for (const [i, text] of quotes.entries()) lines.push(`     “${readerText(text, LISTED_QUOTE)}”${(asked[i] ?? 0) > 1 ? ` (asked ${asked[i]}×)` : ''}`);
  const latest = gap.requests[0];
  if (latest) lines.push(`     ${requestLine(latest)}${gap.promptable ? ' — may be prompted again' : ''}`);
  return `${lines.join('\n')}\n`;
}

/** A quote in the listing, in characters (shorter than a prompt's: the listing is scanned, the prompt read). */
const LISTED_QUOTE = 120;

function requestLine(request: GapRequest): string {
  if (request.state === 'in_flight') return displayText(`job in flight (request ${request.requestId}${request.jobId ? `, job ${request.jobId}` : ''})`);
  const job = request.jobId ? `job ${request.jobId}` : 'no job';
  const scope =
    request.scope === undefined ? '' : `; ${SCOPE_LABEL[request.scope]}${request.scope === 'in_scope' ? '' : `: ${reasonsText(request.scopeReasons ?? [])}`}`;
  return displayText(`done: ${request.status ?? 'unknown'} (request ${request.requestId}, ${job}${request.prLink ? `, ${request.prLink}` : ''})${scope}`);
}
